"""The calculators' documents in and out of forms and files (CALCULATORS.md).

The calculators themselves live in :mod:`tid.rules` and take one JSON document each. This
module describes, for each of them, the inputs a person fills in (:data:`FORMS`: fields,
tables of rows and groups, with English labels translated by the caller), reads the rows of
a table from an uploaded CSV file (:func:`read_csv`), and turns any result document into
plain tables for a page, a PDF or a CSV download (:func:`result_tables`, :func:`result_csv`).

Nothing here computes: the numbers come from :func:`tid.rules.calculators.run` only, so the
web, the API and the command line cannot drift apart. Messages a person reads take a
``gettext`` callable (``_``) so that the web shows them in the reader's language.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tid import csv_safe
from tid.rules.errors import Finding, FindingsError, InputError
from tid.rules.liens import KINDS
from tid.rules.money import parse_decimal
from tid.rules.periods import parse_date, parse_fiscal_year, parse_month
from tid.rules.room_tax import ACT272_TYPES, IRC1994_TYPES
from tid.services import csvfile

Gettext = Callable[[str], str]

# The largest CSV file read for a table (checked before a byte is parsed).
MAX_CSV_BYTES = 1_000_000
MAX_CSV_ROWS = 5_000


def N_(message: str) -> str:  # noqa: N802 - the extraction marker of gettext
    """Mark a msgid for the catalog; it is translated where it is shown."""
    return message


def _identity(message: str) -> str:
    return message


class DocumentError(InputError):
    """A document that is not readable JSON; ``line`` is where the syntax breaks (0 when the
    document is too deep or a number too long to read)."""

    def __init__(self, message: str, problem: str, line: int = 0) -> None:
        super().__init__("", message)
        self.problem = problem
        self.line = line


def load_json(text: str) -> Any:
    """The JSON document in ``text``, or a :class:`DocumentError` saying why not: invalid
    JSON, nesting too deep for the parser, or a whole number of thousands of digits are all
    refused the same way, never with a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(
            f"The document is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.",
            exc.msg,
            exc.lineno,
        ) from None
    except RecursionError:
        message = "The document nests too deeply to be read."
        raise DocumentError(message, message) from None
    except ValueError:  # a whole number of more than 4,300 digits
        message = "The document holds a number with more digits than any here."
        raise DocumentError(message, message) from None


# --------------------------------------------------------------------------------------
# What a person fills in


@dataclass(frozen=True)
class Field:
    """One input of a calculator, named by its JSON key.

    ``kind``: money, quantity, integer, date, month, fiscal_year, choice, flag (a checkbox:
    true or absent), tristate (yes / no / the default), text, longtext.
    """

    element: ClassVar[str] = "field"

    key: str
    kind: str
    label: str
    required: bool = False
    choices: tuple[str, ...] = ()
    hint: str = ""


@dataclass(frozen=True)
class Table:
    """A list input (``months``, ``municipalities``…): rows of the same columns.

    With ``csv`` the rows may come from an uploaded file whose header names the columns as
    the JSON fields do.
    """

    element: ClassVar[str] = "table"

    key: str
    label: str
    columns: tuple[Field, ...]
    min_rows: int = 6
    csv: bool = True
    hint: str = ""

    def column(self, key: str) -> Field | None:
        return next((c for c in self.columns if c.key == key), None)


@dataclass(frozen=True)
class Group:
    """A mapping input (``collections`` {lodging type → amount}): one field per key."""

    element: ClassVar[str] = "group"

    key: str
    label: str
    fields: tuple[Field, ...]
    hint: str = ""


Item = Field | Table | Group


@dataclass(frozen=True)
class Section:
    title: str
    items: tuple[Item, ...]
    hint: str = ""


@dataclass(frozen=True)
class FormSpec:
    """How a person gives the document of one calculator."""

    name: str
    title: str
    description: str
    citation: str
    sections: tuple[Section, ...]
    chart: str | None = None  # "waterfall" (months by recipient) or "adjustments"

    def items(self) -> Iterable[Item]:
        for section in self.sections:
            yield from section.items

    def tables(self) -> list[Table]:
        return [i for i in self.items() if isinstance(i, Table)]


# The choices of the forms are the rules' own lists, so that they cannot drift apart.
LODGING_TYPES = ACT272_TYPES
LODGING_TYPES_1994 = IRC1994_TYPES  # IRC 1994 § 2051(a)
LIEN_KINDS = KINDS

