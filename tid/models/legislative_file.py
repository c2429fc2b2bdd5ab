"""The legislature's file of a petition (21 LPRA § 6653(2)–(4), (7)): its documents, each in
versions that are never overwritten, the files of the archive's folder they point at, the
CRIM transmittal of the ordinance, and the search index over all of them.

A :class:`StoredFile` is a row for each file of the archive's folder (named by its SHA-256):
the row and the file are written together, so there is never one without the other."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import DDL, BigInteger, Column, Index, String, Text, UniqueConstraint, event
from sqlalchemy.dialects.postgresql import TSVECTOR
from sqlmodel import Field, SQLModel

from tid.clock import utcnow


class StoredFile(SQLModel, table=True):
    """A file of the archive's folder, written once and never changed."""

    __tablename__ = "stored_file"

    sha256: str = Field(sa_column=Column(String(64), primary_key=True))
    size: int = Field(sa_column=Column(BigInteger, nullable=False))
    media_type: str = Field(max_length=100)
    created_at: datetime = Field(default_factory=utcnow)


class PetitionDocument(SQLModel, table=True):
    """A document of a petition's file: what it is, and the number of its current version
    (a new version names the number it replaces: two clerks replacing it at once, one wins).
    A withdrawn document stays, with its versions, in the history and the archive."""

    __tablename__ = "petition_document"

    id: int | None = Field(default=None, primary_key=True)
    petition_id: int = Field(foreign_key="petition.id", index=True)
    step: str = Field(default="", max_length=20)
    kind: str = Field(max_length=30, index=True)
    title: str = Field(max_length=300)
    dated_on: date
    public: bool = False
    version: int = 1
    generated: bool = False  # made by the app (a letter, a study's report), not uploaded
    created_by: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)
    withdrawn_at: datetime | None = None
    withdrawn_by: str = Field(default="", max_length=254)
    withdrawn_reason: str = Field(
        default="", sa_column=Column(Text, nullable=False, server_default="")
    )


class DocumentVersion(SQLModel, table=True):
    """One version of a document: its file, who sent it, when and why, and what the search
    found in it (``text_state``: pending, indexed, no_text — a scan — or unreadable)."""

    __tablename__ = "document_version"
    __table_args__ = (UniqueConstraint("document_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    document_id: int = Field(foreign_key="petition_document.id", index=True)
    number: int
    sha256: str = Field(foreign_key="stored_file.sha256", max_length=64, index=True)
    filename: str = Field(max_length=200)
    media_type: str = Field(max_length=100)
    size: int = Field(sa_column=Column(BigInteger, nullable=False))
    pages: int | None = None
    uploaded_by: str = Field(max_length=254)
    uploaded_at: datetime = Field(default_factory=utcnow)
    reason: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    text_state: str = Field(default="pending", max_length=12)


class CrimTransmittal(SQLModel, table=True):
    """The copy of the ordinance sent to the Municipal Revenue Collection Center (§ 6653(4)):
    the letter the app wrote (a document of the file), when and how it was sent, and the
    acknowledgement when it comes back."""

    __tablename__ = "crim_transmittal"

    id: int | None = Field(default=None, primary_key=True)
    petition_id: int = Field(foreign_key="petition.id", index=True)
    ordinance_id: int = Field(foreign_key="ordinance.id", index=True)
    letter_id: int = Field(foreign_key="petition_document.id")
    sent_on: date | None = None
    sent_by: str = Field(default="", max_length=20)
    reference: str = Field(default="", max_length=200)  # a certified-mail number, say
    acknowledgement_id: int | None = Field(default=None, foreign_key="petition_document.id")
    acknowledged_on: date | None = None
    created_by: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)


class SearchEntry(SQLModel, table=True):
    """What the clerk's search looks through: a petition, an ordinance or a document's
    current version, with its title and text. On PostgreSQL ``words`` is the text's
    ``tsvector`` (Spanish and English, accents folded), under a GIN index; on SQLite an FTS5
    table mirrors the rows (tid/services/petitions/file_search.py)."""

    __tablename__ = "search_entry"
    __table_args__ = (
        UniqueConstraint("kind", "ref_id"),
        Index("ix_search_entry_words", "words", postgresql_using="gin"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=20)
    ref_id: int
    petition_id: int = Field(foreign_key="petition.id", index=True)
    municipality_id: int = Field(foreign_key="municipality.id", index=True)
    title: str = Field(max_length=300)
    body: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    words: str | None = Field(
        default=None, sa_column=Column(Text().with_variant(TSVECTOR(), "postgresql"))
    )


# The search folds accents with PostgreSQL's unaccent (a contrib extension shipped with the
# server); the migration creates it too.
event.listen(
    SearchEntry.__table__,  # type: ignore[attr-defined]
    "before_create",
    DDL("CREATE EXTENSION IF NOT EXISTS unaccent").execute_if(  # type: ignore[no-untyped-call]
        dialect="postgresql"
    ),
)
