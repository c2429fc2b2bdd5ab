"""The open data: the JSON API pages every table by cursor with no row cap, answers with an
ETag (304 when unchanged), may be cached and read from any page; its OpenAPI description is
valid; the bulk downloads are valid Frictionless data packages, the fiscal figures modelled
as a Fiscal Data Package (measures and dimensions); and the fiscal figures in the API and the
files are the yearly statement's."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import time
import zipfile
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest
from flask import Flask
from flask.testing import FlaskClient
from frictionless import validate
from openapi_spec_validator import validate as validate_openapi
from sqlmodel import Session, select
from werkzeug.http import http_date, parse_date

from tid.clock import today as today_of
from tid.demo import ACCOUNT_DISTRICT
from tid.models import District
from tid.rules.periods import parse_fiscal_year
from tid.services.account import audit_statement
from tid.services.public import open_data, versions

real_time = time.time


@pytest.fixture
def demo(app: Flask, session: Session, demo_loaded: str) -> District:
    return session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()


def _follow(client: FlaskClient, url: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    pages = 0
    while url:
        answer = client.get(url)
        assert answer.status_code == 200, url
        document = answer.get_json()
        rows += document["data"]
        url = document["links"]["next"]
        pages += 1
        assert pages < 1000
    return rows


def test_the_api_pages_every_table_to_its_last_row(
    client: FlaskClient, session: Session, demo: District
) -> None:
    index = client.get("/api/v1/public").get_json()
    assert {t["name"] for t in index["tables"]} >= {"municipalities", "petitions", "fiscal-years"}
    for item in index["tables"]:
        whole = client.get(item["url"] + "?limit=500").get_json()["data"]
        one_by_one = _follow(client, item["url"] + "?limit=1")
        assert one_by_one == whole
        assert len({r["key"] for r in whole}) == len(whole)
    petitions = client.get("/api/v1/public/petitions").get_json()["data"]
    assert petitions and all(p["steps"][0]["step"] == "received" for p in petitions)
    assert client.get("/api/v1/public/nothing").status_code == 404
    assert client.get("/api/v1/public/districts?district_id=x").status_code == 404


def test_the_api_answers_are_cacheable_and_open_to_every_page(
    client: FlaskClient, demo: District
) -> None:
    first = client.get(f"/api/v1/public/fiscal-years?district_id={demo.id}")
    assert first.headers["Cache-Control"].startswith("public")
    assert first.headers["Access-Control-Allow-Origin"] == "*"
    tag = first.headers["ETag"]
    again = client.get(
        f"/api/v1/public/fiscal-years?district_id={demo.id}", headers={"If-None-Match": tag}
    )
    assert again.status_code == 304


def test_the_openapi_description_is_valid(client: FlaskClient) -> None:
    document = client.get("/api/v1/openapi.json").get_json()
    validate_openapi(document)
    assert "/api/v1/public/fiscal-years" in document["paths"]


# The Fiscal Data Package's rules for its model (its measures and dimensions), as a JSON
# schema: a measure names its column and an ISO 4217 currency; a dimension its attributes,
# each naming its column, and its primary key among them.
_MODEL = {
    "type": "object",
    "required": ["measures", "dimensions"],
    "properties": {
        "measures": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "required": ["source", "currency"],
                "properties": {
                    "source": {"type": "string"},
                    "resource": {"type": "string"},
                    "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
                    "direction": {"enum": ["expenditure", "revenue"]},
                    "phase": {"enum": ["proposed", "approved", "adjusted", "executed"]},
                },
            },
        },
        "dimensions": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "required": ["attributes", "primaryKey"],
                "properties": {
                    "attributes": {
                        "type": "object",
                        "minProperties": 1,
                        "additionalProperties": {"type": "object", "required": ["source"]},
                    },
                    "dimensionType": {
                        "enum": [
                            "datetime",
                            "entity",
                            "classification",
                            "activity",
                            "fact",
                            "location",
                            "other",
                        ]
                    },
                },
            },
        },
    },
}


def _assert_fiscal_model(descriptor: dict[str, Any]) -> None:
    """The descriptor is a Fiscal Data Package: its profiles, and a model whose every measure
    is a number column of its table and every attribute a column of its table."""
    assert descriptor["profiles"] == {"fiscal": "*", "tabular": "*"}
    model = descriptor["model"]
    jsonschema.validate(model, _MODEL)
    fields = {
        r["name"]: {f["name"]: f["type"] for f in r["schema"]["fields"]}
        for r in descriptor["resources"]
    }
    first = descriptor["resources"][0]["name"]
    for measure in model["measures"].values():
        assert fields[measure.get("resource", first)][measure["source"]] == "number"
    for dimension in model["dimensions"].values():
        keys = dimension["primaryKey"]
        assert set([keys] if isinstance(keys, str) else keys) <= set(dimension["attributes"])
        for attribute in dimension["attributes"].values():
            assert attribute["source"] in fields[attribute.get("resource", first)]
    assert {"billed", "collected", "spent"} <= set(model["measures"])
    assert {"district", "fiscal_year", "purpose"} <= set(model["dimensions"])


def test_the_data_packages_are_valid_and_say_the_statement(
    client: FlaskClient, session: Session, demo: District, tmp_path: Path
) -> None:
    for url, folder in (
        (f"/publico/datos/{demo.id}.zip", "one"),
        ("/publico/datos/todo.zip", "all"),
    ):
        answer = client.get(url)
        assert answer.status_code == 200 and answer.mimetype == "application/zip"
        target = tmp_path / folder
        with zipfile.ZipFile(io.BytesIO(answer.data)) as archive:
            archive.extractall(target)
        descriptor = json.loads((target / "datapackage.json").read_text())
        assert {r["path"] for r in descriptor["resources"]} == {
            f"{t}.csv" for t in open_data.TABLES
        }
        report = validate(str(target / "datapackage.json"))
        assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])
        _assert_fiscal_model(descriptor)
    fy = parse_fiscal_year("2025-26")
    st = audit_statement.statement(session=session, district_id=demo.id or 0, fy=fy)
    with (tmp_path / "one" / "fiscal_years.csv").open(encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert Decimal(row["collected"]) == st.impost_revenue
    assert Decimal(row["closing_balance"]) == st.closing_balance
    assert Decimal(row["admin_total"]) == st.admin_total
    api = client.get(f"/api/v1/public/fiscal-years?district_id={demo.id}").get_json()["data"]
    assert Decimal(api[0]["collected"]) == st.impost_revenue
    assert Decimal(api[0]["opening_balance"]) == st.opening_balance
    spent = client.get(f"/api/v1/public/expenditures?district_id={demo.id}").get_json()["data"]
    by_purpose = {r["purpose"]: Decimal(r["amount"]) for r in spent}
    assert by_purpose == {
        **{p.name: p.amount for p in st.program},
        open_data.ADMINISTRATIVE: st.admin_total,
    }


def test_a_data_package_is_the_same_bytes_on_every_download(
    app: Flask, client: FlaskClient, demo: District, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Downloaded again — by another worker, made anew, the machine's clock a day later —
    the package is the same bytes: its files in one order, each dated the day its figures
    are as of."""
    first = client.get(f"/publico/datos/{demo.id}.zip")
    assert first.status_code == 200
    versions.forget_all()  # another worker, which makes it anew
    clock = SimpleNamespace(time=lambda: real_time() + 86_400, localtime=time.localtime)
    monkeypatch.setattr(zipfile, "time", clock)
    again = client.get(f"/publico/datos/{demo.id}.zip")
    assert again.data == first.data
    with zipfile.ZipFile(io.BytesIO(first.data)) as archive:
        names = archive.namelist()
        dates = {info.date_time for info in archive.infolist()}
    assert names == [f"{t}.csv" for t in open_data.TABLES] + ["datapackage.json"]
    day = today_of(app.config)
    assert dates == {(day.year, day.month, day.day, 0, 0, 0)}


def test_a_data_package_answers_304_to_a_reader_who_has_it(
    client: FlaskClient, session: Session, demo: District
) -> None:
    for url in (f"/publico/datos/{demo.id}.zip", "/publico/datos/todo.zip"):
        first = client.get(url)
        tag, modified = first.headers["ETag"], first.headers["Last-Modified"]
        assert tag == f'"{hashlib.sha256(first.data).hexdigest()}"'
        assert first.headers["Cache-Control"].startswith("public")
        assert client.get(url, headers={"If-None-Match": tag}).status_code == 304
        assert client.get(url, headers={"If-Modified-Since": modified}).status_code == 304
        older = http_date(parse_date(modified) - timedelta(seconds=1))  # type: ignore[operator]
        stale = client.get(url, headers={"If-Modified-Since": older})
        assert stale.status_code == 200 and stale.data == first.data
        other = client.get(url, headers={"If-None-Match": '"another"'})
        assert other.status_code == 200 and other.data == first.data
    assert client.get("/publico/datos/999999.zip").status_code == 404
