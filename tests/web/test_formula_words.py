"""The forms' example formulas name the roll's columns as a formula in the reader's language
names them: ``valor_tasado`` on a Spanish page, ``assessed_value`` on an English one, whichever
language the template was first drawn in."""

from __future__ import annotations

import html
import re

from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale
from sqlmodel import Session, select

from tests.conftest import login
from tid.demo import DEMO_PASSWORD
from tid.models import Ordinance, Petition

EXAMPLE = "{{ 'max(250.00, 0.0035 * assessed_value) + budget'|formula_words }}"


def test_the_example_follows_the_page_language(app: Flask) -> None:
    with app.test_request_context("/"):
        template = app.jinja_env.from_string(EXAMPLE)  # drawn once, as a page's template is
        said: dict[str, set[str]] = {}
        for language in ("es", "en", "es"):
            with force_locale(language):
                said.setdefault(language, set()).add(template.render())
    assert said["es"] == {"max(250.00, 0.0035 * valor_tasado) + presupuesto"}
    assert said["en"] == {"max(250.00, 0.0035 * assessed_value) + budget"}


def test_a_stored_formula_is_shown_in_the_readers_names_whichever_it_was_written_in(
    app: Flask,
) -> None:
    spanish = 'max(75.00, 0.0125 * valor_tasado) + if(clase_de_uso == "hotel", 15.00 * rooms, 0)'
    with app.test_request_context("/"):
        template = app.jinja_env.from_string("{{ formula|formula_words }}")
        with force_locale("en"):
            english = template.render(formula=spanish)
        with force_locale("es"):
            again = template.render(formula=html.unescape(english))
    # every known name in the reader's language; the class of use between quotes as written
    assert html.unescape(english) == (
        'max(75.00, 0.0125 * assessed_value) + if(use_class == "hotel", 15.00 * rooms, 0)'
    )
    assert html.unescape(again) == (
        'max(75.00, 0.0125 * valor_tasado) + if(clase_de_uso == "hotel", 15.00 * habitaciones, 0)'
    )


def _words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_demos_ordinances_are_written_and_shown_in_one_vocabulary(
    client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    ordinances = session.exec(select(Ordinance)).all()
    assert ordinances
    for ordinance in ordinances:  # written with the Spanish names, as a Spanish ordinance is
        assert "valor_tasado" in ordinance.formula and "assessed_value" not in ordinance.formula
    district = next(o.district_id for o in ordinances if "clase_de_uso" in o.formula)
    login(client, "secretaria@demo.tid.pr", DEMO_PASSWORD)
    petition = session.exec(select(Petition)).first()
    assert petition is not None
    pages = (f"/publico/distritos/{district}", f"/petitions/{petition.id}/studio")
    for language, mine, theirs in (
        ("es", ("valor_tasado", "cantidad_esperada"), ("assessed_value", "expected_amount")),
        ("en", ("assessed_value", "expected_amount"), ("valor_tasado", "cantidad_esperada")),
    ):
        client.post(f"/lang/{language}", data={"next": "/"})
        public, studio = (_words(client.get(page).get_data(as_text=True)) for page in pages)
        assert mine[0] in public and theirs[0] not in public, language
        assert mine[1] in studio and theirs[1] not in studio, language
