"""A petition's file (21 LPRA § 6653(2)–(4), (7)): the clerk attaches documents to the
petition, to one of its steps or to the ordinance; each is versioned, never overwritten.

- :func:`attach` — a new document with its first version (an uploaded file);
- :func:`replace` — a new version, naming the version it replaces: when two clerks replace
  the same document at once, the first wins and the second is told, nothing of it kept;
- :func:`withdraw` — the document leaves the current file but stays in its history, with
  its versions in the archive;
- :func:`set_public` — whether the public register shows it;
- :func:`attach_generated` — a PDF the app made (a study's report, a letter) joins the file.

Every file is checked by its content (tid/rules/file_content.py) before anything is
written, kept in the archive's folder (tid/services/files/file_store.py) and read for the search
by a background job (tid/services/petitions/file_search.py).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tid import readers
from tid.clock import utcnow
from tid.config import archive_dir, document_max_bytes
from tid.models import DocumentVersion, Petition, PetitionDocument
from tid.rules import file_content
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message
from tid.rules.vocab.document_kinds import DOCUMENT_KINDS, DOCUMENT_STEPS, STUDY
from tid.services.audit_trail import audit
from tid.services.files import file_store
from tid.services.petitions.errors import Collector, PetitionError
from tid.services.petitions.parsing import date_field, long_text, name_field

MAX_TITLE = 300
NOT_KEPT = N_(
    "The archive could not keep the file (its disk may be full or out of reach); nothing "
    "was saved. Try again, or tell the administrator."
)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Upload:
    """A file as the form sent it: its bytes and the name the clerk's computer gave it."""

    data: bytes
    filename: str


@dataclass(frozen=True)
class Store:
    """Where files go and how large one may be (the settings of tid/config.py)."""

    folder: Path
    max_bytes: int
    durable: bool = True  # False: generated bulk data only (no flush to disk per file)
    # the bounds of its files' readers (tid/readers.py)
    limits: readers.Limits = dataclasses.field(default_factory=readers.Limits)


def store_for(config: Mapping[str, Any]) -> Store:
    """The archive's folder, the size limit and the readers' bounds of the app's
    configuration."""
    return Store(archive_dir(config), document_max_bytes(config), limits=readers.limits_of(config))


def check_upload(upload: Upload | None, store: Store, field: str = "file") -> file_content.FileType:
    if upload is None or (not upload.data and not upload.filename):
        raise InputError(field, Message(N_("Choose a file to upload.")))
    file_content.clean_name(upload.filename, field=field)
    if len(upload.data) > store.max_bytes:
        raise InputError(
            field,
            Message(
                N_("The file is larger than %(limit)s MB (%(size)s MB): split it or reduce it."),
                limit=store.max_bytes // 2**20,
                size=f"{len(upload.data) / 2**20:.1f}",
            ),
        )
    return file_content.file_type(upload.data, field=field)


def _collect_file(check: Collector, upload: Upload | None, store: Store) -> object:
    try:
        return check_upload(upload, store)
    except InputError as exc:
        check.errors.append(PetitionError(exc.field, exc.message))
        return None


def _kind(value: object, field: str = "kind") -> str:
    text = value.strip() if isinstance(value, str) else ""
    if text not in DOCUMENT_KINDS:
        raise PetitionError(field, N_("Choose the kind of document from the list."))
    return text


def _step(value: object) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if text not in DOCUMENT_STEPS:
        raise PetitionError("step", N_("Choose the step from the list."))
    return text


def _add_version(
    *,
    session: Session,
    actor: audit.Actor,
    document: PetitionDocument,
    number: int,
    upload: Upload,
    kind: file_content.FileType,
    store: Store,
    reason: str,
) -> DocumentVersion:
    try:
        stored = file_store.put(
            session=session,
            folder=store.folder,
            data=upload.data,
            media_type=kind.media_type,
            durable=store.durable,
        )
    except OSError:  # a full disk, a lost shared folder: the half-written file is gone
        log.exception("the archive could not keep a file in %s", store.folder)
        raise InputError("file", Message(NOT_KEPT)) from None
    version = DocumentVersion(
        document_id=document.id or 0,
        number=number,
        sha256=stored.sha256,
        filename=file_content.named_for(file_content.clean_name(upload.filename), kind),
        media_type=kind.media_type,
        size=len(upload.data),
        uploaded_by=actor.label,
        reason=reason,
    )
    session.add(version)
    session.flush()
    return version


