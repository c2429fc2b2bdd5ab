"""Payoff quotes: accrued to a day exactly as the delinquency list of that day figures it,
issued under a reference and an unguessable code, settled by one payment in one entry."""

from __future__ import annotations

import math
from collections import Counter
from datetime import date, timedelta
from decimal import Decimal

import pytest
from flask import Flask
from hypothesis import given
from hypothesis import strategies as st
from sqlmodel import Session, select

from tests.services.ledger_support import ACTOR, Scaffold, pay_bill
from tid.demo import records
from tid.models import BillingRun, JournalEntry, JournalLine
from tid.rules.errors import FindingsError, InputError
from tid.rules.messages import render
from tid.rules.money import ZERO, round_cents
from tid.services import ledger
from tid.services.account import payments
from tid.services.closing import issued, payoffs
from tid.services.liens import impost_lien as liens

DUE = date(2025, 9, 30)
ISSUED = date(2025, 10, 15)
TODAY_QUOTES = date(2025, 11, 5)


def _terms(session: Session, s: Scaffold, surcharge: str, interest: str) -> None:
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate=surcharge,
        annual_interest_rate=interest,
    )


def _second_run(session: Session, s: Scaffold, due: date) -> BillingRun:
    """Another billing run (a property has one bill per run)."""
    return records.billing_run(
        session,
        s.ordinance,
        fiscal_year="2026-27",
        run_on=date(2025, 10, 1),
        due_date=due,
        fingerprint="1" * 64,
        actor="tests",
    )


def _nth_run(session: Session, s: Scaffold, n: int) -> BillingRun:
    """The ``n``-th billing run after the scaffold's (a property has one bill per run)."""
    return records.billing_run(
        session,
        s.ordinance,
        fiscal_year=f"{2025 + n}-{26 + n}",
        run_on=date(2025, 7, 1),
        due_date=DUE,
        fingerprint=str(n) * 64,
        actor="tests",
    )


def _quote(session: Session, s: Scaffold, prop_id: int, through: date) -> issued.IssuedDocument:
    return payoffs.issue_quote(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        property_id=prop_id,
        today=ISSUED,
        good_through=through,
    )


@given(
    days=st.integers(min_value=-40, max_value=900),
    paid=st.integers(min_value=0, max_value=99_999),
    surcharge=st.sampled_from(["0", "0.05", "0.10", "0.125"]),
    interest=st.sampled_from(["0", "0.0365", "0.08", "0.1875"]),
)
def test_a_quote_accrues_to_its_day_what_the_delinquency_list_of_that_day_says(
    app: Flask, days: int, paid: int, surcharge: str, interest: str
) -> None:
    with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
        s = Scaffold(session)
        _terms(session, s, surcharge, interest)
        prop, other = s.property(), s.property()
        first = s.bill(prop, "1234.57")
        s.bill(prop, "99.99", due=date(2026, 3, 31), run=_second_run(session, s, date(2026, 3, 31)))
        s.bill(other, "500.00")
        if paid:
            pay_bill(session, s, str(Decimal(paid) / 100), date(2025, 8, 1), "p", first.id)
        through = DUE + timedelta(days=days)
        figures = payoffs.figures(session=session, prop=prop, through=through)
        listed = {
            row.bill.id: row
            for row in liens.delinquency(session=session, district_id=s.district_id, today=through)
            if row.property.id == prop.id
        }
        for line in figures.lines:
            row = listed.get(int(line["bill"]))
            if row is None:  # not yet due on that day: owed, no charges
                assert date.fromisoformat(line["due_date"]) >= through
                assert line["surcharge"] == line["interest"] == "0.00"
                continue
            assert Decimal(line["impost"]) == row.outstanding
            assert Decimal(line["surcharge"]) == row.charges.surcharge
            assert Decimal(line["interest"]) == row.charges.interest
        assert set(listed) <= {int(line["bill"]) for line in figures.lines}
        assert figures.secured == sum((Decimal(x["impost"]) for x in figures.lines), ZERO)
        assert figures.charges == sum(
            (Decimal(x["surcharge"]) + Decimal(x["interest"]) for x in figures.lines), ZERO
        )
        # The next day adds the one-time charges listed for it and the interest of a day on
        # the bills late by then; the daily figure is that interest to the cent (the interest
        # of a bill is rounded once on all its days late: within a cent a bill of the exact).
        tomorrow = payoffs.figures(session=session, prop=prop, through=through + timedelta(1))
        late = [x for x in figures.lines if date.fromisoformat(x["due_date"]) <= through]
        exact = sum((Decimal(x["impost"]) * Decimal(interest) / 365 for x in late), ZERO)
        assert figures.per_day == round_cents(exact)
        landing = [c for c in figures.one_time_charges if c.on == through + timedelta(1)]
        step = tomorrow.total - figures.total - sum((c.surcharge for c in landing), ZERO)
        assert abs(step - exact) <= Decimal("0.01") * len(late)
        assert all(c.on > through for c in figures.one_time_charges)
        session.rollback()


