"""Every form's required fields, left empty: each line of the error summary names the field
it links to by that field's own label on the page (never a field of another form that shares
its name), the field is there and marked invalid; a row's form in a list comes back at its
row, the row's field marked. The demo is loaded and each demo role (and an anonymous visitor)
walks every page it may reach (tests/web/access_table.py), sending each form that has a
required field with that field empty."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import BACKENDS, login, make_test_app
from tests.web.access_table import ACCESS, PUBLIC
from tests.web.test_pseudo_locale import NOT_WALKED, ROLES, _samples
from tid.demo import DEMO_PASSWORD
from tid.models import User
from tid.rules import calculators


class _Forms(HTMLParser):
    """The page's POST forms: their action and their fields (name, type, value, required)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[dict[str, Any]] = []
        self._form: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = None
            if a.get("method", "get").lower() == "post":
                self._form = {"action": a.get("action", ""), "fields": []}
                self.forms.append(self._form)
        elif self._form is not None and tag in ("input", "textarea", "select") and "name" in a:
            kind = a.get("type", "text") if tag == "input" else tag
            self._form["fields"].append((a["name"], kind, a.get("value", ""), "required" in a))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def _label_of(page: str, ident: str) -> str | None:
    """How the page names the element ``ident``: its label, its aria-label, its legend."""
    label = re.search(rf'<label[^>]*for="{re.escape(ident)}"[^>]*>(.*?)</label>', page, re.S)
    aria = re.search(rf'id="{re.escape(ident)}"[^>]*aria-label="([^"]*)"', page)
    legend = re.search(
        rf'<fieldset[^>]*id="{re.escape(ident)}"[^>]*>\s*<legend[^>]*>(.*?)</legend>', page, re.S
    )
    for found in (label, aria, legend):
        if found:
            shown = re.sub(r'<(\w+) class="hint"[^>]*>.*?</\1>', " ", found.group(1), flags=re.S)
            words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", shown)).split())
            if words.rstrip(" *:"):
                return words.rstrip(" *:")
    return None


def _summary_lines(page: str) -> list[tuple[str, str]]:
    summary = re.search(r"<div[^>]*data-error-summary.*?</div>", page, re.S)
    assert summary, "no error summary"
    return [
        (target, " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split()))
        for target, text in re.findall(r'<a href="#([^"]+)">(.*?)</a>', summary.group(0), re.S)
    ]


def _check_summary(page: str, where: str) -> int:
    """Each summary line starts with its field's label; the field is there, marked invalid.
    The number of lines checked."""
    lines = _summary_lines(page)
    for target, text in lines:
        assert re.search(rf'id="{re.escape(target)}"', page), (where, target, "no such field")
        name = _label_of(page, target)
        if name is None:  # a table of rows (the calculators'): its caption or heading says it
            continue
        # the label as the field shows it, then the message (never the label's hint)
        assert text.lower().startswith(f"{name.lower()}:"), (where, target, name, text)
        assert re.search(rf'id="{re.escape(target)}"[^>]*aria-invalid="true"', page) or (
            re.search(rf'<[^>]*aria-invalid="true"[^>]*id="{re.escape(target)}"', page)
        ), (where, target, "not marked")
    return len(lines)


def _check_row(client: FlaskClient, location: str, where: str) -> bool:
    """A row's form sent back to its list: the page opens at the row, its field marked."""
    field = urlsplit(location).fragment
    if not field:
        return False
    page = client.get(location).get_data(as_text=True)
    assert re.search(rf'id="{re.escape(field)}"[^>]*aria-invalid="true"', page), (where, field)
    assert f'id="e-{field}"' in page, (where, field)
    return True


def _send_empty(client: FlaskClient, url: str, form: dict[str, Any]) -> tuple[int, int]:
    """The form sent with its required fields empty (hidden ones as the page gave them):
    (summary lines checked, rows checked)."""
    data = {
        name: (value if kind == "hidden" else "")
        for name, kind, value, _required in form["fields"]
        if kind not in ("submit", "button", "file", "checkbox", "radio")
    }
    action = form["action"] or url
    response = client.post(action, data=data)
    where = f"{url} → {action}"
    assert response.status_code < 500, where
    if response.status_code in (302, 303):
        return 0, int(_check_row(client, response.location, where))
    page = response.get_data(as_text=True)
    if response.status_code == 422 and "data-error-summary" in page:
        return _check_summary(page, where), 0
    return 0, 0


def _pages(app: Flask, role: str, values: dict[str, str]) -> Iterator[str]:
    for rule in app.url_map.iter_rules():
        access = ACCESS[rule.endpoint]
        if "GET" not in (rule.methods or ()) or rule.endpoint in NOT_WALKED:
            continue
        if not (access == PUBLIC or (role != PUBLIC and role in access)):
            continue
        if rule.endpoint.endswith(("_pdf", "_csv", "print", "manifest", "certificate")):
            continue
        if rule.endpoint == "calc.form":
            yield from (f"/calc/{name}" for name in calculators.FORMS)
            continue
        args = {name: values[name] for name in rule.arguments if name in values}
        if set(args) == set(rule.arguments):
            yield rule.build(args, append_unknown=False)[1]


@pytest.fixture(params=[b for b in BACKENDS if b == "sqlite"] or BACKENDS[:1])
def backend(request: pytest.FixtureRequest) -> str:
    """An empty required field is refused before anything is written or read back, and what
    the page says of it no database changes: one backend (SQLite when tested), as the
    language crawl (tests/web/test_crawl.py)."""
    return str(request.param)


@pytest.fixture
def demo_app(demo_loaded: str, tmp_path: Path) -> Iterator[Flask]:
    app = make_test_app(demo_loaded, tmp_path)
    yield app
    app.extensions["tid.engine"].dispose()


def test_every_forms_empty_required_field_is_named_by_its_own_label(demo_app: Flask) -> None:
    app = demo_app
    with Session(app.extensions["tid.engine"]) as session:
        users = {
            role: session.exec(select(User).where(User.email == email)).one()
            for role, email in ROLES.items()
        }
        samples = {role: _samples(session, user) for role, user in users.items()}
        samples[PUBLIC] = _samples(session, None)
    lines = rows = forms = 0
    for role in (PUBLIC, *ROLES):
        client = app.test_client()
        if role != PUBLIC:
            login(client, ROLES[role], DEMO_PASSWORD)
        for url in _pages(app, role, samples[role]):
            response = client.get(url)
            if response.status_code != 200 or response.mimetype != "text/html":
                continue
            parser = _Forms()
            parser.feed(response.get_data(as_text=True))
            for form in parser.forms:
                if not any(required for *_rest, required in form["fields"]):
                    continue
                if form["action"] in ("/logout", "/login") and role != PUBLIC:
                    continue
                forms += 1
                checked, row = _send_empty(client, url, form)
                lines, rows = lines + checked, rows + row
    # the walk reached the forms it is about: many summaries, and rows of lists
    assert forms > 40 and lines > 60 and rows >= 2, (forms, lines, rows)
