"""Reading the journal: a page at a time, and the entries counted per day."""

from __future__ import annotations

from datetime import date

from sqlmodel import Session

from tests.services.ledger.conftest import TODAY, pay
from tests.services.ledger_support import ACTOR, Scaffold
from tid.services import ledger
from tid.services.account import audit_statement
from tid.services.audit_trail import record_names


def test_the_journal_a_page_at_a_time_is_the_journal(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "500.00")
    for i in range(7):
        pay(session, s, f"{i + 1}.00", f"page-{i}", notice_number=str(bill.id))
    session.commit()
    d = s.district_id
    whole = [r.entry.id for r in ledger.journal(session=session, district_id=d)]
    assert len(whole) == 8  # the bill and seven payments
    pages = [
        ledger.journal_page(session=session, district_id=d, page=n, per_page=3)
        for n in (1, 2, 3, 4)
    ]
    assert [p.page for p in pages] == [1, 2, 3, 3]  # past the last: the last
    assert all(p.total == 8 and p.pages == 3 for p in pages)
    assert [r.entry.id for p in pages[:3] for r in p.rows] == whole
    assert [len(r.lines) for r in pages[0].rows] == [2, 4, 4]
    backwards = [
        ledger.journal_page(session=session, district_id=d, page=n, per_page=3, newest_first=True)
        for n in (1, 2, 3)
    ]
    assert [r.entry.id for p in backwards for r in p.rows] == list(reversed(whole))
    newest = ledger.journal_page(
        session=session, district_id=d, kinds=("payment",), newest_first=True, counted=False
    )
    assert [r.entry.id for r in newest.rows] == list(reversed(whole[1:]))
    first = pages[1].rows[0].entry.id or 0
    ledger.reverse_entry(
        session=session, actor=ACTOR, entry_id=first, on=TODAY, reason="test", today=TODAY
    )
    session.commit()
    again = ledger.journal_page(session=session, district_id=d, page=2, per_page=3)
    assert again.rows[0].reversed_by is not None and again.total == 9


def test_the_entries_are_counted_from_their_count_per_day(session: Session) -> None:
    """``entries_count`` counts a period's entries (of some kinds) from ``journal_day``."""
    s = Scaffold(session)
    bills = [s.bill(s.property(), "10.00") for _ in range(5)]
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)  # booked: 5 entries
    for n, bill in enumerate(bills[:2]):  # and 2 payments on one day
        pay(session, s, "4.00", f"count-{n}", notice_number=str(bill.id))
    session.commit()
    whole = ledger.entries_count(session=session, district_id=s.district_id)
    assert whole == len(ledger.journal(session=session, district_id=s.district_id)) == 7
    assert ledger.entries_count(session=session, district_id=s.district_id, kinds=["bill"]) == 5
    assert ledger.entries_count(session=session, district_id=s.district_id, kinds=["payment"]) == 2
    assert (
        ledger.entries_count(session=session, district_id=s.district_id, since=date(2025, 8, 1))
        == 2
    )
    assert (
        ledger.entries_count(session=session, district_id=s.district_id, since=date(2030, 1, 1))
        == 0
    )


def test_the_journal_a_chunk_at_a_time_is_the_journal_and_so_is_its_csv(
    session: Session,
) -> None:
    """The journal's CSV file is written a chunk of entries at a time (a large district's
    year in a bounded memory): the same rows, the reversals named across chunks."""
    s = Scaffold(session)
    bill = s.bill(s.property(), "500.00")
    paid = [
        pay(session, s, f"{i + 1}.00", f"chunk-{i}", notice_number=str(bill.id)) for i in range(5)
    ]
    ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=paid[0].entry_id,
        on=date(2025, 8, 2),
        reason="bounced",
        today=TODAY,
    )
    session.commit()
    d = s.district_id
    whole = ledger.journal(session=session, district_id=d)
    assert len(whole) == 7 and any(r.reversed_by_number for r in whole)
    for size in (1, 2, 3, 7, 100):
        chunks = list(ledger.journal_chunks(session=session, district_id=d, size=size))
        assert [r for chunk in chunks for r in chunk] == whole
        assert all(len(chunk) <= size for chunk in chunks)
    names = record_names.bill_names(session=session, bill_ids=record_names.journal_bill_ids(whole))
    chunked = [
        (
            rows,
            record_names.bill_names(session=session, bill_ids=record_names.journal_bill_ids(rows)),
        )
        for rows in ledger.journal_chunks(session=session, district_id=d, size=2)
    ]
    assert audit_statement.journal_csv_of(chunked) == audit_statement.journal_csv(
        whole, None, names
    )
