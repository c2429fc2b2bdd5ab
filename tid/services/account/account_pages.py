"""What the special account's pages read, each page's reads in one call: the districts a
person sees, the dashboard's figures, the expenditures of a fiscal year, a property's liens
with the owner's credit, the yearly statement's page, and how many rows each of the
account's documents has (whether a request may render it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tid.models import (
    AuthorizedPurpose,
    District,
    Expenditure,
    JournalEntry,
    Municipality,
    Property,
)
from tid.rules.account_months import Month
from tid.rules.aging import AGING_BUCKETS
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import account_reads, audit_statement, expenditures, payments, year_locks
from tid.services.auth import access as policy
from tid.services.auth.access import Person
from tid.services.liens import impost_lien as liens
from tid.services.public import district_figures

ZERO = Decimal("0.00")


def districts_seen_by(*, session: Session, person: Person) -> list[tuple[District, Municipality]]:
    """Every district ``person`` may see with its municipality, by municipality and name."""
    stmt = (
        select(District, Municipality)
        .join(Municipality, col(Municipality.id) == col(District.municipality_id))
        .order_by(col(Municipality.name), col(District.name))
    )
    rows = session.exec(stmt).all()
    return [(d, m) for d, m in rows if policy.can_see_district(person, d.id, d.municipality_id)]


@dataclass(frozen=True)
class Dashboard:
    """A district's fiscal year at a glance: the cap's figures, the months, what the bank
    holds, what owners owe (booked bills and bills not yet booked), the owners' credit, and
    the latest bank check."""

    months: list[Month]
    figures: ledger.CapFigures
    bank: Decimal
    receivable: Decimal
    owner_credit: Decimal
    checks: list[audit_statement.BankCheck]


def dashboard(*, session: Session, district_id: int, fy: FiscalYear) -> Dashboard:
    """The dashboard of ``fy``: the year's totals are its last month's to date."""
    months = audit_statement.months(session=session, district_id=district_id, fy=fy)
    figures = ledger.cap_figures_of(
        fy, revenue=months[-1].revenue_to_date, admin=months[-1].admin_to_date
    )
    balances = ledger.balances(
        session=session,
        district_id=district_id,
        accounts=(ledger.BANK, ledger.RECEIVABLE, ledger.OWNER_CREDIT),
    )
    unbooked = sum(ledger.unbooked_owed(session=session, district_id=district_id).values(), ZERO)
    return Dashboard(
        months=months,
        figures=figures,
        bank=balances.get(ledger.BANK, ZERO),
        receivable=balances.get(ledger.RECEIVABLE, ZERO) + unbooked,
        owner_credit=-balances.get(ledger.OWNER_CREDIT, ZERO),
        checks=list(audit_statement.bank_checks(session=session, district_id=district_id, limit=1)),
    )


def is_district_entry(*, session: Session, district_id: int, entry_id: int) -> bool:
    """Whether journal entry ``entry_id`` is one of the district's."""
    entry = session.get(JournalEntry, entry_id)
    return entry is not None and entry.district_id == district_id


def is_district_purpose(*, session: Session, district_id: int, purpose_id: int) -> bool:
    """Whether authorized purpose ``purpose_id`` is one of the district's."""
    purpose = session.get(AuthorizedPurpose, purpose_id)
    return purpose is not None and purpose.district_id == district_id


@dataclass(frozen=True)
class ExpendituresYear:
    """A fiscal year's expenditures, newest first, with the district's authorized purposes
    (and their names by id) and the year's cap figures."""

    purposes: list[AuthorizedPurpose]
    names: dict[int | None, str]
    figures: ledger.CapFigures
    rows: list[Expenditure]
    entry_numbers: dict[int, int | None]  # each expenditure's entry's number, by entry id


def expenditures_year(*, session: Session, district_id: int, fy: FiscalYear) -> ExpendituresYear:
    purposes = list(expenditures.purposes(session=session, district_id=district_id))
    spent = expenditures.expenditures(
        session=session, district_id=district_id, since=fy.start, until=fy.end
    )
    return ExpendituresYear(
        purposes=purposes,
        names={p.id: p.name for p in purposes},
        figures=ledger.cap_figures(session=session, district_id=district_id, fy=fy),
        rows=list(reversed(spent)),
        entry_numbers=ledger.entry_numbers(session=session, entry_ids=[e.entry_id for e in spent]),
    )


