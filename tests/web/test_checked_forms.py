"""Every check that can be made when a form is sent is made there, next to its field: a
billing run of a year without a roll or with a parameter its formula does not use, a
mailing date in the future or before the notices' date, an ordinance whose formula names
what the roll does not have; and a recorded formula is corrected with a reason, the runs
billed by the earlier one named."""

from __future__ import annotations

import html
import io
import re
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, func, select

from tests.conftest import People, login, make_test_app
from tests.services.billing.helpers import import_roll
from tests.services.billing.helpers import make_ordinance as billing_ordinance
from tests.services.notice_support import article, issue_notices, make_ordinance, make_run
from tests.web.account.support import setup_account
from tests.web.test_portal import _look_up, _mailed
from tid.jobs import tasks
from tid.models import AuditEvent, BillingRun, Job, Ordinance
from tid.services import ledger


def _text(response: Any) -> str:
    body = response.get_data(as_text=True)
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", body, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _jobs(session: Session) -> int:
    session.expire_all()
    return int(session.exec(select(func.count()).select_from(Job)).one())


def test_billing_is_refused_at_its_fields_before_any_job(
    client: FlaskClient, people: People, session: Session
) -> None:
    billing_ordinance(session, people)
    login(client, people.association)
    url = f"/roll/{people.district.id}/billing/new"
    # A year without a roll: said beside the fiscal year; no job starts.
    no_roll = client.post(url, data={"fiscal_year": "2026-27"})
    assert no_roll.status_code == 422
    body = no_roll.get_data(as_text=True)
    assert 'id="e-fiscal_year"' in body
    assert "No hay registro para este año fiscal" in _text(no_roll)
    assert _jobs(session) == 0
    import_roll(session, people)
    # A parameter the formula does not use: named beside the parameters.
    unused = client.post(url, data={"fiscal_year": "2026-27", "parameters": "tasa = 0.02"})
    assert unused.status_code == 422
    assert 'id="e-parameters"' in unused.get_data(as_text=True)
    assert "La fórmula no usa el parámetro tasa." in _text(unused)
    assert _jobs(session) == 0
    started = client.post(url, data={"fiscal_year": "2026-27"})
    assert started.status_code == 302 and _jobs(session) == 1


def test_a_mailing_date_is_checked_beside_its_field(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance)
    batch, _found = issue_notices(session, billed)  # dated 2026-01-20, no article numbers
    client = make_test_app(database_url, tmp_path, TODAY="2026-01-25").test_client()
    login(client, people.association)
    url = f"/notices/batches/{batch.id}/mail"
    for day, said in (
        ("2026-02-01", "La fecha de envío no puede ser futura."),
        ("2026-01-19", "La fecha de envío no puede ser anterior a la fecha de los avisos."),
    ):
        refused = client.post(url, data={"mailed_on": day})
        assert refused.status_code == 422, day
        assert 'id="e-mailed_on"' in refused.get_data(as_text=True)
        assert said in _text(refused)
    # A good date, but notices without their article numbers: refused before the job too.
    missing = client.post(url, data={"mailed_on": "2026-01-22"})
    assert missing.status_code == 422
    assert "número de artículo" in _text(missing)
    assert _jobs(session) == 0


def _ordinance_ready(client: FlaskClient, people: People) -> str:
    url = client.post(
        "/petitions/new",
        data={
            "municipality_id": str(people.municipality.id),
            "district_name": "DMT de Condado",
            "petitioner": "Hon. Alcalde de San Juan",
            "received_on": "2026-03-02",
            "documents": "Petición.",
        },
    ).location
    assert client.post(url + "/step/study", data={"on": "2026-03-03"}).status_code == 302
    for letter in "abcde":
        client.post(
            url + "/findings",
            data={"factor": letter, "favourable": "yes", "grounds": "Sí", "on": "2026-03-10"},
        )
    return str(url)


ORDINANCE = {
    "district_name": "DMT de Condado",
    "expected_amount": "1,250,000.00",
    "term_years": "10",
    "association_name": "Asociación de Condado",
    "issued_on": "2026-03-20",
}


