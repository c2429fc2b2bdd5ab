"""The liens on a property (21 LPRA § 6653(8)): the impost lien with delinquency and its late
charges, and the register of the other liens it ranks with."""
