"""A batch of notices rendered and stored — tid/render/notice.py draws them.

Notices are rendered in slices of ``RENDER_SLICE``, each PDF written to a temporary folder
(a run of 20,000 owners keeps one slice in memory), then the batch, its print file, every
notice's archived PDF and the notices' rows are written together. The notice and run
numbers are handed out here.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tid.models import ArchivedDocument, Notice, NoticeBatch
from tid.render import notice as notice_pdf
from tid.render.concat import concatenate
from tid.rules.errors import N_, InputError
from tid.services.archive.store import archive
from tid.services.audit_trail import audit
from tid.services.notices.access_codes import access_code_hash
from tid.services.notices.contents import BatchContext, BillForNotice, text_lines
from tid.services.notices.fees import MailingFees, default_fees


def next_notice_numbers(*, session: Session, year: int, count: int) -> list[str]:
    prefix = f"{year}-"
    latest = session.exec(
        select(func.max(Notice.number)).where(col(Notice.number).like(f"{prefix}%"))
    ).one()
    start = int(str(latest).split("-")[1]) + 1 if latest else 1
    return [f"{prefix}{n:06d}" for n in range(start, start + count)]


def _new_public_id(taken: set[str]) -> str:
    while True:
        value = secrets.token_urlsafe(18)[:24]
        if value not in taken:
            taken.add(value)
            return value


# Notices rendered before their PDFs go to a temporary folder: a run of 20,000 owners keeps
# one slice in memory, not every PDF (~21 KiB each).
RENDER_SLICE = 2000
_ARCHIVE_FLUSH = 200


@dataclass(frozen=True)
class _Spilled:
    sha256: str
    pages: int
    path: Path


def _render_to_disk(
    contents: Sequence[notice_pdf.NoticeContent],
    *,
    workers: int | None,
    progress: Callable[[int, int], None] | None,
    folder: Path,
) -> tuple[list[_Spilled], bytes, int]:
    """Render ``contents`` slice by slice, each notice's PDF written to ``folder``; returns
    them (in order), the merged print file and its page count."""
    total = len(contents)
    if progress is not None:  # the count, before the first notice is rendered
        progress(0, total)
    spilled: list[_Spilled] = []
    parts: list[Path] = []
    pages = 0
    for start in range(0, total, RENDER_SLICE):

        def report(done: int, _count: int, start: int = start) -> None:
            if progress is not None:
                progress(start + done, total)

        rendered = notice_pdf.render_notices(
            contents[start : start + RENDER_SLICE], workers=workers, progress=report
        )
        for offset, notice in enumerate(rendered.notices):
            path = folder / f"{start + offset}.pdf"
            path.write_bytes(notice.pdf)
            spilled.append(_Spilled(notice.sha256, notice.pages, path))
        part = folder / f"print-{start}.pdf"
        part.write_bytes(rendered.merged)
        parts.append(part)
        pages += rendered.merged_pages
        del rendered
    if len(parts) == 1:
        return spilled, parts[0].read_bytes(), pages
    # The slices joined a slice at a time (pypdf's append would hold them all at once).
    joined = folder / "print.pdf"
    with joined.open("wb") as out:
        concatenate(
            parts,
            out,
            title=notice_pdf.print_title(),
            author=contents[0].association_name or "tid",
        )
    return spilled, joined.read_bytes(), pages


def _flush_documents(session: Session, pending: list[ArchivedDocument]) -> None:
    """Write the archived documents and let go of their bytes."""
    if not pending:
        return
    session.flush()
    for document in pending:
        session.expunge(document)
    pending.clear()


def store_batch(
    *,
    session: Session,
    actor: audit.Actor,
    ctx: BatchContext,
    kind: str,
    issued_on: date,
    sender_name: str,
    sender_address: str,
    how_to_pay: str,
    how_to_pay_en: str,
    items: Sequence[BillForNotice],
    contents: Sequence[notice_pdf.NoticeContent],
    codes: Sequence[str],
    secret: str,
    remailing_of: Sequence[Notice | None],
    workers: int | None,
    progress: Callable[[int, int], None] | None = None,
    fees: MailingFees | None = None,
) -> NoticeBatch:
    """Render ``contents`` and write, from that one rendering, the batch with its print file,
    every notice's archived PDF and the notices' rows (the caller commits)."""
    with tempfile.TemporaryDirectory(prefix="tid-notices-") as folder:
        spilled, merged, merged_pages = _render_to_disk(
            contents, workers=workers, progress=progress, folder=Path(folder)
        )
        fees = fees or default_fees(issued_on)
        batch = NoticeBatch(
            district_id=ctx.district.id or 0,
            number=next_batch_number(session=session, district_id=ctx.district.id or 0),
            billing_run_id=ctx.run.id or 0,
            kind=kind,
            postage=fees.postage,
            certified_fee=fees.certified_fee,
            return_receipt_fee=fees.return_receipt_fee,
            issued_on=issued_on,
            sender_name=sender_name.strip(),
            sender_address="\n".join(text_lines(sender_address)),
            how_to_pay=how_to_pay.strip(),
            how_to_pay_en=how_to_pay_en.strip(),
            notice_count=len(contents),
            page_count=merged_pages,
            print_sha256=archive(session=session, content=merged),
            actor=actor.label,
            user_id=actor.user_id,
        )
        del merged
        session.add(batch)
        session.flush()
        _archive_spilled(session, spilled, stored={batch.print_sha256})
    taken: set[str] = set()
    notices = [
        _notice_row(
            batch,
            item,
            content,
            pdf,
            original,
            public_id=_new_public_id(taken),
            code_hash=access_code_hash(secret, content.number, code),
        )
        for item, content, code, pdf, original in zip(
            items, contents, codes, spilled, remailing_of, strict=True
        )
    ]
    _save_notices(session, actor, batch, notices)
    return batch


def _archive_spilled(session: Session, spilled: Sequence[_Spilled], *, stored: set[str]) -> None:
    """Archive each rendered PDF not archived yet, read back from the folder, written
    ``_ARCHIVE_FLUSH`` at a time so that their bytes do not pile up in the session."""
    pending: list[ArchivedDocument] = []
    for pdf in spilled:
        if pdf.sha256 not in stored and session.get(ArchivedDocument, pdf.sha256) is None:
            stored.add(pdf.sha256)
            content_bytes = pdf.path.read_bytes()
            document = ArchivedDocument(
                sha256=pdf.sha256,
                content=content_bytes,
                size=len(content_bytes),
                media_type="application/pdf",
            )
            session.add(document)
            pending.append(document)
        if len(pending) >= _ARCHIVE_FLUSH:
            _flush_documents(session, pending)
    _flush_documents(session, pending)


def _notice_row(
    batch: NoticeBatch,
    item: BillForNotice,
    content: notice_pdf.NoticeContent,
    pdf: _Spilled,
    original: Notice | None,
    *,
    public_id: str,
    code_hash: str,
) -> Notice:
    """The record of one rendered notice of ``batch``."""
    return Notice(
        public_id=public_id,
        number=content.number,
        batch_id=batch.id or 0,
        bill_id=item.bill.id or 0,
        district_id=batch.district_id,
        property_id=item.bill.property_id,
        fiscal_year=item.bill.fiscal_year,
        kind=batch.kind,
        owner_name=content.owner_name[:500],
        mailing_address="\n".join(content.mailing_lines),
        amount=item.bill.amount,
        due_date=item.bill.due_date,
        issued_on=batch.issued_on,
        access_code_hash=code_hash,
        pdf_sha256=pdf.sha256,
        page_count=pdf.pages,
        remailing_of_id=original.id if original is not None else None,
    )


def _save_notices(
    session: Session, actor: audit.Actor, batch: NoticeBatch, notices: list[Notice]
) -> None:
    """Write the batch's notices (a run saved at the same time is refused as "try again")
    and its audit event."""
    session.add_all(notices)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise InputError(
            "batch", N_("Another notice run was saved at the same time; try again.")
        ) from None
    audit.record(
        session=session,
        actor=actor,
        action="notice_batch.create",
        entity=batch,
        after={
            **(audit.snapshot(batch) or {}),
            "notices": [n.number for n in notices[:50]],
        },
    )


def next_batch_number(*, session: Session, district_id: int) -> int:
    """The next run number of a district: 1, 2, … (a concurrent run that takes the same
    number fails on the unique constraint and is refused as "try again")."""
    latest = session.exec(
        select(func.max(NoticeBatch.number)).where(NoticeBatch.district_id == district_id)
    ).one()
    return int(latest or 0) + 1
