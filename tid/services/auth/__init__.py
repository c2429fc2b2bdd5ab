"""Who may do what: the accounts and their passwords, sign-in with its two factors and its
waits, and the one access policy of the app."""
