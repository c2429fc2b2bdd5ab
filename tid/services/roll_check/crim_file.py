"""The correction file for the CRIM — the year's sent-back properties with the roll's columns
and the reason for each — and the CRIM's answers imported back as corrections of the year's
roll, each with its history (an audit event with before and after).

The file round-trips: the CRIM corrects the figures in the same file (or sends its own
extract of those properties) and the association imports it; the columns ``cambio`` and
``motivo`` are for the CRIM to read and are not read back."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, col, select

from tid import csv_safe
from tid.clock import utcnow
from tid.models import Property, PropertyYear, RollChange, RollImport
from tid.rules.errors import N_, FindingsError, InputError
from tid.rules.messages import render
from tid.rules.roll_changes import GONE, KINDS
from tid.rules.vocab.roll_columns import ROLL_COLUMNS, year_columns
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district
from tid.services.files.csvfile import decode, delimiter_of, normalize_header
from tid.services.roll import parse_roll
from tid.services.roll.rows import row_finding
from tid.services.roll_check.changes import last_year_of
from tid.services.roll_check.gate import CORRECTED, SENT_BACK

KIND_COLUMN = "cambio"
REASON_COLUMN = "motivo"
NOT_READ = (KIND_COLUMN, REASON_COLUMN)


def _header(code: str) -> str:
    column = ROLL_COLUMNS[code]
    return code if code in column.headers else column.headers[0]


def _sent_back(
    session: Session, district_id: int, fiscal_year: str, statuses: tuple[str, ...] = (SENT_BACK,)
) -> list[RollChange]:
    return list(
        session.exec(
            select(RollChange)
            .where(
                RollChange.district_id == district_id,
                RollChange.fiscal_year == fiscal_year,
                col(RollChange.status).in_(statuses),
            )
            .order_by(RollChange.number, col(RollChange.id))
        )
    )


def _rows_of(
    session: Session, district_id: int, fiscal_year: str, numbers: set[str]
) -> dict[str, PropertyYear]:
    if not numbers:
        return {}
    stmt = (
        select(Property.cadastral_number, PropertyYear)
        .join(PropertyYear, col(PropertyYear.property_id) == col(Property.id))
        .where(
            PropertyYear.district_id == district_id,
            PropertyYear.fiscal_year == fiscal_year,
            col(Property.cadastral_number).in_(sorted(numbers)),
        )
    )
    return dict(session.exec(stmt).all())


def correction_file(*, session: Session, district_id: int, fiscal_year: str) -> bytes:
    """The correction file of the year for the CRIM: a row per sent-back property (this
    year's figures; last year's for a property gone), its change and reason, in Spanish."""
    changes = _sent_back(session, district_id, fiscal_year)
    this_numbers = {n for c in changes for n in json.loads(c.numbers_after)}
    gone_numbers = {n for c in changes if c.kind == GONE for n in json.loads(c.numbers_before)}
    this = _rows_of(session, district_id, fiscal_year, this_numbers)
    last = _rows_of(session, district_id, last_year_of(fiscal_year), gone_numbers)
    columns = list(year_columns())
    extras = sorted(
        {k for row in [*this.values(), *last.values()] for k in json.loads(row.attributes)}
    )
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [_header("cadastral_number"), *map(_header, columns), *extras, KIND_COLUMN, REASON_COLUMN]
    )
    written: set[str] = set()
    for change in changes:
        listed = json.loads(change.numbers_after) or json.loads(change.numbers_before)
        for number in listed:
            row = this.get(number) or last.get(number)
            if row is None or number in written:
                continue
            written.add(number)
            attributes = json.loads(row.attributes)
            writer.writerow(
                [
                    csv_safe.text_cell(number),
                    *(csv_safe.text_cell(_cell(getattr(row, c))) for c in columns),
                    *(csv_safe.number_cell(attributes.get(k, "")) for k in extras),
                    csv_safe.text_cell(render(KINDS[change.kind], "es")),
                    csv_safe.text_cell(change.reason),
                ]
            )
    return ("\ufeff" + out.getvalue()).encode()


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def _without_notes(data: bytes) -> bytes:
    """The file without the columns written for the CRIM to read (change, reason)."""
    text, _encoding = decode(data)
    delimiter = delimiter_of(text.split("\n", 1)[0])
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    if not rows:
        return data
    keep = [i for i, h in enumerate(rows[0]) if normalize_header(h) not in NOT_READ]
    out = io.StringIO()
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([row[i] if i < len(row) else "" for i in keep])
    return out.getvalue().encode()


def import_corrections(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fiscal_year: str,
    data: bytes,
    file_name: str,
) -> int:
    """Import the CRIM's answers to the correction file: each row corrects (or, for a
    property gone, puts back) the year's row of a sent-back property, with an audit event of
    before and after, and its sent-back changes become corrected. Rows of properties not sent
    back are refused, each named; nothing is written then. How many properties it corrected
    (0: the same file was imported before)."""
    lock_district(session=session, district_id=district_id)
    parsed = parse_roll(_without_notes(data))
    if parsed.findings:
        raise FindingsError(list(parsed.findings))
    sha = hashlib.sha256(data).hexdigest()
    if session.exec(
        select(RollImport).where(
            RollImport.district_id == district_id,
            RollImport.fiscal_year == fiscal_year,
            RollImport.sha256 == sha,
        )
    ).first():
        return 0
    changes = _sent_back(session, district_id, fiscal_year, (SENT_BACK, CORRECTED))
    asked = {
        n: c for c in changes for n in [*json.loads(c.numbers_before), *json.loads(c.numbers_after)]
    }
    strays = [r for r in parsed.rows if r.cadastral_number not in asked]
    if strays:
        raise FindingsError(
            [
                row_finding(
                    r.row,
                    "cadastral_number",
                    N_("This property was not sent back to the CRIM this year."),
                    r.cadastral_number,
                )
                for r in strays
            ]
        )
    if not parsed.rows:
        raise InputError("file", N_("The file has no property."))
    now = utcnow()
    roll_import = RollImport(
        district_id=district_id,
        fiscal_year=fiscal_year,
        file_name=(file_name or "correcciones.csv")[:255],
        sha256=sha,
        rows=len(parsed.rows),
        imported_at=now,
        actor=actor.label,
        user_id=actor.user_id,
    )
    session.add(roll_import)
    session.flush()
    current = _rows_of(session, district_id, fiscal_year, {r.cadastral_number for r in parsed.rows})
    ids = dict(
        session.exec(
            select(Property.cadastral_number, Property.id).where(
                Property.district_id == district_id,
                col(Property.cadastral_number).in_([r.cadastral_number for r in parsed.rows]),
            )
        ).all()
    )
    for row in parsed.rows:
        _correct(session, actor, roll_import, row, current.get(row.cadastral_number), ids, now)
    for change in {id(c): c for c in (asked[r.cadastral_number] for r in parsed.rows)}.values():
        _close(session, actor, change, roll_import, now)
    for change in changes:  # every change touching a corrected number is answered by it
        numbers = {*json.loads(change.numbers_before), *json.loads(change.numbers_after)}
        if change.status == SENT_BACK and numbers & {r.cadastral_number for r in parsed.rows}:
            _close(session, actor, change, roll_import, now)
    roll_import.changed = len(parsed.rows)
    session.add(roll_import)
    session.flush()
    return len(parsed.rows)


def _correct(
    session: Session,
    actor: audit.Actor,
    roll_import: RollImport,
    row: Any,
    year: PropertyYear | None,
    ids: dict[str, int | None],
    now: Any,
) -> None:
    values = row.values()
    if year is None:
        session.execute(
            insert(PropertyYear),
            [
                {
                    **values,
                    "property_id": ids[row.cadastral_number],
                    "district_id": roll_import.district_id,
                    "fiscal_year": roll_import.fiscal_year,
                    "roll_import_id": roll_import.id or 0,
                    "source_row": row.row,
                    "in_roll": True,
                    "updated_at": now,
                }
            ],
        )
        audit.record(
            session=session,
            actor=actor,
            action="property_year.correct",
            entity=("property", ids[row.cadastral_number]),
            after={**values, "fiscal_year": roll_import.fiscal_year, "source": "crim"},
        )
        return
    before = audit.snapshot(year)
    for key, value in values.items():
        setattr(year, key, value)
    year.in_roll = True
    year.roll_import_id = roll_import.id or 0
    year.source_row = row.row
    year.updated_at = now
    session.add(year)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="property_year.correct",
        entity=year,
        before=before,
        after={**(audit.snapshot(year) or {}), "source": "crim"},
    )


def _close(
    session: Session, actor: audit.Actor, change: RollChange, roll_import: RollImport, now: Any
) -> None:
    if change.status != SENT_BACK:
        return
    before = audit.snapshot(change)
    change.status = CORRECTED
    change.corrected_at = now
    change.roll_import_id = roll_import.id or 0
    session.add(change)
    audit.record(
        session=session,
        actor=actor,
        action="roll_change.correct",
        entity=change,
        before=before,
        after=audit.snapshot(change),
    )