_FY_HINT = N_("Like 2024-25 (July 1, 2024 to June 30, 2025).")
_MONEY_HINT = N_("Dollars and cents, like 1234.50.")

FORMS: dict[str, FormSpec] = {
    "room-tax": FormSpec(
        name="room-tax",
        title=N_("Room occupancy tax"),
        description=N_("The tax on one stay: rate, base, tax and the day it is remitted."),
        citation=N_("IRC 1994 § 2051; Act 272-2003 §§ 24, 28"),
        sections=(
            Section(
                N_("The stay"),
                (
                    Field("lodging_type", "choice", N_("Lodging type"), True, LODGING_TYPES),
                    Field("date", "date", N_("Date of the stay"), True),
                    Field("nightly_rate", "money", N_("Nightly rate"), hint=_MONEY_HINT),
                    Field("nights", "integer", N_("Nights"), True),
                    Field("additional_charges", "money", N_("Additional charges")),
                    Field(
                        "exemption",
                        "choice",
                        N_("Exemption"),
                        choices=("film_production", "timeshare"),
                    ),
                ),
            ),
            Section(
                N_("Complimentary rooms and rates grouped with meals"),
                (
                    Field("complimentary", "flag", N_("Complimentary casino room")),
                    Field("grouped_meals", "flag", N_("Rate grouped with meals")),
                    Field("average_daily_rate", "money", N_("Average daily rate")),
                    Field("room_cost", "money", N_("Room cost per night")),
                    Field("industry_cost", "money", N_("Industry cost per night")),
                ),
                hint=N_(
                    "Only for a complimentary room or a rate grouped with meals: the base is "
                    "the greatest of these figures per night."
                ),
            ),
        ),
    ),
    "room-tax-distribution": FormSpec(
        name="room-tax-distribution",
        title=N_("Room tax distribution"),
        description=N_(
            "Who receives the room tax collected: per fiscal year up to 2002-03 (and FY2003-04 "
            "up to 2003-09-08), month by month from September 2003."
        ),
        citation=N_("IRC 1994 § 2051(5); Act 272-2003 § 31"),
        chart="waterfall",
        sections=(
            Section(
                N_("Fiscal year"),
                (Field("fiscal_year", "fiscal_year", N_("Fiscal year"), True, hint=_FY_HINT),),
            ),
            Section(
                N_("From September 2003 (Act 272-2003 § 31), month by month"),
                (
                    Field(
                        "bank_certified_amount",
                        "money",
                        N_("Amount certified by the Bank for the Authority's debt service"),
                    ),
                    Field(
                        "bureau_floor_from_fy",
                        "fiscal_year",
                        N_("Convention Bureau floor applies from fiscal year"),
                        hint=N_("Leave empty: the supplied text leaves this year blank."),
                    ),
                    Field(
                        "convention_center_opened_on",
                        "date",
                        N_("Convention Center opened on"),
                        hint=N_(
                            "For ten years from the opening the five percent is a reserve for the "
                            "Center's operating deficit."
                        ),
                    ),
                    Field(
                        "convention_center_operating_deficit",
                        "money",
                        N_("Convention Center operating deficit of the fiscal year"),
                        hint=N_("The reserve covers the deficit above $2,500,000."),
                    ),
                    Table(
                        "months",
                        N_("Tax collected each month"),
                        (
                            Field("month", "month", N_("Month"), True),
                            Field("collected", "money", N_("Tax collected"), True),
                        ),
                        min_rows=12,
                    ),
                ),
            ),
            Section(
                N_("Up to 2003-09-08 (IRC 1994 § 2051)"),
                (
                    Group(
                        "collections",
                        N_("Tax collected in the fiscal year, by lodging type"),
                        tuple(Field(t, "money", t) for t in LODGING_TYPES_1994),
                    ),
                    Field(
                        "bond_fund_amount",
                        "money",
                        N_("Amount determined by the Secretary for the Bond Redemption Fund"),
                    ),
                    Field(
                        "collections_until",
                        "date",
                        N_("Collections up to (FY2003-04 only)"),
                        hint=N_(
                            "FY2003-04 is a part-year under these rules: give 2003-09-08. What "
                            "was collected from 2003-09-09 goes as month 2003-09 above."
                        ),
                    ),
                ),
            ),
        ),
    ),
    "excise-allocation": FormSpec(
        name="excise-allocation",
        title=N_("Excise allocations"),
        description=N_(
            "Gasoline, diesel, crude-oil and cigarette taxes to the Highways Authority, the "
            "bus authorities and the General Fund, month by month."
        ),
        citation=N_("13 LPRA § 31751"),
        chart="waterfall",
        sections=(
            Section(
                N_("Fiscal year"),
                (Field("fiscal_year", "fiscal_year", N_("Fiscal year"), True, hint=_FY_HINT),),
            ),
            Section(
                N_("Collections each month"),
                (
                    Table(
                        "months",
                        N_("Collections each month"),
                        (
                            Field("month", "month", N_("Month"), True),
                            Field("gasoline_tax", "money", N_("Gasoline tax"), True),
                            Field("diesel_gallons", "quantity", N_("Diesel gallons"), True),
                            Field("crude_oil_excise", "money", N_("Crude-oil excise"), True),
                            Field("reimbursements", "money", N_("Reimbursements"), True),
                            Field("cigarette_tax", "money", N_("Cigarette tax"), True),
                            Field(
                                "cigarette_reimbursements",
                                "money",
                                N_("Cigarette reimbursements (13 LPRA § 31668)"),
                            ),
                        ),
                        min_rows=12,
                    ),
                ),
            ),
        ),
    ),
    "equalization": FormSpec(
        name="equalization",
        title=N_("Municipal Equalization Fund"),
        description=N_(
            "The lottery and General Fund shares and the hold-harmless adjustments by municipality."
        ),
        citation=N_("Municipal Equalization Fund (b)–(d)"),
        chart="adjustments",
        sections=(
            Section(
                N_("Fiscal year and revenues"),
                (
                    Field("fiscal_year", "fiscal_year", N_("Fiscal year"), True, hint=_FY_HINT),
                    Field(
                        "lottery_net_income",
                        "money",
                        N_("Net income of the Additional Lottery System"),
                        True,
                    ),
                    Field(
                        "gf_net_revenues", "money", N_("General Fund net internal revenues"), True
                    ),
                    Field(
                        "excluded_revenues",
                        "money",
                        N_("Revenues left out of the base (Act 7-2009)"),
                    ),
                    Field("traffic_fines", "money", N_("Traffic-fine collections")),
                    Field("basic_property_tax", "money", N_("Basic property tax")),
                ),
            ),
            Section(
                N_("Municipalities"),
                (
                    Table(
                        "municipalities",
                        N_("Municipalities"),
                        (
                            Field("name", "text", N_("Municipality"), True),
                            Field("base", "money", N_("Base allocation"), True),
                            Field("allocation_2007_08", "money", N_("Allocation FY2007-08"), True),
                            Field("income_2007_08", "money", N_("Total income FY2007-08"), True),
                        ),
                        min_rows=8,
                    ),
                ),
            ),
        ),
    ),
    "liens": FormSpec(
        name="liens",
        title=N_("Lien ranking"),
        description=N_(
            "The rank of the district's impost lien among the others, and how sale proceeds "
            "are paid."
        ),
        citation=N_("21 LPRA § 6653(8)"),
        sections=(
            Section(
                N_("Liens on the property"),
                (
                    Table(
                        "liens",
                        N_("Liens"),
                        (
                            Field("id", "text", N_("Identifier"), True),
                            Field("kind", "choice", N_("Kind"), True, LIEN_KINDS),
                            Field("constituted_on", "date", N_("Constituted on"), True),
                            Field("amount", "money", N_("Amount"), True),
                            Field("unsecured_charges", "money", N_("Unsecured charges")),
                        ),
                        min_rows=6,
                        hint=N_(
                            "Unsecured charges: interest, surcharges and fees on a late "
                            "impost (impost liens only)."
                        ),
                    ),
                ),
            ),
            Section(
                N_("Sale"),
                (
                    Field("sale_proceeds", "money", N_("Sale proceeds")),
                    Field(
                        "act_effective_date",
                        "date",
                        N_("Effective date of the act"),
                        hint=N_("Leave empty for the default setting."),
                    ),
                ),
            ),
        ),
    ),
    "deadlines": FormSpec(
        name="deadlines",
        title=N_("Statutory deadlines"),
        description=N_(
            "The ordinance, the mayor's decision, the publication and the owners' notice, "
            "counted as the law counts days."
        ),
        citation=N_("21 LPRA § 6653(2), (5), (7); 1 LPRA § 72"),
        sections=(
            Section(
                N_("Dates"),
                (
                    Field("petition_received", "date", N_("Legislature received the petition")),
                    Field(
                        "ordinance_received_by_mayor", "date", N_("Mayor received the ordinance")
                    ),
                    Field("mayor_approved", "date", N_("Mayor approved the ordinance")),
                    Field(
                        "ordinance_received_by_association",
                        "date",
                        N_("Association received the ordinance"),
                    ),
                    Field("skip_saturday", "tristate", N_("Saturdays do not end a deadline")),
                ),
                hint=N_("Give at least one date."),
            ),
        ),
    ),
    "impost": FormSpec(
        name="impost",
        title=N_("Impost formula"),
        description=N_("Each property's yearly impost under the ordinance's formula."),
        citation=N_("21 LPRA § 6653(3)(d)"),
        sections=(
            Section(
                N_("Formula"),
                (Field("formula", "longtext", N_("Formula"), True),),
            ),
            Section(
                N_("Properties"),
                (
                    Table(
                        "properties",
                        N_("Properties"),
                        (Field("id", "text", N_("Identifier"), True),),
                        min_rows=0,
                        hint=N_(
                            "Upload a CSV file: a column id and one column per attribute the "
                            "formula uses."
                        ),
                    ),
                    Table(
                        "parameters",
                        N_("Formula parameters"),
                        (
                            Field("name", "text", N_("Name"), True),
                            Field("value", "text", N_("Value"), True),
                        ),
                        min_rows=4,
                        csv=False,
                    ),
                ),
            ),
        ),
    ),
}

