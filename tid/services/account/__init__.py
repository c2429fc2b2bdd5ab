"""The special account as people work it (21 LPRA § 6653(6)): payments in, expenditures out,
the locked years, the yearly statement, its check from the journal, and what its pages and
documents read. The journal itself is :mod:`tid.services.ledger`."""
