"""Payments: booked by form once, imported from the bank's file whole or not at all."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from xml.etree import ElementTree

from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import People, login
from tests.web.account.support import setup_account
from tid.services import ledger


def test_association_pays_by_form_once_and_sees_only_its_district(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = setup_account(session, people)
    login(client, people.association)
    d = s.district_id
    assert client.get(f"/account/{people.other_district.id}").status_code == 403
    assert client.get("/account").status_code == 302
    form = {"date": "2025-08-01", "amount": "400.00", "notice_number": str(bill_id), "token": "t1"}
    first = client.post(f"/account/{d}/payments", data=form, follow_redirects=True)
    # 1,000.00 owed − 400.00 = 600.00 left.
    assert "$400.00 aplicados a la factura" in first.get_data(as_text=True)
    assert "aún se deben $600.00" in first.get_data(as_text=True)
    again = client.post(f"/account/{d}/payments", data=form, follow_redirects=True)  # double click
    assert "ya estaba registrado" in again.get_data(as_text=True)
    session.expire_all()
    assert ledger.balance(session=session, district_id=d, account=ledger.BANK) == Decimal("400.00")
    bad = client.post(f"/account/{d}/payments", data={**form, "amount": "0", "token": "t2"})
    assert bad.status_code == 422
    page = bad.get_data(as_text=True)
    assert "Un pago debe ser mayor que cero." in page and 'aria-invalid="true"' in page
    page = client.get(f"/account/{d}?fy=2025-26").get_data(as_text=True)
    assert "Cuenta especial" in page
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) == 2
    for svg in svgs:
        ElementTree.fromstring(svg)  # well-formed
    # August's revenue bar: 400.00 collected.
    assert "2025-08: $400.00" in svgs[0]


def test_import_with_bad_rows_books_nothing_and_names_the_rows(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = setup_account(session, people)
    login(client, people.association)
    body = (
        "fecha,monto,referencia,aviso\n"
        f"2025-08-01,100.00,D1,{bill_id}\n"
        f"2025-08-02,-3.00,D2,{bill_id}\n"
    ).encode()
    response = client.post(
        f"/account/{s.district_id}/payments/import",
        data={"file": (io.BytesIO(body), "banco.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "Fila 3" in response.get_data(as_text=True)
    session.expire_all()
    assert ledger.balance(session=session, district_id=s.district_id, account=ledger.BANK) == 0
    good = body.decode().splitlines()[:2]
    response = client.post(
        f"/account/{s.district_id}/payments/import",
        data={"file": (io.BytesIO(("\n".join(good) + "\n").encode()), "banco.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    session.expire_all()
    assert ledger.balance(
        session=session, district_id=s.district_id, account=ledger.BANK
    ) == Decimal("100.00")
