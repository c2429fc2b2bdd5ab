"""A signed-in page's heavy content — a page of the journal or of the payments, the
delinquency list, the statement's figures, the dashboard's, a property's liens — rendered
once per version of the district's figures and kept by each web worker, as the public pages'
content is (tid/web/public_fragments.py).

The district's version moves with every write to the tables its figures come from
(tid/services/public/versions.py ``WATCHED``), in the writing transaction, whoever writes
(any worker, a job, the command line); every request reads it (one indexed row), so a
payment, a reversal, an expenditure or a lien shows at the next request everywhere.

A content's key is everything else it depends on: the district, the page's address (its
path and arguments), the reader's language, the day in Puerto Rico (days late and ages count
from it), and what the access policy reads of the reader (their role, district and
municipality: what they may write or see); never the reader's name. Only a plain reading is
kept: a form sent (POST) or a page carrying a refused form's errors is rendered afresh. The
reader's own form token (CSRF) is never kept: a kept content holds a mark in its place, and
each request writes its own token there. The frame of the page (the menus, the reader's
name, the messages) is rendered for each request, outside the content."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from flask import g, has_request_context, request
from flask import session as web_session
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from tid.db import get_session
from tid.i18n import language
from tid.services.public import versions
from tid.web.access import VERSIONS_READ, me
from tid.web.util import today

T = TypeVar("T")

# Where the reader's form token stands in a kept content (random per process: no page's
# text can hold it by chance).
_TOKEN_MARK = f"tid-form-token-{secrets.token_hex(16)}"


def mark(name: str) -> str:
    """What a content holds in place of a value written per request (``fresh``)."""
    return f"{_TOKEN_MARK}-{name}"


# A value written per request: the value, or what makes it (made only where its mark is).
Fresh = Mapping[str, str | Callable[[], str]]


def kept_content(
    *,
    district_id: int,
    key: tuple[Any, ...],
    make: Callable[[], Markup],
    fresh: Fresh | None = None,
    version: object = None,
) -> Markup:
    """The content ``make`` renders for the district's current version and this reading
    (``key``: what else it depends on, beside the address, language, day and reader's
    access), computed once per version and worker. ``fresh``: values new on each request (a
    form's one-time token, a document's button with its job's progress), which ``make``
    writes as their :func:`mark`; one given as a function is made only where its mark is.
    ``version``: the
    version of what the content shows when it is not a district's figures (the register of
    petitions: ``district_id`` 0)."""
    fresh = fresh or {}
    if request.method != "GET" or web_session.get("field_errors"):
        return _written(make(), fresh)
    token = generate_csrf()

    def render() -> str:
        return str(make()).replace(token, _TOKEN_MARK)

    found = _kept(district_id, _reading("content", key), render, version)
    return _written(Markup(found), {**fresh, "": token})


def kept_figures(*, district_id: int, key: tuple[Any, ...], make: Callable[[], T]) -> T:
    """What ``make`` reads for the district's current version and this reading (as
    :func:`kept_content` keys it), read once per version and worker: figures a page shows
    beside a form of its own, never changed by the page (records read, not written)."""
    if request.method != "GET":
        return make()
    return _kept(district_id, _reading("figures", key), make)


def _version(district_id: int) -> int:
    """The district's version, read once a request: with the district itself
    (tid/web/access.py ``visible_district``), else here (a page keeping two contents reads it
    once: both are of the same version)."""
    read: dict[int, int] = g.setdefault(VERSIONS_READ, {})  # with the district, if it was
    if district_id not in read:
        read[district_id] = versions.version_of(session=get_session(), district_id=district_id)
    return read[district_id]


def kept_for_today(*, district_id: int, key: tuple[Any, ...], make: Callable[[], T]) -> T:
    """What ``make`` reads of the district's figures for today, whoever reads it (the fiscal
    year a page shows by default: the last one booked in), read once per version and worker;
    a form sent, or work outside a request (a document prepared ahead), reads it afresh."""
    if not has_request_context() or request.method != "GET":
        return make()
    return _kept(district_id, ("signed-in today", today(), *key), make)


def _kept(
    district_id: int, key: tuple[Any, ...], make: Callable[[], T], version: object = None
) -> T:
    """``make``'s result kept by this worker for ``key`` and the district's version (or
    ``version``, when what is kept is not a district's figures)."""
    return versions.kept(
        session=get_session(),
        district_id=district_id,
        key=key,
        make=make,
        version=_version(district_id) if version is None else version,
    )


def _reading(kind: str, key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Everything a signed-in page's content depends on beside the district's version."""
    reader = me()
    return (
        f"signed-in {kind}",
        request.endpoint,
        request.path,
        tuple(sorted(request.args.items(multi=True))),
        language(),
        today(),
        (reader.role, reader.district_id, reader.municipality_id),
        *key,
    )


def _written(content: Markup, fresh: Fresh) -> Markup:
    """``content`` with each value of ``fresh`` written in place of its mark (the reader's
    form token's under the name "")."""
    text = str(content)
    for name, value in sorted(fresh.items(), key=lambda item: item[0], reverse=True):
        where = mark(name) if name else _TOKEN_MARK  # "x-y" before "x"
        if where in text:
            text = text.replace(where, value() if callable(value) else value)
    return Markup(text)
