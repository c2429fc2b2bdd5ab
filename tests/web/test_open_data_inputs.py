"""The open data against what a client may send or name: every row's key is its own (a
purpose named "administrative" included) and paging one row at a time brings every row; a
limit or a cursor the API cannot read is a 400 naming it, an unknown district a 404; the
OpenAPI description's schemas hold the real answers and say which fields may be null; the
feeds' ids and links and the calendars' UIDs are the installation's, never the request's
Host; and an answer a shared cache may keep sets no cookie."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from flask import Flask
from flask.testing import FlaskClient
from frictionless import validate
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from sqlmodel import Session, select

from tests.conftest import People, login, make_test_app
from tests.services.ledger_support import ACTOR
from tid.demo import ACCOUNT_DISTRICT
from tid.models import District, Municipality
from tid.rules.periods import parse_fiscal_year
from tid.services.account import expenditures
from tid.services.public import open_data, published_records

SITE = "https://tid.example.pr"


@pytest.fixture
def demo(app: Flask, session: Session, demo_loaded: str) -> District:
    return session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()


def _follow(client: FlaskClient, url: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    while url:
        answer = client.get(url)
        assert answer.status_code == 200, (url, answer.get_json())
        rows += answer.get_json()["data"]
        url = answer.get_json()["links"]["next"]
        assert len(rows) < 10_000
    return rows


def _spend_on_purposes_named(session: Session, district: District, *names: str) -> None:
    for n, name in enumerate(names):
        purpose = expenditures.add_purpose(
            session=session, actor=ACTOR, district_id=district.id or 0, name=name
        )
        expenditures.record_expenditure(
            session=session,
            actor=ACTOR,
            district_id=district.id or 0,
            spent_on=date(2026, 3, 2),
            amount=Decimal("12.34") + n,
            payee="Imprenta del Condado",
            today=date(2026, 7, 15),
            key=f"purpose-{n}",
            purpose_id=purpose.id,
        )
    session.commit()


def test_a_purpose_named_administrative_has_a_key_of_its_own(
    client: FlaskClient, session: Session, demo: District, tmp_path: Path
) -> None:
    _spend_on_purposes_named(session, demo, "administrative", "Ornato: calles 100%")
    url = f"/api/v1/public/expenditures?district_id={demo.id}"
    whole = client.get(url + "&limit=500").get_json()["data"]
    keys = [r["key"] for r in whole]
    assert len(set(keys)) == len(keys)
    year = [r for r in whole if r["fiscal_year"] == "2025-26"]
    named = {(r["kind"], r["purpose"]): Decimal(r["amount"]) for r in year}
    assert named[("purpose", "administrative")] == Decimal("12.34")
    assert ("administrative", "administrative") in named
    assert f"{demo.id}:2025-26:purpose:administrative" in keys
    assert f"{demo.id}:2025-26:administrative:administrative" in keys
    assert f"{demo.id}:2025-26:purpose:Ornato%3A calles 100%25" in keys
    assert named[("purpose", "Ornato: calles 100%")] == Decimal("13.34")
    # one row a page: every row comes, each once, in the same order
    assert _follow(client, url + "&limit=1") == whole
    # the data package's primary key holds
    answer = client.get(f"/publico/datos/{demo.id}.zip")
    with zipfile.ZipFile(io.BytesIO(answer.data)) as archive:
        archive.extractall(tmp_path)
    report = validate(str(tmp_path / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])


def test_a_key_reads_back_whatever_a_purpose_is_named() -> None:
    for name in ("a:b", "100%", "%3A", ":", "Promoción turística", "x%25:y"):
        row = {"district_id": 3, "fiscal_year": "2025-26", "kind": "purpose", "purpose": name}
        key = open_data.row_key("expenditures", row)
        assert key.count(":") == 3
        found = open_data.cursor_position("expenditures", key)
        assert found == (3, "2025-26", "purpose", name)


@pytest.mark.parametrize("limit", ["0", "501", "-1", "abc", "1.5", "٣", "99999999999999"])
def test_a_limit_it_cannot_read_is_a_400_naming_it(
    client: FlaskClient, people: People, limit: str
) -> None:
    answer = client.get(f"/api/v1/public/districts?limit={limit}")
    assert answer.status_code == 400
    assert answer.get_json()["field"] == "limit" and answer.get_json()["error"]


@pytest.mark.parametrize(
    ("table", "cursor"),
    [
        ("districts", "zzz"),
        ("districts", "1:2"),
        ("districts", "-1"),
        ("roll-years", "1"),
        ("roll-years", "1:yesterday"),
        ("expenditures", "1:2025-26:Beach"),
        ("expenditures", "1:2025-26:other:Beach"),
        ("expenditures", "1:2025-26:purpose:100%"),
        ("petitions", "9" * 3000),
    ],
)
def test_a_cursor_it_cannot_read_is_a_400_naming_it(
    client: FlaskClient, people: People, table: str, cursor: str
) -> None:
    answer = client.get(f"/api/v1/public/{table}", query_string={"cursor": cursor})
    assert answer.status_code == 400
    assert answer.get_json()["field"] == "cursor" and answer.get_json()["error"]


def test_an_unknown_district_is_a_404_and_a_known_one_pages(
    client: FlaskClient, people: People
) -> None:
    unknown = client.get("/api/v1/public/districts?district_id=99")
    assert unknown.status_code == 404
    assert unknown.get_json()["field"] == "district_id" and unknown.get_json()["error"]
    assert client.get("/api/v1/public/districts?district_id=x").status_code == 404
    answer = client.get(
        f"/api/v1/public/districts?district_id={people.district.id}&limit=1&other=1"
    )
    assert answer.status_code == 200
    assert [r["id"] for r in answer.get_json()["data"]] == [people.district.id]
    first = client.get("/api/v1/public/districts?limit=1").get_json()
    assert first["links"]["next"].endswith(f"cursor={first['data'][0]['key']}&limit=1")
    second = client.get(first["links"]["next"]).get_json()
    assert second["data"] and second["data"][0]["id"] > first["data"][0]["id"]
    assert client.get("/api/v1/public/districts?cursor=").status_code == 200


def _validator(document: dict[str, Any], path: str) -> Draft202012Validator:
    schema = document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
    root = {**schema["schema"], "components": document["components"]}
    return Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_the_openapi_schemas_hold_the_real_answers_and_say_what_may_be_null(
    client: FlaskClient, session: Session, demo: District
) -> None:
    published_records.publish(
        session=session,
        actor=ACTOR,
        district=demo,
        fy=parse_fiscal_year("2025-26"),
        kind="published-statement.pdf",
        title="Estado anual",
        language="es",
        content=b"%PDF-1.4 a statement",
        media_type="application/pdf",
    )
    session.commit()
    document = client.get("/api/v1/openapi.json").get_json()
    assert document["servers"] == [{"url": client.application.config["BASE_URL"].rstrip("/")}]
    seen_null: set[tuple[str, str]] = set()
    for item in client.get("/api/v1/public").get_json()["tables"]:
        path = f"/api/v1/public/{item['name']}"
        validator = _validator(document, path)
        answer = client.get(item["url"] + "?limit=500").get_json()
        assert answer["data"], path
        validator.validate(answer)
        seen_null |= {(item["name"], k) for r in answer["data"] for k, v in r.items() if v is None}
        # a null where the field cannot be one is refused, as is a field left out
        properties = document["components"]["schemas"][item["name"].replace("-", "_")]
        row = answer["data"][0]
        for name, value in row.items():
            if value is not None and "null" not in properties["properties"][name]["type"]:
                with pytest.raises(ValidationError):
                    validator.validate({"data": [{**row, name: None}], "links": {"next": None}})
        with pytest.raises(ValidationError):
            validator.validate({"data": [{k: v for k, v in row.items() if k != "key"}]})
    # the demo's fields that are null are among those the schemas say may be
    assert ("petitions", "denied_on") in seen_null
    schemas = document["components"]["schemas"]
    nullable = {
        (table, name)
        for table, schema in schemas.items()
        for name, spec in schema.get("properties", {}).items()
        if isinstance(spec.get("type"), list)
    }
    assert ("districts", "name") not in nullable and ("fiscal_years", "collected") not in nullable
    assert {("petitions", "denied_on"), ("fiscal_years", "collection_rate")} <= nullable
    assert schemas["expenditures"]["properties"]["kind"]["enum"] == ["purpose", "administrative"]
    bad = client.get("/api/v1/public/districts?limit=0")
    error = {**document["paths"]["/api/v1/public/districts"]["get"]["responses"]["400"]}
    assert error["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/error"}
    Draft202012Validator(schemas["error"]).validate(bad.get_json())


@pytest.fixture
def site(database_url: str, tmp_path: Path, demo_loaded: str) -> Iterator[Flask]:
    """The app of an installation at ``SITE`` (its ``BASE_URL``), on the demo's database."""
    found = make_test_app(database_url, tmp_path / "site", BASE_URL=SITE + "/")
    yield found
    found.extensions["tid.engine"].dispose()


