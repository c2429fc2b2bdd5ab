"""A large district for benchmarks and trials at a real roll's size: by default 20,000 properties
and 10 fiscal years of rolls, bills, payments and expenditures (about 1,000,000 journal lines),
made in a few minutes (``tid demo --large``).

It is written in bulk (PostgreSQL ``COPY``, SQLite ``executemany``), not through the services
one payment at a time, which would take hours. The journal it writes is the rows the services
write: the same entries (kinds, dates, memos, idempotency keys) with the same lines in the same
order, and the running balances (``ledger_day``, ``journal_day``, ``bill_ledger``,
``owed_day``, ``ledger_state``) computed from them, so ``tid account verify`` passes on it.
What differs: one audit event records the whole load (the services write one per entry), and
the bills' explanation is a one-line summary of the formula instead of the billing service's
full trace.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from tid.clock import utcnow
from tid.demo import records
from tid.demo.bulk import bulk, forget_reserved, reserve, table_of
from tid.models import (
    AuthorizedPurpose,
    Bill,
    BillingRun,
    BillLedger,
    District,
    Expenditure,
    JournalDay,
    JournalEntry,
    JournalLine,
    LedgerDay,
    LedgerState,
    Municipality,
    Ordinance,
    OwedDay,
    Property,
    PropertyYear,
    RollImport,
    User,
)
from tid.rules.money import from_cents, money_str
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import expenditures
from tid.services.account.payments import payment_key
from tid.services.audit_trail import audit
from tid.services.auth import users
from tid.services.ledger import (
    ADMIN_EXPENSE,
    ASSESSED,
    BANK,
    OWNER_CREDIT,
    RECEIVABLE,
    REVENUE,
)

LARGE_DISTRICT = "Distrito de Mejoramiento Turístico de Dorado del Mar"
LARGE_MUNICIPALITY = "Dorado"
LARGE_USER = "asociacion.dorado@demo.tid.pr"
ACTOR = audit.Actor("large district generator")
RATE = Decimal("0.0025")  # the ordinance's formula: 0.0025 × assessed value
FORMULA = "0.0025 * valor_tasado"
LAST_FISCAL_YEAR = FiscalYear(2025)
PURPOSES = ("Seguridad y vigilancia", "Limpieza y ornato", "Mercadeo del destino")


@dataclass(frozen=True)
class LargeDistrict:
    district_id: int
    created: bool  # False: it was already there, nothing was written
    properties: int
    bills: int
    entries: int
    lines: int
    seconds: float


Lines = list[tuple[str, int | None, int]]  # (account, bill, cents) of one entry
# (date, kind, memo, idempotency key, lines) of the entries of a year, in order
Plan = list[tuple[date, str, str, str, Lines]]


@dataclass
class _Journal:
    """What the years add up to, written at the end: the entries, their lines, the
    expenditures behind some of them, and each bill's due date."""

    entries: list[tuple[Any, ...]] = field(default_factory=list)  # (id, date, kind, memo, key)
    lines: list[tuple[int, str, int | None, int]] = field(default_factory=list)  # (entry, …)
    expenditures: list[tuple[Any, ...]] = field(default_factory=list)
    due_of: dict[int, date] = field(default_factory=dict)  # bill id → due date
    bills: int = 0


@dataclass(frozen=True)
class _Year:
    """One fiscal year of the district: its roll's assessed values and its bills."""

    fy: FiscalYear
    offset: int  # 0 for the first generated year
    run_on: date
    due: date
    assessed: list[int]  # cents, per property
    amounts: list[int]  # cents, per property


