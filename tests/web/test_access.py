"""Every route, as every role and as an anonymous visitor, against the access table."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule

from tests.conftest import People, login
from tests.web.access_table import ACCESS, PUBLIC, SAMPLE_VALUES

# Every route as every role: each page's queries run on both databases.
pytestmark = pytest.mark.both_databases

ROLES = ["anonymous", "admin", "clerk", "association", "auditor"]


def _url(rule: Rule) -> str:
    values = {}
    for name in rule.arguments:
        converter = rule._converters[name].__class__.__name__
        values[name] = "1" if converter in {"IntegerConverter"} else SAMPLE_VALUES.get(name, "1")
    path = rule.build(values, append_unknown=False)
    assert path is not None
    return path[1]


def _method(rule: Rule) -> str:
    methods = rule.methods or {"GET"}
    return "GET" if "GET" in methods else sorted(methods - {"OPTIONS", "HEAD"})[0]


def test_every_route_is_in_the_table(app: Flask) -> None:
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    missing = sorted(endpoints - ACCESS.keys())
    assert not missing, f"routes missing from tests/web/access_table.py: {missing}"
    stale = sorted(ACCESS.keys() - endpoints)
    assert not stale, f"access table lists routes that no longer exist: {stale}"


@pytest.mark.parametrize("role", ROLES)
def test_every_route_as_every_role(
    app: Flask, client: FlaskClient, people: People, role: str
) -> None:
    if role != "anonymous":
        login(client, people.by_role(role))
    failures = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in ("auth.logout", "auth.end_all_sessions", "auth.end_session"):
            continue  # these would end this loop's login; they have their own tests
        allowed = ACCESS[rule.endpoint]
        url = _url(rule)
        method = _method(rule)
        response = client.open(url, method=method)
        status = response.status_code
        may = allowed == PUBLIC or (role != "anonymous" and role in allowed)
        if may:
            if status in (401, 403) or (status == 302 and "/login" in response.location):
                failures.append(f"{method} {url} as {role}: {status}, expected access")
        elif role == "anonymous":
            is_login = status == 302 and "/login" in (response.location or "")
            if not (is_login or status == 401):
                failures.append(f"{method} {url} as anonymous: {status}, expected login")
        elif status != 403:
            failures.append(f"{method} {url} as {role}: {status}, expected 403")
        assert status != 500, f"{method} {url} as {role} gave 500"
    assert not failures, "\n".join(failures)
