"""The archive checks itself: every archived document (each kind of
tid/services/archive/kinds.py: notices, print files, manifests, payoff quotes, lien
certificates, releases, audit statements, studies, the opening position's files …) is read
back and hashed again, and any whose bytes no longer match the SHA-256 it is stored under
is reported with what it is, by kind and number ("lien certificate C-2026-000001").

``verify`` reads the documents a few at a time (the archive can hold gigabytes), and never
writes: a mismatch is for a person to look into (restore the document from a backup; the
hash says which bytes are the right ones). ``tid archive verify`` runs it on the command line
and the scheduler runs it weekly (tid/jobs/scheduler.py), with the result in the administrators'
message.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import Session, col, select

from tid.models import ArchivedDocument
from tid.rules.messages import N_, Message, joined, render
from tid.services.archive.kinds import KINDS
from tid.services.files.file_store import FileProblem, FolderReport, verify_folder

READ_AT_ONCE = 50  # documents per round trip


@dataclass(frozen=True)
class Mismatch:
    """An archived document whose bytes no longer hash to its key."""

    sha256: str  # the key: the hash of what was issued
    actual_sha256: str  # the hash of what is stored now
    recorded_size: int
    actual_size: int
    used_by: tuple[str, ...]  # messages: "notice 2026-000001", "print file of batch 3", …


@dataclass(frozen=True)
class VerifyReport:
    checked: int
    total_bytes: int
    mismatches: list[Mismatch] = field(default_factory=list)
    files: FolderReport | None = None  # the archive's folder (the legislature's files)

    @property
    def ok(self) -> bool:
        return not self.mismatches and not (self.files and self.files.problems)

    def summary_lines(self) -> list[Message]:
        """What the check found, line by line, as messages (said in each reader's language)."""
        sizes = {"count": self.checked, "size": f"{self.total_bytes:,}"}
        if not self.mismatches:
            lines = [Message(_ALL_MATCH, **sizes)]
        else:
            lines = [Message(_SOME_DIFFER, differ=len(self.mismatches), **sizes)]
            lines += [_line(m) for m in self.mismatches]
        if self.files is not None:
            files = {"count": self.files.checked, "size": f"{self.files.total_bytes:,}"}
            lines.append(Message(_FILES_MATCH if not self.files.problems else _FILES, **files))
            lines += [_file_line(p) for p in self.files.problems]
        return lines

    def summary(self, lang: str) -> str:
        return "\n".join(render(line, lang) for line in self.summary_lines())

    def summary_en(self) -> str:
        return self.summary("en")

    def summary_es(self) -> str:
        return self.summary("es")


_ALL_MATCH = N_(
    "%(count)s archived document(s), %(size)s bytes, re-hashed: every one matches its SHA-256."
)
_SOME_DIFFER = N_(
    "%(count)s archived document(s), %(size)s bytes, re-hashed: %(differ)s do NOT match their "
    "SHA-256:"
)
_FILES_MATCH = N_(
    "%(count)s file(s) of the legislature's files, %(size)s bytes, re-hashed: every one "
    "matches its SHA-256."
)
_FILES = N_("%(count)s file(s) of the legislature's files, %(size)s bytes, re-hashed:")
_FILE_PROBLEMS = {
    "missing": N_("- %(sha256)s: missing from the archive's folder"),
    "altered": N_("- %(sha256)s: its bytes no longer match (SHA-256 %(actual)s)"),
    "unlisted": N_("- %(sha256)s: in the folder but listed by no record"),
}
_MISMATCH = N_(
    "- %(sha256)s (used by: %(where)s): %(recorded)s → %(actual)s bytes, SHA-256 %(actual_sha256)s"
)
_NOT_REFERENCED = N_("not referenced")


def _file_line(problem: FileProblem) -> Message:
    return Message(
        _FILE_PROBLEMS[problem.problem], sha256=problem.sha256, actual=problem.actual_sha256
    )


def _line(m: Mismatch) -> Message:
    where = joined(list(m.used_by), ", ") if m.used_by else Message(_NOT_REFERENCED)
    return Message(
        _MISMATCH,
        sha256=m.sha256,
        where=where,
        recorded=m.recorded_size,
        actual=m.actual_size,
        actual_sha256=m.actual_sha256,
    )


def _used_by(session: Session, sha256: str) -> tuple[str, ...]:
    """Each document archived under the hash, named by its kind and number
    (tid/services/archive/kinds.py)."""
    return tuple(kind.named(number) for kind in KINDS for number in kind.numbers(session, sha256))


def verify(*, session: Session, folder: Path | None = None) -> VerifyReport:
    """Re-hash every archived document (and, given the archive's ``folder``, every file of
    the legislature's files); report those whose bytes no longer match."""
    keys = list(
        session.exec(select(ArchivedDocument.sha256).order_by(col(ArchivedDocument.sha256)))
    )
    checked = 0
    total = 0
    bad: list[tuple[str, str, int, int]] = []
    for start in range(0, len(keys), READ_AT_ONCE):
        chunk = keys[start : start + READ_AT_ONCE]
        rows = session.exec(
            select(ArchivedDocument.sha256, ArchivedDocument.content, ArchivedDocument.size).where(
                col(ArchivedDocument.sha256).in_(chunk)
            )
        ).all()
        for sha256, content, size in rows:
            data = bytes(content)
            checked += 1
            total += len(data)
            actual = hashlib.sha256(data).hexdigest()
            if actual != sha256:
                bad.append((sha256, actual, int(size), len(data)))
    mismatches = [
        Mismatch(sha256, actual, size, length, _used_by(session, sha256))
        for sha256, actual, size, length in bad
    ]
    files = verify_folder(session=session, folder=folder) if folder is not None else None
    return VerifyReport(checked=checked, total_bytes=total, mismatches=mismatches, files=files)
