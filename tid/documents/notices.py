"""The notices' documents of record, exactly as archived when they were issued: a run's
print file (every notice of the run), one notice as mailed, and the run's PS Form 3877
manifest (a draft with the run's postage and fees until the run is mailed)."""

from __future__ import annotations

from sqlmodel import Session, select

from tid.documents.base import PDF, Document, Reader
from tid.models import Notice, NoticeBatch
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
    session: Session, *, batch: int, reader: Reader, district: int | None = None
) -> Document:
    """The run's PS Form 3877 (the form is the Postal Service's, in English)."""
    run = batch_of(session, batch, district)
    return Document(
        notice_service.manifest_pdf(session=session, batch=run), PDF, f"ps3877-{run.id}.pdf"
    )
