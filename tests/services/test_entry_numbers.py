"""A journal entry is named by its number in its district's journal (1, 2, 3… as booked),
and a bill by its notice or its property and year: the journal's CSV, its reversals and the
history show those, never a database id."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tests.services.ledger_support import ACTOR, TODAY_90_DAYS_LATE, Scaffold, pay_bill
from tid.rules.messages import render
from tid.services import ledger
from tid.services.account import audit_statement
from tid.services.audit_trail import record_names


def test_entries_are_numbered_per_district_and_the_csv_names_no_id(session: Session) -> None:
    first, other = Scaffold(session), Scaffold(session)
    bill = first.bill(first.property("111-111-111-11"), "1000.00")
    other_bill = other.bill(other.property("222-222-222-22"), "80.00")
    pay_bill(session, other, "80.00", date(2025, 8, 1), "o1", other_bill.id)
    pay_bill(session, first, "100.00", date(2025, 8, 1), "k1", bill.id)
    pay_bill(session, first, "200.00", date(2025, 8, 2), "k2", bill.id)
    rows = ledger.journal(session=session, district_id=first.district_id)
    count = len(rows)
    assert [r.entry.number for r in rows] == list(range(1, count + 1))
    others = ledger.journal(session=session, district_id=other.district_id)
    assert [r.entry.number for r in others] == list(range(1, len(others) + 1))
    target = next(r for r in rows if r.reversible)
    reversal = ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=target.entry.id,
        on=date(2025, 8, 3),
        reason="wrong amount",
        today=TODAY_90_DAYS_LATE,
    )
    assert reversal.entry.number == count + 1
    rows = ledger.journal(session=session, district_id=first.district_id)
    by_id = {r.entry.id: r for r in rows}
    assert by_id[target.entry.id].reversed_by_number == count + 1
    assert by_id[reversal.entry.id or 0].reverses_number == target.entry.number
    bills = record_names.bill_names(session=session, bill_ids=record_names.journal_bill_ids(rows))
    table = list(csv.DictReader(io.StringIO(audit_statement.journal_csv(rows, None, bills))))
    assert [r["Asiento"] for r in table if r["Asiento"]][:1] == ["1"]
    assert {r["Factura"] for r in table if r["Factura"]} == {"111-111-111-11, año fiscal 2025-26"}
    # Ids are larger than the numbers here (the other district booked first): none is shown.
    ids = {str(r.entry.id) for r in rows} - {str(n) for n in range(1, count + 2)}
    assert ids and not any(v in ids for r in table for v in r.values())
    reversed_row = next(r for r in table if r["Asiento"] == str(target.entry.number))
    assert reversed_row["Revertido por el asiento"] == str(count + 1)
    # The history names an entry by its number and day.
    names = record_names.reference_names(
        session=session, references={"reverses_id": {target.entry.id}}
    )
    assert render(names["reverses_id"][target.entry.id], "es") == (
        f"Asiento {target.entry.number} del {target.entry.entry_date.day} ago 2025"
    )


def test_a_bulk_posting_numbers_on_from_the_last(session: Session) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "10.00")
    pay_bill(session, s, "10.00", date(2025, 8, 1), "p1", bill.id)
    booked = len(ledger.journal(session=session, district_id=s.district_id))
    made = ledger.post_many(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        entries=[
            ledger.Pending(
                date(2025, 8, 2),
                "payment",
                "",
                f"bulk-{i}",
                (
                    ledger.Line(ledger.BANK, Decimal("1.00")),
                    ledger.Line(ledger.OWNER_CREDIT, Decimal("-1.00")),
                ),
            )
            for i in range(3)
        ],
    )
    numbers = ledger.entry_numbers(session=session, entry_ids=made)
    assert sorted(numbers.values()) == [booked + 1, booked + 2, booked + 3]