@dataclass(frozen=True)
class PropertyLiens:
    """A property's liens ranked (and, given a sale price, paid rank by rank: by lien and
    part), and the owner's credit held on its bills."""

    view: liens.LienPriority
    paid: dict[tuple[str, str], Any]
    credit: Decimal


def property_liens(
    *,
    session: Session,
    district_id: int,
    prop: Property,
    today: date,
    sale_proceeds: Decimal | None,
) -> PropertyLiens:
    view = liens.lien_priority(session=session, prop=prop, today=today, sale_proceeds=sale_proceeds)
    held = payments.credit_by_bill(
        session=session, district_id=district_id, property_id=prop.id or 0
    )
    return PropertyLiens(
        view=view,
        paid={(p.id, p.part): p for p in view.result.distribution or ()},
        credit=sum(held.values(), ZERO),
    )


def statement_page(
    *,
    session: Session,
    district: District,
    fy: FiscalYear,
    booked_by: date | None,
    today: date,
    person: Person,
) -> dict[str, Any]:
    """The yearly statement's page (account_reads.statement_page_context), whether its PDF
    lists the rows or gives their totals, the year's lock, whether ``person`` may lock
    years, and the years before the district moved in."""
    context = account_reads.statement_page_context(
        session=session, district=district, fy=fy, booked_by=booked_by, today=today
    )
    return {
        **context,
        "pdf_in_detail": account_reads.statement_in_detail(
            context["aging_count"], context["entries_count"]
        ),
        "lock": year_locks.lock_of(session=session, district_id=district.id or 0, fy=fy),
        "may_lock": policy.may_lock_years(person),
        "earlier_years": district_figures.earlier_years(
            session=session, district_id=district.id or 0
        ),
    }


def statements_first_read(*, session: Session, today: date) -> list[tuple[int, FiscalYear]]:
    """The yearly statements a reader opens first, district by district: the year its page
    shows by default (``account_reads.default_fiscal_year``) and the year before."""
    found = []
    for district_id in session.exec(select(District.id).order_by(col(District.id))):
        if district_id is None:
            continue
        fy = account_reads.default_fiscal_year(
            session=session, district_id=district_id, today=today
        )
        found += [(district_id, fy), (district_id, FiscalYear(fy.start_year - 1))]
    return found


def statement_rows(aging: int, entries: int) -> dict[str, int]:
    """The rows of each of the statement's documents (keys of ``tid.documents.KINDS``): its
    PDF has the receivables and the entries when they are few
    (``account_reads.statement_in_detail``), else its totals — the months, the accounts and
    the ages (:data:`SUMMARY_ROWS` at most); each CSV file has one of them."""
    in_detail = account_reads.statement_in_detail(aging, entries)
    pdf = aging + entries if in_detail else SUMMARY_ROWS
    return {"statement.pdf": pdf, "aging.csv": aging, "journal.csv": entries}


def delinquency_rows(bills: int) -> dict[str, int]:
    """The rows of the delinquency list's documents: its PDF lists the ``bills`` when they
    are few (``liens.DETAIL_ROWS``), else gives their totals by age and by fiscal year; its
    CSV file lists them."""
    pdf = bills if bills <= liens.DETAIL_ROWS else SUMMARY_ROWS
    return {"delinquency.pdf": pdf, "delinquency.csv": bills}


# The rows of the yearly statement's PDF in totals: twelve months, the ages of the
# receivables, and the accounts (a few, and one per authorized purpose).
SUMMARY_ROWS = 12 + len(AGING_BUCKETS) + 20


def document_rows(
    *, session: Session, district_id: int, name: str, fy: FiscalYear | None, today: date
) -> int:
    """How many rows the account's document ``name`` (a key of ``tid.documents.KINDS``) has,
    from the indexed counts and the entries' count per day, not the rows; the statement's
    documents count those of ``fy``."""
    if name in ("delinquency.pdf", "delinquency.csv"):
        total = liens.delinquency_page(
            session=session, district_id=district_id, today=today, per_page=1
        ).total
        return delinquency_rows(total)[name]
    if fy is None:
        raise ValueError(f"{name}: its rows are those of a fiscal year")
    aging = journal = 0
    if name in ("statement.pdf", "aging.csv"):
        aging = audit_statement.aging_page(
            session=session, district_id=district_id, as_of=fy.end, limit=0
        ).count
    if name in ("statement.pdf", "journal.csv"):
        journal = ledger.entries_count(
            session=session, district_id=district_id, since=fy.start, until=fy.end
        )
    return statement_rows(aging, journal)[name]
