"""The owners (21 LPRA § 6653(5)): the portal their notice opens, their account there, the
address they confirm and what goes to it."""
