"""CSV files the app writes, safe to open in a spreadsheet.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula (and a
tab or carriage return in front hides the same trick), so a name or memo typed by anyone
could run a command on the reader's machine. Characters nobody sees in front of it hide it
too — a byte order mark (U+FEFF), a zero-width space, joiner or non-joiner (U+200B–U+200D),
a word joiner (U+2060), any other invisible format character (Unicode's category Cf: the
direction marks, the soft hyphen…), the blank fillers (U+115F, U+1160, U+3164, U+FFA0) and
white space — as does the full-width form of a sign (``＝``, ``＋``, ``－``, ``＠``), which
some spreadsheets read as the sign. Each column of an export is declared text or number:
every text cell that starts with one of those characters, after any of the invisible ones,
is written with a leading ``'`` (shown as text, never run), whatever follows it; a number
column is written as the number it is. The decision is by column, never by what a cell
looks like: ``-2+3`` in a memo is text and is escaped.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from decimal import Decimal

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Shown as nothing, though not of category Cf: the combining grapheme joiner, the Hangul and
# half-width fillers, the Khmer inherent vowels.
_BLANK = frozenset("\u034f\u115f\u1160\u3164\uffa0\u17b4\u17b5")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?", re.ASCII)


def invisible(char: str) -> bool:
    """Whether a character shows nothing in a cell: a format character, a filler or space."""
    return char in _BLANK or char.isspace() or unicodedata.category(char) == "Cf"


def runs_as_formula(text: str) -> bool:
    """Whether a spreadsheet could run the text as a formula: a sign of one at its start, or
    behind characters that show nothing."""
    start = 0
    while start < len(text) and text[start] not in FORMULA_START and invisible(text[start]):
        start += 1
    return text.startswith(FORMULA_START, start)


def text_cell(value: object) -> str:
    """A cell of a text column."""
    if value is None:
        return ""
    text = str(value)
    return "'" + text if runs_as_formula(text) else text


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
    # Rows end in CR LF as written, so that the writer quotes a cell holding either: a bare
    # CR left unquoted would start a new row in a spreadsheet, its first cell unescaped.
    line = io.StringIO()
    writer = csv.writer(line, lineterminator="\r\n")

    def put(cells: list[str]) -> None:
        line.seek(0)
        line.truncate()
        writer.writerow(cells)
        out.write(line.getvalue()[:-2] + lineterminator)

    put([text_cell(name) for name in header])
    for row in rows:
        put(
            [
                number_cell(value) if is_number else text_cell(value)
                for value, is_number in zip(row, numeric, strict=True)
            ]
        )
    return out.getvalue()
