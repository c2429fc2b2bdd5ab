"""Writing a checked package into an installation that does not have its district, in the
caller's transaction (all or nothing): each table in the order of
:data:`~.tables.TABLES`, its rows under new ids (the export's ids mapped to the next free ones,
in the same order), every reference mapped with them. What people quote stays as exported:
journal entry numbers, notice numbers and article numbers, issued documents' references and
verification codes, archived documents (named by their SHA-256). The running balances come
with the journal and are checked against it before the import is kept."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from sqlalchemy import Table, bindparam, func, insert, select, text, update
from sqlmodel import Session

from tid.services.audit_trail import audit
from tid.services.district_record import package
from tid.services.district_record.reading import Package, RecordError, rows_of
from tid.services.district_record.tables import TABLES, Spec
from tid.services.files import file_store

CHUNK = 1000
Maps = dict[str, dict[Any, Any]]


@dataclass(frozen=True)
class Imported:
    district_id: int
    district: str
    municipality: str
    rows: int
    files: int
    record: Package = field(repr=False)
    maps: Maps = field(repr=False)  # table -> the export's id -> the id written


def _max_id(session: Session, table: Table) -> int:
    return int(session.execute(select(func.coalesce(func.max(table.c.id), 0))).scalar_one())


def _lock(session: Session) -> None:
    """On PostgreSQL, no one else inserts into the record's tables until the import ends
    (the new ids are the next free ones)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for spec in TABLES:
        session.execute(text(f'LOCK TABLE "{spec.name}" IN SHARE ROW EXCLUSIVE MODE'))


def _municipality(session: Session, record: Package, maps: Maps) -> None:
    """The installation's municipality of that name, or the package's, added."""
    table = TABLES[0].table
    row = record.kept["municipality"][0]
    found = session.execute(select(table.c.id).where(table.c.name == row["name"])).scalar()
    if found is None:
        found = _max_id(session, table) + 1
        session.execute(insert(table), [{"id": found, "name": row["name"]}])
    maps["municipality"] = {row["id"]: found}
    districts = TABLES[1].table
    there = session.execute(
        select(districts.c.id).where(
            districts.c.municipality_id == found, districts.c.name == record.district
        )
    ).scalar()
    if there is not None:
        raise RecordError(
            [
                f"This installation already has the district {record.district} of "
                f"{record.municipality} (id {there}): a district's record is imported into "
                "an installation without it."
            ]
        )


# Text that names a row by its id: the import names it by its new id.
_KEYS = (
    (re.compile(r"^(bill|supersede):(\d+)$"), "bill"),
    (re.compile(r"^(reverse):(\d+)$"), "journal_entry"),
    (re.compile(r"^(copy):(\d+)$"), "notice"),
    (re.compile(r"^(reminder):(\d+)$"), "bill"),
    (re.compile(r"^(expense:purpose):(\d+)$"), "authorized_purpose"),
)
_DISTRICT_KEY = re.compile(r"^([a-z_]+):(\d+):")


def _renamed(value: str, maps: Maps) -> str:
    for pattern, table in _KEYS:
        found = pattern.match(value)
        if found and int(found.group(2)) in maps.get(table, {}):
            return f"{found.group(1)}:{maps[table][int(found.group(2))]}"
    found = _DISTRICT_KEY.match(value)
    districts = maps.get("district", {})
    if found and int(found.group(2)) in districts:
        return f"{found.group(1)}:{districts[int(found.group(2))]}:{value[found.end() :]}"
    return value


def _bills_through(value: int, maps: Maps) -> int:
    """The mark of the bills booked: the newest new id among the bills up to it."""
    return max((new for old, new in maps.get("bill", {}).items() if old <= value), default=0)


def _entity(row: dict[str, Any], maps: Maps) -> str:
    ids = maps.get(str(row["entity_type"]), {})
    value = str(row["entity_id"])
    return str(ids.get(int(value), value)) if value.isdigit() else value


REWRITES: dict[tuple[str, str], Callable[[dict[str, Any], Maps], Any]] = {
    ("journal_entry", "idempotency_key"): lambda r, m: _renamed(r["idempotency_key"], m),
    ("journal_line", "account"): lambda r, m: _renamed(r["account"], m),
    ("ledger_day", "account"): lambda r, m: _renamed(r["account"], m),
    ("owner_message", "key"): lambda r, m: _renamed(r["key"], m),
    ("ledger_state", "bills_through"): lambda r, m: _bills_through(r["bills_through"], m),
    ("auditevent", "entity_id"): _entity,
}