# Tables whose columns are open (any attribute); the rows come from a CSV file only.
OPEN_TABLES = {("impost", "properties")}
# Tables given as rows of name/value that the document holds as a mapping {name → value}.
PAIR_TABLES = {("impost", "parameters")}


# --------------------------------------------------------------------------------------
# Checking one value as typed


def check_value(item: Field, text: str, _: Gettext = _identity) -> str | None:
    """Why ``text`` is not a valid value of ``item`` (None when it is). ``text`` not empty."""
    kind = item.kind
    if kind in ("money", "quantity"):
        try:
            amount = parse_decimal(text, item.key, allow_negative=True)
        except InputError:
            if kind == "money":
                return _("Write an amount in dollars, like 1234.50.")
            return _("Write a quantity, like 5000000.")
        if amount < 0:
            return _("It cannot be negative.")
        if kind == "money" and amount != amount.quantize(amount.__class__("0.01")):
            return _("An amount of money has at most two decimals (cents).")
        return None
    if kind == "integer":
        return None if re.fullmatch(r"\d{1,9}", text) else _("Write a whole number, like 3.")
    if kind == "date":
        try:
            parse_date(text, item.key)
        except InputError:
            return _("Write a date as year-month-day, like 2026-03-02.")
        return None
    if kind == "month":
        try:
            parse_month(text, item.key)
        except InputError:
            return _("Write a month as year-month, like 2026-03.")
        return None
    if kind == "fiscal_year":
        try:
            parse_fiscal_year(text, item.key)
        except InputError:
            return _("Write a fiscal year like 2024-25.")
        return None
    if kind == "choice" and text not in item.choices:
        return _("Choose one of the options.")
    if kind == "tristate" and text not in ("true", "false"):
        return _("Choose one of the options.")
    return None


