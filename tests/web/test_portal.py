"""The owners' portal: look-up by notice number and access code, exactly the archived bytes,
no other owner's notice reachable, one answer for every failure, and the rate limit."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import People
from tests.pdf_checks import assert_archival, page_text, pdf_text
from tests.services.notice_support import (
    ACTOR,
    BASE_URL,
    SECRET,
    SENDER,
    article,
    issue_notices,
    mail_all,
    make_ordinance,
    make_run,
)
from tid.models import Notice, NoticeBatch, Property
from tid.services import notices


@dataclass
class Mailed:
    notices: list[Notice]
    codes: list[str]


def _mailed(session: Session, people: People, owners: list[str]) -> Mailed:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, owners=owners)
    batch, found = issue_notices(session, billed)
    mail_all(session, batch, found, seed=50)
    codes = []
    for notice in found:
        text = pdf_text(notices.notice_pdf_bytes(session=session, notice=notice))
        match = re.search(r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}", text)
        assert match
        codes.append(match.group(0))
    return Mailed(found, codes)


@pytest.fixture
def mailed(session: Session, people: People) -> Mailed:
    return _mailed(session, people, ["María Rodríguez", "José Pérez"])


def _look_up(client: FlaskClient, number: str, code: str, ip: str = "192.0.2.10") -> object:
    return client.post(
        "/portal", data={"number": number, "code": code}, environ_base={"REMOTE_ADDR": ip}
    )


def test_owner_sees_their_notice_and_downloads_exactly_the_archived_bytes(
    client: FlaskClient, mailed: Mailed
) -> None:
    mine, other = mailed.notices
    response = _look_up(client, mine.number, mailed.codes[0].lower().replace("-", " "))
    assert response.status_code == 302 and response.location.endswith("/portal/notices")
    page = client.get("/portal/notices").get_data(as_text=True)
    assert mine.number in page and "María Rodríguez" in page
    assert "$1,234.56" in page and "1% del valor tasado" in page  # amount and explanation
    assert other.number not in page and "José Pérez" not in page
    download = client.get(f"/portal/notices/{mine.public_id}.pdf")
    assert download.status_code == 200 and download.mimetype == "application/pdf"
    assert hashlib.sha256(download.data).hexdigest() == mine.pdf_sha256
    # What was mailed, byte for byte: a PDF/A whose text reads back exactly.
    text = page_text(assert_archival(download.data, lang="es"))
    assert "María Rodríguez" in text and "$1,234.56" in text and mailed.codes[0] in text


def test_the_qr_link_fills_in_the_notice_number(client: FlaskClient, mailed: Mailed) -> None:
    number = mailed.notices[0].number
    page = client.get(f"/portal?n={number}").get_data(as_text=True)
    assert f'value="{number}"' in page
    assert notices.portal_url(BASE_URL, number) == f"{BASE_URL}/portal?n={number}"


def test_other_owners_notices_are_out_of_reach(client: FlaskClient, mailed: Mailed) -> None:
    mine, other = mailed.notices
    # Before any look-up: nothing, whatever the id.
    assert client.get(f"/portal/notices/{mine.public_id}.pdf").status_code == 404
    assert client.get("/portal/notices").status_code == 302
    _look_up(client, mine.number, mailed.codes[0])
    # Another owner's opaque id, an invented one and a database id all answer 404 alike.
    for public_id in (other.public_id, "x" * 24, str(other.id), other.number):
        response = client.get(f"/portal/notices/{public_id}.pdf")
        assert response.status_code == 404, public_id
    # Guessing: another notice's number with my code opens nothing.
    assert _look_up(client, other.number, mailed.codes[0]).status_code == 422  # type: ignore[attr-defined]
    assert client.get(f"/portal/notices/{other.public_id}.pdf").status_code == 404
    # Leaving forgets what was opened.
    client.post("/portal/leave")
    assert client.get(f"/portal/notices/{mine.public_id}.pdf").status_code == 404


def test_a_wrong_code_and_an_unknown_number_get_the_same_answer(
    client: FlaskClient, mailed: Mailed
) -> None:
    mine = mailed.notices[0]
    wrong = _look_up(client, mine.number, "AAAA-BBBB-CCCC", ip="192.0.2.1")
    unknown = _look_up(client, "2026-999999", "AAAA-BBBB-CCCC", ip="192.0.2.2")
    assert wrong.status_code == unknown.status_code == 422  # type: ignore[attr-defined]
    # The pages differ only in the number typed and in the form's CSRF token, which is signed
    # with the time of the request (two requests a second apart get different tokens).
    token = re.compile(r'name="csrf_token" value="[^"]*"')
    body_wrong = token.sub("", wrong.get_data(as_text=True).replace(mine.number, "N"))  # type: ignore[attr-defined]
    body_unknown = token.sub("", unknown.get_data(as_text=True).replace("2026-999999", "N"))  # type: ignore[attr-defined]
    assert body_wrong == body_unknown
    assert "No pudimos encontrar" in body_wrong or "could not find" in body_wrong


def test_failed_look_ups_are_limited_per_client_address(
    client: FlaskClient, mailed: Mailed
) -> None:
    mine, other = mailed.notices
    for _ in range(5):
        assert _look_up(client, "2026-999999", "AAAA-BBBB-CCCC").status_code == 422  # type: ignore[attr-defined]
    blocked = _look_up(client, other.number, mailed.codes[1])  # even the right code
    assert blocked.status_code == 429  # type: ignore[attr-defined]
    assert "15" in blocked.get_data(as_text=True)  # type: ignore[attr-defined]
    assert 800 < int(blocked.headers["Retry-After"]) <= 900  # type: ignore[attr-defined]
    # Another address (in another network) is not affected.
    fresh = _look_up(client, mine.number, mailed.codes[0], ip="203.0.113.10")
    assert fresh.status_code == 302  # type: ignore[attr-defined]


def test_a_later_owner_does_not_see_the_earlier_owners_notices(
    client: FlaskClient, session: Session, people: People, mailed: Mailed
) -> None:
    from tid.models import Property

    first = mailed.notices[0]
    prop = session.get(Property, first.property_id)
    assert prop is not None
    ordinance = make_ordinance(session, people.district)
    later = make_run(
        session,
        people.district,
        ordinance,
        fiscal_year="2026-27",
        owners=["Nueva Dueña"],
        properties=[prop],
        due=date(2027, 3, 31),
    )
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=later.run.id or 0,
        issued_on=date(2026, 12, 1),
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **SENDER,
    )
    (new,) = notices.batch_notices(session=session, batch_id=batch.id or 0)
    notices.set_article_number(
        session=session, actor=ACTOR, notice_id=new.id or 0, article_number=article(77)
    )
    notices.mail_batch(
        session=session,
        actor=ACTOR,
        batch_id=batch.id or 0,
        mailed_on=date(2026, 12, 2),
        postage="0.73",
        certified_fee="4.85",
        today=date(2026, 12, 2),
    )
    session.commit()
    code = re.search(
        r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}",
        pdf_text(notices.notice_pdf_bytes(session=session, notice=new)),
    )
    assert code
    assert _look_up(client, new.number, code.group(0)).status_code == 302  # type: ignore[attr-defined]
    page = client.get("/portal/notices").get_data(as_text=True)
    assert new.number in page and first.number not in page
    assert client.get(f"/portal/notices/{first.public_id}.pdf").status_code == 404


def test_the_portal_shows_payments_and_the_balance_from_the_special_account(
    client: FlaskClient, session: Session, people: People, mailed: Mailed
) -> None:
    from decimal import Decimal

    from tid.services import ledger
    from tid.services.account import payments

    mine = mailed.notices[0]
    ledger.sync_bills(session=session, actor=ACTOR, district_id=people.district.id or 0)
    # The payment quotes the notice number printed on the notice, the owner's one reference.
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        paid_on=date(2026, 2, 3),
        amount=Decimal("1000.00"),
        today=date(2026, 2, 3),
        key="portal-test-payment",
        notice_number=mine.number,
    )
    session.commit()
    _look_up(client, mine.number, mailed.codes[0])
    page = client.get("/portal/notices").get_data(as_text=True)
    # Billed $1,234.56 − paid $1,000.00 = $234.56 still owed.
    assert "$1,000.00" in page and "$234.56" in page


def test_the_owner_sees_the_property_how_to_pay_and_whom_to_ask(
    client: FlaskClient, mailed: Mailed, session: Session
) -> None:
    mine = mailed.notices[0]
    prop = session.get(Property, mine.property_id)
    assert prop is not None
    # Before any look-up: whom to ask about a lost code (the association on the envelope).
    page = client.get("/portal").get_data(as_text=True)
    assert "¿Perdió su código?" in page
    assert "Asociación del Viejo San Juan, Inc." in page and "PO Box 9020" in page
    _look_up(client, mine.number, mailed.codes[0])
    page = client.get("/portal/notices").get_data(as_text=True)
    assert prop.cadastral_number in page and "Calle Fortaleza" in page
    assert "Cómo pagar" in page and "Cheque o giro a nombre de la Asociación" in page
    # the payment reference is the number the notice says to quote, never a database id
    assert f"Referencia de pago: {mine.number} (escríbala en su pago)." in page
    assert f"#{mine.bill_id}" not in page
    # The payments have a heading even when there are none yet.
    assert "Pagos recibidos" in page and "Aún no hay pagos registrados." in page
    assert "<caption>" in page
    # In English, the run's English "How to pay" (as on the notice's English page).
    batch = session.get(NoticeBatch, mine.batch_id)
    assert batch is not None and batch.how_to_pay_en.strip()
    client.post("/lang/en")
    page = client.get("/portal/notices").get_data(as_text=True)
    assert batch.how_to_pay_en.splitlines()[0] in page
    assert batch.how_to_pay.splitlines()[0] not in page


def test_a_wrong_code_says_how_many_tries_are_left(client: FlaskClient, mailed: Mailed) -> None:
    mine = mailed.notices[0]
    first = _look_up(client, mine.number, "AAAA-BBBB-CCCC", ip="198.51.100.7")
    assert "Le quedan 4 intentos" in first.get_data(as_text=True)  # type: ignore[attr-defined]
    for _ in range(3):
        last = _look_up(client, mine.number, "AAAA-BBBB-CCCC", ip="198.51.100.7")
    assert "Le queda 1 intento" in last.get_data(as_text=True)  # type: ignore[attr-defined]
    final = _look_up(client, mine.number, "AAAA-BBBB-CCCC", ip="198.51.100.7")
    text = final.get_data(as_text=True)  # type: ignore[attr-defined]
    assert "Ese fue el último intento" in text and "15 minutos" in text
    assert _look_up(client, mine.number, mailed.codes[0], ip="198.51.100.7").status_code == 429  # type: ignore[attr-defined]


def test_an_owner_with_several_notices_sees_them_together(
    client: FlaskClient, mailed: Mailed
) -> None:
    first, second = mailed.notices  # two properties (say, two parcels of one owner)
    assert _look_up(client, first.number, mailed.codes[0]).status_code == 302  # type: ignore[attr-defined]
    page = client.get("/portal/notices").get_data(as_text=True)
    assert first.number in page and second.number not in page
    assert "¿Otro aviso?" in page
    # The second code, entered once from the notices page, adds to the same visit.
    assert _look_up(client, second.number, mailed.codes[1]).status_code == 302  # type: ignore[attr-defined]
    page = client.get("/portal/notices").get_data(as_text=True)
    assert first.number in page and second.number in page
    assert "(2)" in page.split("<caption>")[1].split("</caption>")[0]
    for notice in (first, second):
        assert client.get(f"/portal/notices/{notice.public_id}.pdf").status_code == 200
    # Leaving forgets both.
    client.post("/portal/leave")
    assert client.get(f"/portal/notices/{second.public_id}.pdf").status_code == 404
