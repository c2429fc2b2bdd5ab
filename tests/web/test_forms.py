"""Forms a clerk cannot misread: every error at once, each next to its field and listed in an
error summary at the top that links to it; a failed form's address answers GET (a reload is
never 405); no browser-native validation; a calculator's upload kept after an error;
destructive actions ask first."""

from __future__ import annotations

import html
import io
import re
from datetime import date
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.services.ledger_support import ACTOR, Scaffold
from tests.services.notice_support import make_ordinance, make_run
from tid.models import AuthorizedPurpose, JournalEntry, NoticeBatch, Ordinance, Petition, User
from tid.services import petitions as svc
from tid.services.account import expenditures

TODAY = date(2026, 3, 10)


def _body(response: Any) -> str:
    return str(response.get_data(as_text=True))


def _text(response: Any) -> str:
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", _body(response), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _summary(response: Any) -> str:
    """The error summary's HTML (it must exist, and come before the page's heading)."""
    body = _body(response)
    match = re.search(r'<div class="error-summary"[^>]*>.*?</div>', body, re.S)
    assert match, "no error summary"
    assert 'role="alert"' in match[0] and "data-error-summary" in match[0]
    assert body.index(match[0]) < body.index("<h1"), "the summary is not at the top"
    return match[0]


def _links(summary: str) -> dict[str, str]:
    """The summary's links: target id -> its message."""
    return {
        target: html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text))).strip()
        for target, text in re.findall(r'<a href="#([^"]+)">(.*?)</a>', summary, re.S)
    }


def _engine_session(app: Flask) -> Session:
    return Session(app.extensions["tid.engine"], expire_on_commit=False)


def _petition_under_study(app: Flask, people: People, *, findings: str = "") -> int:
    with _engine_session(app) as session:
        petition = svc.record_petition(
            session=session,
            actor=ACTOR,
            municipality_id=str(people.municipality.id),
            district_name="DMT de Condado",
            petitioner="Alcalde",
            received_on="2026-03-02",
            documents="",
            today=TODAY,
        )
        svc.start_study(
            session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY
        )
        for letter in findings:
            svc.record_finding(
                session=session,
                actor=ACTOR,
                petition=petition,
                factor=letter,
                favourable="yes",
                grounds="Fundamento",
                on="2026-03-04",
                today=TODAY,
            )
        session.commit()
        return petition.id or 0


# --------------------------------------------------------------------------- all errors at once


def test_the_ordinance_form_flags_every_bad_field_while_a_finding_is_missing(
    app: Flask, people: People
) -> None:
    app.config["TODAY"] = TODAY
    petition_id = _petition_under_study(app, people, findings="abc")
    client = app.test_client()
    login(client, people.clerk)
    response = client.post(
        f"/petitions/{petition_id}/ordinance",
        data={
            "district_name": "DMT de Condado",
            "expected_amount": "abc",
            "term_years": "0",
            "formula": "",
            "association_name": "Asociación",
            "issued_on": "2026-03-05",
        },
    )
    assert response.status_code == 422
    summary = _summary(response)
    assert "Hay un problema" in summary and "No se guardó nada." in summary
    links = _links(summary)
    assert set(links) == {"f-expected_amount", "f-term_years", "f-formula"}
    assert "faltan: (d), (e)" in html.unescape(summary)  # the findings, listed without a link
    body = _body(response)
    for name in links:  # each also next to its field, read with it
        assert f'id="e-{name[2:]}"' in body
        assert re.search(rf'id="{name}"[^>]*aria-invalid="true"', body)
    assert links["f-term_years"] == "Vigencia (años): La vigencia debe ser de al menos un año."
    assert "<title>Error: " in body  # the tab says so too
    with _engine_session(app) as session:
        assert session.exec(select(Ordinance)).all() == []


def test_a_date_in_an_error_reads_as_the_pages_dates_do(app: Flask, people: People) -> None:
    app.config["TODAY"] = TODAY
    petition_id = _petition_under_study(app, people)
    client = app.test_client()
    login(client, people.clerk)
    response = client.post(
        f"/petitions/{petition_id}/findings",
        data={"factor": "a", "favourable": "yes", "grounds": "x", "on": "2026-03-11"},
    )
    assert response.status_code == 422
    assert "El 11 mar 2026 es una fecha futura (hoy es 10 mar 2026)." in _text(response)
    assert "2026-03-11 es" not in _text(response)


