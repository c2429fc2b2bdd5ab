"""A run's PS Form 3877 as a document: once mailed, the archived one; before, a draft kept on
the reader's shelf by what it shows (the run's rows, fees, language), found there without a
layout, and another draft once any of it changes."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.notice_support import article, issue_notices, make_ordinance, make_run
from tid.documents import notices as notice_documents
from tid.documents.base import Reader
from tid.render import manifest as manifest_render
from tid.render import pdf
from tid.rules.errors import InputError
from tid.services import notices
from tid.services.audit_trail import audit


def _reader(locale: str, shelf: Path | None) -> Reader:
    def render(template_name: str, /, **context: Any) -> str:
        raise AssertionError("the manifest draws its own form")

    return Reader(locale=locale, today=date(2026, 1, 21), render=render, shelf=shelf)


def test_a_draft_manifest_is_kept_by_what_it_shows(
    session: Session, people: People, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))
    layouts: list[int] = []
    real = manifest_render.render_manifest

    def counted(*args: Any, **kwargs: Any) -> bytes:
        layouts.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(manifest_render, "render_manifest", counted)
    ordinance = make_ordinance(session, people.district)
    batch, found = issue_notices(session, make_run(session, people.district, ordinance))
    for i, notice in enumerate(found):
        notices.set_article_number(
            session=session, actor=audit.SYSTEM, notice_id=notice.id or 0, article_number=article(i)
        )
    session.commit()
    shelf, run = tmp_path / "prepared", batch.id or 0
    spanish = _reader("es", shelf)
    assert notice_documents.prepared_manifest(session, batch=run, reader=spanish) is None
    steps: list[tuple[int, int]] = []
    made = notice_documents.manifest_pdf(
        session, batch=run, reader=spanish, progress=lambda d, t: steps.append((d, t))
    )
    assert steps == [(1, 3), (2, 3), (3, 3)] and len(layouts) == 1
    assert made.filename == f"ps3877-{run}.pdf" and made.data.startswith(b"%PDF")
    # Found by a worker that never made it (nothing in its memory): read from the shelf.
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))
    again = notice_documents.prepared_manifest(session, batch=run, reader=spanish)
    assert again is not None and again.data == made.data and len(layouts) == 1
    # Another language, or another article number: not this one.
    assert (
        notice_documents.prepared_manifest(session, batch=run, reader=_reader("en", shelf)) is None
    )
    key = notice_documents.find_manifest(session, batch=run, reader=spanish)[1]
    notices.set_article_number(
        session=session, actor=audit.SYSTEM, notice_id=found[0].id or 0, article_number=article(99)
    )
    session.commit()
    assert notice_documents.prepared_manifest(session, batch=run, reader=spanish) is None
    assert notice_documents.find_manifest(session, batch=run, reader=spanish)[1] != key
    # Without a shelf (the command line's reader), it is laid out and kept nowhere.
    bare = notice_documents.manifest_pdf(session, batch=run, reader=_reader("es", None))
    assert bare.data.startswith(b"%PDF") and len(layouts) == 2
    # Another district's run is no run of this district.
    with pytest.raises(InputError):
        notice_documents.prepared_manifest(
            session, batch=run, reader=spanish, district=people.other_district.id
        )
