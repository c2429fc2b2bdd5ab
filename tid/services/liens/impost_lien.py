"""Delinquency and the impost lien — 21 LPRA § 6653(8).

After its due date an unpaid bill is delinquent. If the district's ordinance sets a surcharge
or interest on a late impost (:class:`LateChargeTerms`), they are computed here, apart from
the impost: owed, but not secured by the impost lien, which secures only the imposts of the
ordinance. They are not booked in the special account's journal (they are not impost revenue
until this project is told how the ordinance treats them); the delinquency list and the lien
view show them.

The impost lien of a property secures what is still owed on its bills (from the journal); it
is ranked with the other liens recorded on the property by :func:`tid.rules.liens.rank_liens`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import literal_column, tuple_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, func, select

from tid.models import (
    Bill,
    BillingRun,
    BillLedger,
    BillStatus,
    LateChargeTerms,
    OpeningBill,
    OwedDay,
    Property,
    PropertyLien,
    PropertyYear,
)
from tid.rules import liens as lien_rules
from tid.rules.aging import AGING_BUCKETS, AgedBill, days_bucket
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.money import ZERO, round_cents
from tid.rules.vocab import recorded_kinds
from tid.services import ledger
from tid.services.audit_trail import audit
from tid.services.files.csv_columns import csv_text
from tid.services.paging import PER_PAGE, page_info

IMPOST_LIEN_ID = "impost"
DAYS_IN_YEAR = 365  # simple interest per day late; the ordinance's own convention may differ

# --------------------------------------------------------------------------- late charges


def _rate(value: str, field: str) -> Decimal:
    try:
        rate = Decimal(value.strip().rstrip("%")) if value.strip() else ZERO
    except InvalidOperation:
        raise InputError(
            field, N_("Write the rate as a decimal, like 0.10 for 10 percent.")
        ) from None
    if value.strip().endswith("%"):
        rate = rate / 100
    if not rate.is_finite() or not ZERO <= rate <= 1:
        raise InputError(field, N_("A rate is between 0 and 1 (0.10 is 10 percent)."))
    return rate


def set_late_terms(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    surcharge_rate: str,
    annual_interest_rate: str,
    ordinance_reference: str = "",
) -> LateChargeTerms:
    """Record the surcharge and interest the district's ordinance sets on a late impost."""
    problems: list[Finding] = []
    rates: list[Decimal] = []
    for text, name in (
        (surcharge_rate, "surcharge_rate"),
        (annual_interest_rate, "annual_interest_rate"),
    ):
        try:
            rates.append(_rate(text, name))
        except InputError as exc:
            problems.append(Finding(exc.field, exc.message))
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)
    surcharge, interest = rates
    terms = session.exec(
        select(LateChargeTerms).where(LateChargeTerms.district_id == district_id)
    ).first()
    before = audit.snapshot(terms)
    if terms is None:
        terms = LateChargeTerms(district_id=district_id)
    terms.surcharge_rate = str(surcharge)
    terms.annual_interest_rate = str(interest)
    terms.ordinance_reference = ordinance_reference.strip()[:200]
    session.add(terms)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="late_terms.set",
        entity=terms,
        before=before,
        after=audit.snapshot(terms),
    )
    return terms


def late_terms(*, session: Session, district_id: int) -> LateChargeTerms | None:
    return session.exec(
        select(LateChargeTerms).where(LateChargeTerms.district_id == district_id)
    ).first()


@dataclass(frozen=True)
class LateCharges:
    days_late: int
    surcharge: Decimal
    interest: Decimal

    @property
    def total(self) -> Decimal:
        return self.surcharge + self.interest


def late_charges(
    outstanding: Decimal, due: date, today: date, terms: LateChargeTerms | None
) -> LateCharges:
    """Surcharge (once) and simple interest per day late on the unpaid impost, if the
    ordinance sets them; each rounded to cents half-up."""
    days = max(0, (today - due).days)
    if days == 0 or outstanding <= 0 or terms is None:
        return LateCharges(days, ZERO, ZERO)
    surcharge = round_cents(outstanding * Decimal(terms.surcharge_rate))
    interest = round_cents(outstanding * Decimal(terms.annual_interest_rate) * days / DAYS_IN_YEAR)
    return LateCharges(days, surcharge, interest)


