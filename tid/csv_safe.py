"""CSV files the app writes, safe to open in a spreadsheet.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula (and a
tab or carriage return in front hides the same trick), so a name or memo typed by anyone
could run a command on the reader's machine. Each column of an export is declared text or
number: every text cell that starts with one of those characters is written with a leading
``'`` (shown as text, never run), whatever follows it; a number column is written as the
number it is. The decision is by column, never by what a cell looks like: ``-2+3`` in a
memo is text and is escaped.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection, Iterable, Sequence
from decimal import Decimal

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?", re.ASCII)


def text_cell(value: object) -> str:
    """A cell of a text column."""
    if value is None:
        return ""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def number_cell(value: object) -> str:
    """A cell of a number column: an int, a Decimal or the text of one, written as is.

    Anything else in a number column (a label, a programming slip) is written as text."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return text_cell(value)
    if isinstance(value, int | Decimal):
        return str(value)
    text = str(value)
    return text if _NUMBER.fullmatch(text) else text_cell(text)


def write(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    numbers: Collection[str] = (),
    lineterminator: str = "\n",
) -> str:
    """A CSV file: the header, then the rows; the columns named in ``numbers`` are number
    columns, all others text."""
    numeric = [name in numbers for name in header]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=lineterminator)
    writer.writerow([text_cell(name) for name in header])
    for row in rows:
        writer.writerow(
            [
                number_cell(value) if is_number else text_cell(value)
                for value, is_number in zip(row, numeric, strict=True)
            ]
        )
    return out.getvalue()
