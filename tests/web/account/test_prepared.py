"""A yearly statement's PDF is laid out before the reader asks for it: when its page is shown
and when a worker starts. The reader's request then reads it from the installation's shelf;
a journal that changed since is another document, laid out anew."""

from __future__ import annotations

import io
import threading
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader
from sqlmodel import Session

from tests.conftest import People, login
from tests.services.ledger_support import ACTOR
from tests.web.account.support import paid_account, setup_account
from tid.render import pdf
from tid.rules.periods import FiscalYear
from tid.services.account import payments
from tid.web.account import downloads, prepared

# A document laid out by a worker thread while requests read the shelf.
pytestmark = pytest.mark.both_databases


def _text(data: bytes) -> str:
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages).split())


def _shelf(app: Flask) -> list[Path]:
    return sorted((Path(app.instance_path) / "prepared").glob("*.pdf"))


def _no_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, a layout fails the test; this worker keeps nothing in memory."""

    def refused(html: str, base: str) -> bytes:
        raise AssertionError("laid out in the request")

    monkeypatch.setattr(pdf, "_made", refused)
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))


def test_a_statement_page_prepares_its_pdf_for_the_link_it_shows(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app.config["PREPARE_DOCUMENTS"] = True
    s, bill_id = paid_account(session, people, "400.00")
    d = s.district_id
    login(client, people.auditor)
    assert client.get(f"/account/{d}/statement?fy=2025-26").status_code == 200
    prepared._preparer.join()
    (made,) = _shelf(app)
    with monkeypatch.context() as patched:
        _no_layout(patched)
        answer = client.get(f"/account/{d}/statement.pdf?fy=2025-26")
        assert answer.status_code == 200 and answer.data == made.read_bytes()
    assert "Pago de $400.00" in _text(answer.data)
    # Another payment: the page's link is to another document, prepared in its turn.
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=d,
        paid_on=date(2025, 9, 1),
        amount=Decimal("125.00"),
        today=date(2025, 9, 1),
        key="q",
        notice_number=str(bill_id),
    )
    session.commit()
    assert client.get(f"/account/{d}/statement?fy=2025-26").status_code == 200
    prepared._preparer.join()
    assert len(_shelf(app)) == 2
    with monkeypatch.context() as patched:
        _no_layout(patched)
        again = client.get(f"/account/{d}/statement.pdf?fy=2025-26").data
    assert "Pago de $125.00" in _text(again) and "Pago de $400.00" in _text(again)


def test_without_preparation_the_request_lays_the_statement_out(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under tests (and with ``PDF_WARM_UP = false``) nothing is prepared: the request lays
    the PDF out and keeps it on the shelf for the next worker."""
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))  # a worker just started
    s, _ = paid_account(session, people, "400.00")
    login(client, people.auditor)
    assert client.get(f"/account/{s.district_id}/statement?fy=2025-26").status_code == 200
    prepared._preparer.join()
    assert _shelf(app) == []
    answer = client.get(f"/account/{s.district_id}/statement.pdf?fy=2025-26")
    assert answer.status_code == 200 and [p.read_bytes() for p in _shelf(app)] == [answer.data]
    # The delinquency list is kept there too; the other documents are not (a mailing's
    # thousands of notices least of all).
    assert client.get(f"/account/{s.district_id}/delinquency.pdf").status_code == 200
    assert len(_shelf(app)) == 2
    assert client.get(f"/account/{s.district_id}/delinquency.csv").status_code == 200
    assert len(_shelf(app)) == 2