def make_large_district(
    session: Session,
    *,
    properties: int = 20_000,
    years: int = 10,
    last_fiscal_year: FiscalYear = LAST_FISCAL_YEAR,
    seed: int = 6653,
    name: str = LARGE_DISTRICT,
    user_email: str | None = LARGE_USER,
    password: str = "demo-password-2026",
) -> LargeDistrict:
    """Make the district (idempotent: an existing district of that name is left as it is).
    The caller commits."""
    started = time.monotonic()
    existing = session.exec(select(District).where(District.name == name)).first()
    if existing is not None:
        return _summary(session, existing.id or 0, created=False, started=started)
    ledger.lock_district(
        session=session, district_id=0
    )  # SQLite: the write lock, before any id is chosen
    rng = random.Random(seed)
    now = utcnow()
    first_fy = FiscalYear(last_fiscal_year.start_year - years + 1)
    district, ordinance = _district(session, name, properties, years, first_fy)
    d = district.id or 0
    purposes = [
        expenditures.add_purpose(session=session, actor=ACTOR, district_id=d, name=p)
        for p in PURPOSES
    ]
    if user_email and session.exec(select(User).where(User.email == user_email)).first() is None:
        users.create_user(
            session=session,
            actor=ACTOR,
            email=user_email,
            name="Marta Colón (Asociación DMT Dorado del Mar)",
            password=password,
            role="association",
            district_id=d,
        )
    property_ids = reserve(session, Property, properties)
    values = _properties(session, rng, d, property_ids, now)
    journal = _Journal()
    for offset in range(years):
        year = _year(first_fy, offset, values)
        bill_ids = _roll_and_bills(session, ordinance, year, property_ids, now)
        journal.bills += len(bill_ids)
        journal.due_of.update(dict.fromkeys(bill_ids, year.due))
        plan = _bill_entries(year, bill_ids)
        revenue_by_month = _payment_entries(plan, rng, d, year, bill_ids)
        _expenditure_entries(plan, journal, d, year.fy, revenue_by_month, purposes)
        ids = reserve(session, JournalEntry, len(plan))
        for entry_id, (on, kind, memo, key, body) in zip(ids, plan, strict=True):
            journal.entries.append((entry_id, on, kind, memo, key))
            for account, bill_id, cents in body:
                journal.lines.append((entry_id, account, bill_id, cents))
    _write_journal(session, d, journal, now)
    _write_running_balances(session, d, journal)
    audit.record(
        session=session,
        actor=ACTOR,
        action="district.generate",
        entity=district,
        after={
            "properties": properties,
            "fiscal_years": [first_fy.label, last_fiscal_year.label],
            "bills": journal.bills,
            "entries": len(journal.entries),
            "lines": len(journal.lines),
        },
    )
    forget_reserved(session)
    return LargeDistrict(
        d,
        True,
        properties,
        journal.bills,
        len(journal.entries),
        len(journal.lines),
        time.monotonic() - started,
    )


def _district(
    session: Session, name: str, properties: int, years: int, first_fy: FiscalYear
) -> tuple[District, Ordinance]:
    """Dorado (found or made), the district, and its ordinance in force over the years."""
    municipality = session.exec(
        select(Municipality).where(Municipality.name == LARGE_MUNICIPALITY)
    ).first()
    if municipality is None:
        municipality = records.add(session, Municipality(name=LARGE_MUNICIPALITY))
    district = records.add(
        session,
        District(
            municipality_id=municipality.id or 0,
            name=name,
            association_name="Asociación del Distrito de Dorado del Mar, Inc.",
        ),
    )
    ordinance = records.ordinance(
        session,
        municipality_id=municipality.id or 0,
        district_id=district.id or 0,
        district_name=name,
        petitioner="Alcaldesa de Dorado",
        received_on=date(first_fy.start_year - 1, 9, 1),
        expected_amount=Decimal(properties) * Decimal("600.00"),
        term_years=years + 5,  # still in force after the generated years
        formula=FORMULA,
        association_name=district.association_name,
        issued_on=date(first_fy.start_year - 1, 12, 1),
        approved_on=date(first_fy.start_year - 1, 12, 15),
        received_by_association_on=date(first_fy.start_year, 1, 10),
    )
    return district, ordinance