def _one_bill_quotes(session: Session, days: tuple[int, ...]) -> dict[int, issued.Figures]:
    """The figures of a property owing one impost of 393.75 due on DUE (surcharge 10 %,
    interest 6 % a year), through DUE + each of ``days``."""
    s = Scaffold(session)
    _terms(session, s, "0.10", "0.06")
    prop = s.property()
    s.bill(prop, "393.75")
    return {
        n: payoffs.figures(session=session, prop=prop, through=DUE + timedelta(days=n))
        for n in days
    }


def test_each_day_after_a_quote_adds_its_interest_and_the_surcharge_is_listed_apart(
    session: Session,
) -> None:
    quotes = _one_bill_quotes(session, (-2, -1, 0, 1, 2, 11))
    # 393.75 × 0.06 / 365 = 0.0647… a day; the surcharge 39.375 → 39.38 lands on DUE + 1.
    lands = DUE + timedelta(days=1)
    seen = {
        n: (f.total, f.per_day, [(c.on, c.surcharge, c.per_day) for c in f.one_time_charges])
        for n, f in quotes.items()
    }
    assert seen == {
        -2: (Decimal("393.75"), ZERO, [(lands, Decimal("39.38"), Decimal("0.06"))]),
        -1: (Decimal("393.75"), ZERO, [(lands, Decimal("39.38"), Decimal("0.06"))]),
        0: (Decimal("393.75"), Decimal("0.06"), [(lands, Decimal("39.38"), None)]),
        1: (Decimal("433.19"), Decimal("0.06"), []),  # 393.75 + 39.38 + 0.06
        2: (Decimal("433.26"), Decimal("0.06"), []),  # interest of 2 days: 0.1294… → 0.13
        11: (Decimal("433.84"), Decimal("0.06"), []),  # interest of 11 days: 0.7119… → 0.71
    }
    # Ten days after DUE + 1 add ten days of interest, rounded once: 0.65, never 10 × a step.
    assert quotes[11].total - quotes[1].total == Decimal("0.65")


def test_a_surcharge_is_listed_only_when_it_lands_in_the_30_days_after_the_quote(
    session: Session,
) -> None:
    quotes = _one_bill_quotes(session, (-30, -29, -28))
    assert quotes[-30].one_time_charges == []  # DUE + 1 is the 31st day after DUE - 30
    assert [c.on for c in quotes[-29].one_time_charges] == [DUE + timedelta(days=1)]  # 30th
    assert [c.on for c in quotes[-28].one_time_charges] == [DUE + timedelta(days=1)]
    assert all(q.per_day == ZERO for q in quotes.values())


def test_a_quote_settled_by_one_payment_in_one_entry(session: Session) -> None:
    s = Scaffold(session)
    _terms(session, s, "0.10", "0.0365")
    prop = s.property()
    s.bill(prop, "1000.00")
    quote = _quote(session, s, prop.id or 0, date(2025, 12, 29))
    # 1,000.00 + surcharge 100.00 + interest 1,000.00 × 0.0365 × 90 / 365 = 9.00.
    assert (quote.secured, quote.charges, quote.total) == (
        Decimal("1000.00"),
        Decimal("109.00"),
        Decimal("1109.00"),
    )
    assert quote.per_day == Decimal("0.10")
    assert quote.reference == "P-2025-000001" and quote.good_through == date(2025, 12, 29)
    pay = dict(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        reference="p-2025-000001",
        today=date(2025, 12, 1),
    )
    short = payoffs.pay_quote(paid_on=date(2025, 11, 1), amount=Decimal("1009.00"), key="a", **pay)  # type: ignore[arg-type]
    assert (short.settled, short.remaining) == (False, Decimal("100.00"))
    again = payoffs.pay_quote(paid_on=date(2025, 11, 1), amount=Decimal("1009.00"), key="a", **pay)  # type: ignore[arg-type]
    assert not again.booked and again.entry_id == short.entry_id
    rest = payoffs.pay_quote(paid_on=date(2025, 11, 20), amount=Decimal("100.00"), key="b", **pay)  # type: ignore[arg-type]
    assert (rest.settled, rest.remaining, rest.credit) == (True, ZERO, ZERO)
    lines = session.exec(select(JournalLine).where(JournalLine.entry_id == rest.entry_id)).all()
    assert sum((line.amount for line in lines), ZERO) == 0
    accounts = Counter(line.account for line in lines)
    assert accounts == {"bank": 1, "late_charges": 1}
    assert ledger.owed_by_bill(session=session, district_id=s.district_id) == {}
    assert quote.settled_on == date(2025, 11, 20)
    with pytest.raises(InputError) as caught:
        payoffs.pay_quote(paid_on=date(2025, 11, 21), amount=Decimal("1.00"), key="c", **pay)  # type: ignore[arg-type]
    assert caught.value.field == "reference"
    # said in the reader's language, its day as that language writes it
    assert render(caught.value.message, "es") == (
        "Esta cotización se saldó el 20 nov 2025 con el asiento 3 del diario."
    )


