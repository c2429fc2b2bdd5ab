"""The archive of every document of record, in one place: each stored once under its
SHA-256 (``store``), the kinds of documents it holds, each named as people quote it
(``kinds``), and its own check, which re-hashes every document and names any that no longer
matches by kind and number (``rehash``; ``tid archive verify``, weekly by the scheduler)."""

from __future__ import annotations

from tid.services.archive.kinds import KINDS, Kind
from tid.services.archive.rehash import READ_AT_ONCE, Mismatch, VerifyReport, verify
from tid.services.archive.store import archive, archived_bytes, notice_pdf_bytes

__all__ = [
    "KINDS",
    "READ_AT_ONCE",
    "Kind",
    "Mismatch",
    "VerifyReport",
    "archive",
    "archived_bytes",
    "notice_pdf_bytes",
    "verify",
]