def _properties(
    session: Session, rng: random.Random, d: int, property_ids: list[int], now: datetime
) -> list[int]:
    """The properties, written; their assessed values in cents (of the first year)."""
    cadastral = [
        f"{700 + i // 1_000_000:03d}-{(i // 1000) % 1000:03d}-{i % 1000:03d}-01"
        for i in range(len(property_ids))
    ]
    values = [rng.randrange(50_000_00, 2_500_000_00) for _ in property_ids]
    bulk(
        session,
        Property,
        ("id", "district_id", "cadastral_number", "physical_address", "created_at"),
        (
            (pid, d, cadastral[i], f"{i % 900 + 1} Calle {i % 37 + 1}, Dorado del Mar", now)
            for i, pid in enumerate(property_ids)
        ),
    )
    return values


def _year(first_fy: FiscalYear, offset: int, values: list[int]) -> _Year:
    """The ``offset``-th year: assessed values 2% higher each year, billed by the formula."""
    fy = FiscalYear(first_fy.start_year + offset)
    factor = 100 + 2 * offset
    assessed = [v * factor // 100 for v in values]
    amounts = [int((Decimal(v) * RATE).to_integral_value()) for v in assessed]
    return _Year(
        fy, offset, date(fy.start_year, 7, 15), date(fy.start_year, 9, 30), assessed, amounts
    )


def _roll_and_bills(
    session: Session,
    ordinance: Ordinance,
    year: _Year,
    property_ids: list[int],
    now: datetime,
) -> list[int]:
    """The year's roll import, billing run, property-years and bills; the bills' ids."""
    d = ordinance.district_id
    n = len(property_ids)
    roll = records.roll_import(
        session,
        district_id=d,
        fiscal_year=year.fy.label,
        file_name=f"roll-{year.fy.label}.csv",
        sha256=f"{d:032d}{year.offset:032d}",
        rows=n,
        added=n,
        actor=ACTOR.label,
    )
    run = records.billing_run(
        session,
        ordinance,
        fiscal_year=year.fy.label,
        property_count=n,
        total=from_cents(sum(year.amounts)),
        run_on=year.run_on,
        due_date=year.due,
        fingerprint=f"{year.offset:064d}",
        actor=ACTOR.label,
    )
    year_ids = _property_years(session, roll, year, property_ids, now)
    return _bills(session, run, year, property_ids, year_ids, now)


def _property_years(
    session: Session, roll: RollImport, year: _Year, property_ids: list[int], now: datetime
) -> list[int]:
    """Every property as the year's roll describes it, written; their ids."""
    year_ids = reserve(session, PropertyYear, len(property_ids))
    bulk(
        session,
        PropertyYear,
        (
            "id",
            "property_id",
            "district_id",
            "fiscal_year",
            "roll_import_id",
            "source_row",
            "in_roll",
            "owner_names",
            "mailing_urbanization",
            "mailing_line1",
            "mailing_line2",
            "mailing_city",
            "mailing_state",
            "mailing_zip",
            "physical_address",
            "assessed_value",
            "use_class",
            "attributes",
            "updated_at",
        ),
        (
            (
                yid,
                property_ids[i],
                roll.district_id,
                year.fy.label,
                roll.id,
                i + 2,
                True,
                f"Propietario {i + 1}",
                "URB DORADO DEL MAR",
                f"{i % 900 + 1} Calle {i % 37 + 1}",
                "",
                "Dorado",
                "PR",
                "00646",
                f"{i % 900 + 1} Calle {i % 37 + 1}, Dorado del Mar",
                year.assessed[i],
                "commercial" if i % 7 == 0 else "residential",
                "{}",
                now,
            )
            for i, yid in enumerate(year_ids)
        ),
    )
    return year_ids


def _bills(
    session: Session,
    run: BillingRun,
    year: _Year,
    property_ids: list[int],
    year_ids: list[int],
    now: datetime,
) -> list[int]:
    """The run's bill for every property, written; their ids."""
    bill_ids = reserve(session, Bill, len(property_ids))
    bulk(
        session,
        Bill,
        (
            "id",
            "billing_run_id",
            "district_id",
            "property_id",
            "property_year_id",
            "fiscal_year",
            "amount",
            "explanation",
            "due_date",
            "status",
            "created_at",
        ),
        (
            (
                bid,
                run.id,
                run.district_id,
                property_ids[i],
                year_ids[i],
                year.fy.label,
                year.amounts[i],
                f"{FORMULA} = 0.0025 × {money_str(from_cents(year.assessed[i]))} = "
                f"{money_str(from_cents(year.amounts[i]))}",
                year.due,
                "active",
                now,
            )
            for i, bid in enumerate(bill_ids)
        ),
    )
    return bill_ids


def _bill_entries(year: _Year, bill_ids: list[int]) -> Plan:
    """The year's entries, starting with its bills as the billing run books them."""
    return [
        (
            year.run_on,
            "bill",
            f"Impost FY {year.fy.label}, bill {bid}",
            f"bill:{bid}",
            [(RECEIVABLE, bid, year.amounts[i]), (ASSESSED, bid, -year.amounts[i])],
        )
        for i, bid in enumerate(bill_ids)
    ]


def _payment_entries(
    plan: Plan, rng: random.Random, d: int, year: _Year, bill_ids: list[int]
) -> dict[tuple[int, int], int]:
    """The owners' payments (most in full, some over, some half, a few none: delinquent),
    booked as ``record_payment`` books them; the revenue of each (year, month)."""
    revenue_by_month: dict[tuple[int, int], int] = defaultdict(int)
    for i, bid in enumerate(bill_ids):
        a = year.amounts[i]
        r = rng.random()
        if r >= 0.96 or a == 0:
            continue  # unpaid: delinquent
        paid = a if r < 0.90 else a + rng.randrange(100, 5000) if r < 0.93 else a // 2
        if paid <= 0:
            continue
        on = year.run_on + timedelta(days=rng.randrange(5, 200))
        applied = min(paid, a)
        reference = f"IV{bid}"
        amount = from_cents(paid)
        body: Lines = [
            (BANK, None, paid),
            (RECEIVABLE, bid, -applied),
            (ASSESSED, bid, applied),
        ]
        body.append((REVENUE, bid, -applied))
        if paid > applied:
            body.append((OWNER_CREDIT, bid, applied - paid))
        plan.append(
            (
                on,
                "payment",
                f"Payment {money_str(amount)}, ref. {reference}",
                payment_key(district_id=d, paid_on=on, amount=amount, reference=reference),
                body,
            )
        )
        revenue_by_month[(on.year, on.month)] += applied
    return revenue_by_month


def _expenditure_entries(
    plan: Plan,
    journal: _Journal,
    d: int,
    fy: FiscalYear,
    revenue_by_month: dict[tuple[int, int], int],
    purposes: list[AuthorizedPurpose],
) -> None:
    """At the end of each month of the year: administration at 4% of the month's revenue
    (within the cap) and a quarter of it on each purpose."""
    for (year, month), revenue in sorted(revenue_by_month.items()):
        last = (date(year + month // 12, month % 12 + 1, 1)) - timedelta(days=1)
        if not fy.contains(last):
            continue
        admin = revenue * 4 // 100  # within the administrative cap of the month's revenue
        items: list[tuple[str, int | None, int, str]] = [
            (ADMIN_EXPENSE, None, admin, "Administración Dorado del Mar")
        ]
        for n, purpose in enumerate(purposes):
            items.append(
                (
                    ledger.purpose_account(purpose.id or 0),
                    purpose.id,
                    revenue * 25 // 100,
                    f"Contratista {n + 1}",
                )
            )
        for n, (account, purpose_id, cents, payee) in enumerate(items):
            if cents <= 0:
                continue
            amount = from_cents(cents)
            label = f" ({PURPOSES[n - 1]})" if purpose_id else " (administrative)"
            key = f"expenditure:{d}:large:{year}-{month:02d}:{n}"
            plan.append(
                (
                    last,
                    "expenditure",
                    f"{payee}: {money_str(amount)}{label}",
                    key,
                    [(account, None, cents), (BANK, None, -cents)],
                )
            )
            journal.expenditures.append((key, last, payee, cents, purpose_id is None, purpose_id))


def _write_journal(session: Session, d: int, journal: _Journal, now: datetime) -> None:
    """The entries, their lines and the expenditures, written."""
    bulk(
        session,
        JournalEntry,
        (
            "id",
            "district_id",
            "number",
            "entry_date",
            "kind",
            "memo",
            "idempotency_key",
            "actor",
            "created_at",
        ),
        (
            (e[0], d, n, e[1], e[2], e[3], e[4], ACTOR.label, now)
            for n, e in enumerate(journal.entries, start=1)
        ),
    )
    bulk(session, JournalLine, ("entry_id", "account", "bill_id", "amount"), journal.lines)
    by_key = {e[4]: e[0] for e in journal.entries}
    expenditure_ids = reserve(session, Expenditure, len(journal.expenditures))
    bulk(
        session,
        Expenditure,
        (
            "id",
            "district_id",
            "entry_id",
            "spent_on",
            "payee",
            "description",
            "reference",
            "amount",
            "administrative",
            "purpose_id",
        ),
        (
            (xid, d, by_key[key], on, payee, "", "", cents, administrative, purpose_id)
            for xid, (key, on, payee, cents, administrative, purpose_id) in zip(
                expenditure_ids, journal.expenditures, strict=True
            )
        ),
    )


def _write_running_balances(session: Session, d: int, journal: _Journal) -> None:
    """The running balances (per account and day, per bill, the bills owed per due date, the
    bills booked through) and the entries' count per day and kind, from the entries and
    lines just written."""
    day_of = {e[0]: e[1] for e in journal.entries}
    days: dict[tuple[str, date], int] = defaultdict(int)
    per_bill: dict[int, list[int]] = {}
    for entry_id, account, bill_id, cents in journal.lines:
        days[(account, day_of[entry_id])] += cents
        if bill_id is not None and account in (RECEIVABLE, OWNER_CREDIT):
            pair = per_bill.setdefault(bill_id, [0, 0])
            pair[0 if account == RECEIVABLE else 1] += cents
    bulk(
        session,
        LedgerDay,
        ("district_id", "account", "day", "amount"),
        ((d, account, on, cents) for (account, on), cents in days.items()),
    )
    counts: dict[tuple[date, str], int] = defaultdict(int)
    for entry in journal.entries:
        counts[(entry[1], entry[2])] += 1
    bulk(
        session,
        JournalDay,
        ("district_id", "day", "kind", "entries"),
        ((d, on, kind, n) for (on, kind), n in counts.items()),
    )
    bulk(
        session,
        BillLedger,
        ("bill_id", "district_id", "due_date", "receivable", "owner_credit"),
        (
            (bill_id, d, journal.due_of[bill_id], pair[0], pair[1])
            for bill_id, pair in per_bill.items()
        ),
    )
    owed: dict[date, list[int]] = {}
    for bill_id, pair in per_bill.items():
        if pair[0] > 0:
            due = owed.setdefault(journal.due_of[bill_id], [0, 0])
            due[0] += 1
            due[1] += pair[0]
    bulk(
        session,
        OwedDay,
        ("district_id", "due_date", "bills", "receivable"),
        ((d, on, n, cents) for on, (n, cents) in owed.items()),
    )
    max_bill = int(
        session.execute(
            sa_select(func.max(table_of(Bill).c.id)).where(table_of(Bill).c.district_id == d)
        ).scalar_one()
        or 0
    )
    session.add(LedgerState(district_id=d, bills_through=max_bill))
    session.flush()


def _summary(session: Session, district_id: int, *, created: bool, started: float) -> LargeDistrict:
    def count(model: Any, column: Any) -> int:
        return int(
            session.execute(
                sa_select(func.count()).select_from(table_of(model)).where(column == district_id)
            ).scalar_one()
        )

    entry = table_of(JournalEntry)
    line = table_of(JournalLine)
    lines = int(
        session.execute(
            sa_select(func.count())
            .select_from(line.join(entry, entry.c.id == line.c.entry_id))
            .where(entry.c.district_id == district_id)
        ).scalar_one()
    )
    return LargeDistrict(
        district_id,
        created,
        count(Property, table_of(Property).c.district_id),
        count(Bill, table_of(Bill).c.district_id),
        count(JournalEntry, entry.c.district_id),
        lines,
        time.monotonic() - started,
    )