def attach(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    store: Store,
    upload: Upload | None,
    title: object,
    kind: object,
    step: object,
    dated_on: object,
    public: bool,
    today: date,
) -> PetitionDocument:
    """A new document of the petition's file, with its first version. Every field is
    checked before anything is written; a refusal writes nothing (no row, no file)."""
    check = Collector()
    file_kind = _collect_file(check, upload, store)
    clean_title = check(lambda: name_field(title, "title", limit=MAX_TITLE), "")
    clean_kind = check(lambda: _kind(kind), "")
    clean_step = check(lambda: _step(step), "")
    day = check(lambda: date_field(dated_on, "dated_on", today=today), today)
    check.raise_any()
    assert isinstance(file_kind, file_content.FileType) and upload is not None
    document = _new_document(
        session=session,
        actor=actor,
        petition=petition,
        title=clean_title,
        kind=clean_kind,
        step=clean_step,
        dated_on=day,
        public=public,
    )
    version = _add_version(
        session=session,
        actor=actor,
        document=document,
        number=1,
        upload=upload,
        kind=file_kind,
        store=store,
        reason="",
    )
    _recorded(session, actor, document, version, "document.attach")
    return document


def _new_document(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    title: str,
    kind: str,
    step: str,
    dated_on: date,
    public: bool,
    generated: bool = False,
) -> PetitionDocument:
    document = PetitionDocument(
        petition_id=petition.id or 0,
        step=step,
        kind=kind,
        title=title,
        dated_on=dated_on,
        public=public,
        version=1,
        generated=generated,
        created_by=actor.label,
    )
    session.add(document)
    session.flush()
    return document


def _recorded(
    session: Session,
    actor: audit.Actor,
    document: PetitionDocument,
    version: DocumentVersion | None,
    action: str,
    **extra: object,
) -> None:
    after: dict[str, object] = {"document": document.title, "kind": document.kind}
    if version is not None:
        after.update(version=version.number, file=version.filename)
    after.update(extra)
    audit.record(
        session=session,
        actor=actor,
        action=action,
        entity=("petition", document.petition_id),
        after=after,
    )


def replace(
    *,
    session: Session,
    actor: audit.Actor,
    document: PetitionDocument,
    replaces: object,
    store: Store,
    upload: Upload | None,
    reason: object,
) -> DocumentVersion:
    """A new version of ``document`` in place of version ``replaces`` (the one the clerk
    saw). The old versions stay. If another clerk has replaced it since, this one is
    refused and nothing of it is written."""
    check = Collector()
    file_kind = _collect_file(check, upload, store)
    why = check(lambda: long_text(reason, "reason", required=True), "")
    seen = replaces if isinstance(replaces, int) else _int(replaces)
    if document.withdrawn_at is not None:
        check.errors.append(
            PetitionError("file", N_("This document was withdrawn; attach a new one instead."))
        )
    check.raise_any()
    assert isinstance(file_kind, file_content.FileType) and upload is not None
    moved = session.execute(
        update(PetitionDocument)
        .where(col(PetitionDocument.id) == document.id, col(PetitionDocument.version) == seen)
        .values(version=seen + 1)
        .execution_options(synchronize_session=False)
    )
    if moved.rowcount != 1:  # type: ignore[attr-defined]
        raise _taken(session, document)
    try:
        version = _add_version(
            session=session,
            actor=actor,
            document=document,
            number=seen + 1,
            upload=upload,
            kind=file_kind,
            store=store,
            reason=why,
        )
    except IntegrityError:
        raise _taken(session, document) from None
    session.refresh(document)
    _recorded(session, actor, document, version, "document.version", reason=why)
    return version


def _int(value: object) -> int:
    text = value.strip() if isinstance(value, str) else ""
    return int(text) if text.isascii() and text.isdigit() and len(text) < 9 else -1


def _taken(session: Session, document: PetitionDocument) -> InputError:
    session.rollback()
    current = session.get(PetitionDocument, document.id)
    return InputError(
        "file",
        Message(
            N_(
                "Another clerk replaced this document while you were choosing your file: it is "
                "now at version %(version)s. Nothing of yours was saved; look at the new "
                "version and send yours again if it is still needed."
            ),
            version=current.version if current else "?",
        ),
    )


def withdraw(
    *, session: Session, actor: audit.Actor, document: PetitionDocument, reason: object
) -> PetitionDocument:
    """Take the document out of the current file; it stays, with every version, in the
    history and the archive."""
    why = long_text(reason, "reason", required=True)
    if document.withdrawn_at is not None:
        raise PetitionError("reason", N_("This document was already withdrawn."))
    document.withdrawn_at = utcnow()
    document.withdrawn_by = actor.label
    document.withdrawn_reason = why
    session.add(document)
    session.flush()
    _recorded(session, actor, document, None, "document.withdraw", reason=why)
    return document


def set_public(
    *, session: Session, actor: audit.Actor, document: PetitionDocument, public: bool
) -> PetitionDocument:
    """Whether the public register shows the document (and its versions)."""
    if document.public != public:
        document.public = public
        session.add(document)
        session.flush()
        _recorded(session, actor, document, None, "document.public", public=public)
    return document


