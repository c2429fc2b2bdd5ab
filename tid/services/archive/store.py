"""Documents of record archived once under their SHA-256: every notice PDF, a run's print
file and its manifest, read back checked against their hash.
"""

from __future__ import annotations

import hashlib

from sqlmodel import Session

from tid.models import ArchivedDocument, Notice


def archive(*, session: Session, content: bytes, media_type: str = "application/pdf") -> str:
    """Store ``content`` once under its SHA-256 and return the hash (idempotent)."""
    digest = hashlib.sha256(content).hexdigest()
    if session.get(ArchivedDocument, digest) is None:
        session.add(
            ArchivedDocument(
                sha256=digest, content=content, size=len(content), media_type=media_type
            )
        )
    return digest


def archived_bytes(*, session: Session, sha256: str) -> bytes:
    """The archived document with this hash, checked against it."""
    document = session.get(ArchivedDocument, sha256)
    if document is None:
        raise LookupError(f"no archived document {sha256}")
    content = bytes(document.content)
    if hashlib.sha256(content).hexdigest() != sha256:
        raise RuntimeError(f"archived document {sha256} does not match its hash")
    return content


def notice_pdf_bytes(*, session: Session, notice: Notice) -> bytes:
    """Exactly the bytes archived for this notice (what was mailed)."""
    return archived_bytes(session=session, sha256=notice.pdf_sha256)
