"""The roll's cells: what users call each column (the vocabulary's roll columns,
tid/rules/vocab/roll_columns.py, hold the columns, their header names in Spanish and English,
types and limits) and each encoding, and the shapes of a cadastral number, a ZIP code and a
number as a roll writes it.
"""

from __future__ import annotations

import re
from decimal import Decimal

from tid.rules.messages import Message
from tid.rules.vocab import ROLL_COLUMNS, RollColumn
from tid.rules.vocab.roll_columns import formula_columns
from tid.services.files.csvfile import ENCODING_LABELS

# A CRIM cadastral number: NNN-NNN-NNN-NN, and for a unit of a condominium a -NNN suffix.
CADASTRAL = re.compile(r"^\d{3}-\d{3}-\d{3}-\d{2}(?:-\d{3})?$", re.ASCII)
ZIP = re.compile(r"^\d{5}(?:-\d{4})?$", re.ASCII)
ATTRIBUTE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
# A cell starting with these is run as a formula by spreadsheets (CSV injection); a tab or a
# carriage return at the start is the same trick hidden.
INJECTION_START = ("=", "+", "-", "@", "\t", "\r")
QUANTITY_PLACES = Decimal("0.0001")
# A number as a roll writes it: "1234.50", "1,234.50", "$1,234.50", "-5" (refused later).
NUMBER = re.compile(r"^\$?(-)?\$?((?:\d{1,3}(?:,\d{3})+)|\d+)(?:\.(\d+))?$", re.ASCII)


def column_label(target: str) -> str:
    """A column of the roll by its label; ``attribute:x`` as the formula attribute x."""
    if target in ROLL_COLUMNS:
        return ROLL_COLUMNS.label(target)
    if target.startswith("attribute:"):
        return Message(
            "Attribute for the formula: %(name)s", name=target.removeprefix("attribute:")
        )
    return target


def missing_columns(field: str) -> list[tuple[str, tuple[str, ...]]]:
    """The required columns a refused file lacks (``field``: their codes, comma-separated,
    as the refusal names them), each by its label with the headers that name it in a file."""
    return [
        (column_label(code), ROLL_COLUMNS[code].headers)
        for code in field.split(",")
        if code in ROLL_COLUMNS
    ]


def figure_columns() -> tuple[RollColumn, ...]:
    """The property's figures, as its page shows them: the columns a formula may use."""
    return tuple(ROLL_COLUMNS[code] for code in formula_columns())


def encoding_label(encoding: str) -> str:
    return Message(ENCODING_LABELS[encoding]) if encoding in ENCODING_LABELS else encoding
