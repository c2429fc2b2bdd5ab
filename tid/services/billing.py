"""The yearly billing run — 21 LPRA § 6653(3)(b), (3)(d), (5).

The ordinance states "the formula to calculate the amount to be paid annually by each real
property within the district" (§ 6653(3)(d)) and "the amount of funds expected to be
collected" (§ 6653(3)(b)); the association notifies every owner of "the amount to be paid
… for such year, as well as their due date" (§ 6653(5)). A billing run applies the formula,
compiled once, to every property of one fiscal year's roll and writes one bill each:

- all or nothing: the caller commits once; a formula that fails on one property names it
  and nothing is written;
- idempotent: the run's fingerprint is the SHA-256 of the formula, its parameters and every
  bill (property, amount, explanation); running the same year again with the same roll,
  formula and parameters (and no new due date) changes nothing and says so;
- a corrected run (another formula, other parameters, a corrected roll, another due date)
  supersedes the active run of the year: the old run and its bills are marked superseded,
  each old bill pointing to the bill that replaced it; nothing is deleted or rewritten. Old
  bills already mailed are counted: their owners need a corrected notice;
- the total is shown against the ordinance's expected amount, with the difference.

The due date (the statute leaves it to the ordinance and the association): the association
sets it when it runs the bill; by default 60 days after the run date (``DEFAULT_DUE_DAYS``, a
choice of this project). It may not be earlier than the end of the 30-day certified-mail
period counted from the run date (§ 6653(5)'s period, counted per 1 LPRA § 72), nor, for
an ordinance the association received, earlier than the end of that first 30-day notice
period: an owner cannot owe before the notice could lawfully reach them. A rerun without a
due date keeps the active run's due date.

Bills are written with SQLAlchemy Core ``executemany`` of plain dicts (integer cents
precomputed), not one ORM object per bill: a district of 100,000 parcels bills in seconds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import BigInteger, Column, MetaData, Table, func, insert, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import aliased
from sqlmodel import Session, col
from sqlmodel import select as sm_select

from tid.clock import utcnow
from tid.models import (
    Bill,
    BillingRun,
    BillingRunStatus,
    BillStatus,
    District,
    Money,
    Ordinance,
    Property,
    PropertyYear,
    Quantity,
)
from tid.rules import calendar, messages, periods
from tid.rules.errors import N_, InputError
from tid.rules.imposts import PropertyImpost, Value, compile_formula, evaluate
from tid.rules.messages import Message
from tid.rules.money import ZERO, money_str, parse_decimal, to_cents
from tid.services import audit, ledger
from tid.services.paging import PER_PAGE, PageInfo, cadastral_or_owner, page_info
from tid.services.roll import attribute_names

if TYPE_CHECKING:
    from tid.rules.imposts.evaluation import ImpostResult
    from tid.rules.imposts.tree import Formula

CITATION_FORMULA = "21 LPRA § 6653(3)(d)"
CITATION_EXPECTED = "21 LPRA § 6653(3)(b)"
DEFAULT_DUE_DAYS = 60  # the project's default; the association may set another due date
MAX_PARAMETERS = 40
ORDINANCE_AMOUNT_PARAMETER = "expected_amount"


def _plain_table(model: Any) -> Table:
    """The model's table with money as plain integer cents (quantities as integer
    ten-thousandths), for bulk reads and inserts that bypass the per-value conversion."""
    source: Table = model.__table__
    columns = [
        Column(
            c.name,
            BigInteger() if isinstance(c.type, Money | Quantity) else c.type,
            primary_key=c.primary_key,
        )
        for c in source.columns
    ]
    return Table(source.name, MetaData(), *columns)


_BILL_ROWS = _plain_table(Bill)
_YEAR_ROWS = _plain_table(PropertyYear)


@dataclass(frozen=True)
class BillingResult:
    """What a billing run did (or found already done)."""

    run: BillingRun
    unchanged: bool  # the same bills were already active: nothing written
    superseded: BillingRun | None  # the run this one replaced
    superseded_bills: int
    mailed_superseded: int  # superseded bills already mailed: owners needing a corrected notice
    total: Decimal
    expected_amount: Decimal
    difference: Decimal  # total − expected amount
    warnings: tuple[str, ...]


# --------------------------------------------------------------------------- the ordinance


def ordinance_term(ordinance: Ordinance) -> tuple[periods.FiscalYear, periods.FiscalYear]:
    """The first and last fiscal years of the ordinance's term (§ 6653(3)(c)): counted from
    the fiscal year of the mayor's approval, ``term_years`` fiscal years in all."""
    if ordinance.approved_on is None:
        raise InputError("ordinance", N_("The mayor has not approved this ordinance."))
    first = periods.fiscal_year_of(ordinance.approved_on)
    return first, periods.FiscalYear(first.start_year + max(ordinance.term_years, 1) - 1)


