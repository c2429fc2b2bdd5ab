"""The reader of a document as the app knows them: the :class:`~tid.documents.base.Reader`
that the pages, the jobs and the command line pass to the documents, made from the app's
configuration (its ``TODAY``), Flask-Babel (the language) and Flask's templates, with the
installation's shelf of PDFs already laid out.

``today``, ``in_language`` and ``render_pdf`` serve the pages and the calculators' documents
(tid/documents/calc_reports.py, tid/documents/calc_text.py) that still read the app
themselves. Call all of these inside an app context."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import current_app, render_template
from flask_babel import force_locale

from tid import clock
from tid.render import pdf

if TYPE_CHECKING:
    from tid.documents.base import Reader


def today() -> date:
    """Today in Puerto Rico, or the configuration's fixed ``TODAY``."""
    return clock.today(current_app.config)


@contextmanager
def in_language(locale: str) -> Iterator[None]:
    """Render in ``locale`` (a page's language, or the one the command line or a job asks
    for): inside a request or an app context alike."""
    with force_locale(locale):
        yield


def reader(locale: str) -> Reader:
    """The reader of ``locale``: today as the app dates it, and the app's templates rendered
    in that language."""
    from tid.documents import base  # on use: the documents still import this module

    def render(template_name: str, /, **context: Any) -> str:
        with force_locale(locale):
            return render_template(template_name, **context)

    base_url = str(current_app.config.get("BASE_URL") or "").rstrip("/")
    return base.Reader(
        locale=locale,
        today=today(),
        render=render,
        speaking=lambda: force_locale(locale),
        base_url=base_url,
        shelf=shelf(),
    )


def shelf() -> Path:
    """The installation's PDFs already laid out, shared by its workers and jobs
    (``instance/prepared``; :class:`tid.render.pdf.Shelf`)."""
    return Path(current_app.instance_path) / "prepared"


def render_pdf(template_name: str, /, **context: Any) -> bytes:
    """The PDF of one of the app's templates, in the language in force."""
    return pdf.render_pdf(render_template, template_name, **context)
