"""Nothing of an owner leaves through a page without a login: with the demo loaded (and every
fiscal year published), every page, feed, file and API answer reachable from the public
pages without signing in is fetched, and none may hold an owner's name, a mailing address,
a notice number, an access code (or its hash), or a user's name or email — all read from the
demo's own database. English pages too."""

from __future__ import annotations

import io
import re
import zipfile
from collections import deque
from html.parser import HTMLParser
from urllib.parse import urldefrag, urlsplit

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tid.demo import portal_sample
from tid.models import District, Notice, PropertyYear, User
from tid.services.audit_trail.audit import Actor
from tid.services.public import district_figures, publishing

STARTS = ("/", "/publico", "/api/v1/public", "/api/v1/openapi.json")
# Addresses a crawl does not follow: the sign-in and the portal's forms hold nothing of
# anyone until a code is given, the static files nothing at all.
SKIP = ("/static/", "/login", "/lang/", "/portal", "/forgot", "/calc")
MOST = 600


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "action") and value:
                self.found.append(value)


# An address in a JSON answer, a feed or a data package's descriptor.
ADDRESS = re.compile(r"(?:http://localhost)?(/(?:publico|api/v1)[^\"\s<>]*)")


def _links(body: str, mimetype: str) -> list[str]:
    if mimetype == "text/html":
        parser = _Links()
        parser.feed(body)
        return parser.found
    if mimetype in ("application/json", "application/atom+xml"):
        return ADDRESS.findall(body)
    return []


def _secrets(session: Session, instance_path: str) -> set[str]:
    found: set[str] = set()
    for row in session.exec(select(PropertyYear)):
        found.update(name.strip() for name in row.owner_names.split(";"))
        found.update([row.mailing_line1, row.mailing_line2, row.mailing_urbanization])
    for notice in session.exec(select(Notice)):
        found.update([notice.number, notice.public_id, notice.access_code_hash])
        found.update(name.strip() for name in notice.owner_name.split(";"))
        found.update(notice.mailing_address.splitlines())
    for user in session.exec(select(User)):
        found.update([user.name, user.email])
    sample = portal_sample(instance_path)
    if sample is not None:
        number, code = sample
        found.update([number, code, code.replace("-", "")])
    return {s.strip() for s in found if s and len(s.strip()) >= 8}


def _bodies(response_data: bytes, mimetype: str) -> list[str]:
    if mimetype == "application/zip":
        with zipfile.ZipFile(io.BytesIO(response_data)) as archive:
            return [archive.read(n).decode("utf-8", "replace") for n in archive.namelist()]
    return [response_data.decode("utf-8", "replace")]


def _crawl(client: FlaskClient) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    queue = deque(STARTS)
    while queue and len(seen) < MOST:
        url = urldefrag(queue.popleft())[0]
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if path in seen or any(parts.path.startswith(s) for s in SKIP):
            continue
        response = client.get(path)
        if response.status_code != 200:
            seen[path] = []
            continue
        bodies = _bodies(response.data, response.mimetype)
        seen[path] = bodies
        for body in bodies:
            queue.extend(_links(body, response.mimetype))
    return seen


def test_no_public_page_feed_or_file_shows_anything_of_an_owner(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    for district in session.exec(select(District)).all():
        for fy in district_figures.fiscal_years(session=session, district_id=district.id or 0):
            publishing.choose(
                session=session, actor=Actor("t"), district=district, fy=fy, published=True
            )
    session.commit()
    secrets = _secrets(session, app.instance_path)
    assert len(secrets) > 50  # the demo's owners, addresses, notices and users
    pages = _crawl(client)
    client.post("/lang/en", data={"next": "/publico"})
    english = _crawl(client)
    fetched = [p for p, bodies in pages.items() if bodies]
    assert any(p.startswith("/publico/distritos/") for p in fetched)
    assert any(p.startswith("/publico/peticiones/") for p in fetched)
    assert any(p.endswith(".atom") for p in fetched) and any(p.endswith(".ics") for p in fetched)
    leaks = [
        (path, secret)
        for crawl in (pages, english)
        for path, bodies in crawl.items()
        for body in bodies
        for secret in secrets
        if secret.casefold() in body.casefold()
    ]
    assert leaks == []
