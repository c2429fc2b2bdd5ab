"""The yearly statement, the aging (whole and by page, from the index of owed bills), the
journal CSV, the bank balance check and the months of the year."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.ledger_support import ACTOR, Scaffold, pay_bill
from tests.services.ledger_support import TODAY_90_DAYS_LATE as TODAY
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import audit_statement, expenditures
from tid.services.liens import impost_lien as liens


def test_statement_aging_journal_and_bank_check(session: Session) -> None:
    s = Scaffold(session)
    b1 = s.bill(s.property("111-111-111-11"), "1000.00")
    b2 = s.bill(s.property("222-222-222-22"), "500.00")
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="=Street cleaning"
    )
    pay_bill(session, s, "1000.00", date(2025, 8, 1), "k1", b1.id)
    pay_bill(session, s, "120.00", date(2025, 8, 2), "k2", b2.id)
    common = dict(session=session, actor=ACTOR, district_id=s.district_id, payee="V", today=TODAY)
    expenditures.record_expenditure(
        spent_on=date(2025, 9, 1),
        amount=Decimal("300.00"),
        key="e1",
        purpose_id=purpose.id,
        **common,
    )  # type: ignore[arg-type]
    expenditures.record_expenditure(
        spent_on=date(2025, 9, 2), amount=Decimal("50.00"), key="e2", administrative=True, **common
    )  # type: ignore[arg-type]
    # Next year (FY2026-27) nothing yet; a payment in FY2026-27 would not count here.
    st = audit_statement.statement(session=session, district_id=s.district_id, fy=FiscalYear(2025))
    # opening 0; revenue 1,000.00 + 120.00 = 1,120.00; program 300.00; admin 50.00;
    # closing 1,120.00 − 350.00 = 770.00; ratio 50 / 1,120 = 0.0446…
    assert st.opening_balance == 0
    assert st.impost_revenue == Decimal("1120.00")
    assert [(p.name, p.amount) for p in st.program] == [("=Street cleaning", Decimal("300.00"))]
    assert st.admin_total == Decimal("50.00")
    assert st.closing_balance == Decimal("770.00")
    assert st.admin_ratio is not None and st.admin_ratio < Decimal("0.05")
    assert st.other_movements == 0
    later = audit_statement.statement(
        session=session, district_id=s.district_id, fy=FiscalYear(2026)
    )
    assert later.opening_balance == Decimal("770.00") and later.impost_revenue == 0
    rows = audit_statement.aging(
        session=session, district_id=s.district_id, as_of=date(2026, 6, 30)
    )
    # b2: 500.00 − 120.00 = 380.00, 273 days past 2025-09-30.
    assert [(r.bill.id, r.outstanding, r.days_past_due, r.bucket) for r in rows] == [
        (b2.id, Decimal("380.00"), 273, "181–365")
    ]
    table = list(csv.reader(io.StringIO(audit_statement.statement_csv(st))))
    # outside a request the file speaks Spanish: its lines and headers are labelled
    assert table[0] == ["Renglón", "Propósito autorizado", "Cantidad"]
    assert ["Gasto", "'=Street cleaning", "300.00"] in table
    journal = audit_statement.journal_csv(
        ledger.journal(session=session, district_id=s.district_id)
    )
    debits = credits = Decimal(0)
    for row in list(csv.DictReader(io.StringIO(journal))):
        debits += Decimal(row["Débito"] or 0)
        credits += Decimal(row["Crédito"] or 0)
    assert debits == credits
    audit_statement.record_bank_balance(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        as_of=date(2025, 8, 31),
        balance=Decimal("1100.00"),
        today=TODAY,
    )
    check = audit_statement.bank_checks(session=session, district_id=s.district_id)[0]
    # The journal has 1,120.00 in the bank on 2025-08-31; the bank says 1,100.00: −20.00.
    assert (check.reported, check.booked, check.difference) == (
        Decimal("1100.00"),
        Decimal("1120.00"),
        Decimal("-20.00"),
    )
    with pytest.raises(InputError, match="already recorded"):
        audit_statement.record_bank_balance(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            as_of=date(2025, 8, 31),
            balance=Decimal("1.00"),
            today=TODAY,
        )


def test_a_past_statement_is_reproduced_as_it_was_booked(session: Session) -> None:
    from tid.clock import utcnow

    s = Scaffold(session)
    b1 = s.bill(s.property("111-111-111-11"), "1000.00")
    pay_bill(session, s, "600.00", date(2025, 8, 1), "k1", b1.id)
    session.commit()
    issued = audit_statement.statement(
        session=session, district_id=s.district_id, fy=FiscalYear(2025)
    )
    aging_then = audit_statement.aging(
        session=session, district_id=s.district_id, as_of=date(2026, 6, 30)
    )
    cut = utcnow()
    # Later, a payment dated inside the same year is booked (a late bank notice).
    pay_bill(session, s, "100.00", date(2025, 12, 1), "k2", b1.id)
    session.commit()
    now = audit_statement.statement(session=session, district_id=s.district_id, fy=FiscalYear(2025))
    assert now.impost_revenue == Decimal("700.00") != issued.impost_revenue
    again = audit_statement.statement(
        session=session, district_id=s.district_id, fy=FiscalYear(2025), booked_before=cut
    )
    assert again == issued  # 600.00 collected, as issued
    assert (
        [
            r.outstanding
            for r in audit_statement.aging(
                session=session,
                district_id=s.district_id,
                as_of=date(2026, 6, 30),
                booked_before=cut,
            )
        ]
        == [r.outstanding for r in aging_then]
        == [Decimal("400.00")]
    )


def test_the_statement_page_reads_the_same_aging_from_the_index_of_owed_bills(
    session: Session,
) -> None:
    """The page's aging (first rows, count, totals per bucket) is the full aging's, both when
    it is read from the running balances and when later bookings send it to the journal."""
    s = Scaffold(session)
    dues = [date(2024, 5, 1), date(2025, 1, 10), date(2025, 6, 1), date(2025, 6, 20)]
    dues += [date(2025, 8, 1), date(2025, 9, 10), date(2025, 9, 30)]
    bills = [s.bill(s.property(), f"{100 + 7 * i}.00", due=due) for i, due in enumerate(dues)]
    pay_bill(session, s, "40.00", date(2025, 8, 1), "k1", bills[1].id)
    pay_bill(session, s, "114.00", date(2025, 8, 1), "k2", bills[2].id)  # paid in full
    as_of = date(2025, 6, 30)  # nothing is booked after it? payments are: the journal's way
    for when in (as_of, date(2025, 12, 31)):
        every = audit_statement.aging(session=session, district_id=s.district_id, as_of=when)
        page = audit_statement.aging_page(
            session=session, district_id=s.district_id, as_of=when, limit=3
        )
        assert [(r.bill.id, r.outstanding, r.bucket) for r in page.rows] == [
            (r.bill.id, r.outstanding, r.bucket) for r in every[:3]
        ]
        assert page.count == len(every) and page.totals == audit_statement.aging_totals(every)
        assert sum((t for _, t in page.totals), Decimal(0)) == sum(
            (r.outstanding for r in every), Decimal(0)
        )
    # On 2025-09-30, every bucket from "not yet due" to "over 365" has its bill.
    page = audit_statement.aging_page(
        session=session, district_id=s.district_id, as_of=date(2025, 9, 30), limit=100
    )
    assert page.count == 6 and page.totals == audit_statement.aging_totals(
        audit_statement.aging(session=session, district_id=s.district_id, as_of=date(2025, 9, 30))
    )
    assert [label for label, total in page.totals if total] == [
        "not yet due",
        "1–30",
        "31–90",
        "91–180",
        "181–365",
        "over 365",
    ]
    # A bill made since the last booking (a billing run's moment) is owed in full: the page
    # reads the aging from the journal then, and lists it.
    unbooked = s.bill(s.property(), "55.00", due=date(2025, 9, 1))
    every = audit_statement.aging(
        session=session, district_id=s.district_id, as_of=date(2025, 12, 31)
    )
    page = audit_statement.aging_page(
        session=session, district_id=s.district_id, as_of=date(2025, 12, 31), limit=100
    )
    assert unbooked.id in [r.bill.id for r in page.rows] and page.count == len(every) == 7
    assert page.totals == audit_statement.aging_totals(every)
    # And the delinquency lists it, owed in full, in due-date order.
    late = liens.delinquency(session=session, district_id=s.district_id, today=date(2025, 12, 31))
    assert [(r.bill.id, r.outstanding) for r in late if r.bill.id == unbooked.id] == [
        (unbooked.id, Decimal("55.00"))
    ]
    assert [r.bill.due_date for r in late] == sorted(r.bill.due_date for r in late)
    shown = liens.delinquency_page(
        session=session, district_id=s.district_id, today=date(2025, 12, 31)
    )
    assert [r.bill.id for r in shown.rows] == [r.bill.id for r in late]


def test_the_index_puts_each_bill_in_its_bucket_at_the_edges(session: Session) -> None:
    """A bill due on the day of the statement, or 1, 30, 31, 90, 91, 180, 181, 365 and 366
    days before it, is in the same bucket whether the aging is read from the index of owed
    bills (one grouped query) or computed bill by bill."""
    s = Scaffold(session)
    as_of = date(2026, 6, 30)
    for days in (0, 1, 30, 31, 90, 91, 180, 181, 365, 366):
        s.bill(s.property(), f"{1000 + days}.00", due=as_of - timedelta(days=days))
    page = audit_statement.aging_page(
        session=session, district_id=s.district_id, as_of=as_of, limit=100
    )
    every = audit_statement.aging(session=session, district_id=s.district_id, as_of=as_of)
    assert page.totals == audit_statement.aging_totals(every)
    assert dict(page.totals) == {
        "not yet due": Decimal("1000.00"),
        "1–30": Decimal("2031.00"),
        "31–90": Decimal("2121.00"),
        "91–180": Decimal("2271.00"),
        "181–365": Decimal("2546.00"),
        "over 365": Decimal("1366.00"),
    }
    assert page.count == 10 == len(every)
    assert [(r.bill.id, r.bucket) for r in page.rows] == [(r.bill.id, r.bucket) for r in every]


def test_the_months_of_the_year_sum_the_days_of_each_month(session: Session) -> None:
    """The dashboard's months (summed by month in the database) are the days' sums of each
    month, and the running total of the revenue ends at the year's revenue."""
    s = Scaffold(session)
    bills = [s.bill(s.property(), "500.00") for _ in range(4)]
    paid = [date(2025, 7, 31), date(2025, 8, 1), date(2025, 11, 30), date(2025, 12, 1)]
    for i, (bill, on) in enumerate(zip(bills, paid, strict=True)):
        pay_bill(session, s, f"{100 + i}.25", on, f"m{i}", bill.id)
    fy = FiscalYear(2025)
    months = audit_statement.months(session=session, district_id=s.district_id, fy=fy)
    assert [m.label for m in months][:2] == ["2025-07", "2025-08"] and len(months) == 12
    for m in months:
        last = date(m.year + m.month // 12, m.month % 12 + 1, 1) - timedelta(days=1)
        sums = ledger.day_sums(
            session=session, district_id=s.district_id, since=date(m.year, m.month, 1), until=last
        )
        assert m.revenue == -sums.get(ledger.REVENUE, Decimal(0))
    assert [m.revenue for m in months if m.revenue] == [
        Decimal("100.25"),
        Decimal("101.25"),
        Decimal("102.25"),
        Decimal("103.25"),
    ]
    assert months[-1].revenue_to_date == Decimal("407.00")
