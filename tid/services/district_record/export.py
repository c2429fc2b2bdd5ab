"""A district's whole record as one ZIP: a CSV per table of :data:`~.tables.TABLES` (rows in
the order of their primary key), every archived document and every file of the petitions'
file as files, and ``datapackage.json`` (Frictionless Data Package) describing each table's
schema and every entry's SHA-256. Entries are written in a fixed order with fixed times, so
the same record gives byte-identical ZIPs."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from tid.models import (
    Bill,
    District,
    JournalEntry,
    JournalLine,
    Municipality,
    Ordinance,
    PropertyYear,
)
from tid.rules.errors import N_
from tid.services.audit_trail import audit
from tid.services.district_record import package
from tid.services.district_record.cells import to_text
from tid.services.district_record.tables import TABLES, Scope, Spec, named_in_json
from tid.services.files import file_store
from tid.services.studio.reach import petitions_about

# The rows (bills, journal lines, roll lines) a request exports in about a second on an idle
# server; a larger district's record is made by a background job with its progress.
IN_REQUEST_ROWS = 20_000


ARCHIVE_CHANGED = N_(
    "The record cannot be exported: a document of the archive no longer matches its SHA-256. "
    "An administrator checks the archive (tid archive verify)."
)


class ExportError(RuntimeError):
    """The record cannot be exported as it stands (the message says why)."""


@dataclass(frozen=True)
class Exported:
    district: str
    tables: int
    rows: int
    files: int
    file_bytes: int


def scope_of(*, session: Session, district_id: int) -> Scope:
    """The district, its municipality and the petitions about it (those whose ordinance
    established another district are that district's)."""
    district = session.get(District, district_id)
    if district is None or district.id is None:
        raise ExportError(f"There is no district {district_id}.")
    ordinances = Ordinance.__table__  # type: ignore[attr-defined]
    others = select(ordinances.c.petition_id).where(ordinances.c.district_id != district_id)
    elsewhere = set(session.execute(others).scalars())
    petitions = petitions_about(session=session, district=district)
    ids = tuple(sorted(p.id for p in petitions if p.id is not None and p.id not in elsewhere))
    scope = Scope(district.id, district.municipality_id, ids)
    return replace(scope, documents=_named_in_json(session, scope))


def _named_in_json(session: Session, scope: Scope) -> tuple[str, ...]:
    """The archived documents the district's rows name inside JSON cells (the opening
    position's source files)."""
    found: set[str] = set()
    for spec in TABLES:
        for column in spec.archived_json:
            cells = session.execute(select(spec.table.c[column]).where(spec.where(scope)))
            for cell in cells.scalars():
                found.update(named_in_json(cell))
    return tuple(sorted(found))


def export_district(
    *,
    session: Session,
    district_id: int,
    folder: Path,
    out: IO[bytes],
    progress: Callable[[int, int], None] | None = None,
) -> Exported:
    """Write the district's record as a ZIP to ``out`` (each table's CSV streamed into its
    entry, a few thousand rows at a time)."""
    scope = scope_of(session=session, district_id=district_id)
    district = session.get(District, district_id)
    municipality = session.get(Municipality, scope.municipality_id)
    assert district is not None and municipality is not None
    resources: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    rows = 0
    with zipfile.ZipFile(out, "w") as archive:
        for spec in TABLES:
            found: list[dict[str, Any]] = []
            info = package.zip_info(package.csv_path(spec))
            with archive.open(info, "w", force_zip64=True) as entry:
                hashing = _Hashing(entry)
                count = _table_csv(session, spec, scope, hashing, found)
            resources.append(
                package.table_resource(spec, hashing.size, hashing.digest.hexdigest(), count)
            )
            rows += count
            for values in found:
                files.append(_write_file(session, spec, values, folder, archive))
            if progress is not None:
                progress(len(resources), len(TABLES))
        descriptor = {
            "profile": "data-package",
            "name": f"tid-district-{scope.district_id}",
            "title": f"{district.name} ({municipality.name})",
            "tid:format": package.FORMAT,
            "tid:district": {"name": district.name, "municipality": municipality.name},
            "resources": resources + sorted(files, key=lambda r: r["path"]),
        }
        body = json.dumps(descriptor, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        archive.writestr(package.zip_info(package.DESCRIPTOR), body.encode("utf-8"))
    return Exported(
        district.name,
        len(TABLES),
        rows,
        len(files),
        sum(int(f["bytes"]) for f in files),
    )


class _Hashing(io.RawIOBase):
    """Bytes passed on to a ZIP's entry, counted and hashed on the way."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target = target
        self.digest = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.digest.update(chunk)
        self.size += len(chunk)
        self.target.write(chunk)
        return len(chunk)


def _table_csv(
    session: Session,
    spec: Spec,
    scope: Scope,
    out: _Hashing,
    files: list[dict[str, Any]],
) -> int:
    """Write a table's CSV to ``out`` (a table of files: each file's row kept in ``files``,
    its bytes written after); its row count."""
    names = package.columns(spec)
    blank = package.dropped(spec)
    wanted = [spec.table.c[name] for name, what in names if name != "path"]
    order = [spec.table.c[name] for name in package.primary_key(spec)]
    text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)  # type: ignore[type-var]
    writer = csv.writer(text, lineterminator="\r\n")
    writer.writerow([name for name, _ in names])
    count = 0
    stmt = select(*wanted).where(spec.where(scope)).order_by(*order)
    for row in session.execute(stmt.execution_options(yield_per=2000)):
        values = dict(zip([c.name for c in wanted], row, strict=True))
        cells = [
            "" if name in blank else to_text(what, values.get(name))
            for name, what in names
            if name != "path"
        ]
        if spec.folder:
            files.append(values)
            cells.append(package.file_path(spec, values["sha256"], values["media_type"]))
        writer.writerow(cells)
        count += 1
    text.flush()
    text.detach()
    return count


def _write_file(
    session: Session,
    spec: Spec,
    values: dict[str, Any],
    folder: Path,
    archive: zipfile.ZipFile,
) -> dict[str, Any]:
    """Write one archived document or stored file into the ZIP, checked against its hash."""
    sha = str(values["sha256"])
    media_type = str(values["media_type"])
    if spec.content:
        table = spec.table
        found = session.execute(select(table.c[spec.content]).where(table.c.sha256 == sha))
        data = bytes(found.scalar_one())
    else:
        try:
            data = file_store.read(folder=folder, sha256=sha)
        except OSError as exc:
            raise ExportError(f"The file {sha} is missing from the archive's folder.") from exc
    if hashlib.sha256(data).hexdigest() != sha:
        raise ExportError(
            f"The archived document {sha} no longer matches its SHA-256: "
            "run `tid archive verify` and restore it from a backup first."
        )
    path = package.file_path(spec, sha, media_type)
    info = package.zip_info(path)
    if media_type != "text/csv":
        info.compress_type = zipfile.ZIP_STORED
    archive.writestr(info, data)
    return {
        "name": f"{spec.folder}-{sha}",
        "path": path,
        "mediatype": media_type,
        "bytes": len(data),
        "hash": f"sha256:{sha}",
    }


def record_export(
    *, session: Session, actor: audit.Actor, district_id: int, done: Exported
) -> None:
    """Keep in the district's history who took its whole record, and what it held."""
    audit.record(
        session=session,
        actor=actor,
        action="district.export",
        entity=("district", district_id),
        after={"rows": done.rows, "files": done.files, "file_bytes": done.file_bytes},
    )


def rows_to_export(*, session: Session, district_id: int) -> int:
    """The bills, journal lines and roll lines of the district: what its export's time grows
    with."""
    counts = (
        select(func.count()).select_from(Bill).where(col(Bill.district_id) == district_id),
        select(func.count())
        .select_from(JournalLine)
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .where(col(JournalEntry.district_id) == district_id),
        select(func.count())
        .select_from(PropertyYear)
        .where(col(PropertyYear.district_id) == district_id),
    )
    return sum(int(session.execute(count).scalar_one()) for count in counts)


def export_to_file(
    *,
    session: Session,
    district_id: int,
    folder: Path,
    target: Path,
    progress: Callable[[int, int], None] | None = None,
) -> Exported:
    """Write the district's record to ``target`` whole or not at all (a partial file is
    removed)."""
    partial = target.with_name(f".{target.name}.partial")
    try:
        with partial.open("wb") as handle:
            done = export_district(
                session=session,
                district_id=district_id,
                folder=folder,
                out=handle,
                progress=progress,
            )
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)
    return done


def job_file(instance: Path, job_id: int) -> Path:
    """Where a background job writes a district's record: the uploads' folder, whose files
    are deleted after UPLOAD_RETENTION_HOURS."""
    from tid.files import private_folder

    return private_folder(instance / "uploads") / f"district-record-{job_id}.zip"


def job_result(*, session: Session, instance: Path, district_id: int, job_id: int) -> Path | None:
    """The ZIP of the district's record a finished export job made, while it is kept."""
    from tid.models import Job, JobState

    job = session.get(Job, job_id)
    if (
        job is None
        or job.kind != "district.export"
        or job.district_id != district_id
        or job.state != JobState.DONE.value
    ):
        return None
    path = job_file(instance, job_id)
    return path if path.is_file() else None
