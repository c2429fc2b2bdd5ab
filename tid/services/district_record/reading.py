"""Reading a district's package and checking it whole before anything is written: a ZIP within
the bound, no entry named outside the package's layout, every entry listed in
``datapackage.json`` with the SHA-256 its bytes have, every table of the record present with
its columns, every cell of its column's type, every primary key once and every reference
resolved inside the package. A package that fails any check is refused with what failed."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tid.services.district_record import package
from tid.services.district_record.cells import CellError, from_text
from tid.services.district_record.tables import TABLES, Spec

MOST_PROBLEMS = 20  # said at once


class RecordError(ValueError):
    """A package refused, or an import that cannot be made: every reason found."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Package:
    """A package that passed its checks: the rows of each table (typed values), and where
    the ZIP is (its files are read again, and checked again, when written)."""

    path: Path
    district: str
    municipality: str
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    hashes: dict[str, str] = field(default_factory=dict)  # entry -> SHA-256


def _refuse(problem: str) -> RecordError:
    return RecordError([problem])


def _open(path: Path, max_bytes: int) -> zipfile.ZipFile:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _refuse(f"The file {path} cannot be read: {exc.strerror}.") from exc
    if size > max_bytes:
        raise _refuse(f"The file is {size:,} bytes: a package may have at most {max_bytes:,}.")
    if not zipfile.is_zipfile(path):
        raise _refuse("The file is not a ZIP archive.")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise _refuse(f"The file is not a readable ZIP archive: {exc}.") from exc
    names = [info.filename for info in archive.infolist()]
    bad = [name for name in names if not package.ENTRY.match(name)]
    if bad:
        archive.close()
        raise _refuse(f"The entry {bad[0]!r} is not a name a package may hold.")
    if len(set(names)) != len(names):
        archive.close()
        raise _refuse("The ZIP holds an entry twice.")
    total = sum(info.file_size for info in archive.infolist())
    if total > max_bytes:
        archive.close()
        raise _refuse(f"The ZIP's entries come to {total:,} bytes: at most {max_bytes:,}.")
    return archive


def _read(archive: zipfile.ZipFile, name: str) -> bytes:
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, OSError, KeyError) as exc:
        raise _refuse(f"The entry {name} cannot be read: {exc}.") from exc


