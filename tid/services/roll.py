"""The property roll of a district per fiscal year — 21 LPRA § 6653(3)(d), (5).

The association bills "each real property within the district" (§ 6653(3)(d)) and notifies
"all real property owners" by certified mail (§ 6653(5)): both need the roll, the list of the
district's parcels with their owners, mailing addresses and the attributes the ordinance's
formula uses. The roll comes as a CSV file (a CRIM extract or the association's own sheet):

- the file is refused before it is read when it is larger than ``ROLL_MAX_BYTES`` or has more
  than ``ROLL_MAX_ROWS`` rows;
- its text is UTF-8 (with or without a byte-order mark), else Windows-1252 / Latin-1;
- its headers may be in Spanish or English (``HEADER_ALIASES``); any other column is an
  extra numeric attribute the formula may use;
- every bad cell is listed with its row (the header is row 1) and its column, all at once:
  a bad or repeated cadastral number, a bad or negative number, a missing owner or mailing
  address, a cell that starts like a spreadsheet formula (``=``, ``+``, ``-``, ``@``);
- :func:`preview_roll` writes nothing; :func:`import_roll` writes all rows or none (the
  caller commits once), and the same file imported again changes nothing (its SHA-256 is
  unique per district and fiscal year);
- each fiscal year has its own rows (:class:`PropertyYear`), so the owners and values of
  every year stay visible. A corrected file for a year already imported updates the rows that
  changed (an audit event each, with before and after) and marks the ones it no longer lists
  as out of the roll; nothing is deleted.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import pickle
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlmodel import Session, col, select

from tid.clock import utcnow
from tid.models import District, Property, PropertyYear, RollImport
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.messages import Message
from tid.rules.money import CENT
from tid.rules.periods import parse_fiscal_year
from tid.services import audit
from tid.services.csvfile import ENCODING_LABELS, decode, delimiter_of, normalize_header
from tid.services.paging import PageInfo, cadastral_or_owner, page_info

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_ROWS = 200_000
PREVIEW_ROWS = 20
# A CRIM cadastral number: NNN-NNN-NNN-NN, and for a unit of a condominium a -NNN suffix.
CADASTRAL = re.compile(r"^\d{3}-\d{3}-\d{3}-\d{2}(?:-\d{3})?$", re.ASCII)
ZIP = re.compile(r"^\d{5}(?:-\d{4})?$", re.ASCII)
ATTRIBUTE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
# A cell starting with these is run as a formula by spreadsheets (CSV injection); a tab or a
# carriage return at the start is the same trick hidden.
INJECTION_START = ("=", "+", "-", "@", "\t", "\r")
QUANTITY_PLACES = Decimal("0.0001")
# A number as a roll writes it: "1234.50", "1,234.50", "$1,234.50", "-5" (refused later).
_NUMBER = re.compile(r"^\$?(-)?\$?((?:\d{1,3}(?:,\d{3})+)|\d+)(?:\.(\d+))?$", re.ASCII)

# The roll's columns; the numeric ones are also the formula's attribute names.
TEXT_FIELDS = (
    "cadastral_number",
    "owner_names",
    "owner_names_2",
    "mailing_urbanization",
    "mailing_line1",
    "mailing_line2",
    "mailing_city",
    "mailing_state",
    "mailing_zip",
    "physical_address",
    "use_class",
)
NUMERIC_FIELDS = ("assessed_value", "land_area", "built_area", "rooms", "frontage")
STANDARD_ATTRIBUTES = (
    "assessed_value",
    "land_area",
    "built_area",
    "use_class",
    "rooms",
    "frontage",
)
TEXT_LIMITS = {
    "cadastral_number": 20,
    "owner_names": 500,
    "owner_names_2": 240,
    "mailing_urbanization": 120,
    "mailing_line1": 200,
    "mailing_line2": 200,
    "mailing_city": 80,
    "mailing_state": 2,
    "mailing_zip": 10,
    "physical_address": 300,
    "use_class": 40,
}

# What users call each column of the roll (the preview, its findings) and each encoding.
COLUMN_LABELS = {
    "cadastral_number": N_("Cadastral number"),
    "owner_names": N_("Owner"),
    "owner_names_2": N_("Co-owner"),
    "mailing_urbanization": N_("Urbanization"),
    "mailing_line1": N_("Mailing address"),
    "mailing_line2": N_("Second address line"),
    "mailing_city": N_("City"),
    "mailing_state": N_("State"),
    "mailing_zip": N_("ZIP code"),
    "physical_address": N_("Physical address"),
    "use_class": N_("Use"),
    "assessed_value": N_("Assessed value"),
    "land_area": N_("Land area"),
    "built_area": N_("Built area"),
    "rooms": N_("Rooms"),
    "frontage": N_("Frontage"),
}


def column_label(target: str) -> str:
    """A column of the roll by its label; ``attribute:x`` as the formula attribute x."""
    if target in COLUMN_LABELS:
        return Message(COLUMN_LABELS[target])
    if target.startswith("attribute:"):
        return Message(
            "Attribute for the formula: %(name)s", name=target.removeprefix("attribute:")
        )
    return target


def encoding_label(encoding: str) -> str:
    return Message(ENCODING_LABELS[encoding]) if encoding in ENCODING_LABELS else encoding


# Normalized header (lower case, no accents, words joined by "_") -> column of the roll.
HEADER_ALIASES: dict[str, str] = {}
for _field, _names in {
    "cadastral_number": (
        "cadastral_number cadastral_no cadastral catastro numero_de_catastro numero_catastro "
        "num_catastro no_catastro catastro_num parcel parcel_number parcel_id finca"
    ),
    "owner_names": (
        "owner owners owner_name owner_names owner_1 propietario propietarios "
        "nombre_propietario nombre_del_propietario propietario_1 dueno duenos titular"
    ),
    "owner_names_2": "owner_2 co_owner copropietario propietario_2 segundo_propietario",
    "mailing_urbanization": (
        "urbanization urbanizacion urb mailing_urbanization postal_urbanization urbanizacion_postal"
    ),
    "mailing_line1": (
        "mailing_address mailing_address_1 mailing_line1 mailing_line_1 address_1 "
        "address_line_1 direccion_postal direccion_postal_1 direccion_1 linea_1 "
        "direccion_de_correo"
    ),
    "mailing_line2": (
        "mailing_address_2 mailing_line2 mailing_line_2 address_2 address_line_2 "
        "direccion_postal_2 direccion_2 linea_2"
    ),
    "mailing_city": "city mailing_city ciudad pueblo municipio_postal",
    "mailing_state": "state mailing_state estado",
    "mailing_zip": "zip zip_code zipcode postal_code mailing_zip codigo_postal zona_postal",
    "physical_address": (
        "physical_address property_address location direccion_fisica ubicacion "
        "direccion_de_la_propiedad localizacion"
    ),
    "assessed_value": (
        "assessed_value assessment value valor_tasado tasacion valor_de_tasacion "
        "valor_tasacion valor_contributivo valor_catastral"
    ),
    "land_area": "land_area lot_area area_terreno area_del_terreno cabida solar_m2 area_solar",
    "built_area": (
        "built_area building_area floor_area area_construida area_de_construccion area_construccion"
    ),
    "use_class": "use_class use class land_use uso clase_de_uso clasificacion tipo_de_uso",
    "rooms": "rooms room_count habitaciones cuartos numero_de_habitaciones",
    "frontage": "frontage frente frente_lineal linear_frontage metros_de_frente",
}.items():
    for _name in _names.split():
        HEADER_ALIASES[_name] = _field


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class RollRow:
    """One good row of the file, parsed."""

    row: int  # 1 is the header
    cadastral_number: str
    owner_names: str
    mailing_urbanization: str
    mailing_line1: str
    mailing_line2: str
    mailing_city: str
    mailing_state: str
    mailing_zip: str
    physical_address: str
    assessed_value: Decimal
    land_area: Decimal | None
    built_area: Decimal | None
    use_class: str
    rooms: int | None
    frontage: Decimal | None
    attributes: dict[str, Decimal]

    def values(self) -> dict[str, Any]:
        """The columns of a PropertyYear (without ids)."""
        return {
            "owner_names": self.owner_names,
            "mailing_urbanization": self.mailing_urbanization,
            "mailing_line1": self.mailing_line1,
            "mailing_line2": self.mailing_line2,
            "mailing_city": self.mailing_city,
            "mailing_state": self.mailing_state,
            "mailing_zip": self.mailing_zip,
            "physical_address": self.physical_address,
            "assessed_value": self.assessed_value,
            "land_area": self.land_area,
            "built_area": self.built_area,
            "use_class": self.use_class,
            "rooms": self.rooms,
            "frontage": self.frontage,
            "attributes": attributes_json(self.attributes),
        }


@dataclass(frozen=True)
class ParsedRoll:
    """What a file says, before anything is written: the good rows and every finding."""

    sha256: str
    size: int
    encoding: str
    delimiter: str
    columns: dict[str, str]  # header as written -> column of the roll (or "attribute:x")
    ignored_columns: tuple[str, ...]  # extra columns with no number in them
    rows: tuple[RollRow, ...]
    row_count: int
    findings: tuple[Finding, ...]


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


# --------------------------------------------------------------------------- reading the file


def _finding(row: int, column: str, msgid: str, value: str = "", **params: Any) -> Finding:
    message = msgid % params if params else msgid
    return Finding(
        field=column,
        message=message,
        row=row,
        extra={"column": column, "value": value[:80], "msgid": msgid, "params": params},
    )


def check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise InputError(
            "file",
            N_("The file is larger than the limit for a roll; split it or ask the administrator."),
        )
    if size == 0:
        raise InputError("file", N_("The file is empty."))


# Long: the roll file read once: header, rows and their findings.
def parse_roll(
    data: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, max_rows: int = DEFAULT_MAX_ROWS
) -> ParsedRoll:
    """Read a roll file into rows and findings (never raises for a bad row; raises
    :class:`InputError` for a file too large, empty, or without the required columns)."""
    check_size(len(data), max_bytes)
    sha = hashlib.sha256(data).hexdigest()
    text, encoding = decode(data)
    if "\x00" in text:
        raise InputError("file", N_("This is not a CSV text file."))
    first_line = text.split("\n", 1)[0]
    delimiter = delimiter_of(first_line)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("file", N_("The file is empty.")) from None
    except csv.Error:
        raise InputError("file", N_("The first line of the file cannot be read as CSV.")) from None
    columns, _extra, findings = _map_columns(header)
    required = {"cadastral_number", "owner_names", "assessed_value", "mailing_line1", "mailing_zip"}
    missing = sorted(required - set(columns.values()))
    if missing:
        raise InputError(
            ",".join(missing),  # the columns missing, by the roll's names
            N_(
                "The file lacks a required column: cadastral number, owner, mailing address, "
                "ZIP code and assessed value are needed."
            ),
        )
    if findings:
        return ParsedRoll(sha, len(data), encoding, delimiter, columns, (), (), 0, tuple(findings))

    raw_rows: list[tuple[int, list[str]]] = []
    row_number = 1
    try:
        for cells in reader:
            row_number += 1
            if not any(c.strip() for c in cells):
                continue  # a blank line
            if len(raw_rows) >= max_rows:
                raise InputError(
                    "file",
                    N_("The file has more rows than the limit for a roll; split it."),
                )
            raw_rows.append((row_number, cells))
    except csv.Error:
        findings.append(
            _finding(row_number + 1, "", N_("This line cannot be read as CSV (a stray quote?)."))
        )
        return ParsedRoll(sha, len(data), encoding, delimiter, columns, (), (), 0, tuple(findings))

    # Extra columns with no number anywhere (a notes column) are ignored, not errors.
    ignored = tuple(
        header_name.strip().lstrip("\ufeff")
        for index, (header_name, target) in enumerate(
            zip(header, _targets(header, columns), strict=False)
        )
        if target.startswith("attribute:")
        and not any(_looks_numeric(cells[index]) for _, cells in raw_rows if index < len(cells))
    )
    rows: list[RollRow] = []
    first_seen: dict[str, int] = {}
    targets = _targets(header, columns)
    column_of = {t: h.strip().lstrip("\ufeff") for h, t in zip(header, targets, strict=False) if t}
    plan = _plan(header, targets, ignored)
    for number, cells in raw_rows:
        row = _parse_row(number, len(header), plan, cells, findings, column_of)
        if row is None:
            continue
        earlier = first_seen.get(row.cadastral_number)
        if earlier is not None:
            findings.append(
                _finding(
                    number,
                    column_of.get("cadastral_number", "cadastral_number"),
                    N_("This cadastral number is already on row %(first_row)s of the file."),
                    row.cadastral_number,
                    first_row=earlier,
                )
            )
            continue
        first_seen[row.cadastral_number] = number
        rows.append(row)
    if not raw_rows:
        findings.append(_finding(2, "", N_("The file has a header but no rows.")))
    return ParsedRoll(
        sha256=sha,
        size=len(data),
        encoding=encoding,
        delimiter=delimiter,
        columns=columns,
        ignored_columns=ignored,
        rows=tuple(rows),
        row_count=len(raw_rows),
        findings=tuple(sorted(findings, key=lambda f: (f.row or 0, f.field))),
    )


def _map_columns(header: Sequence[str]) -> tuple[dict[str, str], list[str], list[Finding]]:
    columns: dict[str, str] = {}
    extra: list[str] = []
    findings: list[Finding] = []
    used: dict[str, str] = {}
    for name in header:
        key = normalize_header(name)
        shown = name.strip().lstrip("\ufeff")
        if not key:
            if shown:
                findings.append(_finding(1, shown, N_("This column has no usable name.")))
            continue
        target = HEADER_ALIASES.get(key)
        if target is None:
            if not ATTRIBUTE_NAME.match(key):
                findings.append(
                    _finding(
                        1,
                        shown,
                        N_("This column's name cannot be used by a formula; rename it."),
                    )
                )
                continue
            target = f"attribute:{key}"
            extra.append(key)
        if target in used:
            findings.append(
                _finding(
                    1,
                    shown,
                    N_("This column repeats the column %(other)s."),
                    other=used[target],
                )
            )
            continue
        used[target] = shown
        columns[shown] = target
    return columns, extra, findings


def _targets(header: Sequence[str], columns: Mapping[str, str]) -> list[str]:
    return [columns.get(h.strip().lstrip("\ufeff"), "") for h in header]


def _looks_numeric(cell: str) -> bool:
    text = cell.strip().replace(" ", "")
    return bool(text) and bool(_NUMBER.match(text))


_TEXT, _NUMERIC, _ATTRIBUTE, _IGNORED = 0, 1, 2, 3


def _plan(
    header: Sequence[str], targets: Sequence[str], ignored: Sequence[str]
) -> list[tuple[int, str, str, int]]:
    """For each used column: (index, name as written, target, kind), worked out once."""
    plan = []
    for index, target in enumerate(targets):
        if not target:
            continue
        column = header[index].strip().lstrip("\ufeff")
        if column in ignored:
            kind = _IGNORED
        elif target in TEXT_FIELDS:
            kind = _TEXT
        elif target.startswith("attribute:"):
            kind = _ATTRIBUTE
        else:
            kind = _NUMERIC
        plan.append((index, column, target.removeprefix("attribute:"), kind))
    return plan


# Long: one roll row's columns checked in the file's order, each with its finding.
def _parse_row(
    number: int,
    width: int,
    plan: Sequence[tuple[int, str, str, int]],
    cells: Sequence[str],
    findings: list[Finding],
    column_of: Mapping[str, str],
) -> RollRow | None:
    before = len(findings)
    if len(cells) > width and any(c.strip() for c in cells[width:]):
        findings.append(
            _finding(number, "", N_("This row has more cells than the header has columns."))
        )
    text: dict[str, str] = dict.fromkeys(TEXT_FIELDS, "")
    numbers: dict[str, Decimal | None] = dict.fromkeys(NUMERIC_FIELDS)
    attributes: dict[str, Decimal] = {}
    count = len(cells)
    for index, column, target, kind in plan:
        raw = cells[index] if index < count else ""
        cell = raw.strip()
        if kind in (_TEXT, _IGNORED):
            if cell.startswith(INJECTION_START) or raw.startswith(INJECTION_START):
                findings.append(_injection(number, column, raw))
                continue
            if kind == _IGNORED:
                continue
            if len(cell) > TEXT_LIMITS[target]:
                findings.append(
                    _finding(
                        number,
                        column,
                        N_("This text is longer than %(limit)s characters."),
                        cell,
                        limit=TEXT_LIMITS[target],
                    )
                )
                continue
            text[target] = " ".join(cell.split())  # no-break spaces, tabs, doubles: one space
            continue
        value = _number(number, column, target, cell, findings)
        if kind == _ATTRIBUTE:
            if value is not None:
                attributes[target] = value
        else:
            numbers[target] = value

    # A cell already refused (a formula, too long) is not reported missing as well.
    refused = {f.field for f in findings[before:]}
    cadastral = text["cadastral_number"]
    cadastral_column = column_of.get("cadastral_number", "cadastral_number")
    if cadastral_column in refused:
        pass
    elif not cadastral:
        findings.append(_finding(number, cadastral_column, N_("The cadastral number is missing.")))
    elif not CADASTRAL.match(cadastral):
        findings.append(
            _finding(
                number,
                cadastral_column,
                N_("A cadastral number is written NNN-NNN-NNN-NN, optionally with -NNN."),
                cadastral,
            )
        )
    owners = "; ".join(o for o in (text["owner_names"], text["owner_names_2"]) if o)
    if not owners and column_of.get("owner_names", "owner_names") not in refused:
        findings.append(
            _finding(
                number, column_of.get("owner_names", "owner_names"), N_("The owner is missing.")
            )
        )
    if not text["mailing_line1"] and column_of.get("mailing_line1", "mailing_line1") not in refused:
        findings.append(
            _finding(
                number,
                column_of.get("mailing_line1", "mailing_line1"),
                N_("The owner's mailing address is missing: the certified-mail notice needs it."),
            )
        )
    zip_code = text["mailing_zip"]
    zip_column = column_of.get("mailing_zip", "mailing_zip")
    if zip_column not in refused:
        if not zip_code:
            findings.append(
                _finding(number, zip_column, N_("The ZIP code of the mailing address is missing."))
            )
        elif not ZIP.match(zip_code):
            findings.append(
                _finding(
                    number, zip_column, N_("A ZIP code is written 00901 or 00901-1234."), zip_code
                )
            )
    state = (text["mailing_state"] or "PR").upper()
    if not re.fullmatch(r"[A-Z]{2}", state):
        findings.append(
            _finding(
                number,
                column_of.get("mailing_state", "mailing_state"),
                N_("A state is written with its two letters, like PR."),
                text["mailing_state"],
            )
        )
    assessed = numbers["assessed_value"]
    assessed_column = column_of.get("assessed_value", "assessed_value")
    if assessed is None and not any(
        f.row == number and f.field == assessed_column for f in findings[before:]
    ):
        findings.append(_finding(number, assessed_column, N_("The assessed value is missing.")))
    if assessed is not None and assessed != assessed.quantize(CENT):
        findings.append(
            _finding(
                number,
                assessed_column,
                N_("An amount of money has at most two decimals."),
                str(assessed),
            )
        )
    rooms = numbers["rooms"]
    if rooms is not None and rooms != rooms.to_integral_value():
        findings.append(
            _finding(
                number,
                column_of.get("rooms", "rooms"),
                N_("The number of rooms is a whole number."),
                str(rooms),
            )
        )
    if len(findings) > before:
        return None
    assert assessed is not None
    return RollRow(
        row=number,
        cadastral_number=cadastral,
        owner_names=owners[: TEXT_LIMITS["owner_names"]],
        mailing_urbanization=text["mailing_urbanization"],
        mailing_line1=text["mailing_line1"],
        mailing_line2=text["mailing_line2"],
        mailing_city=text["mailing_city"],
        mailing_state=state,
        mailing_zip=zip_code,
        physical_address=text["physical_address"],
        assessed_value=assessed,
        land_area=numbers["land_area"],
        built_area=numbers["built_area"],
        use_class=text["use_class"].lower(),
        rooms=int(rooms) if rooms is not None else None,
        frontage=numbers["frontage"],
        attributes=attributes,
    )


def _injection(row: int, column: str, cell: str) -> Finding:
    return _finding(
        row,
        column,
        N_(
            "This cell starts with %(char)s, which a spreadsheet would run as a formula; "
            "the roll refuses it. Remove the sign or put the text in other words."
        ),
        cell,
        char=repr(cell[:1]) if cell else "'\\t'",
    )


def _number(
    row: int, column: str, target: str, cell: str, findings: list[Finding]
) -> Decimal | None:
    """A non-negative number, or None for an empty cell; a finding otherwise."""
    if not cell:
        return None
    text = cell.replace(" ", "")
    match = _NUMBER.match(text)
    if match is None:
        if cell.startswith(INJECTION_START):
            findings.append(_injection(row, column, cell))
        else:
            findings.append(_finding(row, column, N_("This is not a number."), cell))
        return None
    sign, whole, frac = match.groups()
    value = Decimal(f"{whole.replace(',', '')}.{frac or '0'}")
    if sign:
        findings.append(_finding(row, column, N_("A negative value is not allowed here."), cell))
        return None
    if target != "assessed_value" and value != value.quantize(QUANTITY_PLACES):
        findings.append(_finding(row, column, N_("This number has more than four decimals."), cell))
        return None
    if len(whole.replace(",", "")) > 12:
        findings.append(_finding(row, column, N_("This number is too large."), cell))
        return None
    if target == "assessed_value":
        return value
    return value.normalize() if value == value.to_integral_value() else value


def attributes_json(attributes: Mapping[str, Decimal]) -> str:
    return json.dumps({k: str(v) for k, v in sorted(attributes.items())}, sort_keys=True)


# --------------------------------------------------------------------------- preview, import


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
    return {
        "owner_names": year.owner_names,
        "mailing_urbanization": year.mailing_urbanization,
        "mailing_line1": year.mailing_line1,
        "mailing_line2": year.mailing_line2,
        "mailing_city": year.mailing_city,
        "mailing_state": year.mailing_state,
        "mailing_zip": year.mailing_zip,
        "physical_address": year.physical_address,
        "assessed_value": year.assessed_value,
        "land_area": year.land_area,
        "built_area": year.built_area,
        "use_class": year.use_class,
        "rooms": year.rooms,
        "frontage": year.frontage,
        "attributes": year.attributes,
    }


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


# Long: every row of a roll or none, in one transaction.
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
    import_id = roll_import.id or 0

    property_ids = dict(
        session.exec(
            select(Property.cadastral_number, Property.id).where(
                Property.district_id == district_id
            )
        ).all()
    )
    new_properties = [r for r in parsed.rows if r.cadastral_number not in property_ids]
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
    existing = _existing_year(session, district_id, fy)
    inserts: list[dict[str, Any]] = []
    changed = 0
    listed: set[str] = set()
    for row in parsed.rows:
        listed.add(row.cadastral_number)
        values = row.values()
        year = existing.get(row.cadastral_number)
        if year is None:
            inserts.append(
                {
                    **values,
                    "property_id": property_ids[row.cadastral_number],
                    "district_id": district_id,
                    "fiscal_year": fy,
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
            session,
            actor,
            "property_year.correct",
            year,
            before=before,
            after=audit.snapshot(year),
        )
    removed = 0
    for number, year in existing.items():
        if number not in listed and year.in_roll:
            before = audit.snapshot(year)
            year.in_roll = False
            year.roll_import_id = import_id
            year.updated_at = now
            session.add(year)
            removed += 1
            audit.record(
                session,
                actor,
                "property_year.leave_roll",
                year,
                before=before,
                after=audit.snapshot(year),
            )
    if inserts:
        session.execute(insert(PropertyYear), inserts)
    _refresh_physical_addresses(session, district_id, fy, parsed.rows, property_ids, new_properties)
    roll_import.added = len(inserts)
    roll_import.changed = changed
    roll_import.removed = removed
    session.add(roll_import)
    session.flush()
    audit.record(session, actor, "roll.import", roll_import, after=audit.snapshot(roll_import))
    return RollImportResult(roll_import, False, len(inserts), changed, removed, len(new_properties))


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


# --------------------------------------------------------------------------- uploads


UPLOAD_TOKEN = re.compile(r"^[0-9a-f]{64}$")


def store_upload(
    directory: Path, data: bytes, *, meta: Mapping[str, Any], max_bytes: int = DEFAULT_MAX_BYTES
) -> str:
    """Keep an uploaded file under its SHA-256 (with who uploaded it for which district and
    year) until it is imported; the token returned names it."""
    check_size(len(data), max_bytes)
    token = hashlib.sha256(data).hexdigest()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{token}.csv"
    if not path.exists():
        path.write_bytes(data)
    else:
        path.touch()  # kept for the whole retention period from this upload
    (directory / f"{token}.{meta.get('user_id', 'x')}.json").write_text(
        json.dumps(dict(meta), sort_keys=True, default=str)
    )
    return token


def load_upload(
    directory: Path, token: str, *, user_id: int | None
) -> tuple[bytes, dict[str, Any]]:
    """The bytes and metadata of a stored upload (of this user); ``InputError`` when the
    token is malformed or unknown."""
    if not UPLOAD_TOKEN.match(token):
        raise InputError("token", N_("This upload is not known; upload the file again."))
    data_path = directory / f"{token}.csv"
    meta_path = directory / f"{token}.{user_id if user_id is not None else 'x'}.json"
    if not data_path.exists() or not meta_path.exists():
        raise InputError("token", N_("This upload is not known; upload the file again."))
    data = data_path.read_bytes()
    if hashlib.sha256(data).hexdigest() != token:
        raise InputError("token", N_("This upload is not known; upload the file again."))
    meta: dict[str, Any] = json.loads(meta_path.read_text())
    return data, meta


def delete_upload(directory: Path, token: str, *, user_id: int | None) -> None:
    """Forget this user's upload once it is imported; the file itself goes with the last
    user who uploaded the same bytes."""
    if not UPLOAD_TOKEN.match(token):
        return
    (directory / f"{token}.{user_id if user_id is not None else 'x'}.json").unlink(missing_ok=True)
    _preview_path(directory, token, user_id).unlink(missing_ok=True)
    if not any(directory.glob(f"{token}.*.json")):
        (directory / f"{token}.csv").unlink(missing_ok=True)


# A large file is checked by a worker (the preview of 20,000 rows takes seconds); the page
# then shows the preview it kept beside the upload, signed with the app's secret so that
# only what the app itself wrote is ever read back.


def _preview_path(directory: Path, token: str, user_id: int | None) -> Path:
    return directory / f"{token}.{user_id if user_id is not None else 'x'}.preview"


def store_preview(
    directory: Path, token: str, *, user_id: int | None, preview: RollPreview, key: bytes
) -> None:
    """Keep the preview of an upload (this user's) for its page."""
    if not UPLOAD_TOKEN.match(token):
        raise InputError("token", N_("This upload is not known; upload the file again."))
    body = pickle.dumps(preview, protocol=pickle.HIGHEST_PROTOCOL)
    signature = hmac.new(key, body, hashlib.sha256).digest()
    path = _preview_path(directory, token, user_id)
    partial = path.with_suffix(".partial")
    partial.write_bytes(signature + body)
    partial.replace(path)  # whole or not at all


def load_preview(
    directory: Path, token: str, *, user_id: int | None, key: bytes
) -> RollPreview | None:
    """The kept preview of an upload, or None (not checked yet, or not the app's)."""
    if not UPLOAD_TOKEN.match(token):
        return None
    path = _preview_path(directory, token, user_id)
    try:
        stored = path.read_bytes()
    except FileNotFoundError:
        return None
    signature, body = stored[:32], stored[32:]
    if not hmac.compare_digest(signature, hmac.new(key, body, hashlib.sha256).digest()):
        return None
    preview = pickle.loads(body)
    return preview if isinstance(preview, RollPreview) else None


def purge_uploads(directory: Path, *, older_than: timedelta, now: datetime | None = None) -> int:
    """Delete every upload (imported or not, rejected ones included) stored longer ago than
    ``older_than``; the number of files deleted."""
    if not directory.is_dir():
        return 0
    cutoff = (now or datetime.now(UTC)).timestamp() - older_than.total_seconds()
    deleted = 0
    for path in directory.iterdir():
        if path.is_file() and path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)
            deleted += 1
    return deleted