def daily_interest(outstanding: Decimal, terms: LateChargeTerms | None) -> Decimal:
    """What one more day late adds to the interest on ``outstanding``, exact (not rounded):
    :func:`late_charges` figures the interest on all the days late and rounds it once."""
    if outstanding <= 0 or terms is None:
        return ZERO
    return outstanding * Decimal(terms.annual_interest_rate) / DAYS_IN_YEAR


# A bill a district brought when it moved in (tid/services/aboard) carries the late charges
# its earlier books accrued to the cut-over day: they stand as the bill's surcharge (charged
# once, as the ordinance's), and interest runs on from the cut-over day by the terms.
Brought = dict[int, tuple[date, Decimal]]  # bill → (cut-over day, late charges accrued)


def brought_charges(*, session: Session, bill_ids: Sequence[int]) -> Brought:
    """The late charges each opened bill of ``bill_ids`` brought (none: not an opened bill)."""
    found: Brought = {}
    ids = sorted(set(bill_ids))
    for start in range(0, len(ids), 2000):
        stmt = select(
            col(OpeningBill.bill_id), col(OpeningBill.cut_over), col(OpeningBill.late_charges)
        ).where(col(OpeningBill.bill_id).in_(ids[start : start + 2000]))
        found.update({bill_id: (cut, accrued) for bill_id, cut, accrued in session.exec(stmt)})
    return found


def charges_of(
    bill_id: int,
    outstanding: Decimal,
    due: date,
    today: date,
    terms: LateChargeTerms | None,
    brought: Brought,
) -> LateCharges:
    """A bill's late charges on ``today``: by the terms (:func:`late_charges`), or for an
    opened bill what its earlier books accrued to the cut-over day, with the terms' interest
    from that day on."""
    opened = brought.get(bill_id)
    if opened is None:
        return late_charges(outstanding, due, today, terms)
    cut_over, accrued = opened
    days = max(0, (today - due).days)
    if outstanding <= 0:
        return LateCharges(days, ZERO, ZERO)
    since = max(0, (today - max(cut_over, due)).days)
    rate = Decimal(terms.annual_interest_rate) if terms is not None else ZERO
    return LateCharges(days, accrued, round_cents(outstanding * rate * since / DAYS_IN_YEAR))


# --------------------------------------------------------------------------- delinquency


@dataclass(frozen=True, slots=True)
class PropertyRead:
    """What the delinquency shows of a property."""

    id: int
    cadastral_number: str


@dataclass(frozen=True)
class DelinquentBill:
    bill: AgedBill
    property: PropertyRead
    owner_names: str
    outstanding: Decimal
    charges: LateCharges


def owner_names(*, session: Session, property_id: int) -> str:
    year = session.exec(
        select(PropertyYear)
        .where(PropertyYear.property_id == property_id)
        .order_by(col(PropertyYear.fiscal_year).desc())
    ).first()
    return year.owner_names if year else ""


def owners_of(*, session: Session, property_ids: Sequence[int]) -> dict[int, str]:
    """The owners' names of each property, from its latest roll year."""
    names: dict[int, str] = {}
    ids = sorted(set(property_ids))
    for start in range(0, len(ids), 2000):
        chunk = ids[start : start + 2000]
        latest = (
            select(col(PropertyYear.property_id), func.max(PropertyYear.fiscal_year))
            .where(col(PropertyYear.property_id).in_(chunk))
            .group_by(col(PropertyYear.property_id))
        )
        stmt = select(col(PropertyYear.property_id), col(PropertyYear.owner_names)).where(
            tuple_(col(PropertyYear.property_id), col(PropertyYear.fiscal_year)).in_(latest)
        )
        names.update(session.exec(stmt).all())
    return names


@dataclass(frozen=True)
class DelinquencyPage:
    """A page of the delinquent bills, with how many there are and what they owe in all, and
    the late-payment terms their charges were figured with."""

    rows: list[DelinquentBill]
    total: int
    owed: Decimal
    page: int
    pages: int
    per_page: int
    terms: LateChargeTerms | None = None


# The bills with something owed (a literal, so the partial index of them is used).
_OWED = col(BillLedger.receivable) > literal_column("0")


