"""Record ids and small whole numbers typed or sent as text.

Only ASCII digits are read (``str.isdigit`` also accepts "²" and "٥", which ``int`` then
refuses or reads), and a value must fit the id columns: INTEGER, 32 bits on PostgreSQL
(SQLite's hold 64). An id of 2**31 or more names no record on either database and is answered
as "not found", never by a database error (SQLite's OverflowError past 2**63, PostgreSQL's
"integer out of range" past 2**31).
"""

from __future__ import annotations

import re

from werkzeug.routing import IntegerConverter, Map

MAX_ID = 2**31 - 1
_DIGITS = re.compile(r"[0-9]{1,12}")


def parse_id(text: str) -> int | None:
    """A whole number from 0 to ``MAX_ID`` written in ASCII digits, else None."""
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if value <= MAX_ID else None


def parse_page(text: str) -> int:
    """A page number of a list: a bad one is the first page (the list keeps it in range)."""
    value = parse_id(text)
    return value if value is not None and value >= 1 else 1


class BoundedIntConverter(IntegerConverter):
    """``<int:…>`` that matches only ids an id column can hold (anything larger: 404)."""

    regex = r"[0-9]+"

    def __init__(self, url_map: Map, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(url_map, *args, **kwargs)  # type: ignore[arg-type]
