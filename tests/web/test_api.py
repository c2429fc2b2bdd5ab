"""The JSON API of the calculators: same documents as ``tid calc``, 422 for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.calc_documents import DOCUMENTS, INVALID, NUMBER_AMOUNT
from tests.conftest import make_test_app
from tid.rules import calculators
from tid.rules.params import all_parameters

# The calculators store nothing: one database is enough (their bounds across workers, which
# are kept in the database, are tested on both in test_calc_bounds.py).
pytestmark = pytest.mark.one_database

AVAILABLE = [name for name in sorted(calculators.CALCULATORS) if calculators.available(name)]


@pytest.mark.parametrize("name", AVAILABLE)
def test_result_is_the_calculators(client: FlaskClient, name: str) -> None:
    response = client.post(f"/api/v1/calc/{name}", json=DOCUMENTS[name])
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    assert response.get_json() == calculators.run(name, DOCUMENTS[name])
    # The keys keep the statute's order (not sorted).
    assert list(json.loads(response.get_data(as_text=True))) == list(
        calculators.run(name, DOCUMENTS[name])
    )


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_input_is_422_naming_the_field(client: FlaskClient, name: str) -> None:
    document, field = INVALID[name]
    response = client.post(f"/api/v1/calc/{name}", json=document)
    assert response.status_code == 422
    body = response.get_json()
    assert body["field"] == field
    assert body["error"]


@pytest.mark.parametrize("name", sorted(NUMBER_AMOUNT))
def test_amount_as_json_number_is_refused(client: FlaskClient, name: str) -> None:
    document, field = NUMBER_AMOUNT[name]
    response = client.post(f"/api/v1/calc/{name}", json=document)
    assert response.status_code == 422
    assert response.get_json()["field"] == field


@pytest.mark.parametrize(
    "body", ["not json", "{'single': 'quotes'}", "", "[1, 2]", '"text"', b"\xff\xfe{}"]
)
def test_a_body_that_is_not_a_json_object_is_422(client: FlaskClient, body: str | bytes) -> None:
    response = client.post(
        "/api/v1/calc/deadlines", data=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    error = response.get_json()
    assert error["field"] == ""
    assert error["error"]


def test_unknown_calculator_is_404_json(client: FlaskClient) -> None:
    response = client.post("/api/v1/calc/no-such-thing", json={})
    assert response.status_code == 404
    assert response.get_json()["field"] == "name"
    assert "deadlines" in response.get_json()["error"]


def test_only_post_computes(client: FlaskClient) -> None:
    assert client.get("/api/v1/calc/deadlines").status_code == 405


def test_too_large_a_body_is_refused_before_parsing(database_url: str, tmp_path: Path) -> None:
    app = make_test_app(database_url, tmp_path, CALC_MAX_BYTES=100)
    try:
        padding = "x" * 200
        response = app.test_client().post(
            "/api/v1/calc/deadlines",
            data=json.dumps({"petition_received": "2026-03-02", "note": padding}),
            content_type="application/json",
        )
        assert response.status_code == 413
        assert "100" in response.get_json()["error"]
    finally:
        app.extensions["tid.engine"].dispose()


def test_exempt_from_csrf_while_the_forms_are_not(database_url: str, tmp_path: Path) -> None:
    app = make_test_app(database_url, tmp_path, WTF_CSRF_ENABLED=True)
    try:
        client = app.test_client()
        api = client.post("/api/v1/calc/deadlines", json=DOCUMENTS["deadlines"])
        assert api.status_code == 200
        form = client.post("/calc/deadlines", data={"petition_received": "2026-03-02"})
        assert form.status_code == 400  # the web form needs its CSRF token
    finally:
        app.extensions["tid.engine"].dispose()


def test_public_without_login(client: FlaskClient) -> None:
    # No session cookie, no token: the calculators are public statute computations.
    assert client.post("/api/v1/calc/room-tax", json=DOCUMENTS["room-tax"]).status_code == 200
    assert client.get("/api/v1/calc").status_code == 200
    assert client.get("/api/v1/parameters").status_code == 200


def test_list_of_calculators(client: FlaskClient) -> None:
    listing = client.get("/api/v1/calc").get_json()["calculators"]
    assert [c["name"] for c in listing] == sorted(calculators.CALCULATORS)
    for entry in listing:
        assert entry["url"] == f"/api/v1/calc/{entry['name']}"
        assert entry["form"] == f"/calc/{entry['name']}"
        assert entry["available"] == calculators.available(entry["name"])
        assert entry["title"] and "citation" in entry
    by_name = {c["name"]: c for c in listing}
    assert by_name["liens"]["citation"] == "21 LPRA § 6653(8)"
    assert {c["name"] for c in listing if c["available"]} == set(AVAILABLE)


def test_parameters_with_history_and_citations(app: Flask, client: FlaskClient) -> None:
    body = client.get("/api/v1/parameters").get_json()
    parameters = body["parameters"]
    assert parameters == all_parameters()
    assert len(parameters) > 10
    names = [p["name"] for p in parameters]
    assert names == sorted(names)
    for parameter in parameters:
        assert parameter["description"]
        assert parameter["values"]
        for value in parameter["values"]:
            assert value["citation"].strip()
            assert value["from"]
    # The General Fund's share of the equalization fund changed year by year (the Municipal
    # Equalization Fund):
    # a history of several values, each dated and cited.
    by_name = {p["name"]: p for p in parameters}
    histories = [p for p in parameters if len(p["values"]) >= 3]
    assert histories, "some parameter has a history of values"
    assert any(name.startswith("equalization.") for name in by_name)