def test_a_finding_with_every_field_wrong_lists_them_all(app: Flask, people: People) -> None:
    app.config["TODAY"] = TODAY
    petition_id = _petition_under_study(app, people)
    client = app.test_client()
    login(client, people.clerk)
    client.post("/lang/en", data={"next": "/"})
    response = client.post(
        f"/petitions/{petition_id}/findings",
        data={"factor": "z", "favourable": "", "grounds": "", "on": ""},
    )
    assert response.status_code == 422
    links = _links(_summary(response))
    assert set(links) == {
        "f-finding-factor",
        "f-finding-favourable",
        "f-finding-grounds",
        "f-finding-on",
    }
    assert links["f-finding-favourable"] == "Finding: Say whether the finding is favorable or not."
    assert "There is a problem" in _summary(response)


def _account(session: Session, people: People) -> int:
    s = Scaffold(session, people.district)
    s.bill(s.property("123-456-789-01"), "1000.00")
    expenditures.add_purpose(session=session, actor=ACTOR, district_id=s.district_id, name="Ornato")
    session.commit()
    return s.district_id


def test_expenditures_flag_a_blank_payee_and_purpose_together(
    client: FlaskClient, session: Session, people: People
) -> None:
    district_id = _account(session, people)
    login(client, people.association)
    response = client.post(
        f"/account/{district_id}/expenditures",
        data={"date": "2025-09-01", "amount": "abc", "payee": "", "category": "", "token": "t1"},
    )
    assert response.status_code == 422
    links = _links(_summary(response))
    assert set(links) == {"f-amount", "f-payee", "f-category"}
    assert links["f-payee"] == "Pagado a: Indique a quién se pagó."
    session.expire_all()
    assert session.exec(select(JournalEntry).where(JournalEntry.kind == "expenditure")).all() == []
    # With the amount readable, the payee and the purpose are still flagged together.
    response = client.post(
        f"/account/{district_id}/expenditures",
        data={"date": "2025-09-01", "amount": "10.00", "payee": " ", "category": "", "token": "t2"},
    )
    assert response.status_code == 422
    assert set(_links(_summary(response))) == {"f-payee", "f-category"}


def test_a_payment_flags_its_amount_date_and_bill_together(
    client: FlaskClient, session: Session, people: People
) -> None:
    district_id = _account(session, people)
    login(client, people.association)
    response = client.post(
        f"/account/{district_id}/payments",
        data={"date": "ayer", "amount": "0", "notice_number": "", "token": "t1"},
    )
    assert response.status_code == 422
    assert set(_links(_summary(response))) == {"f-date", "f-amount", "f-notice_number"}


def test_a_lien_flags_every_field_together(
    client: FlaskClient, session: Session, people: People
) -> None:
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-09")
    session.commit()
    login(client, people.association)
    response = client.post(
        f"/account/{s.district_id}/properties/{prop.id}/liens",
        data={"kind": "", "holder": "", "constituted_on": "mañana", "amount": "-1"},
    )
    assert response.status_code == 422
    assert set(_links(_summary(response))) == {
        "f-kind",
        "f-holder",
        "f-constituted_on",
        "f-amount",
    }


def test_a_new_account_flags_every_field_together(
    client: FlaskClient, session: Session, people: People
) -> None:
    login(client, people.admin)
    count = len(session.exec(select(User)).all())
    response = client.post(
        "/admin/users/new",
        data={
            "name": "",
            "email": "no-at-sign",
            "password": "short",
            "role": "clerk",
            "municipality": "",
            "district": "",
            "locale": "es",
        },
    )
    assert response.status_code == 422
    assert set(_links(_summary(response))) == {
        "f-name",
        "f-email",
        "f-password",
        "f-municipality",
    }
    session.expire_all()
    assert len(session.exec(select(User)).all()) == count


