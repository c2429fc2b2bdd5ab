"""Moving in: a district that already collected under earlier books brings its opening
position as of a cut-over day — the special account's bank balance, every open bill (with
the notice it was mailed under and the late charges accrued), the owners' credits, the liens
recorded on its properties and the totals of its earlier fiscal years — from CSV files
(docs/moving-in.md), checked row by row, its totals confirmed by the association against
its trial balance, then booked all at once as ``opening`` entries dated the cut-over day.

- ``position_files``: which file is which, their columns in Spanish and English, each cell read;
- ``file_checks``: the rows checked against the district (roll, ordinance's term, duplicates),
  the totals to confirm, and whether the account may take them;
- ``booking``: the confirmed position booked, once;
- ``kept_uploads``: the files kept between their preview and their booking on the web;
- ``reversal``: a position found wrong reversed as one, so that a corrected one can follow.
"""

from __future__ import annotations

from tid.services.aboard.booking import (
    Booked,
    book_position,
    confirmation_problems,
    parse_confirmation,
)
from tid.services.aboard.file_checks import (
    BOOKED,
    BUSINESS_BOOKED,
    READY,
    REFUSED,
    Preview,
    Totals,
    check_position,
)
from tid.services.aboard.kept_uploads import (
    delete_files,
    files_of,
    load_files,
    load_preview,
    opened_runs,
    position_of,
    reversed_positions,
    size_of,
    store_files,
    store_preview,
    totals_of,
)
from tid.services.aboard.position_files import (
    COLUMNS,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    FILE_LABELS,
    FILE_NAMES,
    REQUIRED_FILES,
    kind_of,
)
from tid.services.aboard.reversal import Reversed, blockers, reverse_position

__all__ = [
    "BOOKED",
    "BUSINESS_BOOKED",
    "COLUMNS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ROWS",
    "FILE_LABELS",
    "FILE_NAMES",
    "READY",
    "REFUSED",
    "REQUIRED_FILES",
    "Booked",
    "Preview",
    "Reversed",
    "Totals",
    "blockers",
    "book_position",
    "check_position",
    "confirmation_problems",
    "delete_files",
    "files_of",
    "kind_of",
    "load_files",
    "load_preview",
    "opened_runs",
    "parse_confirmation",
    "position_of",
    "reverse_position",
    "reversed_positions",
    "size_of",
    "store_files",
    "store_preview",
    "totals_of",
]
