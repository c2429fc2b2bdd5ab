"""The open data (21 LPRA § 6653(3), (6)): the public register and the districts' money as
tables — one definition per table (its fields, their types and meanings) that the JSON API
(``/api/v1/public/…``) pages through and the bulk downloads write as CSV files with a
Frictionless Data Package (``datapackage.json``, a Table Schema per file). Every row is a
row of the public pages (:mod:`.district_figures`, :mod:`.register`), built through
:func:`public_view`; the figures are the yearly statement's.

Published documents: the documents of record each district chose to publish
(:mod:`.published_records`), each with its SHA-256 as archived and where to download it."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from tid import csv_safe
from tid.ids import parse_id
from tid.models import District, PublicVersion
from tid.services.public import district_figures, register, versions
from tid.services.public.declared import public_view


@dataclass(frozen=True)
class Field:
    name: str
    type: str  # a Table Schema type: integer, number, string, date, boolean
    description: str
    nullable: bool = False  # whether a row may have no value here (JSON null, an empty cell)
    values: tuple[str, ...] = ()  # the only values it may hold (none: any of its type)


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    key: tuple[str, ...]  # the row's stable id (and the cursor's order)
    fields: tuple[Field, ...]


def _f(
    name: str, kind: str, description: str, *, nullable: bool = False, values: tuple[str, ...] = ()
) -> Field:
    return Field(name, kind, description, nullable, values)


# An expenditure line's kind: an authorized purpose's, or the administrative spending.
PURPOSE = "purpose"
ADMINISTRATIVE = "administrative"

_ID = _f("id", "integer", "The record's stable id.")
_DISTRICT = _f("district_id", "integer", "The district's id.")
_FY = _f("fiscal_year", "string", "Fiscal year, July 1 to June 30 (2025-26).")

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "municipalities",
            "Municipalities with districts or petitions",
            ("id",),
            (_ID, _f("name", "string", "The municipality's name.")),
        ),
        Table(
            "districts",
            "Tourism improvement districts",
            ("id",),
            (
                _ID,
                _f("municipality_id", "integer", "The municipality's id."),
                _f("name", "string", "The district's name."),
                _f("association_name", "string", "The association that collects, § 6653(4)."),
            ),
        ),
        Table(
            "ordinances",
            "Ordinances that establish the districts, 21 LPRA § 6653(3)",
            ("id",),
            (
                _ID,
                _f("municipality_id", "integer", "The municipality's id."),
                _DISTRICT,
                _f("petition_id", "integer", "The petition it answers."),
                _f("number", "string", "The legislature's ordinance number."),
                _f("district_name", "string", "The district's name, § 6653(3)(a)."),
                _f("expected_amount", "number", "Amount expected to be raised, § 6653(3)(b)."),
                _f("term_years", "integer", "Term in years, § 6653(3)(c)."),
                _f("formula", "string", "The impost's formula, § 6653(3)(d)."),
                _f("association_name", "string", "The association, § 6653(4)."),
                _f("issued_on", "date", "Issued by the legislature."),
                _f("approved_on", "date", "Approved by the mayor.", nullable=True),
                _f("crim_copy_sent_on", "date", "Copy sent to the CRIM.", nullable=True),
            ),
        ),
        Table(
            "petitions",
            "Petitions before the municipal legislatures, 21 LPRA § 6653(1)-(2)",
            ("id",),
            (
                _ID,
                _f("municipality_id", "integer", "The municipality's id."),
                _f("district_name", "string", "The district petitioned for."),
                _f("petitioner", "string", "Who petitions (the mayor)."),
                _f("state", "string", "Where the petition stands."),
                _f("received_on", "date", "Received by the legislature."),
                _f("study_started_on", "date", "Study begun.", nullable=True),
                _f("denied_on", "date", "Denied.", nullable=True),
                _f("sent_to_mayor_on", "date", "Ordinance sent to the mayor.", nullable=True),
                _f("approved_on", "date", "Approved by the mayor.", nullable=True),
                _f("vetoed_on", "date", "Vetoed by the mayor.", nullable=True),
                _f("published_on", "date", "Ordinance published.", nullable=True),
                _f("newspaper", "string", "Where it was published."),
                _f("published_outside_window", "boolean", "Published outside its week."),
                _f(
                    "pending_due",
                    "date",
                    "The statutory deadline the petition waits on in its state.",
                    nullable=True,
                ),
                _f(
                    "overdue_since",
                    "date",
                    "The first day past that deadline, the act still not done.",
                    nullable=True,
                ),
            ),
        ),
        Table(
            "petition_steps",
            "Each petition's steps as recorded, with their deadlines",
            ("petition_id", "step"),
            (
                _f("petition_id", "integer", "The petition's id."),
                _f("step", "string", "The step (received, ordinance_issued, published, …)."),
                _f("on", "date", "When the step was taken, as the clerk recorded it."),
                _f("due", "date", "The statutory deadline the step had to meet.", nullable=True),
                _f("on_time", "boolean", "Whether the step came by its deadline.", nullable=True),
                _f("citation", "string", "The deadline's statute."),
            ),
        ),
        Table(
            "roll_years",
            "The roll of each district by fiscal year, in all",
            ("district_id", "fiscal_year"),
            (
                _DISTRICT,
                _FY,
                _f("properties", "integer", "Properties on the roll."),
                _f("assessed_value", "number", "Their assessed value together (dollars)."),
                _f(
                    "verified_on",
                    "date",
                    "The day the year's verified billing statement was signed.",
                    nullable=True,
                ),
                _f("checked", "boolean", "Whether the roll's yearly check was made before it."),
            ),
        ),
        Table(
            "fiscal_years",
            "Each published fiscal year of a district's special account, § 6653(6)",
            ("district_id", "fiscal_year"),
            (
                _DISTRICT,
                _FY,
                _f("billed", "number", "Billed for the year (the active billing run)."),
                _f("properties_billed", "integer", "Properties billed."),
                _f("collected", "number", "Impost revenue collected in the year."),
                _f("collection_rate", "number", "Collected ÷ billed, in percent.", nullable=True),
                _f("owed_at_year_end", "number", "Impost still owed at the year's end."),
                _f("delinquent_at_year_end", "number", "Of it, past due at the year's end."),
                _f("opening_balance", "number", "Bank at the year's start."),
                _f("owner_credits", "number", "Overpayments held as owners' credit."),
                _f("program_total", "number", "Spent on the authorized purposes."),
                _f("admin_total", "number", "Administrative spending."),
                _f(
                    "admin_ratio_percent",
                    "number",
                    "Administrative ÷ collected, in percent.",
                    nullable=True,
                ),
                _f("cap_rate", "number", "The administrative cap's rate, § 6653(6)."),
                _f("cap", "number", "The administrative cap in dollars."),
                _f("closing_balance", "number", "Bank at the year's end."),
                _f("other_movements", "number", "Any other movement of the bank (0)."),
            ),
        ),
        Table(
            "expenditures",
            "Spending of each published fiscal year by authorized purpose",
            ("district_id", "fiscal_year", "kind", "purpose"),
            (
                _DISTRICT,
                _FY,
                _f(
                    "kind",
                    "string",
                    "purpose (an authorized purpose) or administrative.",
                    values=(PURPOSE, ADMINISTRATIVE),
                ),
                _f("purpose", "string", "The authorized purpose's name, or administrative."),
                _f("amount", "number", "Spent in the year (dollars)."),
            ),
        ),
        Table(
            "budgets",
            "Each district's approved budgets by authorized purpose (never a draft)",
            ("district_id", "fiscal_year", "kind", "purpose"),
            (
                _DISTRICT,
                _FY,
                _f(
                    "kind",
                    "string",
                    "purpose (an authorized purpose) or administrative.",
                    values=(PURPOSE, ADMINISTRATIVE),
                ),
                _f("purpose", "string", "The authorized purpose's name, or administrative."),
                _f("proposed", "number", "The line as the board first approved it (dollars)."),
                _f("approved", "number", "The line as it stands after its amendments."),
                _f(
                    "executed",
                    "number",
                    "Spent on the line in the year, once the year's figures are public.",
                    nullable=True,
                ),
            ),
        ),
        Table(
            "documents",
            "Documents of record each district published, as archived",
            ("id",),
            (
                _ID,
                _DISTRICT,
                _FY,
                _f("kind", "string", "What kind of document of record it is."),
                _f("title", "string", "Its title, as published."),
                _f("language", "string", "The language it is written in (es, en)."),
                _f("media_type", "string", "Its media type."),
                _f("size", "integer", "Its size in bytes."),
                _f("sha256", "string", "The SHA-256 of its bytes, as archived."),
                _f("published_on", "date", "When it was published."),
                _f("path", "string", "Where to download it, on this site."),
            ),
        ),
    )
}


_VERSIONS = PublicVersion.__table__  # type: ignore[attr-defined]
# Built once: the index and the API ask it on every request.
_SITE_VERSION = sa_select(
    sa_select(func.count(col(District.id))).scalar_subquery(),
    sa_select(func.coalesce(func.sum(_VERSIONS.c.version), 0)).scalar_subquery(),
    *register.VERSION_COLUMNS,
)


def site_version(*, session: Session) -> tuple[Any, ...]:
    """What every district's public side and the register are read from, in one look: the
    districts, the sum of their public versions (each only grows) and the register's
    version. Whatever changes any of them changes this."""
    return tuple(versions.read_now(session=session, statement=_SITE_VERSION))


def _districts(session: Session, district_id: int | None) -> list[District]:
    stmt = select(District).order_by(col(District.id))
    if district_id is not None:
        stmt = stmt.where(District.id == district_id)
    return list(session.exec(stmt))


def _petition_rows(session: Session, today: date, district_ids: set[int] | None) -> list[Any]:
    records = register.petitions(session=session, today=today)
    if district_ids is None:
        return records
    return [r for r in records if r.ordinance and r.ordinance["district_id"] in district_ids]


def rows(
    *, session: Session, table: str, today: date, district_id: int | None = None
) -> list[dict[str, Any]]:
    """Every row of ``table`` (of one district, if given), in the order of its key."""
    districts = _districts(session, district_id)
    ids = {d.id or 0 for d in districts}
    scope = None if district_id is None else ids
    pages = [
        page
        for d in districts
        if (
            page := district_figures.district_page(
                session=session, district_id=d.id or 0, today=today
            )
        )
    ]
    found: list[dict[str, Any]]
    if table == "municipalities":
        wanted = {d.municipality_id for d in districts}
        found = [
            {k: v for k, v in m.items() if k != "districts"}
            for m in district_figures.municipalities(session=session)
            if district_id is None or m["id"] in wanted
        ]
    elif table == "districts":
        found = [p.district for p in pages]
    elif table == "ordinances":
        found = [p.ordinance for p in pages if p.ordinance]
    elif table == "petitions":
        found = [r.petition for r in _petition_rows(session, today, scope)]
    elif table == "petition_steps":
        found = [
            {k: v for k, v in s.items() if k != "label"}
            for r in _petition_rows(session, today, scope)
            for s in r.steps
        ]
    elif table == "roll_years":
        found = [r for p in pages for r in p.roll_years]
    elif table == "fiscal_years":
        found = [
            {k: v for k, v in y.items() if k != "spent_by_purpose"} for p in pages for y in p.years
        ]
    elif table == "expenditures":
        found = [row for p in pages for y in p.years for row in _expenditures(y)]
    elif table == "budgets":
        found = [line for p in pages for b in p.budgets for line in b["lines"]]
    elif table == "documents":
        found = [r for p in pages for r in p.documents]
    else:
        raise KeyError(table)
    return sorted(found, key=lambda r: position(table, r))


def _expenditures(year: dict[str, Any]) -> list[dict[str, Any]]:
    lines = [(PURPOSE, p["purpose"], p["amount"]) for p in year["spent_by_purpose"]]
    lines.append((ADMINISTRATIVE, ADMINISTRATIVE, year["admin_total"]))
    return [
        public_view(
            "expenditure_line",
            {
                "district_id": year["district_id"],
                "fiscal_year": year["fiscal_year"],
                "kind": kind,
                "purpose": purpose,
                "amount": amount,
            },
        )
        for kind, purpose, amount in lines
    ]


# --------------------------------------------------------------------------- the rows' keys
#
# A row's key is the values of its table's key fields, in order, joined by ``:``; in each
# value ``%`` is written ``%25`` and ``:`` is written ``%3A`` (nothing else changes), so a key
# reads back into its values whatever a name holds: ``7`` (a district), ``3:2025-26`` (a
# district's year), ``3:2025-26:purpose:Promoción turística`` and
# ``3:2025-26:administrative:administrative`` (the spending on a purpose, and the
# administrative spending: a purpose named "administrative" has a key of its own). Rows come
# in the order of their keys' values: whole numbers as numbers, text by code point.

_ESCAPED = re.compile(r"%(25|3A)")
_KEY_PART = re.compile(r"(?:[^%]|%25|%3A)*")
_FISCAL_YEAR = re.compile(r"[0-9]{4}-[0-9]{2}")
# The key fields whose every value is one of a few words.
_WORDS = {
    (t.name, f.name): frozenset(f.values) for t in TABLES.values() for f in t.fields if f.values
}
MOST_CURSOR_CHARS = 2000


def _key_types(table: str) -> list[tuple[str, str]]:
    types = {f.name: f.type for f in TABLES[table].fields}
    return [(name, types[name]) for name in TABLES[table].key]


def position(table: str, row: dict[str, Any]) -> tuple[int | str, ...]:
    """Where a row stands in its table's order: its key's values, numbers as numbers."""
    return tuple(
        int(row[name]) if kind == "integer" else str(row[name]) for name, kind in _key_types(table)
    )


def row_key(table: str, row: dict[str, Any]) -> str:
    """A row's stable id: its key's values, escaped, joined by ``:``."""
    return ":".join(
        str(row[name]).replace("%", "%25").replace(":", "%3A") for name in TABLES[table].key
    )


def cursor_position(table: str, cursor: str) -> tuple[int | str, ...] | None:
    """The place in the table's order a cursor (a row's key) names; None: it names none —
    not as many values as the key has, a number that is not one, an escape that is not
    ``%25`` or ``%3A``, a fiscal year or a word that cannot be."""
    parts = cursor.split(":")
    types = _key_types(table)
    if len(cursor) > MOST_CURSOR_CHARS or len(parts) != len(types):
        return None
    found: list[int | str] = []
    for (name, kind), part in zip(types, parts, strict=True):
        if not _KEY_PART.fullmatch(part):
            return None
        value = _ESCAPED.sub(lambda m: "%" if m.group(1) == "25" else ":", part)
        words = _WORDS.get((table, name))
        if kind == "integer":
            number = parse_id(value)
            if number is None:
                return None
            found.append(number)
        elif (name == "fiscal_year" and not _FISCAL_YEAR.fullmatch(value)) or (
            words is not None and value not in words
        ):
            return None
        else:
            found.append(value)
    return tuple(found)


def plain(value: object) -> object:
    """A value as JSON and CSV write it: money and rates as exact text, dates ISO."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return [{k: plain(v) for k, v in item.items()} for item in value]
    return value


