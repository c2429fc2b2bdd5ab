"""A large district for benchmarks and trials at a real roll's size: by default 20,000
properties and 10 fiscal years of rolls, bills, payments and expenditures (about 1,000,000
journal lines), made in a few minutes (``tid demo large-district``).

It is written in bulk (PostgreSQL ``COPY``, SQLite ``executemany``), not through the
services one payment at a time, which would take hours. The journal it writes is the rows
the services write: the same entries (kinds, dates, memos, idempotency keys) with the same
lines in the same order, and the running balances (``ledger_day``, ``bill_ledger``,
``ledger_state``) computed from them, so ``tid account verify`` passes on it. What differs:
one audit event records the whole load (the services write one per entry), and the bills'
explanation is a one-line summary of the formula instead of the billing service's full
trace.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import Table, func, text
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from tid.clock import utcnow
from tid.models import (
    Bill,
    BillingRun,
    BillLedger,
    District,
    Expenditure,
    JournalEntry,
    JournalLine,
    LedgerDay,
    LedgerState,
    Money,
    Municipality,
    Ordinance,
    Petition,
    Property,
    PropertyYear,
    Quantity,
    RollImport,
    User,
)
from tid.rules.money import from_cents, money_str
from tid.rules.periods import FiscalYear
from tid.services import audit, expenditures, ledger, users
from tid.services.ledger import (
    ADMIN_EXPENSE,
    ASSESSED,
    BANK,
    OWNER_CREDIT,
    RECEIVABLE,
    REVENUE,
)
from tid.services.payments import payment_key

LARGE_DISTRICT = "Distrito de Mejoramiento Turístico de Dorado del Mar"
LARGE_MUNICIPALITY = "Dorado"
LARGE_USER = "asociacion.dorado@demo.tid.pr"
ACTOR = audit.Actor("large district generator")
RATE = Decimal("0.0025")  # the ordinance's formula: 0.0025 × assessed value
FORMULA = "0.0025 * assessed_value"
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


def _table(model: Any) -> Table:
    return model.__table__  # type: ignore[no-any-return]


def _reserve(session: Session, model: Any, n: int) -> list[int]:
    """``n`` ids for new rows of ``model`` (PostgreSQL: from its sequence, safe alongside
    other writers; SQLite: after the largest, under the write lock already held)."""
    if n == 0:
        return []
    table = _table(model)
    if session.connection().dialect.name == "postgresql":
        rows = session.execute(
            text("SELECT nextval(pg_get_serial_sequence(:t, 'id')) FROM generate_series(1, :n)"),
            {"t": table.name, "n": n},
        )
        return [int(r[0]) for r in rows]
    start = int(session.execute(sa_select(func.coalesce(func.max(table.c.id), 0))).scalar_one())
    reserved: dict[str, int] = session.info.setdefault("reserved_ids", {})
    start = max(start, reserved.get(table.name, 0))  # ids handed out, not yet written
    reserved[table.name] = start + n
    return list(range(start + 1, start + 1 + n))


def _bulk(
    session: Session, model: Any, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]
) -> int:
    """Insert rows (money as integer cents) as fast as the database takes them."""
    table = _table(model)
    connection = session.connection()
    raw: Any = connection.connection.dbapi_connection
    names = ", ".join(columns)
    count = 0
    if connection.dialect.name == "postgresql":
        with raw.cursor() as cursor, cursor.copy(f"COPY {table.name} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                count += 1
        return count
    processors = []
    for name in columns:
        kind = table.c[name].type
        processors.append(
            None if isinstance(kind, Money | Quantity) else kind.bind_processor(connection.dialect)
        )
    marks = ", ".join("?" for _ in columns)
    batch: list[tuple[Any, ...]] = []

    def flush() -> None:
        raw.executemany(f"INSERT INTO {table.name} ({names}) VALUES ({marks})", batch)
        batch.clear()

    for row in rows:
        batch.append(
            tuple(
                v if p is None or v is None else p(v) for v, p in zip(row, processors, strict=True)
            )
        )
        count += 1
        if len(batch) >= 20_000:
            flush()
    if batch:
        flush()
    return count


# Long: one generator of the benchmark district, its records in the order they depend on each other.
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
    ledger.lock_district(session, 0)  # SQLite: the write lock, before any id is chosen
    rng = random.Random(seed)
    now = utcnow()
    municipality = session.exec(
        select(Municipality).where(Municipality.name == LARGE_MUNICIPALITY)
    ).first()
    if municipality is None:
        municipality = Municipality(name=LARGE_MUNICIPALITY)
        session.add(municipality)
        session.flush()
    district = District(
        municipality_id=municipality.id or 0,
        name=name,
        association_name="Asociación del Distrito de Dorado del Mar, Inc.",
    )
    session.add(district)
    session.flush()
    d = district.id or 0
    first_fy = FiscalYear(last_fiscal_year.start_year - years + 1)
    petition = Petition(
        municipality_id=municipality.id or 0,
        district_name=name,
        petitioner="Alcaldesa de Dorado",
        received_on=date(first_fy.start_year - 1, 9, 1),
    )
    session.add(petition)
    session.flush()
    ordinance = Ordinance(
        petition_id=petition.id or 0,
        municipality_id=municipality.id or 0,
        district_id=d,
        district_name=name,
        expected_amount=Decimal(properties) * Decimal("600.00"),
        term_years=years + 5,  # still in force after the generated years
        formula=FORMULA,
        association_name=district.association_name,
        issued_on=date(first_fy.start_year - 1, 12, 1),
        approved_on=date(first_fy.start_year - 1, 12, 15),
        received_by_association_on=date(first_fy.start_year, 1, 10),
    )
    session.add(ordinance)
    session.flush()
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

    # The properties and their assessed values (growing a little each year).
    property_ids = _reserve(session, Property, properties)
    cadastral = [
        f"{700 + i // 1_000_000:03d}-{(i // 1000) % 1000:03d}-{i % 1000:03d}-01"
        for i in range(properties)
    ]
    values = [rng.randrange(50_000_00, 2_500_000_00) for _ in range(properties)]  # cents
    _bulk(
        session,
        Property,
        ("id", "district_id", "cadastral_number", "physical_address", "created_at"),
        (
            (pid, d, cadastral[i], f"{i % 900 + 1} Calle {i % 37 + 1}, Dorado del Mar", now)
            for i, pid in enumerate(property_ids)
        ),
    )

    entries: list[tuple[Any, ...]] = []  # (id, date, kind, memo, key)
    lines: list[tuple[int, str, int | None, int]] = []  # (entry, account, bill, cents)
    expenditure_rows: list[tuple[Any, ...]] = []
    bill_count = 0
    due_of: dict[int, date] = {}  # bill id → due date (the running balance per bill keeps it)
    for offset in range(years):
        fy = FiscalYear(first_fy.start_year + offset)
        run_on = date(fy.start_year, 7, 15)
        due = date(fy.start_year, 9, 30)
        roll = RollImport(
            district_id=d,
            fiscal_year=fy.label,
            file_name=f"roll-{fy.label}.csv",
            sha256=f"{d:032d}{offset:032d}",
            rows=properties,
            added=properties,
            actor=ACTOR.label,
        )
        session.add(roll)
        session.flush()
        factor = 100 + 2 * offset  # +2% a year
        assessed = [v * factor // 100 for v in values]
        amounts = [int((Decimal(v) * RATE).to_integral_value()) for v in assessed]
        run = BillingRun(
            district_id=d,
            ordinance_id=ordinance.id or 0,
            fiscal_year=fy.label,
            version=1,
            formula=FORMULA,
            property_count=properties,
            total=from_cents(sum(amounts)),
            expected_amount=ordinance.expected_amount,
            run_on=run_on,
            due_date=due,
            fingerprint=f"{offset:064d}",
            actor=ACTOR.label,
        )
        session.add(run)
        session.flush()
        year_ids = _reserve(session, PropertyYear, properties)
        _bulk(
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
                    d,
                    fy.label,
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
                    assessed[i],
                    "commercial" if i % 7 == 0 else "residential",
                    "{}",
                    now,
                )
                for i, yid in enumerate(year_ids)
            ),
        )
        bill_ids = _reserve(session, Bill, properties)
        bill_count += len(bill_ids)
        due_of.update(dict.fromkeys(bill_ids, due))
        _bulk(
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
                    d,
                    property_ids[i],
                    year_ids[i],
                    fy.label,
                    amounts[i],
                    f"{FORMULA} = 0.0025 × {money_str(from_cents(assessed[i]))} = "
                    f"{money_str(from_cents(amounts[i]))}",
                    due,
                    "active",
                    now,
                )
                for i, bid in enumerate(bill_ids)
            ),
        )
        # This year's entries: the bills, the payments, the expenditures.
        plan: list[tuple[date, str, str, str, list[tuple[str, int | None, int]]]] = []
        for i, bid in enumerate(bill_ids):
            a = amounts[i]
            plan.append(
                (
                    run_on,
                    "bill",
                    f"Impost FY {fy.label}, bill {bid}",
                    f"bill:{bid}",
                    [(RECEIVABLE, bid, a), (ASSESSED, bid, -a)],
                )
            )
        revenue_by_month: dict[tuple[int, int], int] = defaultdict(int)
        for i, bid in enumerate(bill_ids):
            a = amounts[i]
            r = rng.random()
            if r >= 0.96 or a == 0:
                continue  # unpaid: delinquent
            paid = a if r < 0.90 else a + rng.randrange(100, 5000) if r < 0.93 else a // 2
            if paid <= 0:
                continue
            on = run_on + timedelta(days=rng.randrange(5, 200))
            applied = min(paid, a)
            reference = f"IV{bid}"
            amount = from_cents(paid)
            body: list[tuple[str, int | None, int]] = [
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
        spent = 0
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
                spent += cents
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
                expenditure_rows.append((key, last, payee, cents, purpose_id is None, purpose_id))
        ids = _reserve(session, JournalEntry, len(plan))
        for entry_id, (on, kind, memo, key, body) in zip(ids, plan, strict=True):
            entries.append((entry_id, on, kind, memo, key))
            for account, bill_id, cents in body:
                lines.append((entry_id, account, bill_id, cents))

    _bulk(
        session,
        JournalEntry,
        (
            "id",
            "district_id",
            "entry_date",
            "kind",
            "memo",
            "idempotency_key",
            "actor",
            "created_at",
        ),
        ((e[0], d, e[1], e[2], e[3], e[4], ACTOR.label, now) for e in entries),
    )
    _bulk(session, JournalLine, ("entry_id", "account", "bill_id", "amount"), lines)
    by_key = {e[4]: e[0] for e in entries}
    expenditure_ids = _reserve(session, Expenditure, len(expenditure_rows))
    _bulk(
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
                expenditure_ids, expenditure_rows, strict=True
            )
        ),
    )
    # The running balances, from the lines just written.
    day_of = {e[0]: e[1] for e in entries}
    days: dict[tuple[str, date], int] = defaultdict(int)
    per_bill: dict[int, list[int]] = {}
    for entry_id, account, bill_id, cents in lines:
        days[(account, day_of[entry_id])] += cents
        if bill_id is not None and account in (RECEIVABLE, OWNER_CREDIT):
            pair = per_bill.setdefault(bill_id, [0, 0])
            pair[0 if account == RECEIVABLE else 1] += cents
    _bulk(
        session,
        LedgerDay,
        ("district_id", "account", "day", "amount"),
        ((d, account, on, cents) for (account, on), cents in days.items()),
    )
    _bulk(
        session,
        BillLedger,
        ("bill_id", "district_id", "due_date", "receivable", "owner_credit"),
        ((bill_id, d, due_of[bill_id], pair[0], pair[1]) for bill_id, pair in per_bill.items()),
    )
    max_bill = int(
        session.execute(
            sa_select(func.max(_table(Bill).c.id)).where(_table(Bill).c.district_id == d)
        ).scalar_one()
        or 0
    )
    session.add(LedgerState(district_id=d, bills_through=max_bill))
    session.flush()
    audit.record(
        session,
        ACTOR,
        "district.generate",
        district,
        after={
            "properties": properties,
            "fiscal_years": [first_fy.label, last_fiscal_year.label],
            "bills": bill_count,
            "entries": len(entries),
            "lines": len(lines),
        },
    )
    session.info.pop("reserved_ids", None)
    return LargeDistrict(
        d, True, properties, bill_count, len(entries), len(lines), time.monotonic() - started
    )


def _summary(session: Session, district_id: int, *, created: bool, started: float) -> LargeDistrict:
    def count(model: Any, column: Any) -> int:
        return int(
            session.execute(
                sa_select(func.count()).select_from(_table(model)).where(column == district_id)
            ).scalar_one()
        )

    entry = _table(JournalEntry)
    line = _table(JournalLine)
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
        count(Property, _table(Property).c.district_id),
        count(Bill, _table(Bill).c.district_id),
        count(JournalEntry, entry.c.district_id),
        lines,
        time.monotonic() - started,
    )
