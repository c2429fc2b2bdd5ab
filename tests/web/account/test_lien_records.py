"""A recorded lien corrected with a reason, then marked cancelled (no longer ranked), with
its history."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.services.ledger_support import ACTOR
from tests.web.account.support import setup_account
from tid.models import Property
from tid.services.liens import impost_lien as liens


def test_a_lien_corrected_then_cancelled_keeps_its_history(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill = setup_account(session, people)
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    lien = liens.add_lien(
        session=session,
        actor=ACTOR,
        property_id=prop.id or 0,
        kind="mortgage",
        holder="Banco Uno",
        constituted_on=date(2015, 3, 1),
        amount=Decimal("5000.00"),
        today=date(2025, 8, 1),
    )
    session.commit()
    url = f"/account/{s.district_id}/properties/{prop.id}/liens/{lien.id}"
    login(client, people.association)
    fields = {
        "action": "correct",
        "kind": "mortgage",
        "holder": "Banco Dos",
        "constituted_on": "2015-03-01",
        "amount": "4500.00",
        "reference": "Tomo 12, folio 3",
        "reason": "",
    }
    refused = client.post(url, data=fields)
    assert refused.status_code == 422 and 'id="e-reason"' in refused.get_data(as_text=True)
    fields["reason"] = "El registro dice Banco Dos"
    assert client.post(url, data=fields).status_code == 302
    bad = client.post(url, data={"action": "cancel", "cancelled_on": "2010-01-01"})
    said = bad.get_data(as_text=True)
    assert (
        bad.status_code == 422 and 'id="e-cancelled_on"' in said and 'id="e-cancel_reason"' in said
    )
    done = client.post(
        url,
        data={"action": "cancel", "cancelled_on": "2025-07-01", "cancel_reason": "Saldada"},
    )
    assert done.status_code == 302
    page = " ".join(client.get(url).get_data(as_text=True).split())
    assert "Banco Uno" in page and "Banco Dos" in page and "El registro dice Banco Dos" in page
    assert "Saldada" in page
    ranked = client.get(f"/account/{s.district_id}/properties/{prop.id}/liens").get_data(
        as_text=True
    )
    assert "Banco Dos" in ranked  # listed among the cancelled, not ranked
    # the ranking's warning on the day the lien act took effect links the reading
    assert 'href="/readings#lien-act-effective-date"' in ranked
    view = liens.lien_priority(session=session, prop=prop, today=date(2025, 8, 1))
    assert all(line.id == "impost" for line in view.result.ranking)
    login(client, people.auditor)
    assert client.post(url, data={**fields, "holder": "X"}).status_code == 403
