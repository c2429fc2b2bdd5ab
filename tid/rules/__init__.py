"""The pure computation core: the statutes as functions of dated parameters.

Standard library plus the ``holidays`` package only: no web, no database, no clock (today
is always an argument), no file reads at import time.
"""