def test_the_ordinance_form_checks_the_formula_against_the_roll_and_its_parameters(
    app: Flask, people: People
) -> None:
    app.config["TODAY"] = date(2026, 4, 30)
    client = app.test_client()
    login(client, people.clerk)
    url = _ordinance_ready(client, people)
    unknown = client.post(
        url + "/ordinance", data={**ORDINANCE, "formula": "max(250, 0.0035 * valor_tasadoo)"}
    )
    assert unknown.status_code == 422
    assert 'id="e-formula"' in unknown.get_data(as_text=True)
    assert "valor_tasadoo" in _text(unknown) and "assessed_value" in _text(unknown)
    unused = client.post(
        url + "/ordinance",
        data={**ORDINANCE, "formula": "0.01 * assessed_value", "parameters": "budget = 10"},
    )
    assert unused.status_code == 422
    assert 'id="e-parameters"' in unused.get_data(as_text=True)
    assert "La fórmula no usa el parámetro budget." in _text(unused)
    recorded = client.post(
        url + "/ordinance",
        data={
            **ORDINANCE,
            "formula": "max(250.00, rate * assessed_value)",
            "parameters": "rate = 0.0035",
        },
    )
    assert recorded.status_code == 302
    assert "rate = 0.0035" in _text(client.get(url))


def test_a_recorded_formula_is_corrected_and_the_billed_years_named(
    app: Flask, client: FlaskClient, people: People, session: Session
) -> None:
    ordinance = billing_ordinance(session, people)
    import_roll(session, people)
    login(client, people.association)
    district_id = people.district.id
    client.post(f"/roll/{district_id}/billing/new", data={"fiscal_year": "2026-27"})
    assert tasks.run_pending(client.application) == 1
    run = session.exec(select(BillingRun)).one()
    client.post("/logout")
    login(client, people.clerk)
    petition_url = f"/petitions/{ordinance.petition_id}"
    correct_url = petition_url + "/correct"
    form = _text(client.get(correct_url))
    assert "Fórmula" in form and "Vigencia (años)" in form
    # A formula naming no column of the roll: refused beside the value, nothing changed.
    bad = client.post(
        correct_url,
        data={"field": "formula", "value": "0.02 * valor", "reason": "Errata."},
    )
    assert bad.status_code == 422 and 'id="e-correct-value"' in bad.get_data(as_text=True)
    good = client.post(
        correct_url,
        data={
            "field": "formula",
            "value": "max(80.00, 0.0125 * assessed_value)",
            "reason": "La ordenanza dice 80 dólares.",
        },
    )
    assert good.status_code == 302 and good.location.endswith("#rebill")
    page = _text(client.get(petition_url))
    assert "2026-27" in page.split("términos de la ordenanza corregidos")[1]
    history = page.split("Historial")[-1]
    assert "La ordenanza dice 80 dólares." in history
    assert "max(80.00, 0.0125 * assessed_value)" in history and "max(75.00" in history
    session.expire_all()
    assert session.get(Ordinance, ordinance.id).formula.startswith("max(80.00")  # type: ignore[union-attr]
    events = session.exec(select(AuditEvent).where(AuditEvent.action == "petition.correct"))
    assert len(list(events)) == 1
    # The run's page says it applied the earlier terms; its association bills again.
    client.post("/logout")
    login(client, people.association)
    shown = _text(client.get(f"/roll/{district_id}/billing/{run.id}"))
    assert "se corrigieron después de esta facturación" in shown
    client.post(f"/roll/{district_id}/billing/new", data={"fiscal_year": "2026-27"})
    assert tasks.run_pending(client.application) == 1
    session.expire_all()
    active = session.exec(select(BillingRun).where(BillingRun.status == "active")).one()
    assert active.formula.startswith("max(80.00") and active.supersedes_id == run.id
    client.post("/logout")
    login(client, people.clerk)
    assert "términos de la ordenanza corregidos" not in _text(client.get(petition_url))


