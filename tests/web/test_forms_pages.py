"""Every page the demo's roles reach (found by following the links from the home page): no form
leaves validation to the browser (whose messages speak the browser's language, not the
page's), every required field says so to assistive technology, no date hint contradicts the
browser's date picker, and the pages load the forms script from static/."""

from __future__ import annotations

import re
from collections import deque
from urllib.parse import urlsplit

import pytest
from flask import Flask

from tests.conftest import BACKENDS, login
from tid.demo import DEMO_PASSWORD


@pytest.fixture(params=[b for b in BACKENDS if b == "sqlite"] or BACKENDS[:1])
def backend(request: pytest.FixtureRequest) -> str:
    """The walk reads the forms' markup, which no database changes: one backend (SQLite
    when it is tested)."""
    return str(request.param)


ROLES = (
    "secretaria@demo.tid.pr",
    "asociacion@demo.tid.pr",
    "asociacion.condado@demo.tid.pr",
    "auditor@demo.tid.pr",
    "admin@demo.tid.pr",
)
SKIP = re.compile(r"^/(static|logout|lang)/|\.(pdf|csv|ics|json)$|/logout$")
MAX_PAGES_PER_ROLE = 120


def _shape(path: str, query: str) -> str:
    """One page per kind: /account/3/journal?page=2 and /account/4/journal?page=9 are alike."""
    keys = sorted({part.split("=")[0] for part in query.split("&") if part})
    return re.sub(r"\d+", "N", path) + "?" + "&".join(keys)


def _problems(url: str, body: str) -> list[str]:
    found = []
    for form in re.findall(r"<form\b[^>]*>", body):
        if "novalidate" not in form:
            found.append(f"{url}: a form without novalidate: {form}")
    for tag in re.findall(r"<(?:input|select|textarea)\b[^>]*>", body):
        if re.search(r"\srequired(\s|>|=)", tag) and 'aria-required="true"' not in tag:
            found.append(f"{url}: required without aria-required: {tag}")
    for hint in ("AAAA-MM-DD", "YYYY-MM-DD"):
        if hint in body:
            found.append(f"{url}: a date hint {hint!r} beside the date picker")
    if "<form" in body and 'src="/static/forms.js"' not in body:
        found.append(f"{url}: forms without the forms script")
    return found


def test_every_form_the_demo_roles_reach_is_validated_by_the_page(
    app: Flask, demo_loaded: str
) -> None:
    problems: list[str] = []
    visited_total = 0
    forms_seen = 0
    for email in ROLES:
        client = app.test_client()
        login(client, email, DEMO_PASSWORD)
        queue = deque(["/"])
        seen: set[str] = set()
        pages = 0
        while queue and pages < MAX_PAGES_PER_ROLE:
            url = queue.popleft()
            parts = urlsplit(url)
            shape = _shape(parts.path, parts.query)
            if shape in seen or SKIP.search(parts.path):
                continue
            seen.add(shape)
            response = client.get(url)
            if response.status_code != 200 or response.mimetype != "text/html":
                continue
            pages += 1
            body = response.get_data(as_text=True)
            forms_seen += body.count("<form")
            problems.extend(_problems(url, body))
            for href in re.findall(r'href="(/[^"#]*)"', body):
                queue.append(href.replace("&amp;", "&"))
        visited_total += pages
    assert visited_total > 60, visited_total  # the walk really went through the app
    assert forms_seen > 100, forms_seen
    assert not problems, "\n".join(problems[:40])