def test_a_worker_prepares_each_districts_statements_in_both_languages(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s, _ = paid_account(session, people, "400.00")
    found = prepared.readers_statements(app)
    # Today's fiscal year by default (the test's day), or the district's last one booked.
    fy = FiscalYear(2025)
    assert prepared.Statement(s.district_id, fy, None, "es") in found
    assert prepared.Statement(s.district_id, FiscalYear(2024), None, "en") in found
    assert {st.locale for st in found} == {"es", "en"}
    assert len(found) == 4 * len({st.district_id for st in found})
    mine = [st for st in found if st.district_id == s.district_id]
    assert all(prepared.prepare(app, st) for st in mine)
    assert len(_shelf(app)) == 4
    login(client, people.auditor)
    with monkeypatch.context() as patched:
        _no_layout(patched)
        for language in ("es", "en"):
            client.post(f"/lang/{language}", data={"next": "/"})
            answer = client.get(f"/account/{s.district_id}/statement.pdf?fy=2025-26")
            assert answer.status_code == 200
    assert "Statement of the special account, FY 2025-26" in _text(answer.data)


def test_a_statement_too_long_for_a_request_is_left_to_its_job(
    app: Flask, session: Session, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    s, _ = paid_account(session, people, "400.00")
    monkeypatch.setitem(downloads.IN_REQUEST_ROWS, "pdf", 1)
    statement = prepared.Statement(s.district_id, FiscalYear(2025), None, "es")
    assert prepared.prepare(app, statement) is False and _shelf(app) == []


def test_a_booking_prepares_the_statement_its_pdf_link_gives_next(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first PDF after a booking is the one the booking prepared: the request waits for
    it (here a layout in any thread but the preparer's fails the test)."""
    app.config["PREPARE_DOCUMENTS"] = True
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))
    s, bill_id = setup_account(session, people)
    d = s.district_id
    login(client, people.association)
    laid_out = pdf._made
    in_threads: list[str] = []

    def preparer_only(html: str, base: str) -> bytes:
        in_threads.append(threading.current_thread().name)
        if threading.current_thread().name != prepared.THREAD:
            raise AssertionError("laid out in the request")
        return laid_out(html, base)

    monkeypatch.setattr(pdf, "_made", preparer_only)
    for n, amount in enumerate(("400.00", "125.00")):
        form = {"date": "2025-08-01", "amount": amount, "notice_number": str(bill_id)}
        booked = client.post(f"/account/{d}/payments", data={**form, "token": f"t{n}"})
        assert booked.status_code == 302 and "login" not in booked.location
        # The statement's link on the account's pages: the default fiscal year.
        answer = client.get(f"/account/{d}/statement.pdf")
        assert answer.status_code == 200 and f"Pago de ${amount}" in _text(answer.data)
        prepared._preparer.join()  # its delinquency list too, before the next booking
    prepared._preparer.join()
    # Each booking prepared its statement and its delinquency list, nothing else laid out.
    assert in_threads == [prepared.THREAD] * 4
    assert len(_shelf(app)) == 4  # both, once per version of the district


def test_a_booking_prepares_the_delinquency_list_its_pdf_link_gives_next(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the statement: the delinquency list's PDF asked for after a booking is the one the
    booking prepared, counted by the layouts made outside the preparer (none)."""
    app.config["PREPARE_DOCUMENTS"] = True
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))
    s, bill_id = setup_account(session, people)
    d = s.district_id
    login(client, people.association)
    laid_out = pdf._made
    in_threads: list[str] = []

    def counted(html: str, base: str) -> bytes:
        in_threads.append(threading.current_thread().name)
        return laid_out(html, base)

    monkeypatch.setattr(pdf, "_made", counted)
    for n, (amount, owed) in enumerate((("400.00", "$600.00"), ("125.00", "$475.00"))):
        form = {"date": "2025-08-01", "amount": amount, "notice_number": str(bill_id)}
        booked = client.post(f"/account/{d}/payments", data={**form, "token": f"t{n}"})
        assert booked.status_code == 302 and "login" not in booked.location
        answer = client.get(f"/account/{d}/delinquency.pdf")
        assert answer.status_code == 200 and owed in _text(answer.data)
        prepared._preparer.join()  # its statement too, before the next booking
    prepared._preparer.join()
    assert [t for t in in_threads if t != prepared.THREAD] == []  # none in the requests
    assert len(in_threads) == 4  # each booking: its statement and its delinquency list


def test_the_days_round_is_a_job_the_scheduler_queues_and_a_worker_runs(
    app: Flask, session: Session, people: People
) -> None:
    """Each day's round of the readers' statements and delinquency lists is work outside a
    request: the scheduler queues it (once a day, whatever the schedulers) and a worker lays
    the documents out."""
    from sqlmodel import select

    from tid.jobs import scheduler, tasks
    from tid.models import Job

    app.config["PREPARE_DOCUMENTS"] = True
    paid_account(session, people, "400.00")
    scheduler.statements_job(app)
    scheduler.statements_job(app)  # a second scheduler, or its run at start: nothing more
    assert _shelf(app) == []  # queued, not laid out by the scheduler
    assert tasks.run_pending(app) == 1
    (job,) = session.exec(select(Job).where(Job.kind == tasks.ACCOUNT_STATEMENTS)).all()
    session.refresh(job)
    assert job.state == "done"
    statements = set(prepared.readers_statements(app))
    districts = {s.district_id for s in statements}
    # each reader's statement, and each district's delinquency list in both languages
    assert len(_shelf(app)) == len(statements) + 2 * len(districts) > 0


def test_an_installation_that_prepares_nothing_lays_out_nothing_in_the_round(
    app: Flask, session: Session, people: People
) -> None:
    paid_account(session, people, "400.00")
    assert prepared.prepare_readers_statements(app) == 0 and _shelf(app) == []
