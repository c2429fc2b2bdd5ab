"""``tid demo``: loads every area's demo once, prints the logins, and the portal sample it
prints really opens the owner's notice; ``tid document`` issues the demo's documents of
record as the web gives them."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import Result
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlmodel import Session, func, select

from tests.conftest import login
from tests.pdf_checks import pdf_text
from tid.demo import DEMO_PASSWORD
from tid.models import JournalEntry, Notice, Ordinance, Petition, PropertyLien, PropertyYear, User
from tid.rules.periods import FiscalYear
from tid.services.account import audit_statement


def _counts(session: Session) -> tuple[int, ...]:
    return tuple(
        session.exec(select(func.count()).select_from(table)).one()
        for table in (User, Petition, Ordinance, PropertyYear, Notice, JournalEntry, PropertyLien)
    )


def test_the_demo_loads_once_and_its_logins_and_portal_code_work(
    app: Flask, runner: FlaskCliRunner, session: Session
) -> None:
    first = runner.invoke(args=["demo"])
    assert first.exit_code == 0, first.output
    for email in (
        "secretaria@demo.tid.pr",
        "asociacion@demo.tid.pr",
        "auditor@demo.tid.pr",
        "admin@demo.tid.pr",
    ):
        assert email in first.output
    counts = _counts(session)
    assert all(n > 0 for n in counts), counts
    assert "Two-factor sign-in is OFF in this demo" in first.output

    second = runner.invoke(args=["demo"])
    assert second.exit_code == 0, second.output
    session.expire_all()
    assert _counts(session) == counts  # nothing loaded twice

    client = app.test_client()
    login(client, "secretaria@demo.tid.pr", DEMO_PASSWORD)
    page = client.get("/petitions/").get_data(as_text=True)
    assert "1 jun 2026" in page  # the petition received 2 Mar 2026, due after the Sunday

    treasurer = app.test_client()
    login(treasurer, "asociacion.condado@demo.tid.pr", DEMO_PASSWORD)
    account = treasurer.get("/account", follow_redirects=True).get_data(as_text=True)
    district_link = re.search(r'href="/account/(\d+)"', account)
    assert district_link, account[:2000]
    dashboard = treasurer.get(f"/account/{district_link[1]}").get_data(as_text=True)
    # Opens on the last fiscal year with bookings (the demo's 2025-26), not an empty one.
    assert 'value="2025-26"' in dashboard
    _documents_of_record(runner, treasurer, session, int(district_link[1]))

    sample = re.search(r"notice (\S+), access code (\S+)", first.output)
    assert sample, first.output
    owner = app.test_client()
    response = owner.post("/portal", data={"number": sample[1], "code": sample[2]})
    assert response.status_code == 302 and response.location.endswith("/portal/notices")
    assert sample[1] in owner.get("/portal/notices").get_data(as_text=True)


def _document(runner: FlaskCliRunner, name: str, *options: str) -> Result:
    return runner.invoke(args=["document", name, *options])


def _documents_of_record(
    runner: FlaskCliRunner, web: FlaskClient, session: Session, district_id: int
) -> None:
    """``tid document``: the delinquency list (CSV) and the journal (CSV) byte for byte as
    the treasurer downloads them; the yearly statement (PDF) with the same text as the web's,
    its figures and its language; the clerk's deadline report in English; a bad option."""
    out = Path(runner.app.instance_path)
    district = str(district_id)
    delinquency = _document(runner, "delinquency.csv", "--district", district, "--lang", "es")
    assert delinquency.exit_code == 0, delinquency.stderr
    assert delinquency.stdout_bytes.startswith("Factura,Número de catastro".encode())
    assert len(delinquency.stdout_bytes.splitlines()) > 1  # the demo's late bills
    assert delinquency.stdout_bytes == web.get(f"/account/{district}/delinquency.csv").data
    year = ("--year", "2025-26", "--lang", "es")
    journal = _document(
        runner, "journal.csv", "--district", district, *year, "--out", str(out / "j.csv")
    )
    assert journal.exit_code == 0, journal.stderr
    web_journal = web.get(f"/account/{district}/statement.csv?part=journal&fy=2025-26").data
    assert (out / "j.csv").read_bytes() == web_journal and len(web_journal) > 1000

    by_name = ("--district", "Distrito de Mejoramiento Turístico de Condado")
    statement = _document(
        runner,
        "statement.pdf",
        *by_name,
        "--year",
        "2026-27",
        "--lang",
        "es",
        "--out",
        str(out / "s.pdf"),
    )
    assert statement.exit_code == 0, statement.stderr
    text = pdf_text((out / "s.pdf").read_bytes())
    assert text == pdf_text(web.get(f"/account/{district}/statement.pdf?fy=2026-27").data)
    fy = FiscalYear(2026)
    figures = audit_statement.statement(session=session, district_id=district_id, fy=fy)
    owed = sum(
        r.outstanding
        for r in audit_statement.aging(session=session, district_id=district_id, as_of=fy.end)
    )
    assert figures.opening_balance > 0 and owed > 0  # the year before's, carried forward
    for amount in (figures.opening_balance, figures.closing_balance, owed):
        assert f"${amount:,.2f}" in text
    assert "Estado de la cuenta especial, AF 2026-27" in text and "Statement" not in text

    deadlines = _document(runner, "deadlines.pdf", "--lang", "en", "--out", str(out / "d.pdf"))
    assert deadlines.exit_code == 0, deadlines.stderr
    report = pdf_text((out / "d.pdf").read_bytes())
    assert "Petitions and their deadlines" in report and "Jun 1, 2026" in report
    assert "Peticiones" not in report

    wrong = ("--district", district, "--year", "2025", "--lang", "en", "--out", str(out / "b.pdf"))
    bad = _document(runner, "statement.pdf", *wrong)
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert bad.stderr.strip() == "Error: --year: Write a fiscal year like 2024-25."
    assert not (out / "b.pdf").exists()
    spanish = _document(runner, "statement.pdf", "--district", district, "--lang", "es")
    assert spanish.exit_code == 2
    assert (
        spanish.stderr.strip()
        == "Error: --out: Un PDF se escribe en un archivo: nómbrelo con --out."
    )