def test_one_payment_of_the_whole_quote_is_one_entry(session: Session) -> None:
    s = Scaffold(session)
    _terms(session, s, "0.10", "0")
    prop = s.property()
    s.bill(prop, "300.00")
    s.bill(prop, "200.00", due=date(2025, 12, 31), run=_second_run(session, s, date(2025, 12, 31)))
    quote = _quote(session, s, prop.id or 0, date(2025, 11, 14))
    assert quote.total == Decimal("530.00")  # the second bill is not due yet
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    before = len(session.exec(select(JournalEntry)).all())
    done = payoffs.pay_quote(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        reference=quote.reference,
        paid_on=date(2025, 11, 14),
        amount=Decimal("540.00"),
        today=date(2025, 11, 14),
        key="x",
    )
    entries = session.exec(select(JournalEntry)).all()
    assert len(entries) == before + 1  # one entry, nothing else
    assert (done.settled, done.credit) == (True, Decimal("10.00"))


def test_a_quote_past_its_day_refuses_a_later_payment(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    s.bill(prop, "300.00")
    quote = _quote(session, s, prop.id or 0, date(2025, 10, 20))
    with pytest.raises(InputError) as caught:
        payoffs.pay_quote(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            reference=quote.reference,
            paid_on=date(2025, 10, 21),
            amount=Decimal("300.00"),
            today=date(2025, 10, 25),
            key="late",
        )
    assert caught.value.field == "paid_on"
    late = render(caught.value.message, "en")
    assert late.startswith("This quote was good through Oct ") and ", 2025: issue" in late
    assert payoffs.expired(quote, date(2025, 10, 21)) and not payoffs.expired(quote, ISSUED)
    with pytest.raises(InputError):
        _quote(session, s, prop.id or 0, ISSUED - timedelta(days=1))


def test_a_verification_code_carries_80_bits_and_is_never_repeated() -> None:
    assert len(issued.CODE_ALPHABET) == len(set(issued.CODE_ALPHABET)) == 32
    assert issued.CODE_BITS == issued.CODE_LENGTH * math.log2(32) >= 60
    codes = [issued.new_code() for _ in range(4000)]
    assert len(set(codes)) == len(codes)
    assert all(len(c) == issued.CODE_LENGTH and set(c) <= set(issued.CODE_ALPHABET) for c in codes)
    # Every letter of the alphabet is drawn about as often (no position is fixed).
    counts = Counter("".join(codes))
    expected = 4000 * issued.CODE_LENGTH / 32
    assert all(abs(n - expected) < expected * 0.2 for n in counts.values())
    for position in range(issued.CODE_LENGTH):
        assert len({c[position] for c in codes}) == 32
    shown = issued.shown_code(codes[0])
    assert shown.count("-") == 3 and issued.read_code(shown.lower()) == codes[0]


@given(
    amounts=st.lists(st.integers(min_value=1, max_value=500_000), min_size=1, max_size=3),
    paid=st.lists(st.integers(min_value=1, max_value=800_000), min_size=1, max_size=3),
    surcharge=st.sampled_from(["0", "0.10", "0.125"]),
    interest=st.sampled_from(["0", "0.0365", "0.1875"]),
)
def test_payments_against_a_quote_split_to_the_cent(
    app: Flask, amounts: list[int], paid: list[int], surcharge: str, interest: str
) -> None:
    """However a quote is paid (in one payment or several, short or over), each payment is
    one balanced entry whose parts — impost per bill, late charges, credit — add up to it to
    the cent, never take more than the quote said, and settle it once they reach its total."""
    with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
        s = Scaffold(session)
        _terms(session, s, surcharge, interest)
        prop = s.property()
        for i, cents in enumerate(amounts):
            run = s.run if i == 0 else _nth_run(session, s, i)
            s.bill(prop, str(Decimal(cents) / 100), run=run)
        quote = _quote(session, s, prop.id or 0, date(2025, 12, 29))
        brought = ZERO
        for n, cents in enumerate(paid):
            if quote.settled_on is not None:
                break
            amount = Decimal(cents) / 100
            done = payoffs.pay_quote(
                session=session,
                actor=ACTOR,
                district_id=s.district_id,
                reference=quote.reference,
                paid_on=date(2025, 11, 1),
                amount=amount,
                today=date(2025, 11, 1),
                key=f"k{n}",
            )
            brought += amount
            lines = session.exec(
                select(JournalLine).where(JournalLine.entry_id == done.entry_id)
            ).all()
            assert sum((x.amount for x in lines), ZERO) == 0
            by = Counter[str]()
            for x in lines:
                by[x.account] += x.amount  # type: ignore[assignment]
            assert by["bank"] == amount
            assert -by["receivable"] - by["late_charges"] - by["owner_credit"] == amount
            assert done.remaining == max(ZERO, quote.total - brought)
            assert done.settled == (brought >= quote.total)
        assert quote.charges_paid <= quote.charges
        owed_after = sum(
            ledger.owed_by_bill(session=session, district_id=s.district_id).values(), ZERO
        )
        assert owed_after == max(ZERO, quote.secured - brought)
        session.rollback()


def test_a_deposit_file_books_a_quote_reference_in_one_entry_and_reports_what_remains(
    session: Session,
) -> None:
    s = Scaffold(session)
    _terms(session, s, "0.10", "0.0365")
    prop, short_prop, late_prop = s.property(), s.property(), s.property()
    for p in (prop, short_prop, late_prop):
        s.bill(p, "1000.00")
    whole = _quote(session, s, prop.id or 0, date(2025, 12, 29))
    short = _quote(session, s, short_prop.id or 0, date(2025, 12, 29))
    late = _quote(session, s, late_prop.id or 0, date(2025, 10, 20))
    session.commit()
    # Each quote: 1,000.00 + 100.00 surcharge + 9.00 interest = 1,109.00.
    good = (
        "fecha,monto,referencia,aviso\n"
        f"2025-11-02,1109.00,DEP-10,{whole.reference.lower()}\n"
        f"2025-11-03,1000.00,{short.reference},\n"
    ).encode()
    import_ = dict(session=session, actor=ACTOR, district_id=s.district_id, today=TODAY_QUOTES)
    result = payments.import_deposits(data=good, **import_)  # type: ignore[arg-type]
    session.commit()
    assert (result.booked, result.already_booked) == (2, 0)
    paid = select(JournalEntry).where(JournalEntry.kind == "payment")
    assert len(session.exec(paid).all()) == 2  # one entry each
    assert [(q.row, q.reference, q.settled, q.remaining) for q in result.quotes] == [
        (2, whole.reference, True, ZERO),
        (3, short.reference, False, Decimal("109.00")),
    ]
    session.refresh(whole)
    session.refresh(short)
    assert whole.settled_on == date(2025, 11, 2) and short.settled_on is None
    assert short.paid == Decimal("1000.00")
    # Rerun: nothing booked twice, the same report.
    again = payments.import_deposits(data=good, **import_)  # type: ignore[arg-type]
    assert (again.booked, again.already_booked) == (0, 2)
    assert len(session.exec(paid).all()) == 2
    session.rollback()
    # A quote past its day is refused on its row; nothing of the file is booked.
    expired_file = (
        "date,amount,reference,notice_number\n"
        f"2025-11-04,109.00,DEP-12,{short.reference}\n"
        f"2025-10-25,1109.00,DEP-13,{late.reference}\n"
        "2025-10-25,5.00,DEP-14,P-2025-999999\n"
    ).encode()
    with pytest.raises(FindingsError) as caught:
        payments.import_deposits(data=expired_file, **import_)  # type: ignore[arg-type]
    found = caught.value.findings
    assert [(f.row, f.field) for f in found] == [
        (3, "rows[3].date"),
        (4, "rows[4].notice_number"),
    ]
    assert "2025-10-20" in str(found[0].message)
    session.rollback()
    session.refresh(short)
    assert short.settled_on is None and short.paid == Decimal("1000.00")
