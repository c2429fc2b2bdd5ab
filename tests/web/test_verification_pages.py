"""/verificar: anyone checks a document issued about a property by its code — what it said,
never the owner — and a copy of its PDF byte for byte; the page is rate-limited."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

from flask import Flask
from pypdf import PdfReader
from sqlmodel import Session, select

from tests.conftest import People, make_test_app
from tests.pdf_checks import structure
from tests.web.account.support import paid_account, setup_account
from tid.app_reader import reader
from tid.clock import today_in_puerto_rico
from tid.documents import closing
from tid.models import IssuedDocument, Property
from tid.services.closing import issued


def _quote(app: Flask, session: Session, people: People) -> tuple[IssuedDocument, bytes]:
    s, _bill = setup_account(session, people)
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    with app.app_context():
        made = closing.payoff_pdf(
            session,
            district=s.district_id,
            property=prop.id or 0,
            reader=reader("es"),
            through=today_in_puerto_rico() + timedelta(days=3),
            issued_by="Carmen Treasurer",
        )
    session.commit()
    return session.exec(select(IssuedDocument)).one(), made.data


def test_a_quote_verified_by_its_code_and_its_pdf(
    app: Flask, session: Session, people: People
) -> None:
    quote, pdf = _quote(app, session, people)
    client = app.test_client()
    code = issued.shown_code(quote.code)
    page = client.get(f"/verificar/{code.lower()}")
    said = " ".join(page.get_data(as_text=True).split())
    assert page.status_code == 200
    assert "Documento auténtico" in said and quote.reference in said
    assert "123-456-789-01" in said and "$1,000.00" in said and "Carmen Treasurer" in said
    assert "Ríos" not in said and "Marta" not in said  # never the owner
    assert "Vigente" in said
    # The code typed in the form goes to its page.
    typed = client.post("/verificar", data={"code": f" {quote.code.lower()} "})
    assert typed.status_code == 302 and typed.headers["Location"].endswith(f"/verificar/{code}")
    same = client.post(f"/verificar/{code}", data={"pdf": (io.BytesIO(pdf), "quote.pdf")}).get_data(
        as_text=True
    )
    assert "byte a byte" in same and "NO coincide" not in same
    assert "<h1>Documento auténtico: el archivo es el emitido</h1>" in same
    changed = bytearray(pdf)
    changed[len(changed) // 2] ^= 0x01  # one byte
    other = client.post(
        f"/verificar/{code}", data={"pdf": (io.BytesIO(bytes(changed)), "quote.pdf")}
    ).get_data(as_text=True)
    assert "NO coincide" in other
    # The heading says what was found: not an authentic document.
    assert "<h1>El archivo no es el documento emitido con este código</h1>" in other
    assert "Documento auténtico" not in other
    assert client.get("/verificar/AAAA-AAAA-AAAA-AAAA").status_code == 404


def test_the_verification_page_is_rate_limited(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    app = make_test_app(database_url, tmp_path, VERIFY_RATE_LIMIT=5, VERIFY_MAX_FAILURES=2)
    quote, _pdf = _quote(app, session, people)
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "198.51.100.7"
    # Wrong codes: two, then the client waits, even with the right one.
    assert client.get("/verificar/AAAA-AAAA-AAAA-AAAB").status_code == 404
    assert client.get("/verificar/AAAA-AAAA-AAAA-AAAC").status_code == 404
    locked = client.get(f"/verificar/{quote.code}")
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 0
    # Another client is not held back by the first one's failures, but by its own requests a
    # minute: the fifth is the last one answered.
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "203.0.113.9"
    answers = [other.get(f"/verificar/{quote.code}").status_code for _ in range(6)]
    assert answers == [200] * 5 + [429]
    app.extensions["tid.engine"].dispose()


def test_a_limit_of_zero_is_no_limit(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    # 0 turns a limit off, as it does for the calculators' and the public pages' limits.
    app = make_test_app(database_url, tmp_path, VERIFY_RATE_LIMIT=0, VERIFY_MAX_FAILURES=0)
    quote, _pdf = _quote(app, session, people)
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "198.51.100.7"
    wrong = [client.get(f"/verificar/AAAA-AAAA-AAAA-AAB{n}").status_code for n in range(5)]
    assert wrong == [404] * 5
    answers = [client.get(f"/verificar/{quote.code}").status_code for _ in range(40)]
    assert answers == [200] * 40
    app.extensions["tid.engine"].dispose()


def test_a_certificate_says_its_lien_was_released_since(
    app: Flask, session: Session, people: People
) -> None:
    s, _bill = paid_account(session, people, "1000.00")
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    with app.app_context():
        made = closing.lien_certificate(
            session, district=s.district_id, property=prop.id or 0, reader=reader("es")
        )
        session.commit()
        # A document of record a screen reader reads: its headings, its tables with their
        # header cells, the QR code in words, in Spanish.
        read = structure(made.data)
        kinds = {e.kind for e in read}
        assert {"/H1", "/H2", "/Table", "/TH", "/TD"} <= kinds
        qr = [e.alt for e in read if e.kind == "/Figure"]
        assert qr == ["Código QR de la página de verificación"]
        assert PdfReader(io.BytesIO(made.data)).trailer["/Root"]["/Lang"] == "es"
        certificate = session.exec(select(IssuedDocument)).one()
        client = app.test_client()
        before = client.get(f"/verificar/{certificate.code}").get_data(as_text=True)
        assert "<h1>Documento auténtico</h1>" in before and "se canceló" not in before
        closing.release_pdf(
            session, district=s.district_id, property=prop.id or 0, reader=reader("es")
        )
        session.commit()
    release = session.exec(select(IssuedDocument).where(IssuedDocument.kind == "release")).one()
    after = " ".join(client.get(f"/verificar/{certificate.code}").get_data(as_text=True).split())
    assert "<h1>Certificación auténtica de un gravamen ya cancelado</h1>" in after
    assert f"se canceló el {release.issued_on.day} " in after
    assert f"({release.reference}), después de emitida la certificación" in after
    english = client.get(f"/verificar/{certificate.code}?lang=en").get_data(as_text=True)
    said = " ".join(english.split())
    assert "<h1>Authentic certificate of a lien since released</h1>" in said
    # The release itself, and a quote, say nothing of the kind.
    own = client.get(f"/verificar/{release.code}").get_data(as_text=True)
    assert "<h1>Documento auténtico</h1>" in own and "ya cancelado" not in own