def _delinquent(district_id: int, today: date) -> Any:
    """The booked bills past due with something owed (the running balance per bill), read
    in the index of owed bills' order: oldest due first, then in the order they were billed
    (a billing run makes its bills in cadastral order)."""
    return (
        sa_select(*_SHOWN, col(BillLedger.receivable))
        .select_from(BillLedger)
        .join(Bill, col(Bill.id) == col(BillLedger.bill_id))
        .join(Property, col(Property.id) == col(Bill.property_id))
        .where(
            col(BillLedger.district_id) == district_id,
            _OWED,
            col(BillLedger.due_date) < today,
            col(Bill.status) == BillStatus.ACTIVE.value,
        )
    )


# What a row shows of its bill and property: their columns, without the ORM's bookkeeping.
_SHOWN = (
    col(Bill.id),
    col(Bill.fiscal_year),
    col(Bill.due_date),
    col(Bill.amount),
    col(Property.id),
    col(Property.cadastral_number),
)


def _shown(row: Sequence[Any]) -> tuple[AgedBill, PropertyRead]:
    bill_id, fiscal_year, due, amount, property_id, cadastral_number = row[:6]
    return AgedBill(bill_id, fiscal_year, due, amount), PropertyRead(property_id, cadastral_number)


_ORDER = (col(BillLedger.due_date), col(BillLedger.bill_id))


def _rows(
    session: Session,
    today: date,
    found: Sequence[tuple[AgedBill, PropertyRead, Decimal]],
    terms: LateChargeTerms | None,
) -> list[DelinquentBill]:
    owners = owners_of(session=session, property_ids=[prop.id for _bill, prop, _owed in found])
    brought = brought_charges(session=session, bill_ids=[bill.id for bill, _prop, _owed in found])
    return [
        DelinquentBill(
            bill,
            prop,
            owners.get(prop.id, ""),
            outstanding,
            charges_of(bill.id, outstanding, bill.due_date, today, terms, brought),
        )
        for bill, prop, outstanding in found
    ]


def delinquency(*, session: Session, district_id: int, today: date) -> list[DelinquentBill]:
    """Every active bill past its due date with something still owed, oldest due first."""
    found = [
        (*_shown(row), row[6])
        for row in session.execute(_delinquent(district_id, today).order_by(*_ORDER))
    ]
    pending = ledger.unbooked_owed(session=session, district_id=district_id)
    if pending:  # bills not booked yet (only for a moment): owed in full
        stmt = (
            sa_select(*_SHOWN)
            .join(Property, col(Property.id) == col(Bill.property_id))
            .where(col(Bill.id).in_(list(pending)), col(Bill.due_date) < today)
        )
        for row in session.execute(stmt):
            bill, prop = _shown(row)
            found.append((bill, prop, pending[bill.id]))
        found.sort(key=lambda r: (r[0].due_date, r[0].id))
    return _rows(session, today, found, late_terms(session=session, district_id=district_id))


def delinquency_page(
    *, session: Session, district_id: int, today: date, page: int = 1, per_page: int = PER_PAGE
) -> DelinquencyPage:
    """One page of :func:`delinquency`: only the page's bills are read."""
    if ledger.unbooked_owed(session=session, district_id=district_id):
        every = delinquency(session=session, district_id=district_id, today=today)
        info = page_info(len(every), page, per_page)
        owed = sum((r.outstanding for r in every), ZERO)
        rows = every[info.offset : info.offset + per_page]
        terms = late_terms(session=session, district_id=district_id)
        return DelinquencyPage(rows, info.total, owed, info.page, info.pages, per_page, terms)
    # The count and the total from the bills owed per due date (a bill with something owed
    # is active: a superseded bill's balance moved to its successor when it was booked).
    count, owed_total = session.exec(
        select(func.sum(OwedDay.bills), func.sum(OwedDay.receivable)).where(
            OwedDay.district_id == district_id, OwedDay.due_date < today
        )
    ).one()
    info = page_info(int(count or 0), page, per_page)
    page_of = _delinquent(district_id, today).order_by(*_ORDER).offset(info.offset)
    found = [(*_shown(row), row[6]) for row in session.execute(page_of.limit(per_page))]
    owed = ledger.cents(owed_total)
    terms = late_terms(session=session, district_id=district_id)
    rows = _rows(session, today, found, terms)
    return DelinquencyPage(rows, info.total, owed, info.page, info.pages, per_page, terms)