def _batch(session: Session, people: People) -> int:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    billed = make_run(session, people.district, ordinance, owners=["Ana Ruiz"])
    batch = NoticeBatch(
        district_id=people.district.id or 0,
        billing_run_id=billed.run.id or 0,
        kind="initial",
        issued_on=date(2026, 1, 20),
        sender_name="Asociación",
        sender_address="Calle 1\nSan Juan PR",
        how_to_pay="En la oficina",
        actor="tests",
    )
    session.add(batch)
    session.commit()
    return batch.id or 0


def test_the_mailing_form_shows_its_errors_next_to_the_fields(
    client: FlaskClient, session: Session, people: People
) -> None:
    batch_id = _batch(session, people)
    login(client, people.association)
    url = f"/notices/batches/{batch_id}/mail"
    response = client.post(url, data={"mailed_on": "2026-02-30"})
    assert response.status_code == 422
    assert set(_links(_summary(response))) == {"f-mailed_on"}
    body = _body(response)
    assert 'id="e-mailed_on"' in body and 'class="flash error"' not in body
    assert re.search(r'id="f-mailed_on"[^>]*value="2026-02-30"', body)  # what was typed is kept
    # A reload of the failed form's address shows the form again.
    assert client.get(url).status_code == 200
    # The postage and fees are their own form on the run's page: both errors at once, kept.
    fees = client.post(
        f"/notices/batches/{batch_id}/fees", data={"postage": "abc", "certified_fee": "x"}
    )
    assert fees.status_code == 422
    assert set(_links(_summary(fees))) == {"f-postage", "f-certified_fee"}
    assert re.search(r'id="f-postage"[^>]*value="abc"', _body(fees))
    session.expire_all()
    batch = session.get(NoticeBatch, batch_id)
    assert batch is not None and batch.mailed_on is None


# --------------------------------------------------------------------------- petition step pages


def test_a_failed_step_comes_back_on_its_own_page_with_the_summary_first(
    app: Flask, people: People
) -> None:
    app.config["TODAY"] = TODAY
    petition_id = _petition_under_study(app, people)
    client = app.test_client()
    login(client, people.clerk)
    url = f"/petitions/{petition_id}/step/deny"
    response = client.post(url, data={"on": "2026-03-01", "notes": ""})
    assert response.status_code == 422
    summary = _summary(response)
    # The missing findings and the date before the study, both at once.
    assert "faltan: (a), (b), (c), (d), (e)" in html.unescape(summary)
    assert _links(summary) == {
        "f-deny-on": "Fecha: El 1 mar 2026 es anterior al comienzo del estudio (3 mar 2026)."
    }
    body = _body(response)
    # The summary is near the top of the page, not under the petition's tables.
    assert body.index("data-error-summary") < 3000 + body.index("<main")
    assert "<table" not in body
    # Reloading the address shows the step's form: never 405.
    page = client.get(url)
    assert page.status_code == 200 and 'name="on"' in _body(page)
    with _engine_session(app) as session:
        petition = session.get(Petition, petition_id)
        assert petition is not None and petition.state == "under_study"


def test_every_form_address_answers_get(app: Flask, people: People) -> None:
    app.config["TODAY"] = TODAY
    petition_id = _petition_under_study(app, people)
    client = app.test_client()
    login(client, people.clerk)
    for path in ("findings", "step/study", "step/deny", "step/approve", "ordinance"):
        response = client.get(f"/petitions/{petition_id}/{path}")
        assert response.status_code == 200, path
    # A step the petition's state does not allow says so, with no form.
    closed = client.get(f"/petitions/{petition_id}/step/approve")
    assert 'action="/petitions/' not in _body(closed).split("<main", 1)[1]
    # Every route that answers POST with a form page also answers GET.
    post_only = sorted(
        rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.methods and "POST" in rule.methods and "GET" not in rule.methods
    )
    redisplaying = {
        "petitions.step",
        "petitions.finding",
        "notices.batch_mail",
        "account.payments_page",
        "account.expenditures_page",
        "admin.users_new",
        "petitions.ordinance",
        "petitions.new",
    }
    assert not redisplaying & set(post_only), post_only


def test_success_redirects_with_a_message(app: Flask, people: People) -> None:
    app.config["TODAY"] = TODAY
    petition_id = _petition_under_study(app, people)
    client = app.test_client()
    login(client, people.clerk)
    response = client.post(
        f"/petitions/{petition_id}/findings",
        data={"factor": "a", "favourable": "yes", "grounds": "Bien", "on": "2026-03-04"},
    )
    assert response.status_code == 302
    page = client.get(response.location)
    assert 'class="flash' in _body(page) and "Determinación registrada." in _text(page)