def attach_generated(
    *,
    session: Session,
    actor: audit.Actor,
    petition_id: int,
    store: Store,
    pdf: bytes,
    title: str,
    kind: str = STUDY,
    dated_on: date,
    step: str = "",
    public: bool = False,
    filename: str = "",
    index: bool = True,
) -> PetitionDocument:
    """A PDF the app made (a formula study's report, a letter) as a new document of the
    petition's file, checked like an upload and read for the search at once (``index``);
    raises ``InputError`` on field ``file``. Its store: :func:`store_for` the app's
    configuration."""
    petition = session.get(Petition, petition_id)
    if petition is None:
        raise InputError("petition_id", Message(N_("There is no such petition.")))
    upload = Upload(pdf, filename or f"{kind}-{dated_on.isoformat()}.pdf")
    file_kind = check_upload(
        upload, Store(store.folder, max(store.max_bytes, len(pdf)), limits=store.limits)
    )
    document = _new_document(
        session=session,
        actor=actor,
        petition=petition,
        title=title[:MAX_TITLE],
        kind=_kind(kind),
        step=step,
        dated_on=dated_on,
        public=public,
        generated=True,
    )
    version = _add_version(
        session=session,
        actor=actor,
        document=document,
        number=1,
        upload=upload,
        kind=file_kind,
        store=store,
        reason="",
    )
    _recorded(session, actor, document, version, "document.attach")
    if index and version.id is not None:
        from tid.services.petitions.file_search import draw_picture, index_version

        index_version(
            session=session, folder=store.folder, version_id=version.id, limits=store.limits
        )
        draw_picture(folder=store.folder, version=version, limits=store.limits)
    return document


# --------------------------------------------------------------------------- reads


@dataclass(frozen=True)
class FileEntry:
    """A document of the file with its versions, newest first."""

    document: PetitionDocument
    versions: list[DocumentVersion]

    @property
    def current(self) -> DocumentVersion:
        return self.versions[0]

    @property
    def withdrawn(self) -> bool:
        return self.document.withdrawn_at is not None


def file_of(*, session: Session, petition_id: int, public_only: bool = False) -> list[FileEntry]:
    """The petition's documents (withdrawn ones last), each with its versions."""
    query = select(PetitionDocument).where(PetitionDocument.petition_id == petition_id)
    if public_only:
        query = query.where(
            col(PetitionDocument.public).is_(True), col(PetitionDocument.withdrawn_at).is_(None)
        )
    documents = list(session.exec(query.order_by(col(PetitionDocument.id))))
    if not documents:
        return []
    versions: dict[int, list[DocumentVersion]] = {d.id or 0: [] for d in documents}
    rows = session.exec(
        select(DocumentVersion)
        .where(col(DocumentVersion.document_id).in_(list(versions)))
        .order_by(col(DocumentVersion.number).desc())
    )
    for version in rows:
        versions[version.document_id].append(version)
    entries = [FileEntry(d, versions[d.id or 0]) for d in documents if versions[d.id or 0]]
    entries.sort(key=lambda e: (e.withdrawn, DOCUMENT_STEPS.order(e.document.step), e.document.id))
    return entries


def document(*, session: Session, document_id: int) -> PetitionDocument | None:
    return session.get(PetitionDocument, document_id)


def version(*, session: Session, version_id: int) -> DocumentVersion | None:
    return session.get(DocumentVersion, version_id)


def latest_version(*, session: Session, document_id: int) -> DocumentVersion | None:
    return session.exec(
        select(DocumentVersion)
        .where(DocumentVersion.document_id == document_id)
        .order_by(col(DocumentVersion.number).desc())
    ).first()


def has_current(*, session: Session, petition_id: int, kind: str) -> bool:
    """Whether the file holds a document of ``kind`` that was not withdrawn."""
    return (
        session.exec(
            select(PetitionDocument.id).where(
                PetitionDocument.petition_id == petition_id,
                PetitionDocument.kind == kind,
                col(PetitionDocument.withdrawn_at).is_(None),
            )
        ).first()
        is not None
    )


def uploaded_at(entry: FileEntry) -> datetime:
    return entry.current.uploaded_at


def pending_versions(*, session: Session, petition_id: int) -> list[int]:
    """The petition's versions whose text the search has not read yet."""
    return [
        version_id
        for version_id in session.exec(
            select(col(DocumentVersion.id))
            .join(PetitionDocument, col(PetitionDocument.id) == DocumentVersion.document_id)
            .where(
                PetitionDocument.petition_id == petition_id,
                DocumentVersion.text_state == "pending",
            )
        )
        if version_id is not None
    ]
