"""The large district's generator (small here): its journal is the services' journal, its
running balances agree with it, and the services go on working on it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from flask.testing import FlaskCliRunner
from sqlmodel import Session, func, select

from tid.demo.large_district import make_large_district
from tid.models import Bill, Expenditure, JournalEntry, JournalLine
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import payments
from tid.services.audit_trail import audit
from tid.services.liens import impost_lien as liens

ACTOR = audit.Actor("tests")
TODAY = date(2026, 12, 1)


def test_the_generated_district_is_the_journal_the_services_would_write(
    session: Session, runner: FlaskCliRunner
) -> None:
    made = make_large_district(session, properties=40, years=3, user_email=None)
    session.commit()
    assert made.created and made.properties == 40 and made.bills == 120
    d = made.district_id
    entries = session.exec(select(JournalEntry).where(JournalEntry.district_id == d)).all()
    assert len(entries) == made.entries
    lines, differences = ledger.verify(session=session, district_id=d)
    assert differences == [] and lines == made.lines
    result = runner.invoke(args=["account", "verify", "--district", str(d)])
    assert result.exit_code == 0, result.output
    # Every bill is booked: the next posting books nothing.
    assert ledger.sync_bills(session=session, actor=ACTOR, district_id=d) == 0
    assert ledger.unbooked_owed(session=session, district_id=d) == {}
    # A generated payment posted again through the service is recognised (the same key),
    # with the same lines the service would have written.
    entry = next(e for e in entries if e.kind == "payment")
    bank, receivable = (
        session.exec(
            select(JournalLine.amount).where(
                JournalLine.entry_id == entry.id, JournalLine.account == account
            )
        ).one()
        for account in (ledger.BANK, ledger.RECEIVABLE)
    )
    bill_id = session.exec(
        select(JournalLine.bill_id).where(
            JournalLine.entry_id == entry.id, JournalLine.account == ledger.RECEIVABLE
        )
    ).one()
    reference = entry.memo.rsplit("ref. ", 1)[1]
    again = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=d,
        paid_on=entry.entry_date,
        amount=bank,
        today=TODAY,
        key=payments.payment_key(
            district_id=d, paid_on=entry.entry_date, amount=bank, reference=reference
        ),
        reference=reference,
        notice_number=str(bill_id),
    )
    assert not again.booked and again.entry_id == entry.id
    assert again.amount == bank and again.applied[0].applied == -receivable
    # The administrative cap holds in every fiscal year.
    for year in (2023, 2024, 2025):
        figures = ledger.cap_figures(session=session, district_id=d, fy=FiscalYear(year))
        assert figures.revenue > 0 and figures.admin <= figures.cap
    spent = session.exec(
        select(func.count()).select_from(Expenditure).where(Expenditure.district_id == d)
    ).one()
    assert (
        spent
        == session.exec(
            select(func.count())
            .select_from(JournalEntry)
            .where(JournalEntry.district_id == d, JournalEntry.kind == "expenditure")
        ).one()
    )
    # A delinquent bill paid through the service: the balances follow.
    late = liens.delinquency(session=session, district_id=d, today=TODAY)
    assert late, "the generator leaves some bills unpaid"
    first = late[0]
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=d,
        paid_on=TODAY,
        amount=first.outstanding,
        today=TODAY,
        key="late-payment",
        notice_number=str(first.bill.id),
    )
    session.commit()
    assert paid.booked and paid.applied[0].outstanding_after == 0
    page = liens.delinquency_page(session=session, district_id=d, today=TODAY, per_page=5)
    assert page.total == len(late) - 1
    assert page.owed == sum((r.outstanding for r in late[1:]), Decimal("0.00"))
    assert [r.bill.id for r in page.rows] == [r.bill.id for r in late[1:6]]
    assert ledger.verify(session=session, district_id=d)[1] == []
    # Made once: a second call changes nothing.
    bills = session.exec(select(func.count()).select_from(Bill)).one()
    second = make_large_district(session, properties=40, years=3, user_email=None)
    assert not second.created and second.district_id == d
    assert session.exec(select(func.count()).select_from(Bill)).one() == bills
