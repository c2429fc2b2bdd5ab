"""What the account's page tests share: a district with a property, its bill and an
authorized purpose."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import People
from tests.services.ledger_support import ACTOR, Scaffold
from tid.jobs import tasks
from tid.services.account import expenditures, payments


def setup_account(session: Session, people: People) -> tuple[Scaffold, int]:
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-01", owner="Marta <b>Ríos</b>")
    bill = s.bill(prop, "1000.00")
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="Ornato"
    )
    session.commit()
    return s, (bill.id or 0) + 0 * (purpose.id or 0)


def paid_account(session: Session, people: People, amount: str) -> tuple[Scaffold, int]:
    """The account above, with ``amount`` paid on its bill on 2025-08-01 (FY 2025-26)."""
    s, bill_id = setup_account(session, people)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal(amount),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    session.commit()
    return s, bill_id


def issue_certificate(client: FlaskClient, district_id: int, property_id: int) -> bytes:
    """The association issues the property's lien certificate: its PDF as archived."""
    started = client.post(f"/account/{district_id}/properties/{property_id}/lien-certificate.pdf")
    assert started.status_code == 302, started.get_data(as_text=True)[:500]
    assert "/jobs/" in started.location  # issued by a job, its page showing the progress
    assert tasks.run_pending(client.application) == 1
    done = client.get(started.location).get_data(as_text=True)
    found = re.search(rf'href="(/account/{district_id}/issued/[^"]+)"', done)
    assert found is not None, done[:2000]
    pdf = client.get(found.group(1) + ".pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    return pdf.data
