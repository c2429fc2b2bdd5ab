"""The archive's folder: the files of the legislature's record (a petition's documents, the
letters the app writes), each named by its SHA-256 under ``<folder>/<aa>/<sha256>`` and
listed by a :class:`~tid.models.StoredFile` row.

Written whole or not at all: a file is written to a temporary name in its folder, flushed to
disk (``fsync``) and renamed into place, then the folder is flushed; the row joins the
caller's transaction. A transaction rolled back removes the files it wrote that no committed
row names, so the folder never keeps a file without its row, and no row is committed without
its file. With several machines the folder is shared storage (docs/operations.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlmodel import Session, col, select

from tid.files import FILE_MODE, private_folder
from tid.models import StoredFile

_WRITTEN = "tid.stored_files_written"
_SHA = re.compile(r"^[0-9a-f]{64}$")
READ_CHUNK = 1 << 20


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def path_of(folder: Path, sha256: str) -> Path:
    if not _SHA.match(sha256):
        raise ValueError(f"not a SHA-256: {sha256!r}")
    return folder / sha256[:2] / sha256


def put(
    *, session: Session, folder: Path, data: bytes, media_type: str, durable: bool = True
) -> StoredFile:
    """The file of ``data`` in the archive (written now if new) and its row (added to the
    session's transaction). ``durable=False`` skips the flush to disk (generated bulk data
    that can be made again, never a record)."""
    digest = sha256_of(data)
    path = path_of(folder, digest)
    row = session.get(StoredFile, digest)
    if not (path.exists() and path.stat().st_size == len(data)):
        write_whole(path, data, durable=durable)
        session.info.setdefault(_WRITTEN, set()).add((str(folder), digest))
    if row is None:
        row = StoredFile(sha256=digest, size=len(data), media_type=media_type)
        session.add(row)
        session.flush()
    return row


def read(*, folder: Path, sha256: str) -> bytes:
    return path_of(folder, sha256).read_bytes()


def write_whole(path: Path, data: bytes, *, durable: bool = True) -> None:
    private_folder(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{id(data)}.partial")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        os.fchmod(handle, FILE_MODE)
        view = memoryview(data)
        while view:
            written = os.write(handle, view)
            view = view[written:]
        if durable:
            os.fsync(handle)
    except BaseException:
        os.close(handle)
        temporary.unlink(missing_ok=True)
        raise
    os.close(handle)
    os.replace(temporary, path)
    if not durable:
        return
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


@event.listens_for(Session, "after_commit")
def _kept(session: Any) -> None:
    session.info.pop(_WRITTEN, None)


@event.listens_for(Session, "after_transaction_end")
def _undo(session: Any, transaction: Any) -> None:
    """Remove the files a transaction that ended without its commit (rolled back, or its
    session closed) wrote that no committed row names (another transaction may have
    committed the same bytes meanwhile: those stay)."""
    if transaction.parent is not None:
        return
    written: set[tuple[str, str]] = session.info.pop(_WRITTEN, set())
    if not written:
        return
    bind = session.get_bind()
    with Session(bind) as other:
        kept = set(
            other.exec(
                select(StoredFile.sha256).where(
                    col(StoredFile.sha256).in_([sha for _, sha in written])
                )
            )
        )
    for folder, digest in written:
        if digest not in kept:
            with contextlib.suppress(OSError):
                path_of(Path(folder), digest).unlink()


# --------------------------------------------------------------------------- checking


@dataclass(frozen=True)
class FileProblem:
    sha256: str
    problem: str  # "missing", "altered" (its bytes hash otherwise), "unlisted" (no row)
    actual_sha256: str = ""


@dataclass(frozen=True)
class FolderReport:
    checked: int
    total_bytes: int
    problems: tuple[FileProblem, ...]


def _hash_file(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while chunk := fh.read(READ_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def verify_folder(*, session: Session, folder: Path) -> FolderReport:
    """Re-hash every file the rows list; report those missing or altered, and files of the
    folder no row lists."""
    problems: list[FileProblem] = []
    checked = total = 0
    listed = set()
    for sha in session.exec(select(StoredFile.sha256).order_by(col(StoredFile.sha256))):
        listed.add(sha)
        path = path_of(folder, sha)
        if not path.is_file():
            problems.append(FileProblem(sha, "missing"))
            continue
        actual, size = _hash_file(path)
        checked += 1
        total += size
        if actual != sha:
            problems.append(FileProblem(sha, "altered", actual))
    if folder.is_dir():
        for path in sorted(folder.glob("??/*")):
            if _SHA.match(path.name) and path.name not in listed:
                problems.append(FileProblem(path.name, "unlisted"))
    return FolderReport(checked, total, tuple(problems))


def listed_files(*, session: Session) -> list[StoredFile]:
    return list(session.exec(select(StoredFile).order_by(col(StoredFile.sha256))))
