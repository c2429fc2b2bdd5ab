"""Backups: ``tid backup`` and ``tid restore``.

A backup is one ``.tar.gz`` file holding

- ``database.sqlite`` — a consistent copy made with SQLite's online backup (the app may keep
  running), or ``database.pgdump`` — ``pg_dump``'s custom format for PostgreSQL;
- ``documents/<sha256>.<ext>`` — every archived document (the notices as mailed, print
  files, manifests), also kept in the database, here as plain files an auditor can open;
- ``stored/<sha256>`` — every file of the archive's folder (the legislature's files: a
  petition's documents and their versions), as the folder keeps them;
- ``manifest.json`` — what the backup holds, with the SHA-256 of every file.

A restore checks every file against the manifest, replaces the database (SQLite's backup
API; ``pg_restore --clean``) and then checks that each archived document in the restored
database is byte for byte the file of the backup.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from glob import glob
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import inspect, text
from sqlalchemy.engine import URL, Engine, make_url
from sqlmodel import Session, select

from tid.files import create_private, open_private
from tid.models import ArchivedDocument, StoredFile
from tid.services.files import file_store

FORMAT = "tid-backup"
VERSION = 1
_EXTENSIONS = {"application/pdf": "pdf", "text/csv": "csv"}


class BackupError(RuntimeError):
    """A backup cannot be made or restored; the message says why."""


@dataclass(frozen=True)
class Summary:
    database: str
    documents: int
    size: int

    def as_json(self) -> dict[str, Any]:
        return {"database": self.database, "documents": self.documents, "bytes": self.size}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _dialect(url: str) -> str:
    name = make_url(url).get_backend_name()
    if name not in ("sqlite", "postgresql"):
        raise BackupError(f"cannot back up a {name} database")
    return name


def _pg_binary(name: str) -> str:
    installed = sorted(glob(f"/usr/lib/postgresql/*/bin/{name}"))
    found = shutil.which(name) or (installed[-1] if installed else None)
    if not found:
        raise BackupError(f"{name} was not found: install PostgreSQL's client programs")
    return found


def _pg_target(url: str) -> tuple[str, dict[str, str]]:
    """A libpq connection URI without the password, and the environment that carries it
    (never on a command line other users could read)."""
    parsed: URL = make_url(url)
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _sqlite_path(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise BackupError("an in-memory SQLite database cannot be backed up")
    return Path(database)


def _add(tar: tarfile.TarFile, name: str, data: bytes, files: dict[str, str]) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(datetime.now(UTC).timestamp())
    info.mode = 0o600
    tar.addfile(info, io.BytesIO(data))
    files[name] = _sha256(data)


def _revision(engine: Engine) -> str | None:
    if not inspect(engine).has_table("alembic_version"):
        return None
    with engine.connect() as conn:
        value = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return None if value is None else str(value)


def backup(engine: Engine, url: str, target: Path, *, archive: Path | None = None) -> Summary:
    """Write a backup of the database at ``url`` (its ``engine``) to ``target``, with the
    files of the archive's folder ``archive``."""
    dialect = _dialect(url)
    with tempfile.TemporaryDirectory(prefix="tid-backup-") as work:
        dump = Path(work) / ("database.sqlite" if dialect == "sqlite" else "database.pgdump")
        if dialect == "sqlite":
            source = _sqlite_path(url)
            with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(dump)) as dst:
                src.backup(dst)
        else:
            uri, env = _pg_target(url)
            command = [_pg_binary("pg_dump"), "--format=custom", "--no-owner", "--no-privileges"]
            _run([*command, f"--file={dump}", f"--dbname={uri}"], env)
        files: dict[str, str] = {}
        partial = target.with_name(target.name + ".partial")
        documents = 0
        with (
            os.fdopen(open_private(partial), "wb") as out,
            tarfile.open(fileobj=out, mode="w:gz") as tar,
        ):
            _add(tar, dump.name, dump.read_bytes(), files)
            with Session(engine) as session:
                for document in session.exec(
                    select(ArchivedDocument).order_by(ArchivedDocument.sha256)
                ):
                    extension = _EXTENSIONS.get(document.media_type, "bin")
                    _add(tar, f"documents/{document.sha256}.{extension}", document.content, files)
                    documents += 1
                stored = _add_stored(tar, session, archive, files)
            manifest = {
                "format": FORMAT,
                "version": VERSION,
                "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "database": dialect,
                "revision": _revision(engine),
                "documents": documents,
                "stored_files": stored,
                "files": files,
            }
            _add(tar, "manifest.json", json.dumps(manifest, indent=2).encode(), {})
        partial.replace(target)  # never a half-written backup under the final name
    return Summary(dialect, documents, target.stat().st_size)