# --------------------------------------------------------------------------- markup


def test_required_fields_hints_and_errors_are_announced(app: Flask, people: People) -> None:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    response = client.post("/petitions/new", data={"municipality_id": "", "petitioner": ""})
    assert response.status_code == 422
    body = _body(response)
    assert "novalidate" in re.search(r"<form[^>]*>", body.split("<main", 1)[1])[0]  # type: ignore[index]
    # Required: the attribute and aria-required, never only a visual mark.
    for name in ("district_name", "petitioner", "received_on", "municipality_id"):
        tag = re.search(rf'<(input|select|textarea)[^>]*id="f-{name}"[^>]*>', body)
        assert tag and "required" in tag[0] and 'aria-required="true"' in tag[0], name
    # The hint is text on the page, read with the field together with its error.
    tag = re.search(r'<input[^>]*id="f-petitioner"[^>]*>', body)
    assert tag and 'aria-describedby="h-petitioner e-petitioner"' in tag[0]
    assert re.search(r'<span class="hint" id="h-petitioner">[^<]+</span>', body)
    # No "YYYY-MM-DD" hint beside a date picker.
    assert "AAAA-MM-DD" not in body and "YYYY-MM-DD" not in body


def test_destructive_actions_ask_first_and_long_ones_send_once(
    client: FlaskClient, session: Session, people: People
) -> None:
    login(client, people.admin)
    page = _body(client.get("/admin/users"))
    forms = re.findall(r"<form[^>]*users/\d+/active[^>]*>", page)
    assert forms and all("data-confirm=" in form for form in forms if "inactive" not in form)
    assert any("¿Desactivar la cuenta de" in html.unescape(form) for form in forms)
    district_id = _account(session, people)
    page = _body(client.get(f"/account/{district_id}/purposes"))
    assert "¿Retirar el propósito «Ornato»?" in html.unescape(page)
    assert session.exec(select(AuthorizedPurpose)).first() is not None
    # Without script the action still works: the form posts as before.
    user = session.exec(select(User).where(User.email == people.clerk.email)).one()
    response = client.post(f"/admin/users/{user.id}/active", data={"active": "0"})
    assert response.status_code == 302
    session.expire_all()
    assert session.get(User, user.id).active is False  # type: ignore[union-attr]
    # The script that asks and that disables a sent form is served (no inline script).
    script = client.get("/static/forms.js")
    assert script.status_code == 200
    text = script.get_data(as_text=True)
    assert "window.confirm" in text and "data-once" in text and "data-error-summary" in text
    assert 'src="/static/forms.js"' in page


# --------------------------------------------------------------------------- calculator upload


ROOM_TAX_CSV = b"month,collected\n2024-07,1000.00\n2024-08,2000.00\n"


