"""A document of record as bytes, and what every family of documents shares: the district
asked for, today's date, the reader's language."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date

from flask import current_app
from flask_babel import force_locale
from sqlmodel import Session

from tid import clock
from tid.models import District
from tid.rules.errors import N_, InputError

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


def today() -> date:
    """Today in Puerto Rico, or the configuration's fixed ``TODAY`` (inside an app context)."""
    return clock.today(current_app.config)


def district_of(session: Session, district_id: int) -> District:
    district = session.get(District, district_id)
    if district is None:
        raise InputError("district", NO_DISTRICT)
    return district


@contextmanager
def in_language(locale: str) -> Iterator[None]:
    """Render in ``locale`` (a page's language, or the one the command line or a job asks
    for): inside a request or an app context alike."""
    with force_locale(locale):
        yield