def _municipality(site: Flask) -> int:
    with Session(site.extensions["tid.engine"]) as session:
        found = session.exec(select(Municipality).order_by(Municipality.id)).first()  # type: ignore[arg-type]
        assert found is not None and found.id is not None
        return found.id


def test_the_feeds_name_the_installation_never_the_requests_host(site: Flask) -> None:
    municipality = _municipality(site)
    client = site.test_client()
    evil = {"base_url": "http://evil.example", "headers": {"Host": "evil.example"}}
    atom = client.get(f"/publico/municipios/{municipality}/novedades.atom", **evil)
    assert atom.status_code == 200 and b"evil.example" not in atom.data
    ns = {"a": "http://www.w3.org/2005/Atom"}
    feed = ET.fromstring(atom.data)
    addresses = [e.text or "" for e in feed.iter(f"{{{ns['a']}}}id")]
    addresses += [e.get("href", "") for e in feed.iter(f"{{{ns['a']}}}link")]
    assert len(addresses) > 4
    assert all(a.startswith(SITE + "/publico/") for a in addresses), addresses
    ics = client.get(f"/publico/municipios/{municipality}/plazos.ics", **evil).text
    uids = [line[4:] for line in ics.replace("\r\n ", "").split("\r\n") if line.startswith("UID:")]
    assert uids and all(uid.endswith("@tid.example.pr") for uid in uids)
    assert "evil.example" not in ics