def ordinance_for(
    session: Session, district_id: int, fiscal_year: str, ordinance_id: int | None = None
) -> Ordinance:
    """The district's approved ordinance whose term includes the fiscal year (the latest
    approved one when several do); ``InputError`` when there is none."""
    fy = periods.parse_fiscal_year(fiscal_year)
    if ordinance_id is not None:
        ordinance = session.get(Ordinance, ordinance_id)
        if ordinance is None or ordinance.district_id != district_id:
            raise InputError("ordinance", N_("This ordinance is not of this district."))
        candidates = [ordinance]
    else:
        candidates = list(
            session.exec(
                sm_select(Ordinance)
                .where(Ordinance.district_id == district_id)
                .order_by(col(Ordinance.approved_on).desc(), col(Ordinance.id).desc())
            )
        )
        if not candidates:
            raise InputError(
                "ordinance", N_("The district has no ordinance: its formula is needed to bill.")
            )
    approved = [o for o in candidates if o.approved_on is not None]
    if not approved:
        raise InputError("ordinance", N_("The mayor has not approved this ordinance."))
    for ordinance in approved:
        first, last = ordinance_term(ordinance)
        if first <= fy <= last:
            return ordinance
    raise InputError(
        "fiscal_year", N_("This fiscal year is outside the term of the district's ordinance.")
    )


# --------------------------------------------------------------------------- inputs