# --------------------------------------------------------------------------- reading the roll


def fiscal_years(session: Session, district_id: int) -> list[tuple[str, int]]:
    """The fiscal years with a roll, newest first, with the number of properties in each."""
    stmt = (
        select(PropertyYear.fiscal_year, func.count())
        .where(PropertyYear.district_id == district_id, col(PropertyYear.in_roll))
        .group_by(col(PropertyYear.fiscal_year))
        .order_by(col(PropertyYear.fiscal_year).desc())
    )
    return [(fy, int(n)) for fy, n in session.exec(stmt)]


def imports(session: Session, district_id: int) -> list[RollImport]:
    stmt = (
        select(RollImport)
        .where(RollImport.district_id == district_id)
        .order_by(col(RollImport.imported_at).desc(), col(RollImport.id).desc())
    )
    return list(session.exec(stmt))


@dataclass(frozen=True)
class RollPage(PageInfo):
    rows: list[tuple[Property, PropertyYear]] = field(default_factory=list)


def roll_page(
    session: Session,
    district_id: int,
    fiscal_year: str,
    *,
    search: str = "",
    page: int = 1,
    per_page: int = 100,
) -> RollPage:
    """One page of a year's roll, by cadastral number, optionally searched by cadastral
    number or owner (plain text; no pattern characters are interpreted)."""
    where: list[Any] = [
        PropertyYear.district_id == district_id,
        PropertyYear.fiscal_year == fiscal_year,
        col(PropertyYear.in_roll),
    ]
    matching = cadastral_or_owner(search)
    if matching is not None:
        where.append(matching)
    base = select(Property, PropertyYear).join(
        PropertyYear, col(PropertyYear.property_id) == col(Property.id)
    )
    count_stmt = (
        select(func.count())
        .select_from(PropertyYear)
        .join(Property, col(PropertyYear.property_id) == col(Property.id))
        .where(*where)
    )
    info = page_info(int(session.exec(count_stmt).one()), page, per_page)
    stmt = (
        base.where(*where)
        .order_by(col(Property.cadastral_number))
        .offset(info.offset)
        .limit(per_page)
    )
    return RollPage(rows=list(session.exec(stmt).all()), **info.position())


