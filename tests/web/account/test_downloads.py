"""The account's documents of record, read back: the statement, the lien certificate and
the delinquency list."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from flask.testing import FlaskClient
from pypdf import PdfReader
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.pdf_checks import assert_archival
from tests.services.ledger_support import ACTOR
from tests.web.account.support import issue_certificate, setup_account
from tid.jobs import tasks
from tid.models import IssuedDocument, Job, Property
from tid.services.account import payments
from tid.services.closing import issued
from tid.services.liens import impost_lien as liens


def _text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def test_statement_lien_certificate_and_delinquency_documents(
    client: FlaskClient, session: Session, people: People, app: object
) -> None:
    s, bill_id = setup_account(session, people)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("400.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    liens.add_lien(
        session=session,
        actor=ACTOR,
        property_id=prop.id or 0,
        kind="mortgage",
        holder="<script>Banco</script>",
        constituted_on=date(2001, 1, 1),
        amount=Decimal("9000.00"),
        today=date(2025, 8, 1),
    )
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0",
    )
    session.commit()
    login(client, people.auditor)
    d = s.district_id
    pdf = client.get(f"/account/{d}/statement.pdf?fy=2025-26")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    text = _text(pdf.data)
    assert "Estado de la cuenta especial, AF 2025-26" in text and "400.00" in text
    assert "123-456-789-01" in text  # the PDF lists the receivables bill by bill
    # The journal gives each entry's number, day and memo once, beside its lines: the
    # payment of 400.00 is one memo over its several lines.
    said = " ".join(text.split())
    assert said.count("Pago de $400.00") == 1
    assert_archival(pdf.data, lang="es", tagged=True)
    # The page has the figures: the receivables by age with their count and total, and the
    # way to the bills (the delinquency page, the PDF) rather than the bills themselves.
    shown = " ".join(
        client.get(f"/account/{d}/statement?fy=2025-26").get_data(as_text=True).split()
    )
    assert "Cuentas por cobrar al 30 jun 2026, por antigüedad" in shown
    assert '1 factura adeudada</td><td class="num">$600.00' in shown
    assert "123-456-789-01" not in shown and f"/account/{d}/delinquency" in shown
    page = client.get(f"/account/{d}/properties/{prop.id}/liens?sale_price=9500").get_data(
        as_text=True
    )
    assert "&lt;script&gt;Banco&lt;/script&gt;" in page and "<script>Banco" not in page
    # The ranking's warnings in the page's language (Spanish by default).
    assert "La ley ordena los gravámenes solo en relación" in page
    assert "The statute orders liens only" not in page
    # The page gives the rule's reasons, as the certificate does.
    assert "Intereses, recargos y cargos sobre la imposición: los adeuda el dueño" in page
    # The auditor reads the certificates issued; the association issues one.
    assert client.post(f"/account/{d}/properties/{prop.id}/lien-certificate.pdf").status_code == 403
    login(client, people.association)
    cert = issue_certificate(client, d, prop.id or 0)
    login(client, people.auditor)
    text = _text(cert)
    assert_archival(cert, lang="es", tagged=True)
    # 1,000.00 − 400.00 = 600.00 secured; the 2001 mortgage ranks first, the impost second.
    assert "600.00" in text and "Rango del gravamen de la imposición" in text
    assert "Rango del gravamen de la imposición 2" in " ".join(text.split())
    # The rule's reasons, in Spanish: the 2001 mortgage predates the act (2010-01-15); the
    # impost's surcharges are never paid from the sale proceeds.
    said = " ".join(text.split())
    assert "Tiene prioridad sobre el gravamen de la imposición: una hipoteca" in said
    assert "el 1 ene 2001, antes de que la ley entrara en vigor el 15 ene 2010" in said
    unsecured = "Intereses, recargos y cargos sobre la imposición: los adeuda el dueño"
    assert unsecured in said and "lo que quede" not in said
    csv_text = client.get(f"/account/{d}/delinquency.csv").get_data(as_text=True)
    assert "123-456-789-01" in csv_text and "600.00" in csv_text and "60.00" in csv_text
    # The page shows the terms its charges were figured with: the 10% surcharge of 600.00.
    page = " ".join(client.get(f"/account/{d}/delinquency").get_data(as_text=True).split())
    assert "<dd>0.10</dd>" in page and 'data-label="Recargo">$60.00</td>' in page
    delinquent = client.get(f"/account/{d}/delinquency.pdf").data
    assert "Facturas en mora" in _text(delinquent)
    assert_archival(delinquent, lang="es", tagged=True)
    old = client.get(f"/account/{d}/statement?fy=2025-26&booked_by=2025-01-01")
    assert "Según estaba el diario" in old.get_data(as_text=True)
    journal = client.get(f"/account/{d}/statement.csv?fy=2025-26&part=journal").get_data(
        as_text=True
    )
    # headed in the reader's language (Spanish), for a spreadsheet
    assert journal.startswith("Asiento,Fecha,Clase,Concepto")


def test_the_large_documents_are_kinds_of_the_one_registry() -> None:
    from tid import documents
    from tid.web.account.downloads import LARGE_DOCUMENTS, kind_name

    for which, large in LARGE_DOCUMENTS.items():
        assert large.kind is documents.KINDS[kind_name(which)]
        assert large.kind.needs == ("district",)  # a job makes it from the district alone


def test_a_pdf_past_a_hundred_rows_and_a_csv_past_five_thousand_are_jobs() -> None:
    """A request makes what lays out in about a second: a hundred rows of a PDF (a yearly
    statement's entries and receivables, the delinquent bills), five thousand of a CSV."""
    from tid.web.account.downloads import is_large

    assert is_large({"statement": 100, "delinquency": 100, "journal.csv": 5000}) == {
        "statement": False,
        "delinquency": False,
        "journal.csv": False,
    }
    assert is_large({"statement": 101, "delinquency": 101, "journal.csv": 5001}) == {
        "statement": True,
        "delinquency": True,
        "journal.csv": True,
    }


def test_issuing_a_lien_certificate_is_a_job_whose_progress_shows_before_its_layout(
    client: FlaskClient, session: Session, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request queues the certificate and answers with the job's page; the job has
    said how far it is (its figures read) before the PDF is laid out and archived."""
    s, _bill_id = setup_account(session, people)
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    login(client, people.association)
    url = f"/account/{s.district_id}/properties/{prop.id}/lien-certificate.pdf"
    started = client.post(url)
    assert started.status_code == 302 and "/jobs/" in started.location
    job = session.exec(select(Job).where(Job.kind == tasks.LIEN_CERTIFICATE)).one()
    assert job.state == "queued" and session.exec(select(IssuedDocument)).first() is None
    seen: list[tuple[int, int]] = []
    real = issued.attach_pdf

    def attach_pdf(**kwargs: Any) -> Any:
        with Session(client.application.extensions["tid.engine"]) as other:
            found = other.get(Job, job.id)
            assert found is not None
            seen.append((found.done, found.total))
        return real(**kwargs)

    monkeypatch.setattr(issued, "attach_pdf", attach_pdf)
    assert tasks.run_pending(client.application) == 1
    assert seen == [(1, 2)]
    certificate = session.exec(select(IssuedDocument)).one()
    assert certificate.property_id == prop.id
    done = client.get(started.location).get_data(as_text=True)
    assert f"/account/{s.district_id}/issued/{certificate.reference}" in done
