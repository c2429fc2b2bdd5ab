"""The notices' documents of record, exactly as archived when they were issued: a run's
print file (every notice of the run), one notice as mailed, and the run's PS Form 3877
manifest (a draft with the run's postage and fees until the run is mailed)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from sqlmodel import Session, select

from tid.documents.base import PDF, Document, Reader
from tid.models import Notice, NoticeBatch
from tid.render.pdf import found_named, keep_named
from tid.rules.errors import N_, InputError
from tid.services import notices as notice_service

NO_BATCH = N_("There is no such notice run.")
NO_NOTICE = N_("There is no such notice.")
NOT_READY = N_("This notice run's print file is not ready yet.")


def batch_of(session: Session, batch: int, district: int | None = None) -> NoticeBatch:
    found = session.get(NoticeBatch, batch)
    if found is None or (district is not None and found.district_id != district):
        raise InputError("batch", NO_BATCH)
    return found


def notice_of(session: Session, notice: str, district: int | None = None) -> Notice:
    """A notice by its number (``2026-000008``) or its id."""
    found = session.exec(select(Notice).where(Notice.number == notice.strip())).first()
    if found is None and notice.strip().isdigit() and len(notice.strip()) < 10:
        found = session.get(Notice, int(notice.strip()))
    if found is None or (district is not None and found.district_id != district):
        raise InputError("notice", NO_NOTICE)
    return found


def print_file(
    session: Session, *, batch: int, reader: Reader, district: int | None = None
) -> Document:
    """Every notice of a run in one PDF, for the printer (as archived; both languages)."""
    run = batch_of(session, batch, district)
    if not run.print_sha256:
        raise InputError("batch", NOT_READY)
    data = notice_service.archived_bytes(session=session, sha256=run.print_sha256)
    return Document(data, PDF, f"avisos-{run.id}.pdf")


def notice_pdf(
    session: Session, *, notice: str, reader: Reader, district: int | None = None
) -> Document:
    """One notice exactly as mailed (as archived; both languages)."""
    found = notice_of(session, notice, district)
    return Document(
        notice_service.notice_pdf_bytes(session=session, notice=found),
        PDF,
        f"aviso-{found.number}.pdf",
    )


def manifest_pdf(
    session: Session,
    *,
    batch: int,
    reader: Reader,
    district: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Document:
    """The run's PS Form 3877 (the form is the Postal Service's, in English; our words on it
    in the reader's language): the archived one once mailed; else its draft, as kept on the
    reader's shelf for the run as it stands (:func:`prepared_manifest`) or laid out now and
    kept there. ``progress(done, of)``: its figures read, laid out, kept."""
    run = batch_of(session, batch, district)
    if run.manifest_sha256:
        return _manifest(
            run, notice_service.archived_bytes(session=session, sha256=run.manifest_sha256)
        )
    draft = notice_service.manifest_draft(session=session, batch=run)
    named = _draft_name(draft, run, reader)
    step = progress or (lambda done, of: None)
    step(1, MANIFEST_STEPS)  # its figures read: the layout follows
    found = _on_shelf(named, reader)
    if found is not None:
        return _manifest(run, found)
    with reader.speaking():
        data = notice_service.render_draft(draft)
    step(2, MANIFEST_STEPS)
    if reader.shelf is not None:
        keep_named(named, data, shelf=reader.shelf)
    step(3, MANIFEST_STEPS)
    return _manifest(run, data)


MANIFEST_STEPS = 3  # a draft manifest's steps: its figures read, laid out, kept


def prepared_manifest(
    session: Session, *, batch: int, reader: Reader, district: int | None = None
) -> Document | None:
    """The run's PS Form 3877 without laying it out: the archived one once mailed, else the
    draft kept on the reader's shelf for the run as it stands (its article numbers, notices,
    postage and fees, in the reader's language); None when no such draft was made."""
    return find_manifest(session, batch=batch, reader=reader, district=district)[0]


def find_manifest(
    session: Session, *, batch: int, reader: Reader, district: int | None = None
) -> tuple[Document | None, str]:
    """:func:`prepared_manifest`, and a short key of the run's draft as it stands in the
    reader's language (empty once mailed): the job that lays it out is named by it, so tabs
    asking at once start one."""
    run = batch_of(session, batch, district)
    if run.manifest_sha256:
        archived = notice_service.archived_bytes(session=session, sha256=run.manifest_sha256)
        return _manifest(run, archived), ""
    named = _draft_name(notice_service.manifest_draft(session=session, batch=run), run, reader)
    found = _on_shelf(named, reader)
    key = hashlib.sha256(named.encode()).hexdigest()[:40]
    return (None if found is None else _manifest(run, found)), key


def _draft_name(draft: dict[str, Any], run: NoticeBatch, reader: Reader) -> str:
    return f"{notice_service.draft_name(draft, run.id or 0)}\x00{reader.locale}"


def _on_shelf(named: str, reader: Reader) -> bytes | None:
    return None if reader.shelf is None else found_named(named, shelf=reader.shelf)


def _manifest(run: NoticeBatch, data: bytes) -> Document:
    return Document(data, PDF, f"ps3877-{run.id}.pdf")
