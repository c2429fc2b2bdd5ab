"""The closing of a property's sale (21 LPRA § 6653(8)): the payoff quote, the documents issued
about the property with their verification codes, the release of the lien, and the change of
owner."""
