"""A roll file compared with the district's roll of its fiscal year and imported.

:func:`preview_roll` writes nothing; :func:`import_roll` writes all rows or none (the caller
commits once), and the same file imported again changes nothing (its SHA-256 is unique per
district and fiscal year). Each fiscal year has its own rows (:class:`PropertyYear`), so
the owners and values of every year stay visible. A corrected file for a year already
imported updates the rows that changed (an audit event each, with before and after) and
marks the ones it no longer lists as out of the roll; nothing is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlmodel import Session, col, select

from tid.clock import utcnow
from tid.models import District, Property, PropertyYear, RollImport
from tid.rules.errors import N_, FindingsError, InputError
from tid.rules.periods import parse_fiscal_year
from tid.rules.vocab.roll_columns import year_columns
from tid.services.audit_trail import audit
from tid.services.closing import transfers
from tid.services.roll.file_reading import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    ParsedRoll,
    parse_roll,
)
from tid.services.roll.rows import RollRow

PREVIEW_ROWS = 20


@dataclass(frozen=True)
class RollPreview:
    """A file checked against the district's roll of that fiscal year; nothing written."""

    district_id: int
    fiscal_year: str
    file_name: str
    parsed: ParsedRoll
    already_imported: RollImport | None
    added: int  # property-years this file would add
    changed: int  # rows of the same year it would correct
    unchanged: int
    removed: int  # rows of the same year it no longer lists
    new_properties: int  # cadastral numbers new to the district
    warnings: tuple[str, ...]
    # The year's changes against last year's roll (tid/services/roll_check/changes.py),
    # added by the callers that check the roll: None when not worked out.
    changes: Any = None

    @property
    def ok(self) -> bool:
        return not self.parsed.findings

    @property
    def sample(self) -> tuple[RollRow, ...]:
        return self.parsed.rows[:PREVIEW_ROWS]


@dataclass(frozen=True)
class RollImportResult:
    roll_import: RollImport
    unchanged: bool  # the same file was imported before: nothing written
    added: int
    changed: int
    removed: int
    new_properties: int


def _district(session: Session, district_id: int) -> District:
    district = session.get(District, district_id)
    if district is None:
        raise InputError("district", N_("There is no such district."))
    return district


def _existing_year(session: Session, district_id: int, fiscal_year: str) -> dict[str, PropertyYear]:
    stmt = (
        select(Property.cadastral_number, PropertyYear)
        .join(PropertyYear, col(PropertyYear.property_id) == col(Property.id))
        .where(PropertyYear.district_id == district_id, PropertyYear.fiscal_year == fiscal_year)
    )
    return {number: year for number, year in session.exec(stmt)}


def _year_values(year: PropertyYear) -> dict[str, Any]:
    values = {code: getattr(year, code) for code in year_columns()}
    return {**values, "attributes": year.attributes}


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all(_norm(a[k]) == _norm(b[k]) for k in a)


def _norm(value: Any) -> Any:
    if isinstance(value, Decimal):
        return value.normalize()
    return value