def _add_stored(
    tar: tarfile.TarFile, session: Session, archive: Path | None, files: dict[str, str]
) -> int:
    """The files of the archive's folder, each checked against its name as it is read."""
    if archive is None:
        return 0
    count = 0
    for row in session.exec(select(StoredFile).order_by(StoredFile.sha256)):
        try:
            data = file_store.read(folder=archive, sha256=row.sha256)
        except OSError:
            raise BackupError(f"the archive's folder lacks file {row.sha256}") from None
        if _sha256(data) != row.sha256:
            raise BackupError(f"file {row.sha256} of the archive's folder is altered")
        _add(tar, f"stored/{row.sha256}", data, files)
        count += 1
    return count


def _restore_stored(engine: Engine, manifest: dict[str, Any], folder: Path, archive: Path) -> int:
    """Put the backup's files into the archive's folder (whole or not at all) and check that
    every file the restored database lists is there, byte for byte."""
    count = 0
    for name in manifest["files"]:
        if name.startswith("stored/"):
            data = (folder / name).read_bytes()
            file_store.write_whole(file_store.path_of(archive, Path(name).name), data)
            count += 1
    with Session(engine) as session:
        for row in session.exec(select(StoredFile)):
            path = file_store.path_of(archive, row.sha256)
            if not path.is_file() or _sha256(path.read_bytes()) != row.sha256:
                raise BackupError(f"the restored archive's folder lacks file {row.sha256}")
    return count


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{Path(command[0]).name} failed: {done.stderr.strip()[:2000]}")


@contextmanager
def _opened(source: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    """The manifest and the folder of a backup's files, each checked against its hash."""
    with tempfile.TemporaryDirectory(prefix="tid-restore-") as work:
        folder = Path(work)
        try:
            with tarfile.open(source, "r:gz") as tar:
                tar.extractall(folder, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise BackupError(f"{source} is not a tid backup: {exc}") from None
        try:
            manifest = json.loads((folder / "manifest.json").read_text())
        except (OSError, ValueError):
            raise BackupError(f"{source} is not a tid backup: no manifest") from None
        if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
            raise BackupError(f"{source} is not a tid backup of version {VERSION}")
        for name, digest in manifest["files"].items():
            path = folder / name
            if not path.is_file() or _sha256(path.read_bytes()) != digest:
                raise BackupError(f"{name} of the backup is damaged (its SHA-256 differs)")
        yield manifest, folder


def _has_data(engine: Engine) -> bool:
    if not inspect(engine).has_table("journal_entry"):
        return False
    with engine.connect() as conn:
        for name in ("user_account", "journal_entry", "district"):
            query = sa.select(sa.literal(1)).select_from(sa.table(name)).limit(1)
            if conn.execute(query).first() is not None:
                return True
    return False


def restore(
    engine: Engine,
    url: str,
    source: Path,
    *,
    replace: bool = False,
    archive: Path | None = None,
) -> Summary:
    """Replace the database at ``url`` with the backup ``source`` (and put its files into
    the archive's folder ``archive``). A database that already holds data is replaced only
    with ``replace``."""
    dialect = _dialect(url)
    with _opened(source) as (manifest, folder):
        if manifest["database"] != dialect:
            raise BackupError(
                f"this backup is of a {manifest['database']} database; the configured one "
                f"is {dialect}"
            )
        if dialect == "sqlite":
            create_private(_sqlite_path(url))
        if not replace and _has_data(engine):
            raise BackupError("the database already holds data; restore with --replace")
        engine.dispose()
        if dialect == "sqlite":
            target = _sqlite_path(url)
            source_db = folder / "database.sqlite"
            with (
                closing(sqlite3.connect(source_db)) as src,
                closing(sqlite3.connect(target)) as dst,
            ):
                src.backup(dst)
        else:
            uri, env = _pg_target(url)
            command = [_pg_binary("pg_restore"), "--clean", "--if-exists", "--no-owner"]
            command += ["--no-privileges", "--single-transaction", f"--dbname={uri}"]
            _run([*command, str(folder / "database.pgdump")], env)
        documents = 0
        with Session(engine) as session:
            for name in manifest["files"]:
                if not name.startswith("documents/"):
                    continue
                sha = Path(name).stem
                row = session.get(ArchivedDocument, sha)
                data = (folder / name).read_bytes()
                if row is None or row.content != data or _sha256(row.content) != sha:
                    raise BackupError(f"the restored archive lacks or alters document {sha}")
                documents += 1
        if documents != manifest["documents"]:
            raise BackupError("the backup's documents do not match its manifest")
        if archive is not None:
            _restore_stored(engine, manifest, folder, archive)
    return Summary(dialect, documents, source.stat().st_size)