def json_value(item: Field, text: str) -> Any:
    """The JSON value of a checked, non-empty ``text`` (amounts stay strings)."""
    if item.kind == "integer":
        return int(text)
    if item.kind in ("flag", "tristate"):
        return text in ("true", "on", "y", "yes", "1")
    return text


# --------------------------------------------------------------------------------------
# CSV upload


class CsvError(FindingsError):
    """A CSV file that cannot be read in full: each finding names the row and the column."""


def decode_upload(data: bytes, field_name: str, _: Gettext = _identity) -> str:
    """The text of an uploaded file: size checked first, then read as every upload is
    (tid/services/csvfile.py: UTF-8, else a spreadsheet's Windows-1252)."""
    if len(data) > MAX_CSV_BYTES:
        raise CsvError(
            [
                Finding(
                    field_name,
                    _("The file is too large (at most %(size)s bytes).")
                    % {"size": f"{MAX_CSV_BYTES:,}"},
                )
            ]
        )
    text, _encoding = csvfile.decode(data)
    if "\x00" in text:
        raise CsvError([Finding(field_name, _("This is not a CSV text file."))])
    return text


def read_csv(
    data: bytes,
    table: Table,
    *,
    field_name: str | None = None,
    open_columns: bool = False,
    _: Gettext = _identity,
) -> list[dict[str, Any]]:
    """The rows of ``table`` from a CSV file whose header names the JSON fields.

    See :func:`read_csv_numbered`, which also gives each row's line number.
    """
    rows = read_csv_numbered(data, table, field_name=field_name, open_columns=open_columns, _=_)
    return [row for _number, row in rows]


