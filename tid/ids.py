"""Record ids and small whole numbers typed or sent as text.

Only ASCII digits are read (``str.isdigit`` also accepts "²" and "٥", which ``int`` then
refuses or reads), and a value must fit the databases' 64-bit integers: an id of 2**63 or
more names no record, on SQLite or PostgreSQL, and is answered as "not found", never by a
database error.
"""

from __future__ import annotations

import re

from werkzeug.routing import IntegerConverter, Map

MAX_ID = 2**63 - 1
_DIGITS = re.compile(r"[0-9]{1,19}")


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
    """``<int:…>`` that matches only ids a 64-bit column can hold (anything larger: 404)."""

    regex = r"[0-9]+"

    def __init__(self, url_map: Map, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(url_map, *args, **kwargs)  # type: ignore[arg-type]
