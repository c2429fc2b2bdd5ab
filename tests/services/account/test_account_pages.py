"""The account pages' reads: the districts a person sees, the dashboard's balances, an
entry or purpose of another district, the documents' rows."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tests.conftest import People
from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.periods import parse_fiscal_year
from tid.services.account import account_pages, expenditures, payments

FY = parse_fiscal_year("2025-26")


def _paid(session: Session, people: People, amount: str) -> tuple[Scaffold, int]:
    s = Scaffold(session, people.district)
    bill = s.bill(s.property("123-456-789-01"), "1000.00")
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal(amount),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill.id),
    )
    session.commit()
    return s, paid.entry_id


def test_the_districts_a_person_sees(session: Session, people: People) -> None:
    seen = account_pages.districts_seen_by(session=session, person=people.association)
    assert [d.id for d, _m in seen] == [people.district.id]
    every = account_pages.districts_seen_by(session=session, person=people.auditor)
    assert {d.id for d, _m in every} >= {people.district.id, people.other_district.id}


def test_the_dashboard_sums_what_is_owed_and_held(session: Session, people: People) -> None:
    s, _entry = _paid(session, people, "1200.00")
    seen = account_pages.dashboard(session=session, district_id=s.district_id, fy=FY)
    # 1,200.00 paid on a bill of 1,000.00: nothing owed, 200.00 held as the owner's credit.
    assert seen.bank == Decimal("1200.00")
    assert seen.receivable == Decimal("0.00") and seen.owner_credit == Decimal("200.00")
    assert seen.figures.revenue == Decimal("1000.00")


def test_an_entry_or_purpose_of_another_district_is_not_found(
    session: Session, people: People
) -> None:
    s, entry_id = _paid(session, people, "400.00")
    other = people.other_district.id or 0
    assert account_pages.is_district_entry(
        session=session, district_id=s.district_id, entry_id=entry_id
    )
    assert not account_pages.is_district_entry(
        session=session, district_id=other, entry_id=entry_id
    )
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="Ornato"
    )
    assert not account_pages.is_district_purpose(
        session=session, district_id=other, purpose_id=purpose.id or 0
    )


def test_the_statement_documents_count_their_rows(session: Session, people: People) -> None:
    s, _entry = _paid(session, people, "400.00")
    rows = {
        name: account_pages.document_rows(
            session=session, district_id=s.district_id, name=name, fy=FY, today=date(2026, 7, 1)
        )
        for name in ("statement.pdf", "aging.csv", "journal.csv", "delinquency.pdf")
    }
    assert rows["statement.pdf"] == rows["aging.csv"] + rows["journal.csv"]
    assert rows["aging.csv"] == 1 and rows["delinquency.pdf"] == 1  # the bill, 600.00 owed