def test_a_payment_like_one_booked_asks_for_confirmation_naming_the_earlier_one(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = setup_account(session, people)
    login(client, people.association)
    url = f"/account/{s.district_id}/payments"
    form = {
        "date": "2025-08-01",
        "amount": "100.00",
        "reference": "BPPR-77",
        "notice_number": str(bill_id),
        "token": "t1",
    }
    assert client.post(url, data=form).status_code == 302
    repeat = client.post(url, data={**form, "token": "t2"})
    assert repeat.status_code == 422
    said = _text(repeat)
    assert 'id="e-confirm_repeat"' in repeat.get_data(as_text=True)
    assert "un pago de $100.00 del 1 ago 2025 con la referencia bancaria BPPR-77" in said
    session.expire_all()
    assert ledger.balance(session=session, district_id=s.district_id, account=ledger.BANK) == (
        Decimal("100.00")
    )
    confirmed = client.post(url, data={**form, "token": "t2", "confirm_repeat": "yes"})
    assert confirmed.status_code == 302
    session.expire_all()
    assert ledger.balance(session=session, district_id=s.district_id, account=ledger.BANK) == (
        Decimal("200.00")
    )
    # Another reference is another deposit: booked without a question.
    other = client.post(url, data={**form, "token": "t3", "reference": "BPPR-78"})
    assert other.status_code == 302


def test_the_portals_empty_form_asks_for_the_number_and_code_and_spends_no_try(
    client: FlaskClient, session: Session, people: People
) -> None:
    mailed = _mailed(session, people, ["María Rodríguez"])
    ip = "203.0.113.9"
    for _ in range(8):  # more than the tries allowed: none is spent
        empty = _look_up(client, "", "", ip=ip)
        assert empty.status_code == 422  # type: ignore[attr-defined]
    body = empty.get_data(as_text=True)  # type: ignore[attr-defined]
    assert 'id="e-number"' in body and 'id="e-code"' in body
    assert "Escriba el número de aviso" in _text(empty) and "Le qued" not in _text(empty)
    no_code = _look_up(client, mailed.notices[0].number, " ", ip=ip)
    assert 'id="e-code"' in no_code.get_data(as_text=True)  # type: ignore[attr-defined]
    wrong = _look_up(client, mailed.notices[0].number, "AAAA-BBBB-CCCC", ip=ip)
    assert "Le quedan 4 intentos" in _text(wrong)
    opened = _look_up(client, mailed.notices[0].number, mailed.codes[0], ip=ip)
    assert opened.status_code == 302  # type: ignore[attr-defined]


def test_a_refused_file_lists_its_errors_row_by_row_beside_its_form(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, owners=["Ana", "Beto", "Carla"])
    batch, found = issue_notices(session, billed)
    client = make_test_app(database_url, tmp_path, TODAY="2026-01-25").test_client()
    login(client, people.association)
    rows = (
        f"{found[0].number},{article(401)}\n"
        f"{found[1].number},12\n"
        f"2026-999999,{article(402)}\n"
        f"{found[2].number},{article(401)}\n"
    )
    refused = client.post(
        f"/notices/batches/{batch.id}/articles",
        data={"file": (io.BytesIO(rows.encode()), "articles.csv")},
        content_type="multipart/form-data",
    )
    assert refused.status_code == 422
    body = refused.get_data(as_text=True)
    assert ".;" not in body
    table = body.split('id="e-articles"')[1].split("</table>")[0]
    cells = [_text_of(row) for row in table.split("<tr>")[2:]]
    assert cells[0].startswith(f"2 {found[1].number}")
    assert cells[1].startswith("3 2026-999999") and "No es un aviso de esta tanda" in cells[1]
    assert len(cells) == 3 and cells[2].startswith(f"4 {found[2].number}")
    session.expire_all()
    assert all(n.article_number is None for n in found)  # nothing recorded
    report = "9400999999999999999999,delivered,2026-01-20\n"
    deliveries = client.post(
        "/notices/deliveries",
        data={"file": (io.BytesIO(report.encode()), "deliveries.csv")},
        content_type="multipart/form-data",
    )
    assert deliveries.status_code == 422
    shown = deliveries.get_data(as_text=True).split('id="e-deliveries"')[1]
    assert "9400999999999999999999" in shown.split("</table>")[0]


def _text_of(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()
