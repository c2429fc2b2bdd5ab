"""The reforms speak the reader's language: the editor's refusals name the parameters by
their descriptions, their codes in small print for those who write files."""

from __future__ import annotations

import html
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from tests.conftest import People, login, make_test_app
from tid.services.limits import request_rate

HOTEL = "room_tax.act272.rate.hotel"
CODE = re.compile(r"\b[a-z_]+(?:\.[a-z0-9_]+)+\b")


def _errors(page: str) -> list[str]:
    return [
        html.unescape(m) for m in re.findall(r'class="field-error" id="e-[^"]+">([^<]*)<', page)
    ]


@pytest.mark.parametrize(
    ("value", "start", "words"),
    [
        ("nine percent", "2025-07-01", "tasa"),  # not a rate
        ("1.5", "2025-07-01", "fuera"),  # out of range
        ("0.07", "mañana", "2025-07-01"),  # no day
    ],
)
def test_a_reforms_refusal_names_the_parameter_by_its_description(
    client: FlaskClient, people: People, value: str, start: str, words: str
) -> None:
    login(client, people.clerk)
    data = {
        "title": "Hotels at 7 %",
        "change-0-parameter": HOTEL,
        "change-0-from": start,
        "change-0-value": value,
    }
    response = client.post("/reforms/new", data=data)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    errors = _errors(page)
    assert errors, page[:2000]
    for error in errors:
        assert not CODE.search(error), error
        assert HOTEL not in error and "un(a)" not in error
    assert any(words in e for e in errors), errors
    assert any("hotel" in e.lower() for e in errors), errors  # the parameter, by its description
    # …and its code in small print beside the field, for those who write files
    assert re.search(rf"<small[^>]*>[^<]*<code>{re.escape(HOTEL)}</code></small>", page)
    english = _errors(client.post("/reforms/new?lang=en", data=data).get_data(as_text=True))
    assert english and not any(CODE.search(e) for e in english), english


# ---------------------------------------------------------------------------------------
# Anyone tries a reform: no account, nothing stored, under the calculators' guard


def _tried(client: FlaskClient, example: str, lang: str = "es") -> tuple[int, str]:
    from tid.web.reform_examples import EXAMPLES

    chosen = EXAMPLES[example]
    data: dict[str, str] = {
        "title": "Prueba",
        "calculator": chosen["calculator"],
        "document_json": json.dumps(chosen["document"]),
    }
    for i, change in enumerate(chosen["changes"]):
        data |= {
            f"change-{i}-parameter": change["parameter"],
            f"change-{i}-from": change["from"],
            f"change-{i}-value": change["value"],
        }
    response = client.post(f"/reforms/try/?lang={lang}", data=data)
    return response.status_code, response.get_data(as_text=True)


