"""A change of owner: recorded on the property's page (the next notice goes to the new owner,
the debt stays, the history keeps both), or found by a roll import."""

from __future__ import annotations

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.services.notice_support import issue_notices, make_ordinance, make_run
from tests.services.roll.helpers import GOOD, import_file
from tid.models import OwnershipTransfer, Property
from tid.services.closing import transfers
from tid.services.liens import impost_lien as liens


def test_a_sale_recorded_sends_the_next_notice_to_the_new_owner(
    client: FlaskClient, session: Session, people: People
) -> None:
    billed = make_run(session, people.district, make_ordinance(session, people.district))
    session.commit()
    prop = session.get(Property, billed.bills[0].property_id)
    assert prop is not None
    url = f"/account/{people.district.id}/properties/{prop.id}/owners"
    login(client, people.association)
    page = client.get(url).get_data(as_text=True)
    assert "María Rodríguez" in page and "Calle Luna 10" in page
    sale = {
        "transferred_on": "2026-01-15",
        "owner_names": "Inversiones del Mar LLC",
        "mailing_line1": "PO BOX 4455",
        "mailing_city": "San Juan",
        "mailing_state": "PR",
        "mailing_zip": "0090",
        "note": "",
    }
    refused = client.post(url, data=sale)
    said = refused.get_data(as_text=True)
    assert refused.status_code == 422 and 'id="e-mailing_zip"' in said and 'id="e-note"' in said
    sale.update(mailing_zip="00936-4455", note="Escritura 88 ante el Lcdo. Ruiz, 2026-01-15")
    assert client.post(url, data=sale).status_code == 302
    history = " ".join(client.get(url).get_data(as_text=True).split())
    assert "María Rodríguez" in history and "Inversiones del Mar LLC" in history
    assert "Escritura 88" in history and "PO BOX 4455" in history
    # The debt stays with the property; the next notice is addressed to the new owner.
    owed = liens.impost_lien(session=session, prop=prop, today=billed.bills[0].due_date)
    assert owed.secured == billed.bills[0].amount
    _batch, notices = issue_notices(session, billed)
    sent = {n.bill_id: n for n in notices}[billed.bills[0].id]
    assert "PO BOX 4455" in sent.mailing_address
    login(client, people.auditor)
    assert client.post(url, data=sale).status_code == 403


def test_a_roll_naming_a_new_owner_is_a_change_of_owner(session: Session, people: People) -> None:
    import_file(session, people, GOOD.encode(), fy="2025-26")
    assert session.exec(select(OwnershipTransfer)).all() == []
    sold = GOOD.replace("José Rivera Colón", "Ana Vega Soto")
    import_file(session, people, sold.encode(), fy="2026-27")
    found = session.exec(select(OwnershipTransfer)).all()
    assert [(t.previous_owner_names, t.new_owner_names, t.source) for t in found] == [
        ("José Rivera Colón", "Ana Vega Soto", "roll")
    ]
    assert transfers.transfers_of(session=session, property_id=found[0].property_id) == found