def read_csv_numbered(
    data: bytes,
    table: Table,
    *,
    field_name: str | None = None,
    open_columns: bool = False,
    _: Gettext = _identity,
) -> list[tuple[int, dict[str, Any]]]:
    """The rows of ``table`` from a CSV file, each with its row number in the file.

    Every cell is checked before anything is returned: one bad row is a :class:`CsvError`
    naming the row number (the header is row 1) and the column, and no row is used. Empty
    lines are skipped; an empty optional cell is left out of the row. With ``open_columns``
    any column is accepted (as text) besides the ones of ``table``.
    """
    name = field_name or f"{table.key}_csv"
    text = decode_upload(data, name, _)
    # The delimiter: a comma, or the semicolon or tab of spreadsheets in Spanish.
    delimiter = csvfile.delimiter_of(text.split("\n", 1)[0])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise CsvError([Finding(name, _("Row 1: %(problem)s") % {"problem": str(exc)})]) from None
    if header is None or not any(h.strip() for h in header):
        raise CsvError([Finding(name, _("The file is empty: the first row names the columns."))])
    columns = [h.strip() for h in header]
    findings = _header_findings(columns, table, name, open_columns, _)
    if findings:
        raise CsvError(findings)
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        for cells in reader:
            number = reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(rows) >= MAX_CSV_ROWS:
                raise CsvError(
                    [Finding(name, _("Too many rows (at most %(n)s).") % {"n": MAX_CSV_ROWS})]
                )
            row = _csv_row(number, cells, columns, table, name, findings, _)
            if row is not None:
                rows.append((number, row))
    except csv.Error as exc:
        findings.append(
            Finding(
                name,
                _("Row %(row)s: %(problem)s") % {"row": reader.line_num, "problem": str(exc)},
                reader.line_num,
            )
        )
    if findings:
        raise CsvError(findings)
    if not rows:
        raise CsvError([Finding(name, _("The file has a header but no rows."))])
    return rows


def _header_findings(
    columns: list[str], table: Table, name: str, open_columns: bool, _: Gettext
) -> list[Finding]:
    """What is wrong with a CSV file's header row: unnamed, unknown, repeated or missing
    columns."""
    findings: list[Finding] = []
    known = {c.key for c in table.columns}
    for position, column in enumerate(columns, start=1):
        if not column:
            findings.append(
                Finding(
                    name, _("Row 1, column %(n)s: the column has no name.") % {"n": position}, 1
                )
            )
        elif column not in known and not open_columns:
            findings.append(
                Finding(
                    name,
                    _("Row 1: unknown column “%(column)s”; the columns are: %(known)s.")
                    % {"column": column, "known": ", ".join(c.key for c in table.columns)},
                    1,
                )
            )
        elif columns.index(column) != position - 1:
            findings.append(
                Finding(
                    name, _("Row 1: the column “%(column)s” appears twice.") % {"column": column}, 1
                )
            )
    for required in (c for c in table.columns if c.required):
        if required.key not in columns:
            findings.append(
                Finding(
                    name,
                    _("Row 1: the column “%(column)s” is missing.") % {"column": required.key},
                    1,
                )
            )
    return findings


