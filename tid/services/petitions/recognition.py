"""A scan of the legislature's file made searchable: the words of a version without a text
layer (a PDF of pictures, a PNG/JPEG/TIFF scan) are read by ``ocrmypdf`` (Spanish and
English) in a background job (``documents.recognize``), and the PDF it gives becomes a NEW
version of the document, "text recognized", beside the original (kept, as every version
is), then read for the search at once.

- :func:`unavailable` — why this machine cannot do it (None when it can): the page then
  offers no button and says why;
- :func:`can_recognize` — whether a version is such a scan;
- :func:`recognize` — the job's work, all or nothing: a scan replaced meanwhile, a program
  that fails or runs past its time, or a page where no word is recognized, saves nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import PurePath

from sqlmodel import Session

from tid import readers
from tid.models import DocumentVersion, PetitionDocument
from tid.render import recognize as ocr
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message
from tid.services.audit_trail import audit
from tid.services.files import file_store
from tid.services.petitions import attachments
from tid.services.petitions.errors import PetitionError
from tid.services.petitions.file_search import draw_picture, index_version

log = logging.getLogger(__name__)

UNAVAILABLE = N_(
    "Scans cannot be made searchable on this server: the text recognition programs "
    "(ocrmypdf and tesseract, with Spanish and English) are not installed. Ask the "
    "administrator to install them."
)
TIMED_OUT = N_(
    "Reading the scan's words took longer than the time allowed and was stopped; nothing "
    "was saved. A scan of many pages can be sent in parts, or the administrator can allow "
    "more time (OCR_TIMEOUT_SECONDS)."
)
FAILED = N_(
    "The text recognition program could not read this scan; nothing was saved. The "
    "original stays as it was."
)
NO_WORDS = N_(
    "No words could be recognized in this scan (it may be a picture, or too faint); "
    "nothing was saved."
)
NOT_A_SCAN = N_("The current version of this document already has text; nothing was done.")
WITHDRAWN = N_("This document was withdrawn; nothing was done.")
REPLACED = N_(
    "Another version of this document was sent while its scan was being read; nothing was "
    "saved. Make the new version searchable if it is a scan too."
)
REASON = N_("Text recognized (OCR) from version %(number)s")

Progress = Callable[[int, int], None]
STEPS = 3  # read the scan, recognize its words, save and index the new version


def unavailable() -> str | None:
    """Why scans cannot be made searchable here (a msgid), or None when they can."""
    return UNAVAILABLE if ocr.missing() is not None else None


def can_recognize(version: DocumentVersion) -> bool:
    """Whether ``version`` is a scan without a text layer that the programs can read."""
    return version.text_state == "no_text" and version.media_type in ocr.MEDIA_TYPES


def recognize(
    *,
    session: Session,
    actor: audit.Actor,
    document_id: int,
    number: int,
    store: attachments.Store,
    timeout: float,
    locale: str = "es",
    progress: Progress | None = None,
) -> DocumentVersion:
    """Read the words of version ``number`` (the document's current one, a scan) of
    ``document_id`` and save the PDF with them as the next version, read for the search.
    The session must hold no writes: its transaction ends before the words are read.
    Raises ``InputError`` (field ``file``) with a message saying why nothing was saved."""
    step = progress or (lambda _done, _total: None)
    document = session.get(PetitionDocument, document_id)
    if document is None or document.withdrawn_at is not None:
        raise InputError("file", WITHDRAWN)
    current = attachments.latest_version(session=session, document_id=document_id)
    if current is None or current.number != number:
        raise InputError("file", REPLACED)
    if not can_recognize(current):
        raise InputError("file", NOT_A_SCAN)
    step(0, STEPS)
    data = file_store.read(folder=store.folder, sha256=current.sha256)
    media_type, filename = current.media_type, current.filename
    # Nothing is written yet: the reads' transaction ends before minutes of work (the new
    # version is saved against the number read, whoever wrote meanwhile).
    session.rollback()
    step(1, STEPS)
    pdf = _searchable(data, media_type, timeout, store.limits)
    try:
        _text, _pages, has_text = readers.read_text(pdf, "pdf", store.limits)
    except (readers.OverLimitError, readers.ReaderError) as exc:
        log.warning("document %s: the recognized PDF could not be read: %r", document_id, exc)
        raise InputError("file", FAILED) from None
    if not has_text:
        raise InputError("file", NO_WORDS)
    step(2, STEPS)
    document = session.get(PetitionDocument, document_id)
    if document is None or document.withdrawn_at is not None:  # withdrawn meanwhile
        raise InputError("file", WITHDRAWN)
    try:
        version = attachments.replace(
            session=session,
            actor=actor,
            document=document,
            replaces=number,
            store=attachments.Store(
                store.folder, max(store.max_bytes, len(pdf)), limits=store.limits
            ),
            upload=attachments.Upload(pdf, _name(filename)),
            reason=Message(REASON, number=number).render(locale),
        )
    except PetitionError as exc:  # the made PDF refused by the checks of every file
        log.warning("document %s: the recognized PDF was refused: %s", document_id, exc)
        raise InputError("file", FAILED) from None
    except InputError:  # another clerk's version came first
        raise InputError("file", REPLACED) from None
    index_version(
        session=session, folder=store.folder, version_id=version.id or 0, limits=store.limits
    )
    draw_picture(folder=store.folder, version=version, limits=store.limits)
    step(STEPS, STEPS)
    return version


def _searchable(data: bytes, media_type: str, timeout: float, limits: readers.Limits) -> bytes:
    if ocr.missing() is not None:
        raise InputError("file", UNAVAILABLE)
    try:
        return ocr.searchable_pdf(
            data,
            media_type,
            timeout=timeout,
            memory_bytes=limits.memory_bytes,
            max_pixels=limits.max_pixels,
        )
    except ocr.RecognitionTimeoutError as exc:
        log.warning("ocrmypdf %s", exc.detail)
        raise InputError("file", TIMED_OUT) from None
    except ocr.RecognitionError as exc:
        log.warning("ocrmypdf failed: %s", exc.detail)
        raise InputError("file", FAILED) from None


def _name(filename: str) -> str:
    """The new version's file name: the scan's, as a searchable PDF."""
    stem = PurePath(filename).stem or "scan"
    return f"{stem[:180]}-ocr.pdf"
