"""The public side of a petition's file: only the documents the clerk made public (and not
withdrawn), with their versions, through the fields :mod:`.declared` names.

A public record's history is public: the versions a public document's current one replaced
stay listed and downloadable without a login, each with its date and the reason it was
replaced (the public page says so). Making the document not public, or withdrawing it,
takes every version of it off the public side."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from tid.models import DocumentVersion
from tid.services.petitions.attachments import document, file_of, version
from tid.services.public.declared import public_view


def public_documents(*, session: Session, petition_id: int) -> list[dict[str, Any]]:
    """The petition's public documents, each its public fields and ``versions`` (newest
    first), for the public register."""
    return [
        {
            **public_view("petition_document", entry.document),
            "versions": [public_view("document_version", v) for v in entry.versions],
        }
        for entry in file_of(session=session, petition_id=petition_id, public_only=True)
    ]


def public_version(*, session: Session, version_id: int) -> DocumentVersion | None:
    """A version that may be served without a login: any version, current or earlier, of a
    public document not withdrawn."""
    found = version(session=session, version_id=version_id)
    if found is None:
        return None
    owner = document(session=session, document_id=found.document_id)
    if owner is None or not owner.public or owner.withdrawn_at is not None:
        return None
    return found
