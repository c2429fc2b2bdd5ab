"""Delinquency, late charges (owed, not secured) and the lien priority of 21 LPRA § 6653(8);
the yearly statement, aging, journal CSV and the bank balance check."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.ledger_support import ACTOR, Scaffold
from tid.models import PropertyYear
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear
from tid.services import audit_statement, expenditures, ledger, liens, payments

TODAY = date(2025, 12, 29)  # 90 days after the due date 2025-09-30


def _pay(
    session: Session, s: Scaffold, amount: str, on: date, key: str, bill_id: int | None
) -> None:
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=on,
        amount=Decimal(amount),
        today=TODAY,
        key=key,
        notice_number=str(bill_id),
    )


def test_delinquent_bill_with_surcharge_and_interest(session: Session) -> None:
    s = Scaffold(session)
    late, paid = s.property(owner="Late Owner"), s.property()
    bill = s.bill(late, "1000.00")
    s_paid = s.bill(paid, "500.00")
    _pay(session, s, "400.00", date(2025, 8, 1), "k1", bill.id)
    _pay(session, s, "500.00", date(2025, 8, 1), "k2", s_paid.id)
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0.0365",
    )
    rows = liens.delinquency(session, s.district_id, TODAY)
    assert [r.bill.id for r in rows] == [bill.id]
    row = rows[0]
    # 1,000.00 − 400.00 = 600.00 unpaid, 90 days late.
    # surcharge 600.00 × 0.10 = 60.00; interest 600.00 × 0.0365 × 90 / 365 = 5.40.
    assert row.outstanding == Decimal("600.00")
    assert (row.charges.days_late, row.charges.surcharge, row.charges.interest) == (
        90,
        Decimal("60.00"),
        Decimal("5.40"),
    )
    assert row.owner_names == "Late Owner"
    # The owners named are those of the property's latest roll year (sold since the bill).
    for fiscal_year, owner in (("2026-27", "New Owner"), ("2024-25", "Old Owner")):
        session.add(
            PropertyYear(
                property_id=late.id or 0,
                district_id=s.district_id,
                fiscal_year=fiscal_year,
                roll_import_id=s.roll.id or 0,
                owner_names=owner,
                assessed_value=Decimal("100000.00"),
            )
        )
    session.flush()
    assert liens.delinquency(session, s.district_id, TODAY)[0].owner_names == "New Owner"
    assert liens.owners_of(session, [late.id or 0, paid.id or 0, 999_999]) == {
        late.id: "New Owner",
        paid.id: "Ana Pérez",
    }
    # Before the due date nothing is delinquent.
    assert liens.delinquency(session, s.district_id, date(2025, 9, 30)) == []
    with pytest.raises(InputError) as caught:
        liens.set_late_terms(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            surcharge_rate="abc",
            annual_interest_rate="0",
        )
    assert caught.value.field == "surcharge_rate"


def test_lien_priority_and_sale_distribution(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "1000.00")  # billed 2025-07-01 (the run's date)
    _pay(session, s, "400.00", date(2025, 8, 1), "k1", bill.id)
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0",
    )
    add = dict(session=session, actor=ACTOR, property_id=prop.id or 0, today=TODAY)
    mortgage_old = liens.add_lien(
        kind="mortgage",
        holder="Banco A",
        constituted_on=date(2005, 3, 1),
        amount=Decimal("5000.00"),
        **add,
    )  # type: ignore[arg-type]
    mortgage_new = liens.add_lien(
        kind="mortgage",
        holder="Banco B",
        constituted_on=date(2015, 3, 1),
        amount=Decimal("3000.00"),
        **add,
    )  # type: ignore[arg-type]
    crim = liens.add_lien(
        kind="municipal_property_tax",
        holder="CRIM",
        constituted_on=date(2024, 1, 1),
        amount=Decimal("200.00"),
        **add,
    )  # type: ignore[arg-type]
    # Sale at 6,000.00: group 1 = the 2005 mortgage (before the act) 5,000.00 and the CRIM
    # 200.00, oldest first; then the impost 600.00 (1,000.00 − 400.00); that is 5,800.00, so
    # 200.00 are left for the 2015 mortgage (3,000.00: 2,800.00 unpaid); the surcharge 60.00
    # (unsecured) and the owner get nothing.
    view = liens.lien_priority(session, prop, TODAY, sale_proceeds=Decimal("6000.00"))
    order = [(line.id, line.part) for line in view.result.ranking]
    assert order == [
        (f"lien-{mortgage_old.id}", "secured"),
        (f"lien-{crim.id}", "secured"),
        ("impost", "secured"),
        (f"lien-{mortgage_new.id}", "secured"),
        ("impost", "unsecured_charges"),
    ]
    assert view.impost_rank == 3
    assert view.impost.secured == Decimal("600.00") and view.impost.unsecured == Decimal("60.00")
    paid = {(p.id, p.part): p.paid for p in view.result.distribution or ()}
    assert paid[("impost", "secured")] == Decimal("600.00")
    assert paid[(f"lien-{mortgage_new.id}", "secured")] == Decimal("200.00")
    assert paid[("impost", "unsecured_charges")] == 0
    assert view.result.to_owner == 0
    assert all(line.reason for line in view.result.ranking)
    with pytest.raises(InputError) as caught:
        liens.add_lien(
            kind="tid_impost",
            holder="x",
            constituted_on=date(2020, 1, 1),
            amount=Decimal("1"),
            **add,
        )  # type: ignore[arg-type]
    assert caught.value.field == "kind"


def test_same_day_liens_rank_in_the_order_they_were_recorded(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    add = dict(session=session, actor=ACTOR, property_id=prop.id or 0, today=TODAY)
    # Twelve liens of one day: their ids pass 9 to 10, where the text of the ids sorts
    # "lien-10" before "lien-9"; the order of recording decides.
    recorded = [
        liens.add_lien(
            kind="mortgage",
            holder=f"Banco {n}",
            constituted_on=date(2015, 5, 5),
            amount=Decimal("10.00"),
            **add,
        )  # type: ignore[arg-type]
        for n in range(12)
    ]
    view = liens.lien_priority(session, prop, TODAY, sale_proceeds=Decimal("15.00"))
    expected = [f"lien-{lien.id}" for lien in recorded]
    assert expected != sorted(expected)  # the ids' text would order them otherwise
    assert [line.id for line in view.result.ranking] == expected
    paid = [p.paid for p in view.result.distribution or ()]
    assert paid[:3] == [Decimal("10.00"), Decimal("5.00"), Decimal("0.00")]


def test_statement_aging_journal_and_bank_check(session: Session) -> None:
    s = Scaffold(session)
    b1 = s.bill(s.property("111-111-111-11"), "1000.00")
    b2 = s.bill(s.property("222-222-222-22"), "500.00")
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="=Street cleaning"
    )
    _pay(session, s, "1000.00", date(2025, 8, 1), "k1", b1.id)
    _pay(session, s, "120.00", date(2025, 8, 2), "k2", b2.id)
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
    st = audit_statement.statement(session, s.district_id, FiscalYear(2025))
    # opening 0; revenue 1,000.00 + 120.00 = 1,120.00; program 300.00; admin 50.00;
    # closing 1,120.00 − 350.00 = 770.00; ratio 50 / 1,120 = 0.0446…
    assert st.opening_balance == 0
    assert st.impost_revenue == Decimal("1120.00")
    assert [(p.name, p.amount) for p in st.program] == [("=Street cleaning", Decimal("300.00"))]
    assert st.admin_total == Decimal("50.00")
    assert st.closing_balance == Decimal("770.00")
    assert st.admin_ratio is not None and st.admin_ratio < Decimal("0.05")
    assert st.other_movements == 0
    later = audit_statement.statement(session, s.district_id, FiscalYear(2026))
    assert later.opening_balance == Decimal("770.00") and later.impost_revenue == 0
    rows = audit_statement.aging(session, s.district_id, date(2026, 6, 30))
    # b2: 500.00 − 120.00 = 380.00, 273 days past 2025-09-30.
    assert [(r.bill.id, r.outstanding, r.days_past_due, r.bucket) for r in rows] == [
        (b2.id, Decimal("380.00"), 273, "181–365")
    ]
    table = list(csv.reader(io.StringIO(audit_statement.statement_csv(st))))
    # outside a request the file speaks Spanish: its lines and headers are labelled
    assert table[0] == ["Renglón", "Propósito autorizado", "Cantidad"]
    assert ["Gasto", "'=Street cleaning", "300.00"] in table
    journal = audit_statement.journal_csv(ledger.journal(session, s.district_id))
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
    check = audit_statement.bank_checks(session, s.district_id)[0]
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
    _pay(session, s, "600.00", date(2025, 8, 1), "k1", b1.id)
    session.commit()
    issued = audit_statement.statement(session, s.district_id, FiscalYear(2025))
    aging_then = audit_statement.aging(session, s.district_id, date(2026, 6, 30))
    cut = utcnow()
    # Later, a payment dated inside the same year is booked (a late bank notice).
    _pay(session, s, "100.00", date(2025, 12, 1), "k2", b1.id)
    session.commit()
    now = audit_statement.statement(session, s.district_id, FiscalYear(2025))
    assert now.impost_revenue == Decimal("700.00") != issued.impost_revenue
    again = audit_statement.statement(session, s.district_id, FiscalYear(2025), booked_before=cut)
    assert again == issued  # 600.00 collected, as issued
    assert (
        [
            r.outstanding
            for r in audit_statement.aging(
                session, s.district_id, date(2026, 6, 30), booked_before=cut
            )
        ]
        == [r.outstanding for r in aging_then]
        == [Decimal("400.00")]
    )


def test_the_delinquency_pages_list_the_owed_bills_oldest_due_first(session: Session) -> None:
    """The pages read the index of owed bills: the same bills, order, count and total as the
    whole list, and a bill paid in full or not yet due is not on them."""
    s = Scaffold(session)
    props = [s.property() for _ in range(7)]
    dues = [date(2025, 9, 30), date(2025, 8, 31), date(2025, 9, 30), date(2025, 10, 15)]
    bills = [s.bill(p, "100.00", due=dues[i % len(dues)]) for i, p in enumerate(props)]
    bills.append(s.bill(s.property(), "50.00", due=date(2026, 1, 31)))  # not due yet
    _pay(session, s, "100.00", date(2025, 8, 1), "paid", bills[2].id)  # paid in full
    _pay(session, s, "30.00", date(2025, 8, 1), "part", bills[4].id)
    every = liens.delinquency(session, s.district_id, TODAY)
    expected = sorted(
        (b for i, b in enumerate(bills[:7]) if i != 2), key=lambda b: (b.due_date, b.id)
    )
    assert [r.bill.id for r in every] == [b.id for b in expected]
    pages = [
        liens.delinquency_page(session, s.district_id, TODAY, page=n, per_page=4) for n in (1, 2)
    ]
    assert [r.bill.id for p in pages for r in p.rows] == [b.id for b in expected]
    assert (pages[0].total, pages[0].pages, pages[1].page) == (6, 2, 2)
    assert pages[0].owed == sum((r.outstanding for r in every), Decimal("0")) == Decimal("570.00")


def test_the_statement_page_reads_the_same_aging_from_the_index_of_owed_bills(
    session: Session,
) -> None:
    """The page's aging (first rows, count, totals per bucket) is the full aging's, both when
    it is read from the running balances and when later bookings send it to the journal."""
    s = Scaffold(session)
    dues = [date(2024, 5, 1), date(2025, 1, 10), date(2025, 6, 1), date(2025, 6, 20)]
    dues += [date(2025, 8, 1), date(2025, 9, 10), date(2025, 9, 30)]
    bills = [s.bill(s.property(), f"{100 + 7 * i}.00", due=due) for i, due in enumerate(dues)]
    _pay(session, s, "40.00", date(2025, 8, 1), "k1", bills[1].id)
    _pay(session, s, "114.00", date(2025, 8, 1), "k2", bills[2].id)  # paid in full
    as_of = date(2025, 6, 30)  # nothing is booked after it? payments are: the journal's way
    for when in (as_of, date(2025, 12, 31)):
        every = audit_statement.aging(session, s.district_id, when)
        page = audit_statement.aging_page(session, s.district_id, when, limit=3)
        assert [(r.bill.id, r.outstanding, r.bucket) for r in page.rows] == [
            (r.bill.id, r.outstanding, r.bucket) for r in every[:3]
        ]
        assert page.count == len(every) and page.totals == audit_statement.aging_totals(every)
        assert sum((t for _, t in page.totals), Decimal(0)) == sum(
            (r.outstanding for r in every), Decimal(0)
        )
    # On 2025-09-30, every bucket from "not yet due" to "over 365" has its bill.
    page = audit_statement.aging_page(session, s.district_id, date(2025, 9, 30), limit=100)
    assert page.count == 6 and page.totals == audit_statement.aging_totals(
        audit_statement.aging(session, s.district_id, date(2025, 9, 30))
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
    every = audit_statement.aging(session, s.district_id, date(2025, 12, 31))
    page = audit_statement.aging_page(session, s.district_id, date(2025, 12, 31), limit=100)
    assert unbooked.id in [r.bill.id for r in page.rows] and page.count == len(every) == 7
    assert page.totals == audit_statement.aging_totals(every)
    # And the delinquency lists it, owed in full, in due-date order.
    late = liens.delinquency(session, s.district_id, date(2025, 12, 31))
    assert [(r.bill.id, r.outstanding) for r in late if r.bill.id == unbooked.id] == [
        (unbooked.id, Decimal("55.00"))
    ]
    assert [r.bill.due_date for r in late] == sorted(r.bill.due_date for r in late)
    shown = liens.delinquency_page(session, s.district_id, date(2025, 12, 31))
    assert [r.bill.id for r in shown.rows] == [r.bill.id for r in late]


def test_the_index_puts_each_bill_in_its_bucket_at_the_edges(session: Session) -> None:
    """A bill due on the day of the statement, or 1, 30, 31, 90, 91, 180, 181, 365 and 366
    days before it, is in the same bucket whether the aging is read from the index of owed
    bills (one grouped query) or computed bill by bill."""
    s = Scaffold(session)
    as_of = date(2026, 6, 30)
    for days in (0, 1, 30, 31, 90, 91, 180, 181, 365, 366):
        s.bill(s.property(), f"{1000 + days}.00", due=as_of - timedelta(days=days))
    page = audit_statement.aging_page(session, s.district_id, as_of, limit=100)
    every = audit_statement.aging(session, s.district_id, as_of)
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
        _pay(session, s, f"{100 + i}.25", on, f"m{i}", bill.id)
    fy = FiscalYear(2025)
    months = audit_statement.months(session, s.district_id, fy)
    assert [m.label for m in months][:2] == ["2025-07", "2025-08"] and len(months) == 12
    for m in months:
        last = date(m.year + m.month // 12, m.month % 12 + 1, 1) - timedelta(days=1)
        sums = ledger.day_sums(session, s.district_id, since=date(m.year, m.month, 1), until=last)
        assert m.revenue == -sums.get(ledger.REVENUE, Decimal(0))
    assert [m.revenue for m in months if m.revenue] == [
        Decimal("100.25"),
        Decimal("101.25"),
        Decimal("102.25"),
        Decimal("103.25"),
    ]
    assert months[-1].revenue_to_date == Decimal("407.00")
