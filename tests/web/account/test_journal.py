"""The journal: a reversal from the page (never redirected elsewhere), fifty entries a page."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from flask.testing import FlaskClient
from sqlalchemy import Engine, event
from sqlmodel import Session

from tests.conftest import People, login
from tests.services.ledger_support import ACTOR, Scaffold
from tests.web.account.support import setup_account
from tid.services import ledger
from tid.services.account import payments


def test_reversal_from_the_page_and_no_redirect_elsewhere(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = setup_account(session, people)
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("100.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    session.commit()
    login(client, people.association)
    url = f"/account/{s.district_id}/entries/{paid.entry_id}/reverse"
    response = client.post(url, data={"reason": "cheque devuelto", "back": "https://evil.example/"})
    assert response.status_code == 302
    assert response.location.endswith(f"/account/{s.district_id}/journal")
    session.expire_all()
    assert ledger.balance(session=session, district_id=s.district_id, account=ledger.BANK) == 0
    twice = client.post(url, data={"reason": "otra vez"}, follow_redirects=True)
    assert "Este asiento ya fue revertido." in twice.get_data(as_text=True)


def test_the_journal_pages_fifty_entries_with_first_and_last_page_links(
    client: FlaskClient, session: Session, people: People
) -> None:
    """120 entries make three pages of 50; the pager links to the first and the last page
    from the pages that are not next to them."""
    s = Scaffold(session, people.district)
    for _ in range(120):
        s.bill(s.property(), "10.00")
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    session.commit()
    login(client, people.association)
    d = s.district_id
    url = f"/account/{d}/journal?fy=2025-26"

    def pager(page: int) -> tuple[str, set[str]]:
        html = client.get(f"{url}&page={page}").get_data(as_text=True)
        links = set(re.findall(r'href="[^"]*[?&]page=(\d+)[^"]*"', html.replace("&amp;", "&")))
        return html, links

    first, links = pager(1)
    assert "Página 1 de 3" in first and first.count('data-label="Asiento"') == 50
    assert "Primera página" not in first and "Última página" in first and links == {"2", "3"}
    middle, links = pager(2)
    assert "Página 2 de 3" in middle and links == {"1", "3"}
    assert "Primera página" not in middle and "Última página" not in middle  # next to both
    last, links = pager(3)
    assert "Página 3 de 3" in last and "Primera página" in last and links == {"1", "2"}
    assert last.count('data-label="Asiento"') == 20


def test_a_journal_page_asks_the_database_as_often_with_fifty_entries_as_with_ten(
    client: FlaskClient, session: Session, people: People
) -> None:
    """Each entry's labels, bills, booker and reversal are read for the whole page at once:
    a page of fifty billings and payments (some reversed) sends exactly the statements a
    page of ten sends, and the payments page at most one more. A query per row would add
    dozens."""
    s = Scaffold(session, people.district)
    d = s.district_id

    def book(count: int, start: int) -> None:
        for n in range(start, start + count):
            bill = s.bill(s.property(), "10.00")
            ledger.sync_bills(session=session, actor=ACTOR, district_id=d)
            paid = payments.record_payment(
                session=session,
                actor=ACTOR,
                district_id=d,
                paid_on=date(2025, 8, 1),
                amount=Decimal("4.00"),
                today=date(2025, 8, 1),
                key=f"p{n}",
                notice_number=str(bill.id),
            )
            if n % 3 == 0:
                ledger.reverse_entry(
                    session=session,
                    actor=ACTOR,
                    entry_id=paid.entry_id,
                    on=date(2025, 8, 2),
                    reason="devuelto",
                    today=date(2025, 8, 2),
                )
        session.commit()

    session.commit()
    login(client, people.association)
    pages = [f"/account/{d}/journal?fy=2025-26", f"/account/{d}/payments"]

    def statements(url: str) -> tuple[int, str]:
        client.get(url)  # the session's and the page's first reads, kept afterwards
        asked: list[str] = []
        listen = lambda *args: asked.append(str(args[2]))  # noqa: E731
        event.listen(Engine, "before_cursor_execute", listen)
        try:
            html = client.get(url).get_data(as_text=True)
        finally:
            event.remove(Engine, "before_cursor_execute", listen)
        return len(asked), html

    book(4, 0)  # four billings and payments, two of them reversed: ten entries
    few = [statements(url) for url in pages]
    assert few[0][1].count('data-label="Asiento"') == 10
    book(25, 4)
    many = [statements(url) for url in pages]
    assert many[0][1].count('data-label="Asiento"') == 50
    assert many[0][1].count("revertido por el asiento") >= 6
    # The journal's counts are equal; the payments page asks once more, for the numbers of
    # the payments its reversals undo that are no longer on it (one query for all of them).
    assert many[0][0] == few[0][0] and few[1][0] <= many[1][0] <= few[1][0] + 1
