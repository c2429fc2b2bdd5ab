"""One row of a roll file checked: each cell in the file's order (text within its limit,
numbers non-negative with at most four decimals, no cell a spreadsheet would run as a
formula), then the columns every row needs (cadastral number, owner, mailing address, ZIP
code, assessed value), each problem a finding with its row and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tid.rules.errors import N_, Finding
from tid.rules.money import CENT
from tid.rules.vocab.roll_columns import (
    MONEY,
    ROLL_COLUMNS,
    count_columns,
    numeric_columns,
    text_columns,
    text_limits,
    year_columns,
)
from tid.services.roll.columns import CADASTRAL, INJECTION_START, NUMBER, QUANTITY_PLACES, ZIP


@dataclass(frozen=True)
class RollRow:
    """One good row of the file, parsed: its cadastral number and the columns of a
    ``PropertyYear`` (tid/rules/vocab/roll_columns.py), each also read as an attribute
    (``row.owner_names``)."""

    row: int  # 1 is the header
    cadastral_number: str
    columns: Mapping[str, Any]
    attributes: dict[str, Decimal]

    def __getattr__(self, name: str) -> Any:
        columns = self.__dict__.get("columns")
        if columns is None or name not in columns:
            raise AttributeError(name)
        return columns[name]

    def values(self) -> dict[str, Any]:
        """The columns of a PropertyYear (without ids)."""
        return {**self.columns, "attributes": attributes_json(self.attributes)}


def row_finding(row: int, column: str, msgid: str, value: str = "", **params: Any) -> Finding:
    message = msgid % params if params else msgid
    return Finding(
        field=column,
        message=message,
        row=row,
        extra={"column": column, "value": value[:80], "msgid": msgid, "params": params},
    )


_TEXT, _NUMERIC, _ATTRIBUTE, _IGNORED = 0, 1, 2, 3


def column_plan(
    header: Sequence[str], targets: Sequence[str], ignored: Sequence[str]
) -> list[tuple[int, str, str, int]]:
    """For each used column: (index, name as written, target, kind), worked out once."""
    plan = []
    for index, target in enumerate(targets):
        if not target:
            continue
        column = header[index].strip().lstrip("\ufeff")
        if column in ignored:
            kind = _IGNORED
        elif target in ROLL_COLUMNS and not ROLL_COLUMNS[target].numeric:
            kind = _TEXT
        elif target.startswith("attribute:"):
            kind = _ATTRIBUTE
        else:
            kind = _NUMERIC
        plan.append((index, column, target.removeprefix("attribute:"), kind))
    return plan


def parse_row(
    number: int,
    width: int,
    plan: Sequence[tuple[int, str, str, int]],
    cells: Sequence[str],
    findings: list[Finding],
    column_of: Mapping[str, str],
) -> RollRow | None:
    """Row ``number`` of the file checked: its cells in the file's order, then the columns
    every row needs; None (and its findings added) when anything is wrong."""
    before = len(findings)
    if len(cells) > width and any(c.strip() for c in cells[width:]):
        findings.append(
            row_finding(number, "", N_("This row has more cells than the header has columns."))
        )
    text, numbers, attributes = _read_cells(number, plan, cells, findings)
    # A cell already refused (a formula, too long) is not reported missing as well.
    refused = {f.field for f in findings[before:]}
    owners, state = _check_address(number, text, refused, findings, column_of)
    _check_amounts(number, numbers, findings, before, column_of)
    if len(findings) > before:
        return None
    values: dict[str, Any] = {**text, **numbers}
    values.update(
        owner_names=owners[: ROLL_COLUMNS["owner_names"].limit],
        mailing_state=state,
        use_class=text["use_class"].lower(),
    )
    for code in count_columns():
        if values[code] is not None:
            values[code] = int(values[code])
    return RollRow(
        row=number,
        cadastral_number=text["cadastral_number"],
        columns={code: values[code] for code in year_columns()},
        attributes=attributes,
    )


def _read_cells(
    number: int,
    plan: Sequence[tuple[int, str, str, int]],
    cells: Sequence[str],
    findings: list[Finding],
) -> tuple[dict[str, str], dict[str, Decimal | None], dict[str, Decimal]]:
    """Each used column's cell in the file's order: (texts, numbers, extra attributes)."""
    text: dict[str, str] = dict.fromkeys(text_columns(), "")
    numbers: dict[str, Decimal | None] = dict.fromkeys(numeric_columns())
    limits = text_limits()
    attributes: dict[str, Decimal] = {}
    count = len(cells)
    for index, column, target, kind in plan:
        raw = cells[index] if index < count else ""
        cell = raw.strip()
        if kind in (_TEXT, _IGNORED):
            if cell.startswith(INJECTION_START) or raw.startswith(INJECTION_START):
                findings.append(_injection(number, column, raw))
                continue
            if kind == _IGNORED:
                continue
            if len(cell) > limits[target]:
                findings.append(
                    row_finding(
                        number,
                        column,
                        N_("This text is longer than %(limit)s characters."),
                        cell,
                        limit=limits[target],
                    )
                )
                continue
            text[target] = " ".join(cell.split())  # no-break spaces, tabs, doubles: one space
            continue
        value = _number(number, column, target, cell, findings)
        if kind == _ATTRIBUTE:
            if value is not None:
                attributes[target] = value
        else:
            numbers[target] = value
    return text, numbers, attributes


def _check_address(
    number: int,
    text: Mapping[str, str],
    refused: set[str],
    findings: list[Finding],
    column_of: Mapping[str, str],
) -> tuple[str, str]:
    """The cadastral number, the owner and the mailing address the notice needs; returns
    the owners joined and the state (PR when none is written)."""
    cadastral = text["cadastral_number"]
    cadastral_column = column_of.get("cadastral_number", "cadastral_number")
    if cadastral_column in refused:
        pass
    elif not cadastral:
        findings.append(
            row_finding(number, cadastral_column, N_("The cadastral number is missing."))
        )
    elif not CADASTRAL.match(cadastral):
        findings.append(
            row_finding(
                number,
                cadastral_column,
                N_("A cadastral number is written NNN-NNN-NNN-NN, optionally with -NNN."),
                cadastral,
            )
        )
    owners = "; ".join(o for o in (text["owner_names"], text["owner_names_2"]) if o)
    if not owners and column_of.get("owner_names", "owner_names") not in refused:
        findings.append(
            row_finding(
                number, column_of.get("owner_names", "owner_names"), N_("The owner is missing.")
            )
        )
    if not text["mailing_line1"] and column_of.get("mailing_line1", "mailing_line1") not in refused:
        findings.append(
            row_finding(
                number,
                column_of.get("mailing_line1", "mailing_line1"),
                N_("The owner's mailing address is missing: the certified-mail notice needs it."),
            )
        )
    zip_code = text["mailing_zip"]
    zip_column = column_of.get("mailing_zip", "mailing_zip")
    if zip_column not in refused:
        if not zip_code:
            findings.append(
                row_finding(
                    number, zip_column, N_("The ZIP code of the mailing address is missing.")
                )
            )
        elif not ZIP.match(zip_code):
            findings.append(
                row_finding(
                    number, zip_column, N_("A ZIP code is written 00901 or 00901-1234."), zip_code
                )
            )
    state = (text["mailing_state"] or "PR").upper()
    if not re.fullmatch(r"[A-Z]{2}", state):
        findings.append(
            row_finding(
                number,
                column_of.get("mailing_state", "mailing_state"),
                N_("A state is written with its two letters, like PR."),
                text["mailing_state"],
            )
        )
    return owners, state


def _check_amounts(
    number: int,
    numbers: Mapping[str, Decimal | None],
    findings: list[Finding],
    before: int,
    column_of: Mapping[str, str],
) -> None:
    """The assessed value (required, in cents) and the rooms (a whole number)."""
    assessed = numbers["assessed_value"]
    assessed_column = column_of.get("assessed_value", "assessed_value")
    if assessed is None and not any(
        f.row == number and f.field == assessed_column for f in findings[before:]
    ):
        findings.append(row_finding(number, assessed_column, N_("The assessed value is missing.")))
    if assessed is not None and assessed != assessed.quantize(CENT):
        findings.append(
            row_finding(
                number,
                assessed_column,
                N_("An amount of money has at most two decimals."),
                str(assessed),
            )
        )
    rooms = numbers["rooms"]
    if rooms is not None and rooms != rooms.to_integral_value():
        findings.append(
            row_finding(
                number,
                column_of.get("rooms", "rooms"),
                N_("The number of rooms is a whole number."),
                str(rooms),
            )
        )


def _injection(row: int, column: str, cell: str) -> Finding:
    return row_finding(
        row,
        column,
        N_(
            "This cell starts with %(char)s, which a spreadsheet would run as a formula; "
            "the roll refuses it. Remove the sign or put the text in other words."
        ),
        cell,
        char=repr(cell[:1]) if cell else "'\\t'",
    )


def _number(
    row: int, column: str, target: str, cell: str, findings: list[Finding]
) -> Decimal | None:
    """A non-negative number, or None for an empty cell; a finding otherwise."""
    if not cell:
        return None
    text = cell.replace(" ", "")
    match = NUMBER.match(text)
    if match is None:
        if cell.startswith(INJECTION_START):
            findings.append(_injection(row, column, cell))
        else:
            findings.append(row_finding(row, column, N_("This is not a number."), cell))
        return None
    sign, whole, frac = match.groups()
    value = Decimal(f"{whole.replace(',', '')}.{frac or '0'}")
    if sign:
        findings.append(row_finding(row, column, N_("A negative value is not allowed here."), cell))
        return None
    spec = ROLL_COLUMNS.get(target)
    money = spec is not None and spec.kind == MONEY
    if not money and value != value.quantize(QUANTITY_PLACES):
        findings.append(
            row_finding(row, column, N_("This number has more than four decimals."), cell)
        )
        return None
    if len(whole.replace(",", "")) > 12:
        findings.append(row_finding(row, column, N_("This number is too large."), cell))
        return None
    if money:
        return value
    return value.normalize() if value == value.to_integral_value() else value


def attributes_json(attributes: Mapping[str, Decimal]) -> str:
    return json.dumps({k: str(v) for k, v in sorted(attributes.items())}, sort_keys=True)
