"""The files: the one reader of uploaded CSV files and the folder of stored files (the
documents of record themselves are in the archive package)."""
