"""The audit trail: every write that matters leaves an event, read back in words, naming each
record as people call it."""
