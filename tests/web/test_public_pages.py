"""The public pages without a login: the municipalities, a district's page at its permanent
address and a published year, in Spanish and English; a year not published is not found;
the anonymous rate limit holds."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from tests.conftest import BACKENDS, make_test_app
from tid.db import engine
from tid.demo import ACCOUNT_DISTRICT
from tid.i18n import money
from tid.models import District, Petition, PropertyYear
from tid.rules.periods import parse_fiscal_year
from tid.services.account import audit_statement
from tid.services.limits import heavy_work
from tid.services.public import direct


@pytest.fixture
def demo(session: Session, demo_loaded: str) -> District:
    return session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()


def test_the_public_pages_show_the_statement_in_both_languages(
    app: Flask, client: FlaskClient, session: Session, demo: District
) -> None:
    index = client.get("/publico")
    assert index.status_code == 200
    assert "San Juan" in index.text and f"/publico/distritos/{demo.id}" in index.text
    page = client.get(f"/publico/distritos/{demo.id}")
    assert page.status_code == 200
    assert "Ord. Núm. 21" in page.text and "<svg" in page.text
    assert "max(75.00, 0.0125 * valor_tasado)" in page.text  # the names in Spanish
    fy = parse_fiscal_year("2025-26")
    st = audit_statement.statement(session=session, district_id=demo.id or 0, fy=fy)
    year = client.get(f"/publico/distritos/{demo.id}/2025-26")
    assert year.status_code == 200
    with app.test_request_context(headers={"Accept-Language": "es"}):
        assert money(st.impost_revenue) in year.text
        assert money(st.closing_balance) in year.text
    assert "Año fiscal 2025-26" in year.text
    client.post("/lang/en", data={"next": "/publico"})
    english = client.get(f"/publico/distritos/{demo.id}/2025-26")
    assert "Fiscal year 2025-26" in english.text
    assert client.get(f"/publico/distritos/{demo.id}/2024-25").status_code == 404
    assert client.get(f"/publico/distritos/{demo.id}/9999-00").status_code == 404
    assert client.get("/publico/distritos/999999").status_code == 404


@pytest.mark.both_databases  # counted on PostgreSQL on the public pages' own connections
def test_the_anonymous_rate_limit_holds_on_the_public_pages(
    database_url: str, tmp_path: Path
) -> None:
    limited = make_test_app(database_url, tmp_path, PUBLIC_RATE_LIMIT=3)
    client = limited.test_client()
    codes = [client.get("/publico").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert client.get("/publico").headers["Retry-After"]
    limited.extensions["tid.engine"].dispose()


def test_the_owners_estimate_computes_the_impost_with_its_explanation(
    client: FlaskClient, demo: District
) -> None:
    form = client.get(f"/publico/distritos/{demo.id}/estimado")
    assert form.status_code == 200 and 'name="assessed_value"' in form.text
    done = client.get(
        f"/publico/distritos/{demo.id}/estimado",
        query_string={"assessed_value": "250,000.00", "use_class": "hospederia", "rooms": "40"},
    )
    assert "$3,725.00" in done.text and "valor tasado" in done.text
    bad = client.get(
        f"/publico/distritos/{demo.id}/estimado", query_string={"assessed_value": "mucho"}
    )
    assert bad.status_code == 200 and 'href="#f-assessed_value"' in bad.text


def test_the_owners_estimate_runs_within_the_calculators_bounds(
    database_url: str, tmp_path: Path, demo: District
) -> None:
    # The district's formula runs for each estimate: like the calculators, it takes a place.
    app = make_test_app(database_url, tmp_path / "one", CALC_CONCURRENCY=1)
    with app.app_context(), Session(engine()) as db:
        held = heavy_work.begin(
            session=db, client="198.51.100.7", most=1, hold=timedelta(seconds=60)
        )
    client = app.test_client()
    address = f"/publico/distritos/{demo.id}/estimado"
    try:
        assert client.get(address).status_code == 200  # the form computes nothing
        busy = client.get(address, query_string={"assessed_value": "250,000.00", "rooms": "40"})
        assert busy.status_code == 503 and busy.headers["Retry-After"]
    finally:
        with app.app_context(), Session(engine()) as db:
            heavy_work.end(session=db, place=held)
    done = client.get(
        address,
        query_string={"assessed_value": "250,000.00", "use_class": "hospederia", "rooms": "40"},
    )
    assert done.status_code == 200 and "$3,725.00" in done.text
    app.extensions["tid.engine"].dispose()


def test_the_owners_estimate_offers_the_classes_of_use_the_roll_has_and_refuses_others(
    client: FlaskClient, session: Session, demo: District
) -> None:
    address = f"/publico/distritos/{demo.id}/estimado"
    classes = sorted(
        {
            y.use_class
            for y in session.exec(select(PropertyYear).where(PropertyYear.district_id == demo.id))
            if y.use_class
        }
    )
    assert classes
    form = client.get(address).text
    select_ = re.search(r'<select id="f-use_class" name="use_class".*?</select>', form, re.S)
    assert select_, "the class of use is chosen from a list"
    offered = re.findall(r'<option value="([^"]+)"', select_.group(0))
    assert offered == classes
    refused = client.get(
        address, query_string={"assessed_value": "250,000.00", "use_class": "abc", "rooms": "1"}
    )
    assert 'href="#f-use_class"' in refused.text and "Yearly impost" not in refused.text
    assert "Contribución anual" not in refused.text
    assert re.search(r'id="f-use_class"[^>]*aria-invalid="true"', refused.text)


@contextmanager
def round_trips(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[str]]]:
    """What a request costs the database while the block runs: the statements sent (through
    any engine, and on the public pages' own connections), the connections the app's pool
    lent and pinged before lending them, and the transactions the request's session opened."""
    found: dict[str, list[str]] = {
        "statements": [],
        "pings": [],
        "transactions": [],
        "lent": [],
    }
    dialect = app.extensions["tid.engine"].dialect
    ping = dialect.do_ping

    def pinged(connection: object) -> bool:
        found["pings"].append("ping")
        return bool(ping(connection))

    def sent(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        found["statements"].append(statement)

    def opened(_session: object, _transaction: object) -> None:
        found["transactions"].append("transaction")

    def lent(*_args: object) -> None:
        found["lent"].append("connection")

    send = direct.DirectPool._send

    def sent_directly(pool: direct.DirectPool, sql: str, *args: Any, **kwargs: Any) -> Any:
        found["statements"].append(sql)
        return send(pool, sql, *args, **kwargs)

    monkeypatch.setattr(dialect, "do_ping", pinged)
    monkeypatch.setattr(direct.DirectPool, "_send", sent_directly)
    pool = app.extensions["tid.engine"].pool
    event.listen(Engine, "before_cursor_execute", sent)
    event.listen(OrmSession, "after_transaction_create", opened)
    event.listen(pool, "checkout", lent)
    try:
        yield found
    finally:
        event.remove(Engine, "before_cursor_execute", sent)
        event.remove(OrmSession, "after_transaction_create", opened)
        event.remove(pool, "checkout", lent)


@pytest.mark.both_databases
def test_a_kept_public_page_read_again_sends_one_statement(
    backend: str,
    app: Flask,
    client: FlaskClient,
    session: Session,
    demo: District,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read again with nothing written between, each public page asks the database for its
    version alone: one statement, on a connection not pinged first, in no transaction of the
    request's session — on PostgreSQL on the public pages' own connections, none lent by the
    app's pool; and it shows what it showed."""
    app.config["PUBLIC_RATE_LIMIT"] = 0  # the count of visits is a write of its own, per lease
    petition = session.exec(select(Petition.id).order_by(col(Petition.id))).first()
    pages = [
        "/publico",
        f"/publico/distritos/{demo.id}",
        f"/publico/distritos/{demo.id}/2025-26",
        f"/publico/municipios/{demo.municipality_id}",
        f"/publico/peticiones/{petition}",
        f"/publico/distritos/{demo.id}/estimado",
    ]
    for path in pages:
        first = client.get(path)
        assert first.status_code == 200, path
        with round_trips(app, monkeypatch) as cost:
            again = client.get(path)
        assert again.status_code == 200
        assert _without_token(again.text) == _without_token(first.text), path
        assert len(cost["statements"]) == 1, (path, cost["statements"])
        assert cost["pings"] == [], path
        assert cost["transactions"] == [], path
        if backend == "postgresql":
            assert cost["lent"] == [], path


def _without_token(page: str) -> str:
    return re.sub(r'name="csrf_token" value="[^"]*"', "", page)


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b == "postgresql"], indirect=True)
def test_a_public_page_reads_its_version_again_after_the_server_dropped_the_connections(
    app: Flask, client: FlaskClient, session: Session, demo: District
) -> None:
    """The version is read on a connection not pinged first: one the server has dropped
    (a restart, an idle timeout) fails the read, which is then tried on a fresh one."""
    app.config["PUBLIC_RATE_LIMIT"] = 0
    path = f"/publico/distritos/{demo.id}"
    first = client.get(path)
    assert first.status_code == 200
    dropped = session.execute(
        text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    ).scalar_one()
    session.commit()
    assert dropped >= 1
    again = client.get(path)
    assert again.status_code == 200
    assert _without_token(again.text) == _without_token(first.text)
