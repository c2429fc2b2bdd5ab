"""The archive of documents of record (tid/services/archive/store.py): content-addressed,
never rewritten."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from tid.models import ArchivedDocument
from tid.services import archive


def test_archive_is_content_addressed(session: Session) -> None:
    digest = archive.archive(session=session, content=b"%PDF-1.7 test")
    assert archive.archive(session=session, content=b"%PDF-1.7 test") == digest
    session.commit()
    rows = session.exec(select(ArchivedDocument).where(ArchivedDocument.sha256 == digest)).all()
    assert len(rows) == 1
    assert archive.archived_bytes(session=session, sha256=digest) == b"%PDF-1.7 test"


def test_an_archived_document_cannot_be_rewritten(session: Session) -> None:
    digest = archive.archive(session=session, content=b"%PDF-1.7 one")
    session.commit()
    document = session.get(ArchivedDocument, digest)
    assert document is not None
    document.content = b"%PDF-1.7 two"
    session.add(document)
    with pytest.raises(ValueError, match="cannot be changed"):
        session.flush()
    session.rollback()
