"""The roll a study is tried on: a district's roll of a fiscal year, read as a billing run
reads it (one query of only the columns the formulas use, plus the class and the assessed
value), or a roll file uploaded for the study, read and checked as the roll import reads it
(nothing is imported: the file's rows become the formula's properties as the roll would
store them, so the amounts are those billing would give once it is imported)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from tid.models import District, Property, PropertyYear
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.messages import Message
from tid.rules.money import ZERO, to_cents
from tid.rules.vocab.roll_columns import COUNT, MONEY, QUANTITY, ROLL_COLUMNS, formula_columns
from tid.services.billing.amounts import _roll_properties
from tid.services.roll import attribute_names, parse_roll
from tid.services.roll.rows import RollRow
from tid.services.studio.analysis import StudyRoll

# What a study's pages always show: the class and the assessed value of each property.
ALWAYS = ("use_class", "assessed_value")
SCALE = 10_000  # a quantity's places as the roll stores them (tid.models.Quantity)
FINDINGS_SHOWN = 20


def district_roll(
    *, session: Session, district_id: int, fiscal_year: str, used: Collection[str]
) -> StudyRoll:
    """The district's roll of ``fiscal_year`` with the attributes ``used`` by the formulas
    (and the class and assessed value): the billing run's reading of the roll."""
    if session.get(District, district_id) is None:
        raise InputError("source", N_("There is no such district."))
    names = attribute_names(session=session, district_id=district_id, fiscal_year=fiscal_year)
    wanted = {*ALWAYS, *(n for n in used if n in names)}
    properties, _ids = _roll_properties(session, district_id, fiscal_year, wanted)
    if not properties:
        raise InputError(
            "source", N_("There is no roll for this fiscal year: import the roll first.")
        )
    return StudyRoll(
        properties=properties,
        classes=[str(p.get("use_class", "")) for p in properties],
        assessed=[p.get("assessed_value", ZERO) for p in properties],
        attributes=names,
        owners={},
    )


def roll_owners(
    *, session: Session, district_id: int, fiscal_year: str, cadastral: Sequence[str]
) -> dict[str, str]:
    """The owners of the roll's properties ``cadastral`` (those a page shows)."""
    if not cadastral:
        return {}
    stmt = (
        select(Property.cadastral_number, PropertyYear.owner_names)  # type: ignore[call-overload]
        .join(PropertyYear, PropertyYear.property_id == Property.id)
        .where(
            Property.district_id == district_id,
            PropertyYear.fiscal_year == fiscal_year,
            Property.cadastral_number.in_(sorted(set(cadastral))),  # type: ignore[attr-defined]
        )
    )
    return {number: owners for number, owners in session.execute(stmt)}


def _finding_text(finding: Finding) -> str:
    extra = finding.extra or {}
    msgid = extra.get("msgid")
    said = Message(msgid, **extra.get("params", {})) if msgid else finding.message
    if finding.row is None:
        return said
    return Message(
        "Row %(row)s, column %(column)s: %(problem)s",
        row=finding.row,
        column=extra.get("column") or "—",
        problem=said,
    )


def _as_stored(row: RollRow) -> dict[str, Any]:
    """A file's row as the formula reads it once the roll stores it: money in cents, a
    quantity in ten-thousandths, an empty count as 0, the extras as decimals."""
    item: dict[str, Any] = {"id": row.cadastral_number}
    columns = row.columns
    for code in formula_columns():
        value = columns.get(code)
        kind = ROLL_COLUMNS[code].kind
        if kind == MONEY:
            item[code] = Decimal(to_cents(value or ZERO)).scaleb(-2)
        elif kind == QUANTITY:
            if value is not None:
                item[code] = Decimal(int(Decimal(value) * SCALE)) / SCALE
        elif kind == COUNT:
            item[code] = ZERO if value is None else Decimal(int(value))
        else:
            item[code] = value or ""
    for name, value in row.attributes.items():
        item[name] = Decimal(str(value))  # as the roll keeps an extra column (its text)
    return item


def file_roll(data: bytes) -> StudyRoll:
    """A roll file read and checked as the roll import reads it; every bad row is an error
    of the form's file field (the first twenty said, with their row and column)."""
    try:
        parsed = parse_roll(data)
    except InputError as exc:  # too large, empty, not CSV, a required column missing
        raise InputError("file", exc.message) from None
    if parsed.findings:
        shown = [Finding("file", _finding_text(f)) for f in parsed.findings[:FINDINGS_SHOWN]]
        if len(parsed.findings) > FINDINGS_SHOWN:
            shown.append(
                Finding(
                    "file",
                    Message(
                        "… and %(count)s more problems in the file.",
                        count=len(parsed.findings) - FINDINGS_SHOWN,
                    ),
                )
            )
        raise FindingsError(shown)
    rows = sorted(parsed.rows, key=lambda r: r.cadastral_number)
    properties = [_as_stored(r) for r in rows]
    names = set(formula_columns())
    for row in rows:
        names.update(row.attributes)
    return StudyRoll(
        properties=properties,
        classes=[str(p.get("use_class", "")) for p in properties],
        assessed=[p.get("assessed_value", ZERO) for p in properties],
        attributes=sorted(names),
        owners={r.cadastral_number: str(r.columns.get("owner_names", "")) for r in rows},
    )
