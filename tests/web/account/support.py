"""What the account's page tests share: a district with a property, its bill and an
authorized purpose."""

from __future__ import annotations

from sqlmodel import Session

from tests.conftest import People
from tests.services.ledger_support import ACTOR, Scaffold
from tid.services import expenditures


def setup_account(session: Session, people: People) -> tuple[Scaffold, int]:
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-01", owner="Marta <b>Ríos</b>")
    bill = s.bill(prop, "1000.00")
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="Ornato"
    )
    session.commit()
    return s, (bill.id or 0) + 0 * (purpose.id or 0)
