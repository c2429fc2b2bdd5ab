"""The documents of record a district publishes (21 LPRA § 6653(6)): its yearly statement as
published — the year's figures without any property's row — made, archived under its SHA-256
and listed on the district's public page, in the open data's API and in its data package, for
anyone to download exactly as archived.

Only what the district's association, the municipality's clerk or an administrator chose to
publish is public; withdrawing a document takes it off the public side (the archive keeps it).
Publishing and withdrawing are kept in the history (``published_document.publish`` /
``published_document.withdraw``) and move the district's public version."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from tid.clock import utcnow
from tid.models import District, PublishedDocument
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message
from tid.rules.periods import FiscalYear
from tid.services.archive.store import archive, archived_bytes
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district
from tid.services.public import versions
from tid.services.public.declared import public_view

# The documents of record a district may publish (names of tid.documents.KINDS): none of
# them shows an owner, a property's payments or a notice.
PUBLISHABLE: dict[str, str] = {
    "published-statement.pdf": N_("Yearly statement of the special account, FY %(year)s"),
    "budget-report.pdf": N_("Yearly report of the district, FY %(year)s"),
}
TITLE_MOST = 200
NO_KIND = N_("This document cannot be published.")
TITLE_TOO_LONG = N_("Write a title of at most 200 characters.")


@dataclass(frozen=True)
class Published:
    """A published document's record and its archived bytes (checked against its SHA-256)."""

    record: PublishedDocument
    content: bytes


def listed(
    *, session: Session, district_id: int, withdrawn_too: bool = False
) -> list[PublishedDocument]:
    """The district's published documents, newest year first (the withdrawn ones too, for
    those who choose them)."""
    stmt = select(PublishedDocument).where(PublishedDocument.district_id == district_id)
    if not withdrawn_too:
        stmt = stmt.where(col(PublishedDocument.withdrawn_at).is_(None))
    stmt = stmt.order_by(
        col(PublishedDocument.fiscal_year).desc(), col(PublishedDocument.published_at).desc()
    )
    return list(session.exec(stmt))


def public_rows(*, session: Session, district_id: int) -> list[dict[str, Any]]:
    """The district's published documents as the public side shows them: their declared
    fields and the address to download each."""
    return [
        public_view(
            "document",
            {
                "id": d.id,
                "district_id": d.district_id,
                "fiscal_year": d.fiscal_year,
                "kind": d.kind,
                "title": d.title,
                "language": d.language,
                "media_type": d.media_type,
                "size": d.size,
                "sha256": d.sha256,
                "published_on": d.published_at.date(),
                "path": f"/publico/distritos/{d.district_id}/documentos/{d.id}",
            },
        )
        for d in listed(session=session, district_id=district_id)
    ]


def published(*, session: Session, district_id: int, document_id: int) -> Published | None:
    """A published document of the district with its archived bytes; None when there is no
    such document, it is another district's, or it was withdrawn."""
    found = session.get(PublishedDocument, document_id)
    if found is None or found.district_id != district_id or found.withdrawn_at is not None:
        return None
    return Published(found, archived_bytes(session=session, sha256=found.sha256))


def publish(
    *,
    session: Session,
    actor: audit.Actor,
    district: District,
    fy: FiscalYear,
    kind: str,
    title: str,
    language: str,
    content: bytes,
    media_type: str,
) -> PublishedDocument:
    """Archive ``content`` (a document of record of ``kind`` made for the year) and publish
    it under ``title``; the same bytes published before (and withdrawn) are published again.
    One document of a kind, year and language is public at a time: another is refused until
    it is withdrawn. The caller commits."""
    if kind not in PUBLISHABLE:
        raise InputError("kind", NO_KIND)
    title = " ".join(title.split())
    if len(title) > TITLE_MOST:
        raise InputError("title", TITLE_TOO_LONG)
    district_id = district.id or 0
    lock_district(session=session, district_id=district_id)
    standing = session.exec(
        select(PublishedDocument).where(
            PublishedDocument.district_id == district_id,
            PublishedDocument.fiscal_year == fy.label,
            PublishedDocument.kind == kind,
            PublishedDocument.language == language,
            col(PublishedDocument.withdrawn_at).is_(None),
        )
    ).first()
    if standing is not None:
        raise InputError(
            "fiscal_year",
            Message(
                "This document of %(year)s is already published, since %(day)s: withdraw it "
                "first to publish another.",
                year=fy.label,
                day=standing.published_at.date(),
            ),
        )
    digest = archive(session=session, content=content, media_type=media_type)
    session.flush()
    row = session.exec(
        select(PublishedDocument).where(
            PublishedDocument.district_id == district_id, PublishedDocument.sha256 == digest
        )
    ).first()
    if row is not None and row.withdrawn_at is None:
        return row
    before = audit.snapshot(row) if row is not None else None
    if row is None:
        row = PublishedDocument(
            district_id=district_id,
            fiscal_year=fy.label,
            kind=kind,
            title=title,
            language=language,
            sha256=digest,
            media_type=media_type,
            size=len(content),
            actor=actor.label,
        )
    else:
        row.title, row.actor, row.published_at = title, actor.label, utcnow()
        row.withdrawn_at, row.withdrawn_by = None, ""
    session.add(row)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="published_document.publish",
        entity=row,
        before=before,
        after=audit.snapshot(row),
    )
    versions.bump(session=session, district_ids=[district_id])
    return row


def withdraw(
    *, session: Session, actor: audit.Actor, district_id: int, document_id: int
) -> PublishedDocument | None:
    """Take a published document off the public side (it stays archived); None when the
    district has no such document. Withdrawing it again changes nothing. The caller commits."""
    lock_district(session=session, district_id=district_id)
    row = session.get(PublishedDocument, document_id)
    if row is None or row.district_id != district_id:
        return None
    if row.withdrawn_at is not None:
        return row
    before = audit.snapshot(row)
    row.withdrawn_at, row.withdrawn_by = utcnow(), actor.label
    session.add(row)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="published_document.withdraw",
        entity=row,
        before=before,
        after=audit.snapshot(row),
    )
    versions.bump(session=session, district_ids=[district_id])
    return row
