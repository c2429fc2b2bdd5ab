"""Every route of the app, with hostile values in its path, its query and its form, on both
databases: the answer is never a server error (5xx).

Table-driven: the routes come from ``app.url_map`` (each ``<int:…>`` gets whole numbers up to
and past 2**63, every other variable text), the query parameters and form fields from the
tables below (every name a page or form of the app reads). Known reproductions are replayed
first, then Hypothesis draws a few requests per route.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlmodel import Session
from werkzeug.routing import IntegerConverter, Rule

from tests.conftest import People, examples, login
from tests.services.ledger_support import ACTOR, Scaffold
from tid.services import ledger
from tid.services.account import payments

# Hostile values meet each database's own types and limits (an integer past 64 bits).
pytestmark = pytest.mark.both_databases

# Every query parameter a page reads.
QUERY = (
    "page",
    "q",
    "fy",
    "booked_by",
    "part",
    "sale_price",
    "cadastral",
    "municipality",
    "state",
    "category",
    "notice_number",
    "fiscal_year",
    "next",
    "n",
    "lang",
    "status",
)
# Every form field a form of the app sends.
FORM = (
    "date",
    "amount",
    "reference",
    "notice_number",
    "cadastral_number",
    "token",
    "payee",
    "description",
    "category",
    "as_of",
    "balance",
    "note",
    "kind",
    "holder",
    "constituted_on",
    "surcharge_rate",
    "annual_interest_rate",
    "ordinance_reference",
    "name",
    "active",
    "reason",
    "back",
    "fiscal_year",
    "due_date",
    "email",
    "password",
    "role",
    "municipality",
    "district",
    "locale",
    "number",
    "code",
    "article_number",
    "mailed_on",
    "postage",
    "certified_fee",
    "new_address",
    "on",
    "notes",
    "newspaper",
    "confirm",
    "factor",
    "favourable",
    "grounds",
    "unlock",
    "district_name",
    "received_on",
    "petitioner",
    "return_receipt",
    "return_receipt_fee",
    "field",
    "value",
    "formula",
    "properties-0-id",
    "properties-0-assessed_value",
    "title",
    "dated_on",
    "step",
    "public",
    "replaces",
    "action",
    "sent_by",
    "withdraw_reason",
)
# Values found to break something once, and their kin.
HOSTILE = (
    "²",
    "¹²",
    "٥",
    "５",
    "5 000",
    "-1",
    "0",
    "",
    str(2**63),
    str(2**63 - 1),
    str(2**64 + 5),
    "9" * 40,
    "9999-00",
    "0000-01",
    "0001-02",
    "9998-99",
    "9999-12-31",
    "0001-01-01",
    "2026-02-30",
    "2025-13-01",
    "2026-00-10",
    "٢٠٢٦-٠٢-٠١",
    "١٢",
    "\x00",
    "a\x00b",
    "999999999999999.99",
    "-999999999999999.99",
    "1e400",
    "NaN",
    "=cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "' OR 1=1 --",
    "%_\\",
    "../../etc/passwd",
    "//evil.example",
    "x" * 600,
)
text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30))
whole = st.one_of(
    st.sampled_from([0, 1, 2, 3, 2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64, 10**30]),
    st.integers(min_value=0, max_value=10**25),
)
# Documents take long to render; fewer draws for them.
SLOW = ("pdf", "print", "manifest", "certificate", "calendar_feed")
EXAMPLES = 5
SLOW_EXAMPLES = 2


def _methods(rule: Rule) -> list[str]:
    return sorted((rule.methods or {"GET"}) - {"HEAD", "OPTIONS"})


def _routes(app: Flask) -> list[Rule]:
    return [r for r in app.url_map.iter_rules() if r.endpoint not in ("static", "auth.logout")]


def _path_values(rule: Rule) -> st.SearchStrategy[dict[str, Any]]:
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for name in rule.arguments:
        converter = rule._converters[name]
        if isinstance(converter, IntegerConverter):
            parts[name] = whole
        else:
            # A NUL is tried in every text segment, beside the hostile values and any text.
            parts[name] = st.one_of(
                st.sampled_from(["\x00", "\x00.pdf", "x\x00"]),
                text.filter(lambda v: v and "/" not in v),
            )
    return st.fixed_dictionaries(parts)


def _seed(session: Session, people: People) -> None:
    """A district with a bill, a payment and an expenditure, so pages have rows to show."""
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-01", owner='=HYPERLINK("http://x")')
    bill = s.bill(prop, "1000.00")
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("400.00"),
        today=date(2025, 8, 2),
        key="fuzz-seed",
        notice_number=str(bill.id),
    )
    session.commit()


def _check(client: FlaskClient, method: str, url: str, query: dict[str, str], form: Any) -> None:
    if method == "GET":
        response = client.get(url, query_string=query)
    else:
        response = client.open(url, method=method, query_string=query, data=form)
    if url == "/readyz" and response.status_code == 503:
        # Its meaning: not ready (here no worker has said it is alive), as JSON, not a crash.
        assert response.get_json()["status"] == "not ready"
        return
    assert response.status_code < 500, f"{method} {url} {query} {form}: {response.status_code}"


def _request_for(rule: Rule, method: str) -> Callable[..., None]:
    def build(client: FlaskClient) -> Callable[..., None]:
        @given(
            path=_path_values(rule),
            query=st.dictionaries(st.sampled_from(QUERY), text, max_size=4),
            form=st.dictionaries(st.sampled_from(FORM), text, max_size=8),
        )
        def attempt(path: dict[str, Any], query: dict[str, str], form: dict[str, str]) -> None:
            url = rule.build(path, append_unknown=False)
            assert url is not None
            _check(client, method, url[1], query if method == "GET" else {}, form)

        return attempt

    return build


def test_no_route_answers_a_server_error(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    _seed(session, people)
    login(client, people.admin)
    for rule in _routes(app):
        slow = any(word in rule.endpoint for word in SLOW)
        for method in _methods(rule):
            attempt = _request_for(rule, method)(client)
            settings(max_examples=examples(SLOW_EXAMPLES) if slow else EXAMPLES, database=None)(
                attempt
            )()


@pytest.mark.parametrize(
    "url",
    [
        "/roll/{d}/years/2026-27?page=²",
        "/roll/{d}/years/2026-27?page=٥",
        "/petitions/?municipality=²",
        "/account/{d}/payments?fy=9999-00",
        "/account/{d}/statement?fy=0000-01",
        "/account/{d}/journal?fy=9998-99",
        "/account/{d}/statement?booked_by=9999-12-31",
        "/account/{d}/statement.csv?booked_by=9999-12-31&part=journal",
        "/account/9223372036854775808",
        "/account/{d}/properties/18446744073709551616/liens",
        "/notices/batches/9223372036854775808",
        "/account/{d}/delinquency?page=%C2%B2",
        "/portal/notices/%00.pdf",
        "/audit/%00/%00",
        "/roll/{d}/import/%00",
    ],
)
def test_the_reproductions_are_answered(
    client: FlaskClient, session: Session, people: People, url: str
) -> None:
    _seed(session, people)
    login(client, people.admin)
    response = client.get(url.format(d=people.district.id))
    assert response.status_code in (200, 302, 404), (url, response.status_code)


@pytest.mark.parametrize("value", ["2026-02-30", "2025-13-01", "٢٠٢٦-٠٢-٠١"])
@pytest.mark.parametrize("field", ["formula", "properties-0-id"])
def test_an_impossible_date_typed_as_a_calculators_text_is_no_error(
    client: FlaskClient, session: Session, value: str, field: str
) -> None:
    """Text shaped like a date is shown as typed, on the result page and in its documents."""
    form = {"formula": "0.01 * assessed_value", "properties-0-id": "p1"}
    form |= {"properties-0-assessed_value": "1000.00", field: value}
    page = client.post("/calc/impost", data=form)
    assert page.status_code in (200, 422), page.status_code
    if page.status_code == 200:
        assert value in page.get_data(as_text=True)
        document = '{"formula": "0.01 * assessed_value", "properties": [{"id": "%s", '
        document += '"assessed_value": "1000.00"}]}'
        for kind in ("csv", "pdf"):
            sent = client.post(f"/calc/impost/{kind}", data={"document": document % value})
            assert sent.status_code == 200, (kind, sent.status_code)