def test_a_calculator_upload_is_kept_after_an_error_and_used_on_resubmit(
    client: FlaskClient,
) -> None:
    url = "/calc/room-tax-distribution"
    response = client.post(
        url,
        data={
            "fiscal_year": "2024-25",
            "bank_certified_amount": "abc",
            "months_csv": (io.BytesIO(ROOM_TAX_CSV), "meses.csv"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    body = _body(response)
    assert "meses.csv" in body
    token = re.search(r'name="months_csv_kept" value="([0-9a-f]{64})"', body)
    assert token, body[:3000]
    assert re.search(r'name="months_csv_keep" value="yes" checked', body)
    # Sent again with the amount corrected and no file chosen: the kept file is used.
    result = client.post(
        url,
        data={
            "fiscal_year": "2024-25",
            "bank_certified_amount": "3000.00",
            "months_csv_kept": token[1],
            "months_csv_keep": "yes",
        },
        content_type="multipart/form-data",
    )
    assert result.status_code == 200, _text(result)[:2000]
    assert "$3,000.00" in _text(result)
    # Unticked, the kept file is not used: the form's (empty) rows are.
    unticked = client.post(
        url,
        data={
            "fiscal_year": "2024-25",
            "bank_certified_amount": "3000.00",
            "months_csv_kept": token[1],
        },
        content_type="multipart/form-data",
    )
    assert unticked.status_code == 422
    # A token that names nothing is refused next to the upload, not a crash.
    bogus = client.post(
        url,
        data={
            "fiscal_year": "2024-25",
            "bank_certified_amount": "3000.00",
            "months_csv_kept": "0" * 64,
            "months_csv_keep": "yes",
        },
        content_type="multipart/form-data",
    )
    assert bogus.status_code == 422
    assert 'id="e-months_csv"' in _body(bogus)


def test_a_kept_upload_serves_only_its_own_form(client: FlaskClient) -> None:
    response = client.post(
        "/calc/room-tax-distribution",
        data={
            "fiscal_year": "2024-25",
            "bank_certified_amount": "abc",
            "months_csv": (io.BytesIO(ROOM_TAX_CSV), "meses.csv"),
        },
        content_type="multipart/form-data",
    )
    token = re.search(r'name="months_csv_kept" value="([0-9a-f]{64})"', _body(response))
    assert token
    other = client.post(
        "/calc/excise-allocation",
        data={"fiscal_year": "2024-25", "months_csv_kept": token[1], "months_csv_keep": "yes"},
        content_type="multipart/form-data",
    )
    assert other.status_code == 422
    assert 'id="e-months_csv"' in _body(other)


def test_a_roll_upload_is_kept_when_the_fiscal_year_is_wrong(
    client: FlaskClient, session: Session, people: People
) -> None:
    from tests.services.billing.helpers import ROLL

    district_id = people.district.id or 0
    login(client, people.association)
    url = f"/roll/{district_id}/import"
    response = client.post(
        url,
        data={"fiscal_year": "2026", "file": (io.BytesIO(ROLL.encode()), "registro.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert set(_links(_summary(response))) == {"f-fiscal_year"}
    body = _body(response)
    kept = re.search(r'name="kept" value="([0-9a-f]{64})"', body)
    assert kept and "registro.csv" in body
    again = client.post(
        url,
        data={"fiscal_year": "2026-27", "kept": kept[1], "keep": "yes"},
        content_type="multipart/form-data",
    )
    assert again.status_code == 302 and f"/import/{kept[1]}" in again.location
    # Another user cannot use the token.
    other = client.application.test_client()
    login(other, people.admin)
    refused = other.post(
        url,
        data={"fiscal_year": "2026-27", "kept": kept[1], "keep": "yes"},
        content_type="multipart/form-data",
    )
    assert refused.status_code == 422 and 'id="e-file"' in _body(refused)


def test_a_refused_bank_file_is_announced_at_the_top_and_its_address_reloads(
    client: FlaskClient, session: Session, people: People
) -> None:
    district_id = _account(session, people)
    login(client, people.association)
    url = f"/account/{district_id}/payments/import"
    body = b"fecha,monto,referencia,aviso\n2025-08-01,abc,D1,1\n2025-08-02,-3.00,D2,1\n"
    response = client.post(
        url,
        data={"file": (io.BytesIO(body), "banco.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    links = _links(_summary(response))
    assert list(links) == ["f-file"] and "nada" in links["f-file"]
    assert 'id="e-file"' in _body(response)
    reload = client.get(url)
    assert reload.status_code == 302 and reload.location.endswith(
        f"/account/{district_id}/payments"
    )
    for path in ("/me/two-factor/recovery-codes", "/petitions/calendar/token"):
        login(client, people.clerk)
        assert client.get(path).status_code == 302, path


def test_the_error_summary_names_the_field_of_each_message(app: Flask, people: People) -> None:
    """Three blank fields are three lines that say which field each is, not the same words
    three times."""
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    response = client.post(
        "/petitions/new",
        data={"district_name": "", "petitioner": "", "received_on": ""},
    )
    assert response.status_code == 422
    lines = list(_links(_summary(response)).values())
    assert len(lines) >= 3, lines
    assert len(set(lines)) == len(lines), lines
    assert "Nombre del distrito propuesto: Este campo es obligatorio." in lines, lines
    assert all(": " in line for line in lines), lines
    assert any(line.startswith("Peticionario: ") for line in lines), lines
