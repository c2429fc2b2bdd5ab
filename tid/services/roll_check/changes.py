"""The year's changes of a district's roll (tid/rules/roll_changes.py) worked out with the
impost of each year under the ordinance's formula (21 LPRA § 6653(3)(d)) and the total
against the ordinance's expected amount (§ 6653(3)(b)): for a file's preview (nothing
written) and at its import (recorded, an answer kept when a corrected file of the year shows
the same change again)."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from tid.models import Bill, BillLedger, Ordinance, Property, PropertyYear, RollChange
from tid.rules import periods
from tid.rules.errors import InputError
from tid.rules.imposts import Value, compile_formula, evaluate
from tid.rules.roll_changes import KINDS, Change, RollLine, compare, is_exempt
from tid.rules.vocab.roll_columns import count_columns, formula_columns
from tid.services import roll
from tid.services.audit_trail import audit
from tid.services.billing.amounts import ORDINANCE_AMOUNT_PARAMETER, _roll_properties
from tid.services.billing.ordinance_terms import ordinance_for
from tid.services.billing.parameters import parse_parameters
from tid.services.billing.run import active_run
from tid.services.roll_check import gate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Figured:
    """A change with the impost of each year (None: no ordinance, or the formula cannot be
    applied to that year's roll) and, for a property gone, what it still owes."""

    change: Change
    impost_before: Decimal | None
    impost_after: Decimal | None
    owed: Decimal | None = None


@dataclass(frozen=True)
class YearChanges:
    """The year's changes, counted by kind, with both years' totals under the formula."""

    fiscal_year: str
    last_year: str
    changes: tuple[Figured, ...]
    counts: dict[str, int]
    total_before: Decimal | None
    total_after: Decimal | None
    expected_amount: Decimal | None
    threshold_percent: int


def last_year_of(fiscal_year: str) -> str:
    return periods.FiscalYear(periods.parse_fiscal_year(fiscal_year).start_year - 1).label


def _line(number: str, values: Mapping[str, Any], attributes: Mapping[str, Decimal]) -> RollLine:
    owners = [values.get("owner_names") or "", values.get("owner_names_2") or ""]
    return RollLine(
        number=number,
        owner="; ".join(o for o in owners if o),
        address=str(values.get("physical_address") or ""),
        assessed_value=Decimal(values.get("assessed_value") or 0),
        use_class=str(values.get("use_class") or ""),
        rooms=values.get("rooms"),
        exempt=is_exempt(attributes),
    )


def year_lines(*, session: Session, district_id: int, fiscal_year: str) -> dict[str, RollLine]:
    """A year's roll (in it) as the check reads it, by cadastral number."""
    stmt = (
        sa_select(
            col(Property.cadastral_number),
            col(PropertyYear.owner_names),
            col(PropertyYear.physical_address),
            col(PropertyYear.assessed_value),
            col(PropertyYear.use_class),
            col(PropertyYear.rooms),
            col(PropertyYear.attributes),
        )
        .join(PropertyYear, col(PropertyYear.property_id) == col(Property.id))
        .where(
            col(PropertyYear.district_id) == district_id,
            col(PropertyYear.fiscal_year) == fiscal_year,
            col(PropertyYear.in_roll),
        )
    )
    lines: dict[str, RollLine] = {}
    parsed: dict[str, bool] = {}
    for number, owner, address, value, use, rooms, extra in session.execute(stmt):
        exempt = parsed.get(extra)
        if exempt is None:
            loaded = json.loads(extra or "{}")
            exempt = parsed[extra] = is_exempt({k: Decimal(v) for k, v in loaded.items()})
        lines[number] = RollLine(number, owner, address, value, use, rooms, exempt)
    return lines


def _ordinance(session: Session, district_id: int, fiscal_year: str) -> Ordinance | None:
    try:
        return ordinance_for(session=session, district_id=district_id, fiscal_year=fiscal_year)
    except InputError:
        return None


def imposts(
    ordinance: Ordinance | None,
    properties: Sequence[Mapping[str, Any]] | Callable[[Collection[str]], list[dict[str, Any]]],
    names: Iterable[str],
) -> dict[str, Decimal]:
    """Each property's impost by the ordinance's formula (by cadastral number); empty when
    there is no ordinance or its formula does not apply to this roll. ``properties`` may be
    a function of the attributes the formula reads, which gives the roll's properties."""
    if ordinance is None:
        return {}
    params: dict[str, Value] = dict(parse_parameters(json.loads(ordinance.parameters or "{}")))
    try:
        formula = compile_formula(
            ordinance.formula,
            parameters=[*params, ORDINANCE_AMOUNT_PARAMETER],
            attributes=sorted(names),
        )
        if ORDINANCE_AMOUNT_PARAMETER in formula.parameters:
            params[ORDINANCE_AMOUNT_PARAMETER] = ordinance.expected_amount
        if callable(properties):
            properties = properties(formula.attributes)
        if not properties:
            return {}
        result = evaluate(formula, properties, params)
    except (InputError, ValueError) as exc:
        log.info("the roll check's imposts: the formula does not apply: %s", exc)
        return {}
    lines = zip(properties, result.properties, strict=True)
    return {str(p["id"]): line.amount for p, line in lines}


def billed(*, session: Session, district_id: int, fiscal_year: str) -> dict[str, Decimal]:
    """What the year's active billing run billed each property (empty: not billed)."""
    run = active_run(session=session, district_id=district_id, fiscal_year=fiscal_year)
    if run is None:
        return {}
    stmt = (
        sa_select(col(Property.cadastral_number), col(Bill.amount))
        .join(Bill, col(Bill.property_id) == col(Property.id))
        .where(col(Bill.billing_run_id) == run.id)
    )
    return {number: amount for number, amount in session.execute(stmt)}


def last_imposts(*, session: Session, district_id: int, fiscal_year: str) -> dict[str, Decimal]:
    """Last year's impost of each property: what its billing run billed, else the formula's
    on its roll."""
    return billed(
        session=session, district_id=district_id, fiscal_year=fiscal_year
    ) or stored_imposts(session=session, district_id=district_id, fiscal_year=fiscal_year)


def stored_imposts(*, session: Session, district_id: int, fiscal_year: str) -> dict[str, Decimal]:
    """The impost of each property of a stored year's roll under its year's ordinance."""
    ordinance = _ordinance(session, district_id, fiscal_year)
    if ordinance is None:
        return {}
    names = roll.attribute_names(session=session, district_id=district_id, fiscal_year=fiscal_year)
    return imposts(
        ordinance,
        lambda used: _roll_properties(session, district_id, fiscal_year, used)[0],
        names,
    )


def _owed(session: Session, district_id: int, numbers: Iterable[str]) -> dict[str, Decimal]:
    """What each of these properties still owes on its bills."""
    wanted = list(numbers)
    if not wanted:
        return {}
    stmt = (
        sa_select(col(Property.cadastral_number), func.sum(col(BillLedger.receivable)))
        .select_from(Property)
        .join(Bill, col(Bill.property_id) == col(Property.id))
        .join(BillLedger, col(BillLedger.bill_id) == col(Bill.id))
        .where(col(Property.district_id) == district_id, col(Property.cadastral_number).in_(wanted))
        .group_by(Property.cadastral_number)
    )
    owed = {number: Decimal(total or 0) for number, total in session.execute(stmt)}
    return {number: owed.get(number, Decimal("0.00")) for number in wanted}


def _sum(amounts: Mapping[str, Decimal], numbers: Sequence[str]) -> Decimal | None:
    if not numbers or not amounts:
        return None
    return sum((amounts.get(n, Decimal(0)) for n in numbers), Decimal("0.00"))


def figured(
    *,
    session: Session,
    district_id: int,
    fiscal_year: str,
    this: Mapping[str, RollLine],
    this_imposts: Mapping[str, Decimal],
) -> YearChanges | None:
    """The year's changes against last year's roll (None: the district had no roll last
    year), each with both years' imposts."""
    last_fy = last_year_of(fiscal_year)
    last = year_lines(session=session, district_id=district_id, fiscal_year=last_fy)
    if not last:
        return None
    setting = gate.setting(session=session, district_id=district_id)
    changes = compare(last, this, threshold=setting.threshold)
    before = last_imposts(session=session, district_id=district_id, fiscal_year=last_fy)
    gone = [n for c in changes if c.kind == "gone" for n in c.numbers_before]
    owed = _owed(session, district_id, gone)
    rows = tuple(
        Figured(
            c,
            _sum(before, c.numbers_before),
            _sum(this_imposts, c.numbers_after),
            owed.get(c.numbers_before[0]) if c.kind == "gone" else None,
        )
        for c in changes
    )
    counts = dict.fromkeys(KINDS, 0)
    for c in changes:
        counts[c.kind] += 1
    ordinance = _ordinance(session, district_id, fiscal_year)
    return YearChanges(
        fiscal_year=fiscal_year,
        last_year=last_fy,
        changes=rows,
        counts=counts,
        total_before=sum(before.values(), Decimal("0.00")) if before else None,
        total_after=sum(this_imposts.values(), Decimal("0.00")) if this_imposts else None,
        expected_amount=ordinance.expected_amount if ordinance else None,
        threshold_percent=setting.percent,
    )


def _file_names(rows: Sequence[roll.RollRow]) -> set[str]:
    """The names a formula may read on a file's rows: the standard ones and its extras."""
    names = set(formula_columns())
    for row in rows:
        names.update(row.attributes)
    return names


def _file_properties(rows: Sequence[roll.RollRow], used: Collection[str]) -> list[dict[str, Any]]:
    """A file's rows as a formula reads them, with only the attributes it ``used`` (an empty
    count is 0, as billing reads it)."""
    standard = [name for name in formula_columns() if name in used]
    counts = set(count_columns())
    extras = [name for name in used if name not in standard]
    zero = Decimal(0)
    properties = []
    for row in rows:
        item: dict[str, Any] = {"id": row.cadastral_number}
        columns = row.columns
        for name in standard:
            value = columns.get(name)
            if value is None:
                if name in counts:
                    item[name] = zero
            else:
                item[name] = Decimal(value) if isinstance(value, int) else value
        for name in extras:
            if name in row.attributes:
                item[name] = row.attributes[name]
        properties.append(item)
    return properties


def of_preview(*, session: Session, preview: roll.RollPreview) -> YearChanges | None:
    """The changes a checked file would bring (nothing written)."""
    if preview.parsed.findings:
        return None
    rows = preview.parsed.rows
    this = {r.cadastral_number: _line(r.cadastral_number, r.columns, r.attributes) for r in rows}
    ordinance = _ordinance(session, preview.district_id, preview.fiscal_year)
    return figured(
        session=session,
        district_id=preview.district_id,
        fiscal_year=preview.fiscal_year,
        this=this,
        this_imposts=imposts(
            ordinance, lambda used: _file_properties(rows, used), _file_names(rows)
        ),
    )


def with_changes(*, session: Session, preview: roll.RollPreview) -> roll.RollPreview:
    """The preview with the year's changes added (``preview.changes``)."""
    return dataclasses.replace(preview, changes=of_preview(session=session, preview=preview))


def _json(values: Any) -> str:
    return json.dumps(values, ensure_ascii=False, sort_keys=True)


def record(
    *, session: Session, actor: audit.Actor, district_id: int, fiscal_year: str, roll_import_id: int
) -> YearChanges | None:
    """Record the year's changes after its roll was imported. A change already recorded (the
    same kind and numbers) keeps its answer and takes the new figures; an open one no longer
    found goes, an answered one is kept as withdrawn."""
    this = year_lines(session=session, district_id=district_id, fiscal_year=fiscal_year)
    found = figured(
        session=session,
        district_id=district_id,
        fiscal_year=fiscal_year,
        this=this,
        this_imposts=stored_imposts(
            session=session, district_id=district_id, fiscal_year=fiscal_year
        ),
    )
    stored = {
        (c.kind, c.numbers_before, c.numbers_after): c
        for c in session.exec(
            select(RollChange).where(
                RollChange.district_id == district_id, RollChange.fiscal_year == fiscal_year
            )
        )
    }
    seen: set[int] = set()
    for item in found.changes if found else ():
        c = item.change
        key = (c.kind, _json(list(c.numbers_before)), _json(list(c.numbers_after)))
        row = stored.get(key)
        if row is None:
            row = RollChange(
                district_id=district_id,
                fiscal_year=fiscal_year,
                kind=c.kind,
                number=(c.numbers_after or c.numbers_before)[0],
                numbers_before=key[1],
                numbers_after=key[2],
                roll_import_id=roll_import_id,
            )
        else:
            seen.add(row.id or 0)
            if row.status == gate.WITHDRAWN:
                row.status = gate.OPEN
        row.before, row.after = _json(c.before), _json(c.after)
        row.impost_before, row.impost_after, row.owed = (
            item.impost_before,
            item.impost_after,
            item.owed,
        )
        session.add(row)
    for row in stored.values():
        if row.id not in seen:
            if row.status == gate.OPEN:
                session.delete(row)
            elif row.status != gate.WITHDRAWN:
                row.status = gate.WITHDRAWN
                session.add(row)
    session.flush()
    if found is not None:
        audit.record(
            session=session,
            actor=actor,
            action="roll_check.record",
            entity=("roll_import", roll_import_id),
            after={"district_id": district_id, "fiscal_year": fiscal_year, **found.counts},
        )
    return found


def import_roll(*, session: Session, actor: audit.Actor, **upload: Any) -> roll.RollImportResult:
    """Import a roll file (:func:`tid.services.roll.import_roll`) and record the year's
    changes against last year's roll."""
    result = roll.import_roll(session=session, actor=actor, **upload)
    if not result.unchanged:
        record(
            session=session,
            actor=actor,
            district_id=result.roll_import.district_id,
            fiscal_year=result.roll_import.fiscal_year,
            roll_import_id=result.roll_import.id or 0,
        )
    return result
