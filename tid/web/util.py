"""Small helpers shared by the blueprints."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flask import Response, g, url_for
from markupsafe import Markup, escape

from tid.app_reader import today as today
from tid.documents.base import Document
from tid.models import Job


def send(document: Document, *, inline: bool = False) -> Response:
    """A document of record as the response: shown in the browser (``inline``) or
    downloaded under its file name."""
    disposition = "inline" if inline else "attachment"
    return Response(
        document.data,
        mimetype=document.media_type,
        headers={"Content-Disposition": f'{disposition}; filename="{document.filename}"'},
    )


# A number no route is ever built with: where it lands in a built URL, a row's id goes.
_MARKER = 987_654_321_987_654


def url_pattern(endpoint: str, key: str, **values: Any) -> Callable[[int], str]:
    """``url_for(endpoint, **{key: n}, **values)`` for the many ``n`` of a table's rows: the
    URL is built once and each row's id put in its place (a long page has a link or a form
    on every row, and building each costs more than the rest of its row)."""
    built = url_for(endpoint, **{key: _MARKER, **values})
    head, found, tail = built.partition(str(_MARKER))
    if not found:
        raise ValueError(f"{endpoint}: {key} is not part of its URL")
    return lambda n: f"{head}{int(n)}{tail}"


def svg_attributes(attrs: Mapping[str, object]) -> Markup:
    """A chart's shape's attributes, `` name="value"`` each, escaped as the template would
    write them one by one (a chart has hundreds of them)."""
    return Markup("".join([f' {escape(k)}="{escape(v)}"' for k, v in attrs.items()]))


def look_up_latest_jobs(targets: Sequence[str], kind: str) -> None:
    """Read at once the latest jobs of ``kind`` on a page's ``targets`` (its document
    buttons), for the buttons to find (``tid.web.jobs.shown``) instead of asking once each."""
    from tid.db import get_session
    from tid.jobs import background_jobs as jobs

    found = jobs.latest_of(session=get_session(), targets=targets, kind=kind) if targets else {}
    latest_jobs_looked_up().update({(target, kind): found.get(target) for target in targets})


def latest_jobs_looked_up() -> dict[tuple[str, str], Job | None]:
    """The request's jobs read by :func:`look_up_latest_jobs`, by target and kind."""
    looked_up: dict[tuple[str, str], Job | None] = g.setdefault("tid_latest_jobs", {})
    return looked_up