def property_history(session: Session, property_id: int) -> list[PropertyYear]:
    """Every fiscal year's roll row of one property, newest first."""
    stmt = (
        select(PropertyYear)
        .where(PropertyYear.property_id == property_id)
        .order_by(col(PropertyYear.fiscal_year).desc())
    )
    return list(session.exec(stmt))


def attribute_names(session: Session, district_id: int, fiscal_year: str) -> list[str]:
    """The attributes a formula may use on this roll: the standard ones and the extras."""
    names = set(STANDARD_ATTRIBUTES)
    stmt = (
        select(PropertyYear.attributes)
        .where(
            PropertyYear.district_id == district_id,
            PropertyYear.fiscal_year == fiscal_year,
            col(PropertyYear.in_roll),
        )
        .distinct()
    )
    for text in session.exec(stmt):
        names.update(json.loads(text or "{}"))
    return sorted(names)


def decimal_attributes(text: str) -> dict[str, Decimal]:
    return {k: Decimal(v) for k, v in json.loads(text or "{}").items()}


__all__ = [
    "HEADER_ALIASES",
    "ParsedRoll",
    "RollImportResult",
    "RollPage",
    "RollPreview",
    "RollRow",
    "attribute_names",
    "check_size",
    "decimal_attributes",
    "decode",
    "fiscal_years",
    "import_roll",
    "imports",
    "load_upload",
    "parse_roll",
    "preview_roll",
    "property_history",
    "roll_page",
    "store_upload",
]