# --------------------------------------------------------------------------- bulk downloads


def _cell(value: object, kind: str) -> object:
    if value is None:
        return ""
    if kind == "boolean":
        return "true" if value else "false"
    return plain(value)


def table_csv(table: str, found: Iterable[dict[str, Any]]) -> str:
    fields = TABLES[table].fields
    numbers = {f.name for f in fields if f.type in ("integer", "number")}
    return csv_safe.write(
        [f.name for f in fields],
        ([_cell(r.get(f.name), f.type) for f in fields] for r in found),
        numbers=numbers,
    )


# The fiscal figures as a Fiscal Data Package (its ``model``): each amount a measure in US
# dollars, read from the column (``source``) of the table (``resource``) that holds it; the
# district, the fiscal year and the authorized purpose the dimensions they are broken down by.
_FISCAL = "fiscal-years"
_SPENT = "expenditures"
_BUDGETS = "budgets"


def _measure(
    source: str, resource: str, direction: str | None = None, phase: str = "executed"
) -> dict[str, Any]:
    found: dict[str, Any] = {"source": source, "resource": resource, "currency": "USD"}
    if direction is not None:
        found.update(direction=direction, phase=phase)
    return found


FISCAL_MODEL: dict[str, Any] = {
    "measures": {
        "billed": _measure("billed", _FISCAL),
        "collected": _measure("collected", _FISCAL, "revenue"),
        "owed_at_year_end": _measure("owed_at_year_end", _FISCAL),
        "delinquent_at_year_end": _measure("delinquent_at_year_end", _FISCAL),
        "spent_on_purposes": _measure("program_total", _FISCAL, "expenditure"),
        "spent_on_administration": _measure("admin_total", _FISCAL, "expenditure"),
        "administrative_cap": _measure("cap", _FISCAL),
        "bank_at_year_start": _measure("opening_balance", _FISCAL),
        "bank_at_year_end": _measure("closing_balance", _FISCAL),
        "spent": _measure("amount", _SPENT, "expenditure"),
        "budget_proposed": _measure("proposed", _BUDGETS, "expenditure", "proposed"),
        "budget_approved": _measure("approved", _BUDGETS, "expenditure", "approved"),
        "budget_executed": _measure("executed", _BUDGETS, "expenditure"),
    },
    "dimensions": {
        "district": {
            "dimensionType": "entity",
            "attributes": {"district_id": {"source": "district_id", "resource": _FISCAL}},
            "primaryKey": "district_id",
        },
        "fiscal_year": {
            "dimensionType": "datetime",
            "attributes": {"fiscal_year": {"source": "fiscal_year", "resource": _FISCAL}},
            "primaryKey": "fiscal_year",
        },
        "purpose": {
            "dimensionType": "classification",
            "classificationType": "functional",
            "attributes": {
                "kind": {"source": "kind", "resource": _SPENT},
                "purpose": {"source": "purpose", "resource": _SPENT},
            },
            "primaryKey": ["kind", "purpose"],
        },
    },
}


