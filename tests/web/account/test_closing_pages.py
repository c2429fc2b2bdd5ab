"""The association's closing pages: a payoff quote issued good through a day, read back as
its archived PDF, and settled by a payment booked in one entry."""

from __future__ import annotations

import hashlib
import io
from datetime import date, timedelta
from pathlib import Path

from flask.testing import FlaskClient, FlaskCliRunner
from pypdf import PdfReader
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.pdf_checks import assert_archival
from tests.services.ledger_support import ACTOR
from tests.web.account.support import setup_account
from tid.clock import today_in_puerto_rico
from tid.models import IssuedDocument, JournalEntry, Property
from tid.services.closing.issued import shown_code as issued_code
from tid.services.liens import impost_lien as liens


def test_a_quote_issued_read_back_and_settled(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = setup_account(session, people)
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0",
    )
    session.commit()
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    d = s.district_id
    login(client, people.association)
    page = client.get(f"/account/{d}/properties/{prop.id}/payoff")
    default = (today_in_puerto_rico() + timedelta(days=30)).isoformat()
    assert page.status_code == 200 and f'value="{default}"' in page.get_data(as_text=True)
    refused = client.post(f"/account/{d}/properties/{prop.id}/payoff", data={"good_through": "x"})
    assert refused.status_code == 422 and "Escriba una fecha" in refused.get_data(as_text=True)
    past = client.post(
        f"/account/{d}/properties/{prop.id}/payoff", data={"good_through": "2020-01-01"}
    )
    said = past.get_data(as_text=True)
    assert past.status_code == 422 and 'id="e-good_through"' in said
    through = (today_in_puerto_rico() + timedelta(days=10)).isoformat()
    issued = client.post(
        f"/account/{d}/properties/{prop.id}/payoff", data={"good_through": through}
    )
    assert issued.status_code == 302
    quote = session.exec(select(IssuedDocument)).one()
    assert issued.headers["Location"].endswith(f"/account/{d}/issued/{quote.reference}")
    # 1,000.00 + the 10% surcharge.
    assert str(quote.total) == "1100.00" and quote.good_through == date.fromisoformat(through)
    shown = " ".join(client.get(issued.headers["Location"]).get_data(as_text=True).split())
    assert "$1,100.00" in shown and "Cotización de saldo" in shown and "123-456-789-01" in shown
    pdf = client.get(f"/account/{d}/issued/{quote.reference}.pdf").data
    assert hashlib.sha256(pdf).hexdigest() == quote.sha256
    assert_archival(pdf, lang="es", tagged=True)
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages).split())
    assert quote.reference in text and "/verificar/" in text and "$1,100.00" in text
    before = len(session.exec(select(JournalEntry)).all())
    short = client.post(
        f"/account/{d}/issued/{quote.reference}",
        data={"paid_on": today_in_puerto_rico().isoformat(), "amount": "1000.00", "token": "t1"},
        follow_redirects=True,
    )
    assert "$100.00" in short.get_data(as_text=True)
    client.post(
        f"/account/{d}/issued/{quote.reference}",
        data={"paid_on": today_in_puerto_rico().isoformat(), "amount": "100.00", "token": "t2"},
    )
    session.expire_all()
    entries = session.exec(select(JournalEntry)).all()
    assert len([e for e in entries if e.kind == "payment"]) == 2 and len(entries) >= before + 2
    assert session.exec(select(IssuedDocument)).one().settled_on == today_in_puerto_rico()
    login(client, people.other_association)
    assert client.get(f"/account/{d}/issued/{quote.reference}").status_code in (403, 404)


def test_the_command_line_issues_a_quote_as_the_page_does(
    runner: FlaskCliRunner, session: Session, people: People, tmp_path: Path
) -> None:
    s, _bill_id = setup_account(session, people)
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    out = tmp_path / "payoff.pdf"
    through = (today_in_puerto_rico() + timedelta(days=5)).isoformat()
    args = ["document", "payoff.pdf", "--district", str(s.district_id), "--property"]
    done = runner.invoke(
        args=[*args, str(prop.id), "--through", through, "--lang", "en", "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    quote = session.exec(select(IssuedDocument)).one()
    assert hashlib.sha256(out.read_bytes()).hexdigest() == quote.sha256
    assert quote.issued_by == "command line" and str(quote.good_through) == through
    text = " ".join(PdfReader(io.BytesIO(out.read_bytes())).pages[0].extract_text().split())
    assert "Payoff quote" in text and "$1,000.00" in text
    bad = runner.invoke(args=[*args, str(prop.id), "--through", "soon", "--out", str(out)])
    assert bad.exit_code == 2 and "--through" in bad.output and "Traceback" not in bad.output
    past = runner.invoke(
        args=[*args, str(prop.id), "--through", "2020-01-01", "--lang", "en", "--out", str(out)]
    )
    assert past.exit_code == 2
    assert "Error: --through: A quote is good through today or a later day." in past.output


def test_the_api_gives_a_quote_to_signed_in_users(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = setup_account(session, people)
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    url = f"/api/v1/account/{s.district_id}/properties/{prop.id}/payoff"
    assert client.get(url).status_code == 401
    login(client, people.auditor)
    through = (today_in_puerto_rico() + timedelta(days=7)).isoformat()
    answer = client.get(f"{url}?through={through}").get_json()
    assert answer["through"] == through and answer["total"] == "1000.00"
    assert answer["lines"][0]["fiscal_year"] == "2025-26" and "owner" not in str(answer)
    bad = client.get(f"{url}?through=2020-01-01")
    assert bad.status_code == 422 and bad.get_json()["field"] == "through"
    login(client, people.association)
    client.post(
        f"/account/{s.district_id}/properties/{prop.id}/payoff", data={"good_through": through}
    )
    quote = session.exec(select(IssuedDocument)).one()
    read = client.get(f"/api/v1/account/{s.district_id}/issued/{quote.reference}").get_json()
    assert read["state"] == "valid" and read["remaining"] == "1000.00"
    assert read["verify_url"].endswith(issued_code(quote.code))
    login(client, people.other_association)
    assert client.get(url).status_code == 403


def test_a_release_is_refused_while_the_lien_secures_anything(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = setup_account(session, people)
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    d = s.district_id
    login(client, people.association)
    refused = client.post(f"/account/{d}/properties/{prop.id}/release", follow_redirects=True)
    said = " ".join(refused.get_data(as_text=True).split())
    assert "1000.00" in said and "No hay cancelación" in said
    assert session.exec(select(IssuedDocument)).all() == []
    through = today_in_puerto_rico().isoformat()
    client.post(f"/account/{d}/properties/{prop.id}/payoff", data={"good_through": through})
    quote = session.exec(select(IssuedDocument)).one()
    client.post(
        f"/account/{d}/issued/{quote.reference}",
        data={"paid_on": through, "amount": "1000.00", "token": "t"},
    )
    done = client.post(f"/account/{d}/properties/{prop.id}/release")
    assert done.status_code == 302
    session.expire_all()
    release = session.exec(select(IssuedDocument).where(IssuedDocument.kind == "release")).one()
    pdf = client.get(f"/account/{d}/issued/{release.reference}.pdf").data
    assert_archival(pdf, lang="es", tagged=True)
    text = " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    assert "2025-26" in text and "123-456-789-01" in text and release.reference in text
    verified = client.get(f"/verificar/{release.code}").get_data(as_text=True)
    assert release.reference in verified and "Marta" not in verified