def preview_roll(
    *,
    session: Session,
    district_id: int,
    fiscal_year: str,
    data: bytes,
    file_name: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> RollPreview:
    """Check a roll file and compare it with the district's roll of that year; writes
    nothing. Raises :class:`InputError` only for a file that cannot be read at all."""
    _district(session, district_id)
    fy = parse_fiscal_year(fiscal_year).label
    parsed = parse_roll(data, max_bytes=max_bytes, max_rows=max_rows)
    already = session.exec(
        select(RollImport).where(
            RollImport.district_id == district_id,
            RollImport.fiscal_year == fy,
            RollImport.sha256 == parsed.sha256,
        )
    ).first()
    existing = _existing_year(session, district_id, fy)
    known = set(
        session.exec(select(Property.cadastral_number).where(Property.district_id == district_id))
    )
    added = changed = unchanged = 0
    listed: set[str] = set()
    for row in parsed.rows:
        listed.add(row.cadastral_number)
        year = existing.get(row.cadastral_number)
        if year is None:
            added += 1
        elif year.in_roll and _same(row.values(), _year_values(year)):
            unchanged += 1
        else:
            changed += 1
    removed = sum(1 for n, y in existing.items() if y.in_roll and n not in listed)
    warnings: list[str] = []
    if parsed.ignored_columns:
        warnings.append(N_("Columns without any number are ignored:"))
    if existing and not already:
        warnings.append(
            N_(
                "The roll of this fiscal year was imported before: this file corrects it. "
                "Rows that change are recorded with their previous values; properties it no "
                "longer lists leave this year's roll."
            )
        )
    return RollPreview(
        district_id=district_id,
        fiscal_year=fy,
        file_name=file_name,
        parsed=parsed,
        already_imported=already,
        added=added,
        changed=changed if not already else 0,
        unchanged=unchanged,
        removed=removed if not already else 0,
        new_properties=sum(1 for r in parsed.rows if r.cadastral_number not in known),
        warnings=tuple(warnings),
    )


def import_roll(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fiscal_year: str,
    data: bytes,
    file_name: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> RollImportResult:
    """Import a roll file for one district and fiscal year: every row or none.

    Bad rows raise :class:`FindingsError` listing each (row, column) before anything is
    written. The same file again returns the earlier import with ``unchanged=True``. The
    caller commits (one transaction)."""
    preview = preview_roll(
        session=session,
        district_id=district_id,
        fiscal_year=fiscal_year,
        data=data,
        file_name=file_name,
        max_bytes=max_bytes,
        max_rows=max_rows,
    )
    parsed = preview.parsed
    if parsed.findings:
        raise FindingsError(list(parsed.findings))
    if preview.already_imported is not None:
        return RollImportResult(preview.already_imported, True, 0, 0, 0, 0)
    fy = preview.fiscal_year
    now = utcnow()
    roll_import = RollImport(
        district_id=district_id,
        fiscal_year=fy,
        file_name=_clean_file_name(file_name),
        sha256=parsed.sha256,
        rows=len(parsed.rows),
        imported_at=now,
        actor=actor.label,
        user_id=actor.user_id,
    )
    session.add(roll_import)
    session.flush()  # a concurrent import of the same file stops here (unique sha256)
    property_ids, new_properties = _properties(session, district_id, parsed.rows, now)
    existing = _existing_year(session, district_id, fy)
    inserts, changed = _year_rows(
        session, actor, roll_import, parsed.rows, existing, property_ids, now
    )
    listed = {row.cadastral_number for row in parsed.rows}
    removed = _leave_roll(session, actor, roll_import, existing, listed, now)
    if inserts:
        session.execute(insert(PropertyYear), inserts)
    _refresh_physical_addresses(session, district_id, fy, parsed.rows, property_ids, new_properties)
    roll_import.added = len(inserts)
    roll_import.changed = changed
    roll_import.removed = removed
    session.add(roll_import)
    session.flush()
    transfers.detect_from_roll(session=session, actor=actor, roll_import=roll_import)
    audit.record(
        session=session,
        actor=actor,
        action="roll.import",
        entity=roll_import,
        after=audit.snapshot(roll_import),
    )
    return RollImportResult(roll_import, False, len(inserts), changed, removed, len(new_properties))


def _properties(
    session: Session, district_id: int, rows: Sequence[RollRow], now: datetime
) -> tuple[dict[str, int | None], list[RollRow]]:
    """Every listed parcel's property id, the parcels new to the district added (and
    those rows)."""
    property_ids = dict(
        session.exec(
            select(Property.cadastral_number, Property.id).where(
                Property.district_id == district_id
            )
        ).all()
    )
    new_properties = [r for r in rows if r.cadastral_number not in property_ids]
    if new_properties:
        session.execute(
            insert(Property),
            [
                {
                    "district_id": district_id,
                    "cadastral_number": r.cadastral_number,
                    "physical_address": r.physical_address,
                    "created_at": now,
                }
                for r in new_properties
            ],
        )
        property_ids = dict(
            session.exec(
                select(Property.cadastral_number, Property.id).where(
                    Property.district_id == district_id
                )
            ).all()
        )
    return property_ids, new_properties


def _year_rows(
    session: Session,
    actor: audit.Actor,
    roll_import: RollImport,
    rows: Sequence[RollRow],
    existing: Mapping[str, PropertyYear],
    property_ids: Mapping[str, int | None],
    now: datetime,
) -> tuple[list[dict[str, Any]], int]:
    """The year's rows: the new ones to insert, and those that changed corrected in place
    (an audit event each, with before and after); returns the inserts and how many changed."""
    import_id = roll_import.id or 0
    inserts: list[dict[str, Any]] = []
    changed = 0
    for row in rows:
        values = row.values()
        year = existing.get(row.cadastral_number)
        if year is None:
            inserts.append(
                {
                    **values,
                    "property_id": property_ids[row.cadastral_number],
                    "district_id": roll_import.district_id,
                    "fiscal_year": roll_import.fiscal_year,
                    "roll_import_id": import_id,
                    "source_row": row.row,
                    "in_roll": True,
                    "updated_at": now,
                }
            )
            continue
        if year.in_roll and _same(values, _year_values(year)):
            continue
        before = audit.snapshot(year)
        for key, value in values.items():
            setattr(year, key, value)
        year.in_roll = True
        year.roll_import_id = import_id
        year.source_row = row.row
        year.updated_at = now
        session.add(year)
        changed += 1
        audit.record(
            session=session,
            actor=actor,
            action="property_year.correct",
            entity=year,
            before=before,
            after=audit.snapshot(year),
        )
    return inserts, changed


def _leave_roll(
    session: Session,
    actor: audit.Actor,
    roll_import: RollImport,
    existing: Mapping[str, PropertyYear],
    listed: set[str],
    now: datetime,
) -> int:
    """The year's rows the file no longer lists marked out of the roll (nothing deleted);
    how many."""
    removed = 0
    for number, year in existing.items():
        if number not in listed and year.in_roll:
            before = audit.snapshot(year)
            year.in_roll = False
            year.roll_import_id = roll_import.id or 0
            year.updated_at = now
            session.add(year)
            removed += 1
            audit.record(
                session=session,
                actor=actor,
                action="property_year.leave_roll",
                entity=year,
                before=before,
                after=audit.snapshot(year),
            )
    return removed


def _refresh_physical_addresses(
    session: Session,
    district_id: int,
    fiscal_year: str,
    rows: Sequence[RollRow],
    property_ids: Mapping[str, int | None],
    new_properties: Sequence[RollRow],
) -> None:
    """Keep Property.physical_address as the latest fiscal year's roll says."""
    latest = session.exec(
        select(func.max(PropertyYear.fiscal_year)).where(PropertyYear.district_id == district_id)
    ).first()
    if latest is not None and latest > fiscal_year:
        return
    fresh = {r.cadastral_number for r in new_properties}
    current = dict(
        session.exec(
            select(Property.id, Property.physical_address).where(
                Property.district_id == district_id
            )
        ).all()
    )
    updates = [
        {"pid": property_ids[r.cadastral_number], "address": r.physical_address}
        for r in rows
        if r.cadastral_number not in fresh
        and current.get(property_ids[r.cadastral_number]) != r.physical_address
    ]
    if updates:
        # A Core UPDATE with one parameter set per property (through the connection: the
        # ORM would take a list of parameters for its own bulk update by primary key).
        table = Property.__table__  # type: ignore[attr-defined]
        session.connection().execute(
            update(table)
            .where(table.c.id == bindparam("pid"))
            .values(physical_address=bindparam("address")),
            updates,
        )
        moved = {u["pid"] for u in updates}
        for prop in list(session.identity_map.values()):
            if isinstance(prop, Property) and prop.id in moved:
                session.expire(prop, ["physical_address"])


def _clean_file_name(name: str) -> str:
    base = Path(name.replace("\\", "/")).name.strip() or "roll.csv"
    return "".join(c for c in base if c.isprintable())[:255]
