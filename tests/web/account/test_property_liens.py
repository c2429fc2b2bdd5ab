"""A property's liens page: the owner's credit shown and applied, the search by cadastral number."""

from __future__ import annotations

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.web.account.support import paid_account
from tid.models import Property


def test_owner_credit_shown_and_applied_from_the_property_page(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "1200.00")
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    login(client, people.association)
    page = client.get(f"/account/{s.district_id}/properties/{prop.id}/liens").get_data(as_text=True)
    # 1,200.00 paid − 1,000.00 owed = 200.00 held; nothing owed, so no button.
    assert "$200.00" in page and "apply-credit" not in page
    response = client.post(
        f"/account/{s.district_id}/properties/{prop.id}/apply-credit",
        data={"token": "credit-1"},
        follow_redirects=True,
    )
    assert "Nada se debe" in response.get_data(
        as_text=True
    ) or "No se debe nada" in response.get_data(as_text=True)
    found = client.get(f"/account/{s.district_id}/delinquency?cadastral=123-456-789-01")
    assert found.status_code == 302 and found.location.endswith(f"/properties/{prop.id}/liens")
    missing = client.get(f"/account/{s.district_id}/delinquency?cadastral=000")
    assert missing.status_code == 422