def _schema_field(field: Field) -> dict[str, Any]:
    found: dict[str, Any] = {
        "name": field.name,
        "type": field.type,
        "description": field.description,
    }
    if field.values:
        found["constraints"] = {"enum": list(field.values)}
    return found


def descriptor(name: str, title: str) -> dict[str, Any]:
    """The Frictionless Data Package describing the files: one resource per table, each with
    its Table Schema (fields, types, primary key); the fiscal figures modelled as a Fiscal
    Data Package (the ``fiscal`` profile beside the ``tabular`` one, and the ``model`` of
    measures and dimensions), whose own schema requires the tabular profile."""
    return {
        "profile": "tabular-data-package",
        "profiles": {"fiscal": "*", "tabular": "*"},
        "name": name,
        "title": title,
        "countryCode": "PR",
        "granularity": "aggregated",
        "model": FISCAL_MODEL,
        "licenses": [{"name": "ODC-PDDL-1.0", "path": "http://opendatacommons.org/licenses/pddl/"}],
        "resources": [
            {
                "name": t.name.replace("_", "-"),
                "path": f"{t.name}.csv",
                "title": t.title,
                "profile": "tabular-data-resource",
                "format": "csv",
                "mediatype": "text/csv",
                "encoding": "utf-8",
                "schema": {
                    "fields": [_schema_field(f) for f in t.fields],
                    "primaryKey": list(t.key),
                    "missingValues": [""],
                },
            }
            for t in TABLES.values()
        ],
    }