# The delinquency list's PDF lists the bills one by one when they are at most this many (a
# layout of about a second); past it, it gives their totals by days late and by fiscal year,
# and the bill-by-bill list is its CSV file (/readings#statement-pdf-detail).
DETAIL_ROWS = 100
# The bills read at once when the delinquency is summed (a bounded memory at any size).
TOTALS_CHUNK = 2000


@dataclass
class DelinquencyGroup:
    """The delinquent bills of an age (days late) or of a fiscal year, summed."""

    label: str
    bills: int = 0
    owed: Decimal = ZERO
    surcharge: Decimal = ZERO
    interest: Decimal = ZERO

    def add(self, row: DelinquentBill) -> None:
        self.bills += 1
        self.owed += row.outstanding
        self.surcharge += row.charges.surcharge
        self.interest += row.charges.interest


@dataclass(frozen=True)
class DelinquencyTotals:
    by_age: list[DelinquencyGroup]
    by_year: list[DelinquencyGroup]
    total: DelinquencyGroup


def delinquency_totals(
    *, session: Session, district_id: int, today: date, chunk: int = TOTALS_CHUNK
) -> DelinquencyTotals:
    """:func:`delinquency` summed by days late (the aging's ages) and by fiscal year, read
    ``chunk`` bills at a time: the same figures as its CSV file's rows, in a memory that
    does not grow with the district."""
    ages = {label: DelinquencyGroup(label) for start, label in AGING_BUCKETS if start > 0}
    years: dict[str, DelinquencyGroup] = {}
    total = DelinquencyGroup("")
    page = 1
    while True:
        found = delinquency_page(
            session=session, district_id=district_id, today=today, page=page, per_page=chunk
        )
        for row in found.rows:
            age = days_bucket(row.charges.days_late)
            year = row.bill.fiscal_year
            for group in (
                ages.setdefault(age, DelinquencyGroup(age)),
                years.setdefault(year, DelinquencyGroup(year)),
                total,
            ):
                group.add(row)
        if page >= found.pages:
            break
        page += 1
    return DelinquencyTotals(list(ages.values()), [years[y] for y in sorted(years)], total)


# --------------------------------------------------------------------------- the register


def lien_problems(
    *, kind: str, holder: str, constituted_on: date | None, amount: Decimal | None, today: date
) -> list[Finding]:
    """Every problem of a lien's fields, all at once (a form shows them together); ``None``
    for a date or amount that could not be read (already flagged)."""
    problems: list[Finding] = []
    if kind not in recorded_kinds():
        problems.append(Finding("kind", N_("Choose the kind of lien from the list.")))
    if not holder.strip():
        problems.append(Finding("holder", N_("Name the holder of the lien.")))
    if constituted_on is not None and constituted_on > today:
        problems.append(Finding("constituted_on", N_("The date cannot be in the future.")))
    if amount is not None and amount <= 0:
        problems.append(Finding("amount", N_("The amount must be more than zero.")))
    return problems


def add_lien(
    *,
    session: Session,
    actor: audit.Actor,
    property_id: int,
    kind: str,
    holder: str,
    constituted_on: date,
    amount: Decimal,
    today: date,
    reference: str = "",
) -> PropertyLien:
    """Record another lien on a property (the impost lien itself comes from the journal)."""
    if session.get(Property, property_id) is None:
        raise InputError("property", N_("There is no such property."))
    problems = lien_problems(
        kind=kind, holder=holder, constituted_on=constituted_on, amount=amount, today=today
    )
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)
    lien = PropertyLien(
        property_id=property_id,
        kind=kind,
        holder=holder.strip()[:200],
        constituted_on=constituted_on,
        amount=amount,
        reference=reference.strip()[:200],
        actor=actor.label,
    )
    session.add(lien)
    session.flush()
    audit.record(
        session=session, actor=actor, action="lien.create", entity=lien, after=audit.snapshot(lien)
    )
    return lien


def recorded_liens(
    *, session: Session, property_id: int, cancelled: bool = False
) -> list[PropertyLien]:
    """The liens recorded on a property and in force (``cancelled``: those cancelled)."""
    status = col(PropertyLien.status)
    which = status == "cancelled" if cancelled else status != "cancelled"
    return list(
        session.exec(
            select(PropertyLien)
            .where(PropertyLien.property_id == property_id, which)
            .order_by(col(PropertyLien.constituted_on), col(PropertyLien.id))
        )
    )


