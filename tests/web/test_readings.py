"""The project's readings of the law, published (/readings): every reading under its anchor
in both languages, linked from the calculators, and in the calculators' PDF report of a
result that relies on one."""

from __future__ import annotations

import html
import io
import json
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader

from tests.calc_documents import DOCUMENTS
from tests.pdf_checks import page_text
from tid.documents import calc_text
from tid.rules import calculators
from tid.rules.readings import READINGS

pytestmark = pytest.mark.one_database


def _text(page: str) -> str:
    """The visible text of a page, whitespace collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def _in(app: Flask, lang: str, msgid: str) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return str(calc_text.translated(msgid))


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_reading_is_published_under_its_anchor(
    app: Flask, client: FlaskClient, lang: str
) -> None:
    response = client.get(f"/readings?lang={lang}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    text = _text(page)
    assert f'<html lang="{lang}">' in page
    for reading in READINGS.values():
        assert f'id="{reading.slug}"' in page
        assert f'href="#{reading.slug}"' in page  # the contents
        title, body = _in(app, lang, reading.title), _in(app, lang, reading.text)
        assert re.sub(r"\s+", " ", title) in text and re.sub(r"\s+", " ", body) in text
        for statute in reading.statutes:
            assert _in(app, lang, statute) in text
        if lang == "es":
            assert body != reading.text  # the Spanish one
    assert "RULES.md" not in page and "Reglas de la aplicación" not in page


def test_the_calculators_link_to_the_readings(client: FlaskClient) -> None:
    for path in ("/calc/", "/calc/parameters"):
        assert 'href="/readings"' in client.get(path).get_data(as_text=True), path
    # a parameter whose value the project decided links to its reading
    parameters = client.get("/calc/parameters").get_data(as_text=True)
    assert 'href="/readings#saturday-deadlines"' in parameters
    assert 'href="/readings#in-force-from-approval"' in parameters
    # the day the lien act took effect: its setting and the liens' result name the reading
    assert 'href="/readings#lien-act-effective-date"' in parameters
    result = client.post("/calc/liens", data={"document_json": json.dumps(DOCUMENTS["liens"])})
    assert 'href="/readings#lien-act-effective-date"' in result.get_data(as_text=True)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_lien_act_reading_is_published(app: Flask, client: FlaskClient, lang: str) -> None:
    text = _text(client.get(f"/readings?lang={lang}").get_data(as_text=True))
    reading = READINGS["lien-act-effective-date"]
    assert _in(app, lang, reading.title) in text
    day = {"en": "January 15, 2010", "es": "15 de enero de 2010"}[lang]
    assert day in text and "Any liens constituted before the effectiveness" in text


def test_the_pdf_report_lists_the_readings_a_result_relies_on(
    app: Flask, client: FlaskClient
) -> None:
    document = DOCUMENTS["liens"]
    result = calculators.run("liens", document)
    cited = calc_text.result_readings(result)
    assert {r.slug for r in cited} >= {"same-day-liens", "unsecured-charges"}
    response = client.post("/calc/liens/pdf", data={"document": json.dumps(document)})
    assert response.status_code == 200
    text = page_text(PdfReader(io.BytesIO(response.data)))
    assert "Las lecturas del proyecto en que se apoya este resultado" in text
    for reading in cited:
        body = re.sub(r"\s+", " ", _in(app, "es", reading.text))
        assert body in text, reading.slug
    # a reading the result does not rely on is not in its report
    other = READINGS["seam-of-2003"]
    assert re.sub(r"\s+", " ", _in(app, "es", other.text)) not in text