def known_district(*, session: Session, district_id: int) -> bool:
    """Whether there is such a district (the API's ``district_id``)."""
    return session.get(District, district_id) is not None


def _member(name: str, day: date) -> zipfile.ZipInfo:
    """A file of the package, dated the day its figures are as of (at midnight): the same
    version and day make the same bytes, whenever and by whichever worker they are made."""
    info = zipfile.ZipInfo(name, date_time=(day.year, day.month, day.day, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = 0o644 << 16
    return info


def data_package(*, session: Session, today: date, district_id: int | None = None) -> bytes | None:
    """A ZIP of every table as CSV with its ``datapackage.json`` — of one district, or of
    the whole installation (None: no such district). Its files come in one order, each dated
    ``today``: the same figures make the same bytes."""
    if district_id is not None and not known_district(session=session, district_id=district_id):
        return None
    name = "tid-all" if district_id is None else f"tid-district-{district_id}"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for table in TABLES:
            found = rows(session=session, table=table, today=today, district_id=district_id)
            archive.writestr(_member(f"{table}.csv", today), table_csv(table, found))
        title = "Tourism improvement districts of Puerto Rico: open data"
        described = json.dumps(descriptor(name, title), indent=2, ensure_ascii=False)
        archive.writestr(_member("datapackage.json", today), described)
    return out.getvalue()


@dataclass(frozen=True)
class Package:
    """A data package as served: its bytes, their SHA-256 and when this worker made it."""

    body: bytes
    sha256: str
    made_at: datetime


def kept_package(
    *, session: Session, today: date, now: datetime, district_id: int | None = None
) -> Package | None:
    """The data package (:func:`data_package`) made once per version of the open data
    (:func:`site_version`: every district's public version and the register's) and day, and
    kept by the worker: a crowd downloading it costs one read of the version each. ``now``
    (to the second) is when it was made, its ``Last-Modified``: a newer version is always
    made later than an older one was."""

    def make() -> Package | None:
        body = data_package(session=session, today=today, district_id=district_id)
        if body is None:
            return None
        digest = hashlib.sha256(body).hexdigest()
        return Package(body, digest, now.replace(microsecond=0))

    return versions.kept(
        session=session,
        district_id=0,
        key=("data_package", district_id, today),
        make=make,
        version=site_version(session=session),
    )


# --------------------------------------------------------------------------- the API's pages

MOST_PER_PAGE = 500


@dataclass(frozen=True)
class Page:
    rows: list[dict[str, Any]]
    next_after: str | None  # the cursor of the next page (None: this is the last)


def page(
    *,
    session: Session,
    table: str,
    today: date,
    district_id: int | None = None,
    after: tuple[int | str, ...] | None = None,
    limit: int = 100,
) -> Page:
    """The rows of ``table`` after the place ``after`` (:func:`cursor_position` of the
    previous page's cursor), at most ``limit``; a client that follows the cursors gets every
    row, however many. Each row carries its ``key``; a petition its steps."""
    found = rows(session=session, table=table, today=today, district_id=district_id)
    if after is not None:
        found = [r for r in found if position(table, r) > after]
    limit = max(1, min(limit, MOST_PER_PAGE))
    chosen = found[:limit]
    steps: dict[int, list[dict[str, Any]]] = {}
    if table == "petitions" and chosen:  # in the order the petition took them
        for record in register.petitions(session=session, today=today):
            steps[record.petition["id"]] = [
                {k: v for k, v in s.items() if k != "label"} for s in record.steps
            ]
    out = []
    for row in chosen:
        item = {"key": row_key(table, row), **{k: plain(v) for k, v in row.items()}}
        if table == "petitions":
            item["steps"] = [
                {k: plain(v) for k, v in s.items() if k != "petition_id"}
                for s in steps.get(row["id"], [])
            ]
        out.append(item)
    more = len(found) > limit
    return Page(out, row_key(table, chosen[-1]) if more and chosen else None)
