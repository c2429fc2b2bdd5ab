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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tid.services.district_record import package
from tid.services.district_record.cells import CellError, from_text
from tid.services.district_record.tables import TABLES, Spec, named_in_json

MOST_PROBLEMS = 20  # said at once


class RecordError(ValueError):
    """A package refused, or an import that cannot be made: every reason found."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


# Tables whose rows the import keeps at hand (they are few): the rest are read again from the
# ZIP, a table at a time, when they are written.
KEPT = ("municipality", "district", "document_version")


@dataclass
class Package:
    """A package that passed its checks: where its ZIP is (each table is read again, and its
    SHA-256 checked again, when written), each entry's SHA-256, each table's keys in order
    (the export's ids), and the rows of the few tables of :data:`KEPT`."""

    path: Path
    district: str
    municipality: str
    hashes: dict[str, str] = field(default_factory=dict)  # entry -> SHA-256
    ids: dict[str, list[Any]] = field(default_factory=dict)  # table -> its keys, sorted
    kept: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


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
        seen = _Seen()
        problems: list[str] = []
        for spec in TABLES:
            entry = package.csv_path(spec)
            count, wrong = _check_table(spec, _read(archive, entry), seen)
            problems += wrong
            if counts.get(entry) != count:
                problems.append(f"{entry}: {count} rows, not the {counts.get(entry)} listed.")
            if len(problems) >= MOST_PROBLEMS:
                break
    problems += _files(seen.files, hashes)
    if problems:
        raise RecordError(problems[:MOST_PROBLEMS])
    district, municipality = seen.kept["district"], seen.kept["municipality"]
    if len(district) != 1 or len(municipality) != 1:
        raise _refuse("The package holds not one district and its municipality.")
    ids = {name: sorted(k[0] for k in keys) for name, keys in seen.keys.items()}
    return Package(path, district[0]["name"], municipality[0]["name"], hashes, ids, seen.kept)


@dataclass
class _Seen:
    """What the checks keep while they read the tables in order: each table's keys, the
    values other tables refer to, the files' rows and the rows of :data:`KEPT`."""

    keys: dict[str, set[tuple[Any, ...]]] = field(default_factory=dict)
    targets: dict[tuple[str, str], set[Any]] = field(default_factory=dict)
    files: list[tuple[Spec, int, dict[str, Any]]] = field(default_factory=list)
    kept: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def parsed(spec: Spec, data: bytes) -> Iterator[tuple[int, dict[str, Any], list[str]]]:
    """A table's rows, typed, each with its line number and what is wrong with it."""
    name = spec.name
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        yield 0, {}, [f"{name}: the CSV is not UTF-8."]
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, [])
    names = package.columns(spec)
    if header != [n for n, _ in names]:
        yield 0, {}, [f"{name}: the columns are {header}, not {[n for n, _ in names]}."]
        return
    nullable = {c.name: bool(c.nullable) for c in spec.table.columns}
    blank = package.dropped(spec)
    for number, cells in enumerate(reader, start=2):
        if len(cells) != len(names):
            yield number, {}, [f"{name} row {number}: {len(cells)} cells, not {len(names)}."]
            continue
        row: dict[str, Any] = {}
        problems = []
        for (column, what), cell in zip(names, cells, strict=True):
            try:
                row[column] = from_text(what, cell, nullable.get(column, False))
            except CellError as exc:
                problems.append(f"{name} row {number}: {column} {exc}.")
            if column in blank and cell:
                problems.append(f"{name} row {number}: {column} names an account.")
        yield number, row, problems


def _check_table(spec: Spec, data: bytes, seen: _Seen) -> tuple[int, list[str]]:
    """Check a table's rows (types, keys once, references to the tables before it or to
    itself); its row count and what is wrong."""
    name = spec.name
    keys: set[tuple[Any, ...]] = set()
    wanted = {col for (table, col) in _targets() if table == name}
    for column in wanted:
        seen.targets[(name, column)] = set()
    problems, count, later = [], 0, []
    references = package.references(spec)
    for number, row, wrong in parsed(spec, data):
        problems += wrong
        if not row:
            continue
        count += 1
        key = tuple(row.get(k) for k in package.primary_key(spec))
        if key in keys:
            problems.append(f"{name} row {number}: the key {key} again.")
        keys.add(key)
        for column in wanted:
            seen.targets[(name, column)].add(row.get(column))
        for column, table, target in references:
            value = row.get(column)
            if value in (None, ""):
                continue
            if table == name:
                later.append((number, column, value, target))
            elif value not in seen.targets.get((table, target), ()):
                problems.append(f"{name} row {number}: {column} {value} names no row of {table}.")
        if spec.folder:
            seen.files.append((spec, number, {k: row[k] for k in ("sha256", "media_type", "path")}))
        problems += _named_documents(spec, number, row, seen)
        if name in KEPT:
            seen.kept.setdefault(name, []).append(row)
        if len(problems) >= MOST_PROBLEMS:
            break
    for number, column, value, target in later:
        if value not in seen.targets.get((name, target), ()):
            problems.append(f"{name} row {number}: {column} {value} names no row of {name}.")
    if "id" in spec.table.c:
        seen.keys[name] = keys
    if name in KEPT:
        seen.kept.setdefault(name, [])
    return count, problems


def _named_documents(spec: Spec, number: int, row: dict[str, Any], seen: _Seen) -> list[str]:
    """The archived documents a row names inside its JSON cells (the opening position's
    source files) are archived documents of the package (whose bytes are checked against
    their SHA-256)."""
    archived = seen.targets.get(("archived_document", "sha256"), set())
    return [
        f"{spec.name} row {number}: {column} names the archived document {sha}, "
        "which the package does not hold."
        for column in spec.archived_json
        for sha in named_in_json(row.get(column))
        if sha not in archived
    ]


def _targets() -> set[tuple[str, str]]:
    found = {(table, target) for spec in TABLES for _c, table, target in package.references(spec)}
    if any(spec.archived_json for spec in TABLES):
        found.add(("archived_document", "sha256"))
    return found


def rows_of(*, record: Package, spec: Spec) -> Iterator[dict[str, Any]]:
    """A checked table's rows, read again from the ZIP (its SHA-256 checked again)."""
    entry = package.csv_path(spec)
    with zipfile.ZipFile(record.path) as archive:
        data = _read(archive, entry)
    if hashlib.sha256(data).hexdigest() != record.hashes.get(entry):
        raise _refuse(f"{entry} changed while it was imported.")
    for _number, row, problems in parsed(spec, data):
        if problems:
            raise RecordError(problems)
        yield row


def _files(files: list[tuple[Spec, int, dict[str, Any]]], hashes: dict[str, str]) -> list[str]:
    """Every archived document and file is in the ZIP under its name, with its SHA-256."""
    problems = []
    for spec, number, row in files:
        path = package.file_path(spec, row["sha256"], row["media_type"])
        if row["path"] != path or hashes.get(path) != row["sha256"]:
            problems.append(
                f"{spec.name} row {number}: the file {row['path']} does not hold the bytes "
                f"of SHA-256 {row['sha256']}."
            )
    return problems
