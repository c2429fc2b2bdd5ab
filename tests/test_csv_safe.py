"""The CSV files' guard against formulas: whatever characters nobody sees stand in front of a
formula's sign (a byte order mark, the zero-width characters, the word joiner, any other
format character, white space), the cell is written with a leading ``'``; any other cell is
written as it is, and every cell reads back as written."""

from __future__ import annotations

import csv
import io
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid import csv_safe

SIGNS = ["=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20"]
# Named, so that the test does not lean on the module's own list.
INVISIBLE = [
    "\ufeff",  # byte order mark
    "\u200b",  # zero-width space
    "\u200c",  # zero-width non-joiner
    "\u200d",  # zero-width joiner
    "\u2060",  # word joiner
    "\u200e",  # left-to-right mark
    "\u200f",  # right-to-left mark
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u00ad",  # soft hyphen
    "\u180e",  # Mongolian vowel separator
    "\u3164",  # Hangul filler
    "\u115f",  # Hangul choseong filler
    " ",
    "\u00a0",  # no-break space
    "\u3000",  # ideographic space
    "\n",
]
text = st.text(st.characters(codec="utf-8"), max_size=30)


def _seen_by_a_spreadsheet(cell: str) -> str:
    """The cell as shown: what stands before its first character that shows (or a sign)."""
    start = 0
    while start < len(cell) and cell[start] not in SIGNS:
        char = cell[start]
        if not (unicodedata.category(char) == "Cf" or char.isspace() or char in INVISIBLE):
            break
        start += 1
    return cell[start:]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(INVISIBLE), min_size=1, max_size=5), st.sampled_from(SIGNS), text)
def test_a_sign_behind_invisible_characters_is_escaped(
    hidden: list[str], sign: str, rest: str
) -> None:
    value = "".join(hidden) + sign + rest
    assert csv_safe.text_cell(value) == "'" + value


@settings(max_examples=examples(300), deadline=None)
@given(text)
def test_no_cell_shows_a_formula_and_every_cell_reads_back(value: str) -> None:
    cell = csv_safe.text_cell(value)
    assert cell in (value, "'" + value)
    if _seen_by_a_spreadsheet(value).startswith(tuple(SIGNS)):
        assert cell == "'" + value
    assert not _seen_by_a_spreadsheet(cell).startswith(tuple(SIGNS))
    if value[:1].isalnum() or value == "":  # a cell that starts with what it shows: as typed
        assert cell == value
    body = csv_safe.write(["memo"], [[value]])
    (read,) = list(csv.reader(io.StringIO(body, newline="")))[1:]
    assert read == [cell]


def test_the_invisible_characters_named_are_escaped() -> None:
    for hidden in ("\ufeff", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff\u200b"):
        for sign in ("=", "+", "-", "@"):
            assert csv_safe.text_cell(f"{hidden}{sign}1+1") == f"'{hidden}{sign}1+1"
    assert csv_safe.text_cell("\u200bplain") == "\u200bplain"
    assert csv_safe.text_cell("a\u200b=1") == "a\u200b=1"
    assert csv_safe.number_cell("\ufeff-5") == "'\ufeff-5"  # not a number: text, escaped


def test_a_carriage_return_inside_a_cell_starts_no_row() -> None:
    body = csv_safe.write(["memo", "amount"], [["x\r=HYPERLINK(1)", "5"]], numbers={"amount"})
    assert body == 'memo,amount\n"x\r=HYPERLINK(1)",5\n'
    assert csv_safe.write(["memo"], [["a\nb"]], lineterminator="\r\n") == 'memo\r\n"a\nb"\r\n'