def test_two_installations_calendars_share_no_uid(
    site: Flask, database_url: str, tmp_path: Path
) -> None:
    municipality = _municipality(site)
    other = make_test_app(database_url, tmp_path / "other", BASE_URL="https://ponce.example.pr")
    try:
        url = f"/publico/municipios/{municipality}/plazos.ics"
        ours, theirs = (
            {
                line
                for line in app.test_client().get(url).text.replace("\r\n ", "").split("\r\n")
                if line.startswith("UID:")
            }
            for app in (site, other)
        )
        assert ours and theirs and not ours & theirs
    finally:
        other.extensions["tid.engine"].dispose()


def _public_answers(client: FlaskClient, people: People) -> list[str]:
    municipality = people.municipality.id
    return [
        "/api/v1/public",
        "/api/v1/public/districts",
        f"/api/v1/public/districts?district_id={people.district.id}",
        "/api/v1/openapi.json",
        f"/publico/municipios/{municipality}/novedades.atom",
        f"/publico/municipios/{municipality}/plazos.ics",
        f"/publico/datos/{people.district.id}.zip",
        "/publico/datos/todo.zip",
        "/static/tid.css",
    ]


def _no_cookie_on_public_answers(client: FlaskClient, people: People, **extra: Any) -> None:
    for url in _public_answers(client, people):
        answer = client.get(url, **extra)
        assert answer.status_code == 200, url
        assert "no-store" not in answer.headers.get("Cache-Control", ""), url
        assert answer.headers.getlist("Set-Cookie") == [], url
        tag = answer.headers.get("ETag")
        if tag:
            again = client.get(url, headers={"If-None-Match": tag, **extra.get("headers", {})})
            assert again.headers.getlist("Set-Cookie") == [], url


def test_an_answer_a_shared_cache_may_keep_sets_no_cookie(
    app: Flask, client: FlaskClient, people: People
) -> None:
    # an anonymous reader who chose a language: the cookie is sent, and answered on pages
    chose = client.post("/lang/en", data={"next": "/publico"})
    assert chose.headers.getlist("Set-Cookie")
    _no_cookie_on_public_answers(client, people)
    assert "Petitions" in client.get(f"/publico/municipios/{people.municipality.id}").text
    # a signed-in clerk, from the browser that signed in and from another one
    clerk = app.test_client()
    login(clerk, people.clerk)
    _no_cookie_on_public_answers(clerk, people)
    _no_cookie_on_public_answers(clerk, people, headers={"User-Agent": "another browser"})
    assert clerk.get("/petitions/").status_code == 200  # still signed in


def test_what_a_shared_cache_may_keep() -> None:
    from werkzeug.wrappers import Response

    from tid.web.shared_cache import shared_cacheable

    assert not shared_cacheable(Response("x", headers={"Cache-Control": "no-store"}))
    assert not shared_cacheable(Response("x", headers={"Cache-Control": "private, max-age=9"}))
    assert not shared_cacheable(Response("x"))
    assert shared_cacheable(Response("x", headers={"Cache-Control": "public, max-age=60"}))
    assert shared_cacheable(Response("x", headers={"ETag": '"a"', "Cache-Control": "no-cache"}))


def test_the_openapi_servers_are_the_installations(site: Flask) -> None:
    document = json.loads(site.test_client().get("/api/v1/openapi.json").data)
    assert document["servers"] == [{"url": SITE}]
