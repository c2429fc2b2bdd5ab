"""``python -m tid.cli``: the command line ``tid``."""

from tid.cli import main

main()