def _csv_row(
    number: int,
    cells: list[str],
    columns: list[str],
    table: Table,
    name: str,
    findings: list[Finding],
    _: Gettext,
) -> dict[str, Any] | None:
    """One row of a CSV file as JSON values; its problems go to ``findings`` (None: a row
    with more cells than the header has columns)."""
    if len(cells) > len(columns):
        findings.append(
            Finding(
                name,
                _("Row %(row)s: %(cells)s cells, but the header names %(columns)s columns.")
                % {"row": number, "cells": len(cells), "columns": len(columns)},
                number,
            )
        )
        return None
    row: dict[str, Any] = {}
    for column, raw in zip(columns, cells, strict=False):
        value = raw.strip()
        spec = table.column(column) or Field(column, "text", column)
        if not value:
            if spec.required:
                findings.append(
                    Finding(
                        name,
                        _("Row %(row)s, column %(column)s: this value is required.")
                        % {"row": number, "column": column},
                        number,
                    )
                )
            continue
        problem = check_value(spec, value, _)
        if problem:
            findings.append(
                Finding(
                    name,
                    _("Row %(row)s, column %(column)s: %(problem)s")
                    % {"row": number, "column": column, "problem": problem},
                    number,
                )
            )
            continue
        row[column] = json_value(spec, value)
    for missing in columns[len(cells) :]:
        missing_spec = table.column(missing)
        if missing_spec is not None and missing_spec.required:
            findings.append(
                Finding(
                    name,
                    _("Row %(row)s, column %(column)s: this value is required.")
                    % {"row": number, "column": missing},
                    number,
                )
            )
    return row


# --------------------------------------------------------------------------------------
# Results as tables


# Keys whose decimal strings are rates or ratios (shown as percentages), and quantities.
RATE_KEYS = frozenset(
    {"rate", "lottery_rate", "gf_rate", "ratio_2007_08", "weight", "share", "points"}
)
PLAIN_KEYS = frozenset({"nights", "rank", "group", "days_left", "fiscal_year", "month", "id"})
QUANTITY_KEYS = frozenset({"diesel_gallons"})
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DECIMAL = re.compile(r"^-?\d+(\.\d+)?$")
_SKIPPED = frozenset({"warnings", "warnings_es", "trace", "explanation_es", "skipped"})


def kind_of(key: str, value: object) -> str:
    """How to show a value of a result: money, rate, quantity, date, number, flag or text."""
    leaf = key.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return "flag"
    if isinstance(value, int):
        return "number"
    if not isinstance(value, str):
        return "text"
    if _ISO_DATE.match(value):
        return "date"
    if _DECIMAL.match(value):
        if leaf in RATE_KEYS or (leaf.endswith("_rate") and leaf not in _MONEY_RATES):
            return "rate"
        if leaf in QUANTITY_KEYS:
            return "quantity"
        if leaf in PLAIN_KEYS:
            return "number"
        return "money"
    return "text"


_MONEY_RATES = frozenset({"nightly_rate", "average_daily_rate"})


@dataclass
class ResultTable:
    """A list of the result as rows of flat cells; nested objects become dotted columns."""

    key: str
    columns: list[str]
    rows: list[dict[str, Any]]
    totals: dict[str, Any] = field(default_factory=dict)


def _flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, item in value.items():
        if key in _SKIPPED:
            continue
        path = f"{prefix}{key}"
        if isinstance(item, Mapping):
            flat.update(_flatten(item, f"{path}."))
        elif isinstance(item, list):
            if all(not isinstance(x, (Mapping, list)) for x in item):
                flat[path] = ", ".join(str(x) for x in item)
        else:
            flat[path] = item
    return flat


def _table(key: str, rows: Sequence[Mapping[str, Any]]) -> ResultTable:
    flat_rows = [_flatten(r) for r in rows]
    columns: list[str] = []
    for row in flat_rows:
        for column in row:
            if column not in columns:
                columns.append(column)
    return ResultTable(key, columns, flat_rows)


def _is_table(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, Mapping) for x in value)


def _is_record_map(value: object) -> bool:
    """A mapping of named records ({"ordinance_due": {...}, ...}), shown as a table."""
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(x, Mapping) for x in value.values())
    )


def result_tables(result: Mapping[str, Any]) -> list[ResultTable]:
    """Every list in a result (months, municipalities, ranking…) as a table.

    A ``totals`` mapping whose keys are the allocations of a ``months`` table becomes that
    table's totals row. A mapping of named records (records explained one by one, like the
    deadlines) is a table too, one row per name in a column called ``result``; records at the
    top level of the result (an object with an ``explanation``) make a table ``results``.
    """
    tables: list[ResultTable] = []
    records: list[dict[str, Any]] = []
    for key, value in result.items():
        if key in _SKIPPED:
            continue
        if _is_table(value):
            tables.append(_table(key, value))
        elif isinstance(value, Mapping) and "explanation" in value:
            records.append({"result": key, **value})
        elif _is_record_map(value):
            rows = [{"result": name, **record} for name, record in value.items()]
            tables.append(_table(key, rows))
    if records:
        tables.insert(0, _table("results", records))
    totals = result.get("totals")
    if isinstance(totals, Mapping):
        for table in tables:
            matched = {
                f"allocations.{k}": v
                for k, v in totals.items()
                if f"allocations.{k}" in table.columns
            }
            matched.update({k: v for k, v in totals.items() if k in table.columns})
            if matched:
                table.totals = matched
    return tables


