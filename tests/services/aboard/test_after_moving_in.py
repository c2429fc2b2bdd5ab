"""After moving in, the opened bills work as bills made here: the delinquency list (with
the late charges the earlier books accrued), a payoff quote and a payment against one,
the payment by the old notice's number, and the statement of the cut-over year, which
opens with the balance brought forward and says so."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.aboard.support import ACTOR, TODAY, district_with_rolls, example_files, load
from tid.models import Property
from tid.rules.money import round_cents
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import audit_statement, payments
from tid.services.closing import payoffs
from tid.services.liens import impost_lien as liens

CUT_OVER = date(2026, 1, 1)


def moved_in(session: Session, people: People) -> int:
    district_id = district_with_rolls(session, people)
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0.12",
    )
    load(session, district_id, example_files("es"))
    session.commit()
    return district_id


def interest(owed: str, days: int) -> Decimal:
    return round_cents(Decimal(owed) * Decimal("0.12") * days / 365)


def prop(session: Session, cadastral: str) -> Property:
    return session.exec(select(Property).where(Property.cadastral_number == cadastral)).one()


def test_the_delinquency_lists_the_opened_bills_with_their_charges_brought(
    session: Session, people: People
) -> None:
    district_id = moved_in(session, people)
    rows = liens.delinquency(session=session, district_id=district_id, today=TODAY)
    days = (TODAY - CUT_OVER).days
    shown = {
        (r.property.cadastral_number, r.bill.fiscal_year): (
            r.outstanding,
            r.charges.surcharge,
            r.charges.interest,
        )
        for r in rows
    }
    assert shown == {
        ("040-010-001-01", "2024-25"): (Decimal("315.00"), Decimal("47.25"), interest("315", days)),
        ("040-010-001-02", "2024-25"): (
            Decimal("3000.00"),
            Decimal("450.00"),
            interest("3000", days),
        ),
        ("040-010-001-02", "2025-26"): (
            Decimal("4000.00"),
            Decimal("0.00"),
            interest("4000", days),
        ),
        ("040-010-001-03-005", "2025-26"): (
            Decimal("30.00"),
            Decimal("0.00"),
            interest("30", days),
        ),
    }
    page = liens.delinquency_page(session=session, district_id=district_id, today=TODAY)
    assert page.total == 4 and page.owed == Decimal("7345.00")


def test_a_payoff_quote_of_an_opened_bill_and_its_payment(session: Session, people: People) -> None:
    district_id = moved_in(session, people)
    parcel = prop(session, "040-010-001-02")
    through = TODAY + timedelta(days=10)
    quote = payoffs.issue_quote(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        property_id=parcel.id or 0,
        today=TODAY,
        good_through=through,
    )
    session.commit()
    days = (through - CUT_OVER).days
    charges = Decimal("450.00") + interest("3000", days) + interest("4000", days)
    assert quote.secured == Decimal("7000.00")
    assert quote.charges == charges
    settled = payoffs.pay_quote(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        reference=quote.reference,
        paid_on=TODAY,
        amount=quote.total,
        today=TODAY,
        key="quote-payment",
    )
    session.commit()
    assert settled.settled and settled.remaining == 0
    lien = liens.impost_lien(session=session, prop=parcel, today=TODAY)
    assert lien.secured == 0


def test_a_payment_by_the_old_notice_number_pays_the_opened_bill(
    session: Session, people: People
) -> None:
    district_id = moved_in(session, people)
    result = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        paid_on=date(2026, 2, 1),
        amount=Decimal("315.00"),
        today=TODAY,
        key="old-notice",
        notice_number="N-2024-0101",
    )
    session.commit()
    assert result.booked
    rows = liens.delinquency(session=session, district_id=district_id, today=TODAY)
    assert "040-010-001-01" not in {r.property.cadastral_number for r in rows}
    # The statement of the cut-over year opens with the bank brought forward, and says so:
    # the opening entries are neither revenue nor credits received nor other movements.
    st = audit_statement.statement(session=session, district_id=district_id, fy=FiscalYear(2025))
    assert st.opened_on == CUT_OVER
    assert st.opening_balance == Decimal("12500.00")
    assert st.impost_revenue == Decimal("315.00")
    assert st.owner_credits == 0
    assert st.other_movements == 0
    assert st.closing_balance == Decimal("12815.00")
    assert ledger.balance(session=session, district_id=district_id, account=ledger.BANK) == Decimal(
        "12815.00"
    )
    csv_text = audit_statement.statement_csv(st)
    assert "2026-01-01" in csv_text


def test_the_opened_years_ask_for_no_notice(session: Session, people: People) -> None:
    """The earlier books billed and mailed the opened bills: the notices' deadlines list no
    opened year, so no yearly notice is made for one."""
    from tid.services.notices.notice_deadlines import dashboard

    district_id = moved_in(session, people)
    rows = dashboard(session=session, district_ids=[district_id], today=TODAY)
    assert rows == []


def test_new_notices_give_the_opened_bills_portal_codes(
    session: Session, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The earlier notices' codes are not known here: the association prepares new notices
    of a year brought, each with a new access code, and the portal's balance of an opened
    bill says what was paid before the cut-over."""
    from tests.services.notice_support import BASE_URL, SECRET, SENDER
    from tid.models import Bill, Notice
    from tid.services import aboard, notices
    from tid.services.owners import portal

    district_id = moved_in(session, people)
    monkeypatch.setattr("tid.services.notices.creation.new_access_code", lambda: "ABCD-EFGH-JKMN")
    run = aboard.opened_runs(session=session, district_id=district_id)[0]
    assert run.fiscal_year == "2024-25"
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=run.id or 0,
        issued_on=TODAY,
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **SENDER,
    )
    session.commit()
    made = session.exec(select(Notice).where(Notice.batch_id == batch.id)).all()
    assert len(made) == 2
    for notice in made:
        assert notice.access_code_hash == notices.access_code_hash(
            SECRET, notice.number, "ABCD-EFGH-JKMN"
        )
    opened = session.exec(
        select(Bill).where(
            Bill.property_id == prop(session, "040-010-001-02").id, Bill.fiscal_year == "2024-25"
        )
    ).one()
    balance = portal.balance_for_bill(session=session, bill=opened)
    assert (balance.billed, balance.paid, balance.balance) == (
        Decimal("4000.00"),
        Decimal("1000.00"),
        Decimal("3000.00"),
    )


def test_the_lien_ranking_holds_the_liens_brought(session: Session, people: People) -> None:
    """The mortgage the liens file recorded is ranked beside the impost lien of the opened
    bills, dated by their billing day."""
    district_id = moved_in(session, people)
    assert district_id
    ranking = liens.lien_priority(
        session=session, prop=prop(session, "040-010-001-02"), today=TODAY
    )
    assert [lien.kind for lien in ranking.recorded.values()] == ["mortgage"]
    assert ranking.impost.secured == Decimal("7000.00")
    assert ranking.impost.constituted_on == date(2024, 8, 1)
    assert ranking.impost_rank is not None
    assert {line.id for line in ranking.result.ranking} >= {"impost", *ranking.recorded}
