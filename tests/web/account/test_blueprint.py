"""Who reads and who writes the account: the auditor reads everything and writes nothing."""

from __future__ import annotations

from decimal import Decimal

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.web.account.support import paid_account
from tid.models import JournalEntry
from tid.services import ledger


def test_auditor_reads_everything_and_writes_nothing(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = paid_account(session, people, "100.00")
    entry = session.exec(select(JournalEntry).where(JournalEntry.kind == "payment")).one()
    login(client, people.auditor)
    d = s.district_id
    for path in (
        "",
        "/payments",
        "/journal",
        "/expenditures",
        "/purposes",
        "/bank",
        "/delinquency",
        "/statement",
    ):
        assert client.get(f"/account/{d}{path}").status_code == 200, path
    assert client.get(f"/account/{people.other_district.id}").status_code == 200
    writes = [
        (
            f"/account/{d}/payments",
            {"date": "2025-08-01", "amount": "5", "notice_number": str(bill_id)},
        ),
        (
            f"/account/{d}/expenditures",
            {"date": "2025-08-01", "amount": "5", "payee": "x", "category": "admin"},
        ),
        (f"/account/{d}/purposes", {"name": "x"}),
        (f"/account/{d}/bank", {"as_of": "2025-08-01", "balance": "1"}),
        (f"/account/{d}/delinquency", {"surcharge_rate": "0.1", "annual_interest_rate": "0"}),
        (f"/account/{d}/entries/{entry.id}/reverse", {"reason": "x"}),
    ]
    for path, data in writes:
        assert client.post(path, data=data).status_code == 403, path
    session.expire_all()
    assert ledger.balance(session=session, district_id=d, account=ledger.BANK) == Decimal("100.00")