@dataclass(frozen=True)
class ImpostLien:
    """What the impost lien of a property secures today, and what it does not."""

    secured: Decimal  # the unpaid imposts of the ordinance
    constituted_on: date | None  # the billing date of the oldest unpaid bill
    unsecured: Decimal  # surcharges and interest: owed, not secured
    bills: tuple[tuple[Bill, Decimal, LateCharges], ...]


def impost_lien(*, session: Session, prop: Property, today: date) -> ImpostLien:
    terms = late_terms(session=session, district_id=prop.district_id)
    stmt = (
        select(Bill, BillingRun)
        .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
        .where(Bill.property_id == prop.id, Bill.status == BillStatus.ACTIVE.value)
        .order_by(col(BillingRun.run_on), col(Bill.id))
    )
    pairs = list(session.exec(stmt))
    owed = ledger.owed_by_bill(
        session=session,
        district_id=prop.district_id,
        bill_ids=[bill.id or 0 for bill, _run in pairs],
    )
    brought = brought_charges(session=session, bill_ids=[bill.id or 0 for bill, _run in pairs])
    bills = []
    first: date | None = None
    for bill, run in pairs:
        outstanding = owed.get(bill.id or 0, ZERO)
        if outstanding <= 0:
            continue
        first = first or run.run_on
        charges = charges_of(bill.id or 0, outstanding, bill.due_date, today, terms, brought)
        bills.append((bill, outstanding, charges))
    return ImpostLien(
        secured=sum((b[1] for b in bills), ZERO),
        constituted_on=first,
        unsecured=sum((b[2].total for b in bills), ZERO),
        bills=tuple(bills),
    )


@dataclass(frozen=True)
class LienPriority:
    prop: Property
    impost: ImpostLien
    recorded: dict[str, PropertyLien]  # by the id used in the ranking ("lien-<id>")
    result: lien_rules.LienResult

    @property
    def impost_rank(self) -> int | None:
        for line in self.result.ranking:
            if line.id == IMPOST_LIEN_ID and line.part == lien_rules.SECURED:
                return line.rank
        return None


def lien_priority(
    *, session: Session, prop: Property, today: date, sale_proceeds: Decimal | None = None
) -> LienPriority:
    """21 LPRA § 6653(8): the liens on a property ranked around the impost lien, each with
    its reason, and (given a sale price) what each is paid, rank by rank."""
    impost = impost_lien(session=session, prop=prop, today=today)
    recorded = {
        f"lien-{lien.id}": lien
        for lien in recorded_liens(session=session, property_id=prop.id or 0)
    }
    items = [
        lien_rules.Lien(key, lien.kind, lien.constituted_on, lien.amount)
        for key, lien in recorded.items()
    ]
    if impost.secured > 0 and impost.constituted_on is not None:
        items.append(
            lien_rules.Lien(
                IMPOST_LIEN_ID,
                lien_rules.IMPOST_KIND,
                impost.constituted_on,
                impost.secured,
                impost.unsecured,
            )
        )
    if sale_proceeds is not None and sale_proceeds < 0:
        raise InputError("sale_price", N_("The sale price cannot be negative."))
    result = lien_rules.rank_liens(items, sale_proceeds=sale_proceeds)
    return LienPriority(prop, impost, recorded, result)


def delinquency_csv(rows: Sequence[DelinquentBill]) -> str:
    """The delinquency list: each bill owed past its due date, with its late charges."""
    return csv_text(
        [
            (
                "bill",
                "cadastral_number",
                "owners",
                "fiscal_year",
                "due_date",
                "days_late",
                "impost_owed",
                "surcharge",
                "interest",
            )
        ]
        + [
            (
                r.bill.id,
                r.property.cadastral_number,
                r.owner_names,
                r.bill.fiscal_year,
                r.bill.due_date.isoformat(),
                r.charges.days_late,
                str(r.outstanding),
                str(r.charges.surcharge),
                str(r.charges.interest),
            )
            for r in rows
        ],
        numbers={"bill", "days_late", "impost_owed", "surcharge", "interest"},
    )