def _hidden(page: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert match, name
    return html.unescape(match.group(1))


@pytest.mark.parametrize("example", ["general-fund-share", "prita-cap"])
def test_anyone_tries_a_reform_without_an_account(
    app: Flask, client: FlaskClient, example: str
) -> None:
    from tid.models.reforms import SavedReform

    index = client.get("/reforms/").get_data(as_text=True)
    assert f"/reforms/try/?example={example}" in index  # the examples to start from
    editor = client.get(f"/reforms/try/?example={example}")
    assert editor.status_code == 200
    assert "iniciar sesión" in editor.get_data(as_text=True).lower() or "Inicie" in (
        editor.get_data(as_text=True)
    )
    status, page = _tried(client, example)
    assert status == 200, re.findall(r'class="field-error"[^>]*>([^<]*)', page)
    assert "la ley y la reforma" in page  # the comparison, side by side
    assert "no está guardada" in page  # …and why it is not saved
    changed = re.search(r'<h2 id="diff-title">.*?</section>', page, flags=re.S)
    assert changed and "<tbody>" in changed.group(0)  # something changes under the reform
    reform, document = _hidden(page, "reform"), _hidden(page, "document")
    calculator = EXAMPLE_CALCULATORS[example]
    note = client.post(
        f"/reforms/try/{calculator}/note", data={"reform": reform, "document": document}
    )
    assert note.status_code == 200 and note.data.startswith(b"%PDF")
    csv = client.post(
        f"/reforms/try/{calculator}/csv", data={"reform": reform, "document": document}
    )
    assert csv.status_code == 200 and "Diferencia" in csv.get_data(as_text=True)
    with app.app_context():
        from tid.db import get_session

        assert get_session().exec(select(SavedReform)).all() == []  # nothing was saved


EXAMPLE_CALCULATORS = {
    "general-fund-share": "room-tax-distribution",
    "prita-cap": "excise-allocation",
}


def test_a_tried_reform_runs_under_the_calculators_guard(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moment = datetime(2026, 12, 1, 14, 3, 20, tzinfo=UTC)
    monkeypatch.setattr(request_rate, "utcnow", lambda: moment)
    client = make_test_app(database_url, tmp_path / "w", CALC_RATE_LIMIT=1).test_client()
    assert _tried(client, "prita-cap")[0] == 200
    status, _page = _tried(client, "prita-cap")
    assert status == 429  # the second computation of the minute is refused


def test_a_bad_tried_reform_is_refused_next_to_its_field(client: FlaskClient) -> None:
    data = {
        "title": "T",
        "calculator": "excise-allocation",
        "document_json": "{}",
        "change-0-parameter": HOTEL,
        "change-0-from": "2025-07-01",
        "change-0-value": "nine",
    }
    response = client.post("/reforms/try/", data=data)
    assert response.status_code == 422
    errors = _errors(response.get_data(as_text=True))
    assert errors and not any(CODE.search(e) for e in errors), errors


def test_a_reform_that_changes_nothing_here_says_so_instead_of_an_empty_chart(
    client: FlaskClient,
) -> None:
    from tid.web.reform_examples import EXAMPLES

    data = {
        "title": "Hoteles al 7 %",
        "calculator": "excise-allocation",
        "document_json": json.dumps(EXAMPLES["prita-cap"]["document"]),
        "change-0-parameter": HOTEL,
        "change-0-from": "2025-07-01",
        "change-0-value": "0.07",
    }
    response = client.post("/reforms/try/", data=data)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "cada diferencia entre la ley y la reforma es cero" in page
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' not in page


def test_a_parameter_of_one_dot_is_named_by_its_description_too(
    client: FlaskClient, people: People
) -> None:
    login(client, people.clerk)
    data = {
        "title": "Lotería",
        "change-0-parameter": "equalization.lottery_share_rate",
        "change-0-from": "2025-07-01",
        "change-0-value": "1.40",
    }
    errors = _errors(client.post("/reforms/new", data=data).get_data(as_text=True))
    assert errors and not any(CODE.search(e) for e in errors), errors
    assert any("Lotería" in e for e in errors), errors


def test_a_tried_reforms_note_names_the_law_it_changes_by_its_description(
    app: Flask, client: FlaskClient
) -> None:
    from pypdf import PdfReader

    from tests.pdf_checks import page_text
    from tid.documents import calc_text
    from tid.rules.params import history

    status, page = _tried(client, "general-fund-share")
    assert status == 200
    note = client.post(
        "/reforms/try/room-tax-distribution/note",
        data={"reform": _hidden(page, "reform"), "document": _hidden(page, "document")},
    )
    assert note.status_code == 200
    text = " ".join(page_text(PdfReader(io.BytesIO(note.data))).split())
    with app.test_request_context("/"):
        described = calc_text.translated(
            history("distribution.act272.general_fund_share").description
        )
    # once in the details' table, once where the note says what the law says today
    said = text.split("Lo que dice la ley hoy", 1)
    assert len(said) == 2, text[:400]
    assert described in said[1], said[1][:300]