def _descriptor(archive: zipfile.ZipFile) -> dict[str, Any]:
    if package.DESCRIPTOR not in archive.namelist():
        raise _refuse("The package has no datapackage.json.")
    try:
        found = json.loads(_read(archive, package.DESCRIPTOR).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _refuse(f"datapackage.json is not JSON: {exc}.") from exc
    if not isinstance(found, dict) or not isinstance(found.get("resources"), list):
        raise _refuse("datapackage.json lists no resources.")
    if found.get("tid:format") != package.FORMAT:
        raise _refuse(f"datapackage.json is not a district's record of format {package.FORMAT}.")
    return found


def _hashes(archive: zipfile.ZipFile, resources: list[Any]) -> dict[str, str]:
    """Each listed entry's SHA-256, checked against the descriptor's; every entry listed."""
    problems, hashes = [], {}
    for resource in resources:
        path = resource.get("path") if isinstance(resource, dict) else None
        if not isinstance(path, str) or path not in archive.namelist():
            problems.append(f"The resource {path!r} is not in the ZIP.")
            continue
        digest = hashlib.sha256(_read(archive, path)).hexdigest()
        if resource.get("hash") != f"sha256:{digest}":
            problems.append(f"{path}: its SHA-256 is {digest}, not the one datapackage.json lists.")
        hashes[path] = digest
    unlisted = set(archive.namelist()) - set(hashes) - {package.DESCRIPTOR}
    problems += [f"{name}: an entry datapackage.json does not list." for name in sorted(unlisted)]
    if problems:
        raise RecordError(problems[:MOST_PROBLEMS])
    return hashes


def read_package(*, path: Path, max_bytes: int) -> Package:
    """The package at ``path``, checked whole (raises :class:`RecordError`)."""
    with _open(path, max_bytes) as archive:
        descriptor = _descriptor(archive)
        hashes = _hashes(archive, descriptor["resources"])
        listed = {r.get("name") for r in descriptor["resources"] if isinstance(r, dict)}
        missing = [spec.name for spec in TABLES if package.csv_path(spec) not in hashes]
        if missing:
            raise _refuse(f"The package lacks the table(s): {', '.join(missing)}.")
        known = {package.csv_path(spec) for spec in TABLES}
        unknown = sorted(p for p in hashes if p.startswith("data/") and p not in known)
        if unknown or not listed:
            raise _refuse(f"The package holds table(s) this version does not know: {unknown}.")
        counts = {
            r.get("path"): r.get("tid:rows") for r in descriptor["resources"] if isinstance(r, dict)
        }
        rows, problems = {}, []
        for spec in TABLES:
            entry = package.csv_path(spec)
            found, wrong = _table(spec, _read(archive, entry))
            rows[spec.name] = found
            problems += wrong
            if counts.get(entry) != len(found):
                problems.append(f"{entry}: {len(found)} rows, not the {counts.get(entry)} listed.")
    problems += _references(rows) + _files(rows, hashes)
    if problems:
        raise RecordError(problems[:MOST_PROBLEMS])
    district, municipality = rows["district"], rows["municipality"]
    if len(district) != 1 or len(municipality) != 1:
        raise _refuse("The package holds not one district and its municipality.")
    return Package(path, district[0]["name"], municipality[0]["name"], rows, hashes)


def _table(spec: Spec, data: bytes) -> tuple[list[dict[str, Any]], list[str]]:
    """A table's rows, typed, and what is wrong with them."""
    name = spec.name
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [], [f"{name}: the CSV is not UTF-8."]
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, [])
    names = package.columns(spec)
    if header != [n for n, _ in names]:
        return [], [f"{name}: the columns are {header}, not {[n for n, _ in names]}."]
    nullable = {c.name: bool(c.nullable) for c in spec.table.columns}
    blank = package.dropped(spec)
    found, problems, keys = [], [], set()
    for number, cells in enumerate(reader, start=2):
        if len(cells) != len(names):
            problems.append(f"{name} row {number}: {len(cells)} cells, not {len(names)}.")
            continue
        row: dict[str, Any] = {}
        for (column, what), cell in zip(names, cells, strict=True):
            try:
                row[column] = from_text(what, cell, nullable.get(column, False))
            except CellError as exc:
                problems.append(f"{name} row {number}: {column} {exc}.")
            if column in blank and cell:
                problems.append(f"{name} row {number}: {column} names an account.")
        key = tuple(row.get(k) for k in package.primary_key(spec))
        if key in keys:
            problems.append(f"{name} row {number}: the key {key} again.")
        keys.add(key)
        found.append(row)
    return found, problems


def _references(rows: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Every reference names a row of the package."""
    problems = []
    for spec in TABLES:
        for column, table, target in package.references(spec):
            known = {row.get(target) for row in rows.get(table, [])}
            for number, row in enumerate(rows[spec.name], start=2):
                value = row.get(column)
                if value not in (None, "") and value not in known:
                    problems.append(
                        f"{spec.name} row {number}: {column} {value} names no row of {table}."
                    )
    return problems


def _files(rows: dict[str, list[dict[str, Any]]], hashes: dict[str, str]) -> list[str]:
    """Every archived document and file is in the ZIP under its name, with its SHA-256."""
    problems = []
    for spec in TABLES:
        if not spec.folder:
            continue
        for number, row in enumerate(rows[spec.name], start=2):
            path = package.file_path(spec, row["sha256"], row["media_type"])
            if row["path"] != path or hashes.get(path) != row["sha256"]:
                problems.append(
                    f"{spec.name} row {number}: the file {row['path']} does not hold the bytes "
                    f"of SHA-256 {row['sha256']}."
                )
    return problems