def summary(result: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The key figures of a result: its scalars and its groups of scalars, flattened."""
    tables = {t.key for t in result_tables(result)}
    figures: list[tuple[str, Any]] = []
    for key, value in result.items():
        if key in _SKIPPED or key in tables:
            continue
        if isinstance(value, Mapping) and "explanation" in value:
            continue
        if isinstance(value, Mapping):
            figures.extend(_flatten(value, f"{key}.").items())
        elif isinstance(value, list):
            if all(not isinstance(x, (Mapping, list)) for x in value):
                figures.append((key, ", ".join(str(x) for x in value)))
        else:
            figures.append((key, value))
    return figures


def _key(key: str) -> str:
    return key


def _as_is(key: str, value: object) -> object:
    return value


def _is_number(value: object) -> bool:
    """A value the calculator wrote as a number: an int, or an amount, rate or quantity
    (decimal strings, CALCULATORS.md)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and bool(_DECIMAL.match(value)))


def _column_cells(
    values: list[object],
    column: str = "",
    text: Callable[[str, object], object] = _as_is,
) -> list[str]:
    """One column's cells: a column whose every value is a number keeps them as numbers;
    any other column is text (shown by ``text``), and each of its cells is escaped
    (tid/csv_safe.py)."""
    if all(v is None or _is_number(v) for v in values):
        return [csv_safe.number_cell(v) for v in values]
    return [csv_safe.text_cell(_plain(text(column, v))) for v in values]


def _plain(value: object) -> object:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def result_csv(
    result: Mapping[str, Any],
    heading: Callable[[str], str] = _key,
    text: Callable[[str, object], object] = _as_is,
) -> str:
    """A result as CSV: each table under its name, then the key figures, then the warnings.

    Columns are named by ``heading`` (by default the JSON fields, nested ones dotted,
    ``allocations.general_fund``; the web gives the reader's labels) and each text cell is
    shown by ``text(column, value)`` (the web: codes and flags by their labels, citations
    and warnings in the reader's language). Amounts and other numbers are written as the
    result gives them (``"1234.50"``), so they read back exactly.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    first = True
    for table in result_tables(result):
        if not first:
            writer.writerow([])
        first = False
        if len(result_tables(result)) > 1:
            writer.writerow([csv_safe.text_cell(f"# {heading(table.key)}")])
        writer.writerow([csv_safe.text_cell(heading(c)) for c in table.columns])
        lines: list[dict[str, Any]] = list(table.rows)
        if table.totals:
            lines.append(dict(table.totals))
        columns = [_column_cells([line.get(c) for line in lines], c, text) for c in table.columns]
        for index in range(len(lines)):
            cells = [column[index] for column in columns]
            if table.totals and index == len(lines) - 1:
                cells[0] = cells[0] or heading("total")
            writer.writerow(cells)
    figures = summary(result)
    if figures:
        if not first:
            writer.writerow([])
        first = False
        writer.writerow([heading("field"), heading("value")])
        for key, value in figures:  # each field is a column of one value
            writer.writerow([csv_safe.text_cell(heading(key)), *_column_cells([value], key, text)])
    warnings = result.get("warnings") or []
    if warnings:
        if not first:
            writer.writerow([])
        writer.writerow([heading("warning")])
        for warning in warnings:
            writer.writerow([csv_safe.text_cell(text("warning", warning))])
    return out.getvalue()


def available(name: str) -> bool:
    """Whether calculator ``name`` is registered and its module is in place."""
    from tid.rules import calculators

    if name not in calculators.CALCULATORS:
        return False
    try:
        calculators.get(name)
    except (ImportError, AttributeError):
        return False
    return True


def citations(result: Mapping[str, Any]) -> list[str]:
    """The distinct citations of a result's trace, in order of first use."""
    seen: list[str] = []
    for step in result.get("trace") or []:
        citation = step.get("citation") if isinstance(step, Mapping) else None
        if citation and citation not in seen:
            seen.append(str(citation))
    return seen
