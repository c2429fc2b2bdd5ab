"""A document of record as bytes, and what every family of documents shares: the district
asked for, and the :class:`Reader` the caller passes in (the reader's language, today's date
and the templates that speak that language). Nothing here knows the web framework: a page, a
job or the command line makes the reader (:func:`tid.app_reader.reader` inside the app)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from sqlmodel import Session

from tid.models import District
from tid.render.pdf import render_pdf, shelved_pdf
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message, render

PDF = "application/pdf"
CSV = "text/csv"

NO_DISTRICT = N_("There is no such district.")


@dataclass(frozen=True)
class Document:
    """What the app issues: the bytes, their media type and the file's name."""

    data: bytes
    media_type: str
    filename: str

    @property
    def is_pdf(self) -> bool:
        return self.media_type == PDF


@dataclass(frozen=True)
class Reader:
    """Whom a document is written for: their language (``es`` or ``en``), today's date in
    Puerto Rico (or the configuration's fixed day), ``render``, which renders a template
    of ``templates/`` with its values in that language (markup), and ``speaking``, a block in
    which the services' own words (a spreadsheet's columns, a message rendered without a
    language) come out in that language. The documents prepared before anyone asks
    (:meth:`shelved_pdf`) are read from ``shelf`` (:class:`tid.render.pdf.Shelf`)."""

    locale: str
    today: date
    render: Callable[..., str]
    speaking: Callable[[], AbstractContextManager[object]] = nullcontext
    base_url: str = ""  # where the app is served: a document's QR code and links point there
    shelf: Path | None = None  # the installation's folder of PDFs already laid out

    def say(self, msgid: str) -> str:
        """A msgid (``N_("…")``) in the reader's language."""
        return render(Message(msgid), self.locale)

    def pdf(self, template_name: str, /, **context: Any) -> bytes:
        """The PDF of ``template_name`` rendered with ``context`` in the reader's language."""
        return render_pdf(self.render, template_name, **context)

    def shelved_pdf(
        self, name: Callable[[], str], template_name: str, context: Callable[[], dict[str, Any]]
    ) -> bytes:
        """One of the documents prepared before they are asked for, read from (and kept on)
        the reader's shelf by its name — ``name()``, what its figures depend on, with the
        reader's language, day and address — without rendering it when it is there; else the
        PDF of ``template_name`` rendered with ``context()``
        (:func:`tid.render.pdf.shelved_pdf`)."""

        def named() -> str:
            return f"{name()}\x00{self.locale}\x00{self.today.isoformat()}\x00{self.base_url}"

        def html() -> str:
            return self.render(template_name, **context())

        return shelved_pdf(named, html, shelf=self.shelf)


def district_of(session: Session, district_id: int) -> District:
    district = session.get(District, district_id)
    if district is None:
        raise InputError("district", NO_DISTRICT)
    return district