def _values(spec: Spec, row: dict[str, Any], maps: Maps) -> dict[str, Any]:
    """A row as written: new ids, references mapped, accounts' columns empty."""
    values = {name: row[name] for name, _ in package.columns(spec) if name != "path"}
    for column, table, _target in package.references(spec):
        if values.get(column) is not None and table in maps:
            values[column] = maps[table][values[column]]
    for column in package.dropped(spec):
        values[column] = None
    for (name, column), rewrite in REWRITES.items():
        if name == spec.name:
            values[column] = rewrite(row, maps)
    if "id" in values and spec.name in maps:
        values["id"] = maps[spec.name][row["id"]]
    return values


def _unique_problems(session: Session, spec: Spec, rows: list[dict[str, Any]]) -> list[str]:
    """Values of the package that this installation already uses where one use is allowed."""
    problems = []
    for column in spec.table.columns:
        if not column.unique or column.primary_key or column.foreign_keys:
            continue
        wanted = sorted({r[column.name] for r in rows if r.get(column.name) not in (None, "")})
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            taken = session.execute(select(column).where(column.in_(chunk))).scalars().first()
            if taken is not None:
                problems.append(
                    f"{spec.name}.{column.name} {taken} is already used in this installation."
                )
                break
    return problems


def _write_table(session: Session, spec: Spec, record: Package, maps: Maps, folder: Path) -> int:
    """Write a table's rows, read again from the ZIP a chunk at a time."""
    table = spec.table
    if spec.folder:
        return _write_files(session, spec, record, folder)
    if "id" in table.c and table.c.id.primary_key:
        base = _max_id(session, table)
        olds = record.ids.get(spec.name, [])
        maps[spec.name] = {old: base + n for n, old in enumerate(olds, start=1)}
    count = 0
    later: dict[str, list[Any]] = {}
    rows = rows_of(record=record, spec=spec)
    while chunk := list(islice(rows, CHUNK)):
        values = [_values(spec, row, maps) for row in chunk]
        problems = _unique_problems(session, spec, values)
        if problems:
            raise RecordError(problems)
        for column, pairs in _forward_references(spec, values).items():
            later.setdefault(column, []).extend(pairs)
        session.execute(insert(table), values)
        count += len(values)
    for column, pairs in later.items():
        stmt = update(table).where(table.c.id == bindparam("_id"))
        session.execute(stmt.values({column: bindparam("_to")}), pairs)
    return count


def _forward_references(spec: Spec, values: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """A reference to a row of the same table written after it (a bill superseded by a later
    one): written empty first, then set."""
    later: dict[str, list[Any]] = {}
    for column, table, _target in package.references(spec):
        if table != spec.name:
            continue
        for row in values:
            if row[column] is not None and row[column] > row["id"]:
                later.setdefault(column, []).append({"_id": row["id"], "_to": row[column]})
                row[column] = None
    return later


def _write_files(session: Session, spec: Spec, record: Package, folder: Path) -> int:
    """The archived documents (rows with their bytes) and the files of the petitions' file
    (the archive's folder and their rows); those the installation has already are kept."""
    import hashlib
    import zipfile

    table = spec.table
    written = 0
    with zipfile.ZipFile(record.path) as archive:
        for row in rows_of(record=record, spec=spec):
            sha = row["sha256"]
            data = archive.read(row["path"])
            if hashlib.sha256(data).hexdigest() != sha:
                raise RecordError([f"{row['path']} changed while it was imported."])
            if spec.content:
                if session.execute(select(table.c.sha256).where(table.c.sha256 == sha)).first():
                    continue
                values = {k: v for k, v in row.items() if k != "path"}
                session.execute(insert(table), [{**values, spec.content: data}])
            else:
                file_store.put(
                    session=session, folder=folder, data=data, media_type=row["media_type"]
                )
            written += 1
    return written


def _sequences(session: Session) -> None:
    """On PostgreSQL, each table's sequence continues after the ids written."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for spec in TABLES:
        if "id" in spec.table.c and spec.table.c.id.primary_key:
            session.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence('\"{spec.name}\"', 'id'), "
                    f'(SELECT COALESCE(MAX(id), 0) + 1 FROM "{spec.name}"), false)'
                )
            )


def write_package(
    *, session: Session, record: Package, folder: Path, actor: audit.Actor
) -> Imported:
    """Write the package's rows (the caller commits, or rolls back on an error)."""
    _lock(session)
    maps: Maps = {}
    _municipality(session, record, maps)
    rows = files = 0
    for spec in TABLES[1:]:
        count = _write_table(session, spec, record, maps, folder)
        if spec.folder:
            files += count
        else:
            rows += count
    _sequences(session)
    district_id = maps["district"][record.kept["district"][0]["id"]]
    return Imported(district_id, record.district, record.municipality, rows, files, record, maps)
