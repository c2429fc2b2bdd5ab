"""The reforms speak the reader's language: the editor's refusals name the parameters by
their descriptions, their codes in small print for those who write files."""

from __future__ import annotations

import html
import re

import pytest
from flask.testing import FlaskClient

from tests.conftest import People, login

HOTEL = "room_tax.act272.rate.hotel"
CODE = re.compile(r"\b[a-z]+_[a-z_]+(\.[a-z0-9_]+)+\b")


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
