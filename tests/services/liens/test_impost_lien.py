"""Delinquency, late charges (owed, not secured) and the lien priority of 21 LPRA § 6653(8)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.ledger_support import ACTOR, Scaffold, pay_bill
from tests.services.ledger_support import TODAY_90_DAYS_LATE as TODAY
from tid.models import PropertyYear
from tid.rules.errors import InputError
from tid.services.liens import impost_lien as liens


def test_delinquent_bill_with_surcharge_and_interest(session: Session) -> None:
    s = Scaffold(session)
    late, paid = s.property(owner="Late Owner"), s.property()
    bill = s.bill(late, "1000.00")
    s_paid = s.bill(paid, "500.00")
    pay_bill(session, s, "400.00", date(2025, 8, 1), "k1", bill.id)
    pay_bill(session, s, "500.00", date(2025, 8, 1), "k2", s_paid.id)
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0.0365",
    )
    rows = liens.delinquency(session=session, district_id=s.district_id, today=TODAY)
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
    assert (
        liens.delinquency(session=session, district_id=s.district_id, today=TODAY)[0].owner_names
        == "New Owner"
    )
    assert liens.owners_of(session=session, property_ids=[late.id or 0, paid.id or 0, 999_999]) == {
        late.id: "New Owner",
        paid.id: "Ana Pérez",
    }
    # Before the due date nothing is delinquent.
    assert (
        liens.delinquency(session=session, district_id=s.district_id, today=date(2025, 9, 30)) == []
    )
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
    pay_bill(session, s, "400.00", date(2025, 8, 1), "k1", bill.id)
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
    view = liens.lien_priority(
        session=session, prop=prop, today=TODAY, sale_proceeds=Decimal("6000.00")
    )
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
    view = liens.lien_priority(
        session=session, prop=prop, today=TODAY, sale_proceeds=Decimal("15.00")
    )
    expected = [f"lien-{lien.id}" for lien in recorded]
    assert expected != sorted(expected)  # the ids' text would order them otherwise
    assert [line.id for line in view.result.ranking] == expected
    paid = [p.paid for p in view.result.distribution or ()]
    assert paid[:3] == [Decimal("10.00"), Decimal("5.00"), Decimal("0.00")]


def test_the_delinquency_pages_list_the_owed_bills_oldest_due_first(session: Session) -> None:
    """The pages read the index of owed bills: the same bills, order, count and total as the
    whole list, and a bill paid in full or not yet due is not on them."""
    s = Scaffold(session)
    props = [s.property() for _ in range(7)]
    dues = [date(2025, 9, 30), date(2025, 8, 31), date(2025, 9, 30), date(2025, 10, 15)]
    bills = [s.bill(p, "100.00", due=dues[i % len(dues)]) for i, p in enumerate(props)]
    bills.append(s.bill(s.property(), "50.00", due=date(2026, 1, 31)))  # not due yet
    pay_bill(session, s, "100.00", date(2025, 8, 1), "paid", bills[2].id)  # paid in full
    pay_bill(session, s, "30.00", date(2025, 8, 1), "part", bills[4].id)
    every = liens.delinquency(session=session, district_id=s.district_id, today=TODAY)
    expected = sorted(
        (b for i, b in enumerate(bills[:7]) if i != 2), key=lambda b: (b.due_date, b.id)
    )
    assert [r.bill.id for r in every] == [b.id for b in expected]
    pages = [
        liens.delinquency_page(
            session=session, district_id=s.district_id, today=TODAY, page=n, per_page=4
        )
        for n in (1, 2)
    ]
    assert [r.bill.id for p in pages for r in p.rows] == [b.id for b in expected]
    assert (pages[0].total, pages[0].pages, pages[1].page) == (6, 2, 2)
    assert pages[0].owed == sum((r.outstanding for r in every), Decimal("0")) == Decimal("570.00")