def parse_parameters(value: Mapping[str, Any] | str | None) -> dict[str, Value]:
    """The formula's named parameters: a mapping, or text with one ``name = value`` a line.
    A value that reads as a number is a number (``"1,250,000.00"``); any other is text."""
    if value is None:
        return {}
    raw: dict[str, Any] = {}
    if isinstance(value, str):
        for number, line in enumerate(value.splitlines(), start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            name, sep, rest = text.partition("=")
            if not sep:
                raise InputError(
                    f"parameters[{number}]", N_("Write each parameter as name = value.")
                )
            raw[name.strip()] = rest.strip()
    else:
        raw = dict(value)
    if len(raw) > MAX_PARAMETERS:
        raise InputError("parameters", N_("Too many parameters."))
    result: dict[str, Value] = {}
    for name, item in raw.items():
        if not name.isidentifier() or not name.isascii():
            raise InputError(
                f"parameters.{name}",
                N_("A parameter's name is letters, digits and _ (like budget)."),
            )
        if isinstance(item, Decimal):
            result[name] = item
            continue
        text = str(item).strip()
        if not text:
            raise InputError(f"parameters.{name}", N_("Give the parameter a value."))
        try:
            result[name] = parse_decimal(text, f"parameters.{name}", allow_negative=True)
        except InputError:
            result[name] = text
    return result


def parameters_json(parameters: Mapping[str, Value]) -> str:
    return json.dumps({k: str(v) for k, v in sorted(parameters.items())}, sort_keys=True)


def earliest_due_date(run_on: date, ordinance: Ordinance) -> calendar.Deadline:
    """The earliest due date a bill of a run on ``run_on`` may have: the end of the 30-day
    certified-mail period from the run (§ 6653(5)), and not before the end of the first
    notice period of the ordinance's receipt by the association, when recorded."""
    deadline = calendar.initial_notice_due(run_on)
    if ordinance.received_by_association_on is not None:
        first = calendar.initial_notice_due(ordinance.received_by_association_on)
        if first.date > deadline.date:
            return first
    return deadline


def default_due_date(run_on: date, ordinance: Ordinance) -> date:
    """``DEFAULT_DUE_DAYS`` after the run date, or the earliest due date if later."""
    return max(run_on + timedelta(days=DEFAULT_DUE_DAYS), earliest_due_date(run_on, ordinance).date)


# --------------------------------------------------------------------------- the run


def active_run(session: Session, district_id: int, fiscal_year: str) -> BillingRun | None:
    return session.exec(
        sm_select(BillingRun).where(
            BillingRun.district_id == district_id,
            BillingRun.fiscal_year == fiscal_year,
            BillingRun.status == BillingRunStatus.ACTIVE.value,
        )
    ).first()


def _roll_properties(
    session: Session, district_id: int, fiscal_year: str, used: Collection[str]
) -> tuple[list[dict[str, Any]], list[tuple[int, int]]]:
    """The year's roll as the formula reads it (``id`` = cadastral number, and only the
    attributes ``used``) and, in the same order, each row's (property id, property-year id)."""
    year = _YEAR_ROWS
    prop = Property.__table__  # type: ignore[attr-defined]
    decimal = Decimal
    scale = Quantity.SCALE

    def money(cents: int) -> Decimal:
        return decimal(cents).scaleb(-2)

    def quantity(value: int | None) -> Decimal | None:
        return None if value is None else decimal(value) / scale

    def count(value: int | None) -> Decimal:
        # A property without lodging rooms has none: an empty cell is 0.
        return ZERO if value is None else decimal(value)

    def text(value: str) -> str:
        return value

    converters: dict[str, Callable[[Any], Any]] = {
        "assessed_value": money,
        "land_area": quantity,
        "built_area": quantity,
        "use_class": text,
        "rooms": count,
        "frontage": quantity,
    }
    standard = [name for name in converters if name in used]
    with_extras = any(name not in converters for name in used)
    columns = [prop.c.id, prop.c.cadastral_number, year.c.id]
    columns += [year.c[name] for name in standard]
    if with_extras:
        columns.append(year.c.attributes)
    stmt = (
        select(*columns)
        .select_from(year.join(prop, year.c.property_id == prop.c.id))
        .where(
            year.c.district_id == district_id,
            year.c.fiscal_year == fiscal_year,
            year.c.in_roll.is_(True),
        )
        .order_by(prop.c.cadastral_number)
    )
    plan = [(name, index, converters[name]) for index, name in enumerate(standard, start=3)]
    extras_at = len(columns) - 1
    properties: list[dict[str, Any]] = []
    ids: list[tuple[int, int]] = []
    loads = json.loads
    extras: dict[str, dict[str, Decimal]] = {}  # the same extra attributes, parsed once
    for row in session.execute(stmt):
        item: dict[str, Any] = {"id": row[1]}
        for name, index, convert in plan:
            value = convert(row[index])
            if value is not None:
                item[name] = value
        if with_extras:
            extra = row[extras_at]
            if extra and extra != "{}":
                parsed = extras.get(extra)
                if parsed is None:
                    parsed = extras[extra] = {k: decimal(v) for k, v in loads(extra).items()}
                item.update(parsed)
        properties.append(item)
        ids.append((row[0], row[2]))
    return properties, ids


def _explanations(
    lines: Sequence[PropertyImpost], keys: Sequence[Hashable]
) -> list[tuple[str, str | None, str | None]]:
    """Each bill's explanation: in English, in Spanish when the formula gives one, and as a
    message (JSON) that the pages say in their reader's language. Properties with the same
    values of the attributes the formula reads, the same amount and the same unrounded value
    have the same explanation: it is written once for them."""
    out: list[tuple[str, str | None, str | None]] = []
    seen: dict[Hashable, tuple[str, str | None, str | None]] = {}
    for line, key in zip(lines, keys, strict=True):
        texts = seen.get(key)
        if texts is None:
            explanation = line.explanation  # built once, said in both languages
            if isinstance(explanation, Message):
                texts = seen[key] = (
                    str(explanation),
                    messages.render(explanation, "es"),
                    messages.to_json(explanation),
                )
            else:
                texts = seen[key] = (explanation, getattr(line, "explanation_es", None), None)
        out.append(texts)
    return out


def _fingerprint(formula: str, parameters: str, lines: list[str]) -> str:
    digest = hashlib.sha256()
    digest.update(formula.encode())
    digest.update(b"\x00")
    digest.update(parameters.encode())
    for line in lines:
        digest.update(b"\x00")
        digest.update(line.encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class _Computed:
    """A run's bills as computed from the roll, before anything is written."""

    formula: Formula
    result: ImpostResult
    properties: list[dict[str, Any]]
    ids: list[tuple[int, int]]
    params_text: str
    amounts: list[int]
    keys: list[tuple[Decimal, str, tuple[str, ...]]]
    fingerprint: str


def _read_the_roll(
    session: Session, district_id: int, fy: str, ordinance: Ordinance, params: dict[str, Value]
) -> tuple[Formula, list[dict[str, Any]], list[tuple[int, int]]]:
    """The ordinance's formula compiled against the year's roll (§ 6653(3)(d)), and the roll's
    properties as it reads them; ``params`` gains the ordinance's expected amount when the
    formula uses it."""
    in_roll = session.execute(
        select(_YEAR_ROWS.c.id)
        .where(
            _YEAR_ROWS.c.district_id == district_id,
            _YEAR_ROWS.c.fiscal_year == fy,
            _YEAR_ROWS.c.in_roll.is_(True),
        )
        .limit(1)
    ).first()
    if in_roll is None:
        raise InputError(
            "fiscal_year", N_("There is no roll for this fiscal year: import the roll first.")
        )
    names = attribute_names(session, district_id, fy)
    formula = compile_formula(
        ordinance.formula,
        parameters=[*params, ORDINANCE_AMOUNT_PARAMETER],
        attributes=names,
    )
    if (
        ORDINANCE_AMOUNT_PARAMETER in formula.parameters
        and ORDINANCE_AMOUNT_PARAMETER not in params
    ):
        params[ORDINANCE_AMOUNT_PARAMETER] = ordinance.expected_amount
    unused = sorted(set(params) - set(formula.parameters))
    if unused:
        raise InputError(f"parameters.{unused[0]}", N_("The formula does not use this parameter."))
    properties, ids = _roll_properties(session, district_id, fy, formula.attributes)
    return formula, properties, ids


def _compute(
    formula: Formula,
    properties: list[dict[str, Any]],
    ids: list[tuple[int, int]],
    params: dict[str, Value],
) -> _Computed:
    """Every property's bill by the formula, and the run's fingerprint."""
    result = evaluate(formula, properties, params)
    params_text = parameters_json(params)
    amounts = [to_cents(line.amount) for line in result.properties]
    # What each bill depends on: the values of the attributes the formula reads (as written,
    # so 1.0 and 1.00 differ), its amount and its unrounded value. The fingerprint is made
    # of these, so a rerun that changes nothing is known without writing any explanation.
    used = formula.attributes
    keys = [
        (line.amount, str(line.exact), tuple(str(p.get(name, "")) for name in used))
        for line, p in zip(result.properties, properties, strict=True)
    ]
    fingerprint = _fingerprint(
        formula.text,
        params_text,
        [
            f"{pid}|{yid}|{cents}|{key[1]}|{key[2]}"
            for (pid, yid), cents, key in zip(ids, amounts, keys, strict=True)
        ],
    )
    return _Computed(formula, result, properties, ids, params_text, amounts, keys, fingerprint)


def _unchanged(current: BillingRun) -> BillingResult:
    """The active run, said again: a rerun that changes nothing writes nothing."""
    return BillingResult(
        run=current,
        unchanged=True,
        superseded=None,
        superseded_bills=0,
        mailed_superseded=0,
        total=current.total,
        expected_amount=current.expected_amount,
        difference=current.total - current.expected_amount,
        warnings=tuple(json.loads(current.warnings or "[]")),
    )


def _due_date(
    run_on: date, ordinance: Ordinance, current: BillingRun | None, due_date: date | None
) -> date:
    """The run's due date: the one given, else the active run's (when still lawful), else the
    default; never before the 30 days of the certified-mail notice (§ 6653(5))."""
    earliest = earliest_due_date(run_on, ordinance)
    if due_date is None:
        if current is not None and current.due_date >= earliest.date:
            due_date = current.due_date
        else:
            due_date = default_due_date(run_on, ordinance)
    if due_date < earliest.date:
        raise InputError(
            "due_date",
            N_(
                "The due date is too early: it must leave the 30 days of the certified-mail "
                "notice (21 LPRA § 6653(5))."
            ),
        )
    if due_date > run_on + timedelta(days=3 * 366):
        raise InputError("due_date", N_("The due date is too far away."))
    return due_date


def _new_run(
    session: Session,
    actor: audit.Actor,
    ordinance: Ordinance,
    computed: _Computed,
    current: BillingRun | None,
    *,
    district_id: int,
    fy: str,
    run_on: date,
    due_date: date,
    reason: str,
    now: datetime,
) -> BillingRun:
    """The year's next run (its version one past the latest), active, superseding ``current``."""
    table = BillingRun.__table__  # type: ignore[attr-defined]
    latest = session.execute(
        select(func.coalesce(func.max(table.c.version), 0)).where(
            table.c.district_id == district_id,
            table.c.fiscal_year == fy,
        )
    ).scalar_one()
    return BillingRun(
        district_id=district_id,
        ordinance_id=ordinance.id or 0,
        fiscal_year=fy,
        version=int(latest) + 1,
        status=BillingRunStatus.ACTIVE.value,
        formula=computed.formula.text,
        parameters=computed.params_text,
        property_count=len(computed.properties),
        total=computed.result.total,
        expected_amount=ordinance.expected_amount,
        run_on=run_on,
        due_date=due_date,
        fingerprint=computed.fingerprint,
        warnings=json.dumps(list(computed.result.warnings), ensure_ascii=False),
        reason=reason,
        supersedes_id=current.id if current is not None else None,
        actor=actor.label,
        created_at=now,
    )


def _supersede_run(
    session: Session, actor: audit.Actor, current: BillingRun, now: datetime
) -> None:
    """Mark the year's active run superseded (its bills follow once the new ones exist)."""
    before = audit.snapshot(current)
    current.status = BillingRunStatus.SUPERSEDED.value
    current.superseded_at = now
    session.add(current)
    session.flush()
    audit.record(
        session,
        actor,
        "billing_run.supersede",
        current,
        before=before,
        after=audit.snapshot(current),
    )


def _write_bills(session: Session, run: BillingRun, computed: _Computed, now: datetime) -> None:
    """One bill per property of the run, in bulk (integer cents precomputed)."""
    explanations = _explanations(computed.result.properties, computed.keys)
    session.execute(
        insert(_BILL_ROWS),
        [
            {
                "billing_run_id": run.id or 0,
                "district_id": run.district_id,
                "property_id": pid,
                "property_year_id": yid,
                "fiscal_year": run.fiscal_year,
                "amount": cents,
                "explanation": text,
                "explanation_es": text_es,
                "explanation_message": message,
                "due_date": run.due_date,
                "status": BillStatus.ACTIVE.value,
                "created_at": now,
            }
            for (pid, yid), cents, (text, text_es, message) in zip(
                computed.ids, computed.amounts, explanations, strict=True
            )
        ],
    )


def _book_the_run(
    session: Session,
    actor: audit.Actor,
    run: BillingRun,
    current: BillingRun | None,
    computed: _Computed,
) -> BillingResult:
    """After the run's bills are written: the superseded run's bills point to their
    replacements, the journal books the bills, the audit trail records the run."""
    superseded_bills = mailed = 0
    if current is not None:
        superseded_bills, mailed = _supersede_bills(session, current.id or 0, run.id or 0)
    # The special account's receivables: the run's bills are booked with it (in bulk).
    ledger.sync_bills(session, actor=actor, district_id=run.district_id)
    audit.record(
        session,
        actor,
        "billing_run.run",
        run,
        after={
            **(audit.snapshot(run) or {}),
            "superseded_bills": superseded_bills,
            "mailed_superseded": mailed,
        },
    )
    total, expected = computed.result.total, run.expected_amount
    return BillingResult(
        run=run,
        unchanged=False,
        superseded=current,
        superseded_bills=superseded_bills,
        mailed_superseded=mailed,
        total=total,
        expected_amount=expected,
        difference=total - expected,
        warnings=tuple(computed.result.warnings),
    )


def run_billing(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fiscal_year: str,
    run_on: date,
    due_date: date | None = None,
    parameters: Mapping[str, Any] | str | None = None,
    ordinance_id: int | None = None,
    reason: str = "",
) -> BillingResult:
    """Bill every property of the district's roll for the fiscal year by the ordinance's
    formula (§ 6653(3)(d)); supersede the year's active run when the bills differ. One
    transaction: read the roll, compute, compare with the active run, supersede it, write the
    bills, book them in the journal. The caller commits; on ``InputError`` nothing has been
    written."""
    if session.get(District, district_id) is None:
        raise InputError("district", N_("There is no such district."))
    # The district's postings wait for the run: the journal books its bills in order.
    ledger.lock_district(session, district_id)
    fy = periods.parse_fiscal_year(fiscal_year).label
    ordinance = ordinance_for(session, district_id, fy, ordinance_id)
    params = parse_parameters(parameters)
    reason = " ".join(reason.split())[:1000]
    formula, properties, ids = _read_the_roll(session, district_id, fy, ordinance, params)
    computed = _compute(formula, properties, ids, params)
    current = active_run(session, district_id, fy)
    if (
        current is not None
        and current.fingerprint == computed.fingerprint
        and (due_date is None or due_date == current.due_date)
    ):
        return _unchanged(current)
    due_date = _due_date(run_on, ordinance, current, due_date)
    now = utcnow()
    run = _new_run(
        session,
        actor,
        ordinance,
        computed,
        current,
        district_id=district_id,
        fy=fy,
        run_on=run_on,
        due_date=due_date,
        reason=reason,
        now=now,
    )
    if current is not None:
        _supersede_run(session, actor, current, now)
    session.add(run)
    session.flush()
    _write_bills(session, run, computed, now)
    return _book_the_run(session, actor, run, current, computed)


def _supersede_bills(session: Session, old_run_id: int, new_run_id: int) -> tuple[int, int]:
    """Mark the old run's bills superseded, each pointing to the new bill of its property
    (none when the property left the roll); return (bills superseded, of which mailed)."""
    bill = Bill.__table__  # type: ignore[attr-defined]
    newer = aliased(bill)
    mailed = int(
        session.execute(
            select(func.count()).where(
                bill.c.billing_run_id == old_run_id, bill.c.mailed_at.is_not(None)
            )
        ).scalar_one()
    )
    replacement = (
        select(newer.c.id)
        .where(newer.c.billing_run_id == new_run_id, newer.c.property_id == bill.c.property_id)
        .scalar_subquery()
    )
    changed = session.execute(
        update(bill)
        .where(bill.c.billing_run_id == old_run_id)
        .values(status=BillStatus.SUPERSEDED.value, superseded_by_id=replacement),
        execution_options={"synchronize_session": False},
    )
    return int(cast(CursorResult[Any], changed).rowcount or 0), mailed


# --------------------------------------------------------------------------- reading


def runs(session: Session, district_id: int) -> list[BillingRun]:
    """Every billing run of the district, newest year and version first."""
    return list(
        session.exec(
            sm_select(BillingRun)
            .where(BillingRun.district_id == district_id)
            .order_by(col(BillingRun.fiscal_year).desc(), col(BillingRun.version).desc())
        )
    )


@dataclass(frozen=True)
class BillLine:
    bill: Bill
    cadastral_number: str
    owner_names: str
    replacement: Bill | None  # for a superseded bill: the bill that replaced it


@dataclass(frozen=True)
class BillPage(PageInfo):
    lines: list[BillLine] = field(default_factory=list)


def bills_page(
    session: Session, run_id: int, *, search: str = "", page: int = 1, per_page: int = PER_PAGE
) -> BillPage:
    """One page of a run's bills by cadastral number, optionally searched (plain text)."""
    where: list[Any] = [Bill.billing_run_id == run_id]
    matching = cadastral_or_owner(search)
    if matching is not None:
        where.append(matching)
    joined = (
        sm_select(Bill, Property.cadastral_number, PropertyYear.owner_names)
        .join(Property, col(Property.id) == col(Bill.property_id))
        .join(PropertyYear, col(PropertyYear.id) == col(Bill.property_year_id))
        .where(*where)
    )
    count = (
        sm_select(func.count())
        .select_from(Bill)
        .join(Property, col(Property.id) == col(Bill.property_id))
        .join(PropertyYear, col(PropertyYear.id) == col(Bill.property_year_id))
        .where(*where)
    )
    info = page_info(int(session.exec(count).one()), page, per_page)
    rows = session.exec(
        joined.order_by(col(Property.cadastral_number)).offset(info.offset).limit(per_page)
    ).all()
    replacement_ids = [b.superseded_by_id for b, _, _ in rows if b.superseded_by_id]
    replacements = (
        {b.id: b for b in session.exec(sm_select(Bill).where(col(Bill.id).in_(replacement_ids)))}
        if replacement_ids
        else {}
    )
    lines = [
        BillLine(b, number, owners, replacements.get(b.superseded_by_id))
        for b, number, owners in rows
    ]
    return BillPage(lines=lines, **info.position())


def corrected_notices_needed(session: Session, run: BillingRun) -> list[BillLine]:
    """The bills of the run this one superseded that were already mailed: their owners
    need a corrected notice (with the replacing bill, if the property is still billed)."""
    if run.supersedes_id is None:
        return []
    rows = session.exec(
        sm_select(Bill, Property.cadastral_number, PropertyYear.owner_names)
        .join(Property, col(Property.id) == col(Bill.property_id))
        .join(PropertyYear, col(PropertyYear.id) == col(Bill.property_year_id))
        .where(Bill.billing_run_id == run.supersedes_id, col(Bill.mailed_at).is_not(None))
        .order_by(col(Property.cadastral_number))
    ).all()
    replacements = {
        b.id: b
        for b in session.exec(
            sm_select(Bill).where(
                col(Bill.id).in_([b.superseded_by_id for b, _, _ in rows if b.superseded_by_id])
            )
        )
    }
    return [
        BillLine(b, number, owners, replacements.get(b.superseded_by_id))
        for b, number, owners in rows
    ]


def bills_of_property(session: Session, property_id: int) -> list[tuple[Bill, BillingRun]]:
    """Every bill of one property with its run, newest year and version first."""
    return list(
        session.exec(
            sm_select(Bill, BillingRun)
            .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
            .where(Bill.property_id == property_id)
            .order_by(col(Bill.fiscal_year).desc(), col(BillingRun.version).desc())
        ).all()
    )


def mark_mailed(*, session: Session, actor: audit.Actor, bill_ids: list[int], at: datetime) -> int:
    """Record that the certified-mail notices of these bills went out (§ 6653(5)); a bill
    already marked keeps its first date. Returns how many were marked now."""
    if not bill_ids:
        return 0
    bill = Bill.__table__  # type: ignore[attr-defined]
    changed = session.execute(
        update(bill)
        .where(bill.c.id.in_(bill_ids), bill.c.mailed_at.is_(None))
        .values(mailed_at=at),
        execution_options={"synchronize_session": False},
    )
    count = int(cast(CursorResult[Any], changed).rowcount or 0)
    audit.record(
        session,
        actor,
        "bill.mailed",
        # The entity id column holds 60 characters: the range of the bills; their ids after.
        ("bill", f"{min(bill_ids)}-{max(bill_ids)}"),
        after={
            "bills": len(bill_ids),
            "marked": count,
            "at": at.isoformat(),
            "bill_ids": sorted(bill_ids),
        },
    )
    return count


def summary(run: BillingRun) -> dict[str, str]:
    """The run's total against the ordinance's expected amount (§ 6653(3)(b)), as text."""
    return {
        "total": money_str(run.total),
        "expected_amount": money_str(run.expected_amount),
        "difference": money_str(run.total - run.expected_amount),
    }
