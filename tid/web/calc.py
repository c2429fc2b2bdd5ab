"""The statute calculators on the web: a form per calculator, the result, CSV and PDF.

Public pages (no login): they compute what the law says from what the visitor types and
keep nothing. Each form builds the same JSON document the API and ``tid calc`` take
(CALCULATORS.md) and hands it to :func:`tid.rules.calculators.run`; the result page carries
that document in a hidden field, so the CSV and PDF downloads re-run the computation from
it (no state kept on the server).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from babel.numbers import format_currency, format_percent
from flask import Blueprint, Response, abort, current_app, render_template, request
from flask_babel import gettext as _
from werkzeug.datastructures import FileStorage

from tid import i18n
from tid.calculators import csv_tables, documents, forms, inputs, results
from tid.calculators.inputs import N_, FormSpec, Group, Table
from tid.calculators.inputs import Field as Input
from tid.render import charts
from tid.rules import calculators
from tid.rules.errors import FindingsError, InputError
from tid.rules.liens import LIEN_KINDS
from tid.rules.messages import Message, render, set_field_labels
from tid.rules.params import CODE_LABELS
from tid.rules.room_tax import EXEMPTION_LABELS, LODGING_LABELS
from tid.web import calc_guard, nav
from tid.web.access import public
from tid.web.util import today

bp = Blueprint("calc", __name__, url_prefix="/calc")

nav.add(
    "calc.index",
    N_("Calculators"),
    N_(
        "The statute calculators: room tax, distributions, excise, equalization, liens and "
        "deadlines, with their citations."
    ),
    None,
)

# The English label (a msgid) of every field of the documents, in and out.
LABELS: dict[str, str] = {
    # room-tax
    "lodging_type": N_("Lodging type"),
    "date": N_("Date"),
    "nightly_rate": N_("Nightly rate"),
    "nights": N_("Nights"),
    "additional_charges": N_("Additional charges"),
    "exemption": N_("Exemption"),
    "complimentary": N_("Complimentary casino room"),
    "grouped_meals": N_("Rate grouped with meals"),
    "average_daily_rate": N_("Average daily rate"),
    "room_cost": N_("Room cost per night"),
    "industry_cost": N_("Industry cost per night"),
    "regime": N_("Regime"),
    "rate": N_("Rate"),
    "base": N_("Base"),
    "tax": N_("Tax"),
    "remit_by": N_("Remit by"),
    "citation": N_("Citation"),
    # room-tax-distribution
    "fiscal_year": N_("Fiscal year"),
    "collections": N_("Collections"),
    "bond_fund_amount": N_("Bond Redemption Fund amount"),
    "months": N_("Months"),
    "month": N_("Month"),
    "collected": N_("Tax collected"),
    "bank_certified_amount": N_("Amount certified by the Bank"),
    "bureau_floor_from_fy": N_("Bureau floor from fiscal year"),
    "collections_until": N_("Collections up to (part-year)"),
    "convention_center_opened_on": N_("Convention Center opened on"),
    "convention_center_operating_deficit": N_("Convention Center operating deficit"),
    "convention_center_reserve": N_("Convention Center reserve"),
    "opened_on": N_("Opened on"),
    "first_fiscal_year": N_("First fiscal year"),
    "last_fiscal_year": N_("Last fiscal year"),
    "held": N_("Held in reserve"),
    "deficit_threshold": N_("Deficit covered above"),
    "operating_deficit": N_("Operating deficit"),
    "covers_deficit": N_("Covers the deficit"),
    "released_to_general_fund": N_("Released to the General Fund"),
    "joined_months": N_("Months distributed together"),
    "allocations": N_("Allocations"),
    "general_fund": N_("General Fund"),
    "special_account_i": N_("Special Account I"),
    "special_account_ii": N_("Special Account II"),
    "convention_center_account": N_("Convention Center account"),
    "bond_redemption_fund": N_("Bond Redemption Fund"),
    "recreational_development_fund": N_("Recreational Development Fund"),
    "unnamed_one_sixth": N_("1/6 of 6% (recipient not named in the supplied text)"),
    "authority_debt_service": N_("Convention Center District Authority (debt service)"),
    "tourism_company_admin": N_("Tourism Company (administration)"),
    "convention_bureau": N_("Convention Bureau"),
    "tourism_company_remainder": N_("Tourism Company (remainder)"),
    "carried_shortfall": N_("Shortfall carried"),
    "totals": N_("Totals"),
    "total": N_("Total"),
    # excise-allocation
    "gasoline_tax": N_("Gasoline tax"),
    "diesel_gallons": N_("Diesel gallons"),
    "crude_oil_excise": N_("Crude-oil excise"),
    "reimbursements": N_("Reimbursements"),
    "cigarette_tax": N_("Cigarette tax"),
    "cigarette_reimbursements": N_("Cigarette reimbursements (13 LPRA § 31668)"),
    "cigarette_allocated": N_("Cigarette tax allocated"),
    "hta_fuel": N_("Highways Authority (fuel)"),
    "hta_cigarette": N_("Highways Authority (cigarettes)"),
    "mba": N_("Metropolitan Bus Authority"),
    "prita": N_("Integrated Transportation Authority"),
    "reachable_annual_max": N_("Reachable annual maximum"),
    "outstanding": N_("Outstanding at year end"),
    # equalization
    "lottery_net_income": N_("Lottery net income"),
    "gf_net_revenues": N_("General Fund net internal revenues"),
    "excluded_revenues": N_("Excluded revenues"),
    "traffic_fines": N_("Traffic fines"),
    "basic_property_tax": N_("Basic property tax"),
    "municipalities": N_("Municipalities"),
    "name": N_("Name"),
    "allocation_2007_08": N_("Allocation FY2007-08"),
    "income_2007_08": N_("Income FY2007-08"),
    "lottery_rate": N_("Lottery rate"),
    "lottery_share": N_("Lottery share"),
    "gf_rate": N_("General Fund rate"),
    "gf_base": N_("General Fund base"),
    "gf_share": N_("General Fund share"),
    "public_works_fund": N_("Municipal Public Works Fund"),
    "ratio_2007_08": N_("Ratio FY2007-08"),
    "protected": N_("Protected"),
    "adjustment": N_("Adjustment"),
    "final": N_("Final"),
    # liens
    "liens": N_("Liens"),
    "id": N_("Identifier"),
    "kind": N_("Kind"),
    "constituted_on": N_("Constituted on"),
    "amount": N_("Amount"),
    "unsecured_charges": N_("Unsecured charges"),
    "sale_proceeds": N_("Sale proceeds"),
    "act_effective_date": N_("Effective date of the act"),
    "ranking": N_("Ranking"),
    "rank": N_("Rank"),
    "group": N_("Group"),
    "part": N_("Part"),
    "owed": N_("Owed"),
    "secured_amount": N_("Secured amount"),
    "reason": N_("Reason"),
    "distribution": N_("Distribution of the proceeds"),
    "paid": N_("Paid"),
    "unpaid": N_("Unpaid"),
    "to_owner": N_("To the owner"),
    # deadlines
    "petition_received": N_("Legislature received the petition"),
    "ordinance_received_by_mayor": N_("Mayor received the ordinance"),
    "mayor_approved": N_("Mayor approved the ordinance"),
    "ordinance_received_by_association": N_("Association received the ordinance"),
    "skip_saturday": N_("Saturdays do not end a deadline"),
    "today": N_("Today"),
    "ordinance_due": N_("Ordinance due"),
    "mayor_decision_due": N_("Mayor's decision due"),
    "publication_window": N_("Publication window"),
    "initial_notice_due": N_("Owners' notice due"),
    "nominal_date": N_("Date before moving past holidays"),
    "explanation": N_("Explanation"),
    "start": N_("From"),
    "end": N_("To"),
    "days_left": N_("Days left"),
    # impost
    "formula": N_("Formula"),
    "properties": N_("Properties"),
    "parameters": N_("Parameters"),
    # more fields of the results
    "results": N_("Results"),
    "taxable": N_("Taxable"),
    "bank_transfers": N_("Bank transfers"),
    "bureau_floor": N_("Convention Bureau floor applied"),
    "fund_total": N_("Fund total"),
    "hold_harmless_applied": N_("Hold-harmless applied"),
    "apportioned": N_("Apportioned"),
    "budget": N_("Budget"),
    "parameters_used": N_("Parameters used"),
    "attributes_used": N_("Attributes used"),
    "result": N_("Result"),
    "field": N_("Field"),
    "value": N_("Value"),
    "warning": N_("Warning"),
    "secured": N_("Secured"),
    # the regimes, as the parameter room_tax.regime names them (tid/rules/params.py)
    **{code: CODE_LABELS[code] for code in ("irc-1994", "act-272-2003")},
    # lodging types, exemptions and kinds of lien (choices)
    **LODGING_LABELS,
    **EXEMPTION_LABELS,
    **{key: kind.label for key, kind in LIEN_KINDS.items()},
}
# The leaf labels of dotted columns get their group's name in front, except these groups.
_PLAIN_GROUPS = {"allocations", "collections"}


def label(key: str) -> str:
    """The translated label of a field of a document (``carried_shortfall.mba`` too)."""
    if "." in key:
        group, leaf = key.rsplit(".", 1)
        if group.rsplit(".", 1)[-1] in _PLAIN_GROUPS:
            return label(leaf)
        return f"{label(group)}: {label(leaf)}"
    message = LABELS.get(key)
    return str(_(message)) if message else key.replace("_", " ")


_INDEX = re.compile(r"\[(\d+)\]")


def field_label(path: str) -> str:
    """A field's path (``months[2].collected``) as a reader names it: the field's label, and
    the row of its table (``Collected (row 3)``). Outside a request, the path itself."""
    from flask import has_request_context

    if not has_request_context() or not path:
        return path
    rows = [int(n) + 1 for n in _INDEX.findall(path)]
    leaf = _INDEX.sub("", path).rsplit(".", 1)[-1]
    shown = label(leaf)
    if rows:
        return str(_("%(field)s (row %(row)s)", field=shown, row=rows[-1]))
    return shown


set_field_labels(field_label)


def percent(value: Decimal) -> str:
    return str(format_percent(value, "#,##0.####%", locale=i18n.format_locale()))


def show(key: str, value: object) -> str:
    """A value of a document for a reader: money, a rate, a date, a number or text."""
    kind = results.kind_of(key, value)
    if kind == "flag":
        return str(_("Yes") if value else _("No"))
    if value is None:
        return "—"
    if kind == "money":
        return i18n.money(Decimal(str(value)))
    if kind == "rate":
        return percent(Decimal(str(value)))
    if kind == "date":
        from datetime import date

        return i18n.day(date.fromisoformat(str(value)))
    if kind == "number" and isinstance(value, int):
        return i18n.number(value)
    if kind == "quantity":
        return i18n.number(Decimal(str(value)))
    if isinstance(value, Message):
        return render(value)
    text = str(value)
    if key.rsplit(".", 1)[-1] == "citation":
        return cite(text)
    return _(LABELS[text]) if text in LABELS and key.rsplit(".", 1)[-1] in _CHOICE_KEYS else text


# Fields whose values are codes with a label of their own (a lodging type, a kind of lien…).
_CHOICE_KEYS = {"lodging_type", "exemption", "kind", "part", "regime", "result"}


def show_parameter(unit: str, text: str) -> str:
    """A value of a dated parameter (tid/rules/params) for a reader, by its unit."""
    if unit == "code":
        return _(CODE_LABELS[text]) if text in CODE_LABELS else text
    if unit == "boolean":
        return str(_("Yes") if text == "true" else _("No"))
    if unit == "fiscal_month":
        return fiscal_month(int(text))
    try:
        if unit in ("rate", "ratio"):
            return percent(Decimal(text))
        if unit == "usd":
            return i18n.money(Decimal(text))
        if unit == "date":
            from datetime import date

            return i18n.day(date.fromisoformat(text))
    except (ArithmeticError, ValueError):
        return text
    return text


# The months of the fiscal year, July first (a parameter's ``fiscal_month``: 1 … 12).
FISCAL_MONTHS = (
    N_("July"),
    N_("August"),
    N_("September"),
    N_("October"),
    N_("November"),
    N_("December"),
    N_("January"),
    N_("February"),
    N_("March"),
    N_("April"),
    N_("May"),
    N_("June"),
)


def fiscal_month(number: int) -> str:
    """The name of the ``number``-th month of the fiscal year (1: July … 12: June)."""
    return str(_(FISCAL_MONTHS[number - 1])) if 1 <= number <= 12 else str(number)


def translated(msgid: str) -> str:
    """A msgid kept as data (a parameter's description, a citation) in the reader's language:
    the catalog's text as it is, without the ``%`` formatting of the templates' ``_()``."""
    from flask_babel import gettext

    from tid.rules.params import catalog_id

    if not msgid:
        return ""
    if "%" in msgid:  # a text of the parameter files: its % is %% in the catalogs
        found = str(gettext(catalog_id(msgid)))
        if found != catalog_id(msgid):
            return found.replace("%%", "%")
    return str(gettext(msgid))


def cite(citation: str) -> str:
    """A citation of law in the reader's language: the catalog's text of the whole citation,
    or of each of its parts (``"21 LPRA § 6653(2); 1 LPRA § 72"``), each a msgid."""
    whole = translated(citation)
    if whole != citation or "; " not in citation:
        return whole
    # the longest run of parts that is a msgid of its own, from the left
    parts, shown, start = citation.split("; "), [], 0
    while start < len(parts):
        end = len(parts)
        while end > start + 1 and translated("; ".join(parts[start:end])) == "; ".join(
            parts[start:end]
        ):
            end -= 1
        shown.append(translated("; ".join(parts[start:end])))
        start = end
    return "; ".join(shown)


def parameter_label(name: str) -> str:
    """A dated parameter as a reader names it: its description in the reader's language."""
    from tid.rules.params import history

    try:
        return translated(history(name).description)
    except KeyError:
        return name


def step_value(step: Mapping[str, Any]) -> str:
    """The value of a trace step for a reader: a code a parameter holds by its label."""
    value = step.get("value")
    if isinstance(value, str) and value in CODE_LABELS:
        return translated(CODE_LABELS[value])
    return i18n.localized(value) if isinstance(value, str) else str(value)


def csv_text(column: str, value: object) -> object:
    """A text cell of a result's CSV for a reader: flags, codes and citations by their
    labels, warnings in the reader's language (numbers stay as the result gives them)."""
    leaf = column.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return str(_("Yes") if value else _("No"))
    if not isinstance(value, str):
        return value
    if leaf == "citation":
        return cite(value)
    if isinstance(value, Message):  # a warning, a reason the rules give
        return render(value)
    if leaf in _CHOICE_KEYS and value in LABELS:
        return str(_(LABELS[value]))
    return value


def result_csv(result: Mapping[str, Any]) -> str:
    """A result as the CSV a reader downloads: columns and codes named in their language
    (CALCULATORS.md fixes the JSON documents, not this file; the JSON API and ``tid calc``
    are the machine interface)."""
    return results.result_csv(result, label, csv_text)


def unit_label(unit: str) -> str:
    """The msgid that names a parameter's unit (tid/rules/params.py)."""
    from tid.rules.params import UNIT_LABELS

    return UNIT_LABELS.get(unit, unit)


def is_number(key: str, value: object) -> bool:
    return results.kind_of(key, value) in ("money", "rate", "number", "quantity")


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {
        "label": label,
        "show": show,
        "is_number": is_number,
        "show_parameter": show_parameter,
        "unit_label": unit_label,
        "translated": translated,
        "cite": cite,
        "parameter_label": parameter_label,
        "step_value": step_value,
    }


# --------------------------------------------------------------------------------------
# The form: its fields as named in the HTML and the document they build


def cell_name(table: str, row: int, column: str) -> str:
    return f"{table}-{row}-{column}"


def group_name(group: str, key: str) -> str:
    return f"{group}-{key}"


# The most rows a table of the form shows (longer lists come as a CSV file).
MAX_FORM_ROWS = 400


@dataclass
class FormState:
    """What the form shows: the values typed, the errors by field, the rows of each table."""

    values: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    general: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    # table key -> for each row of the document, the form row (or the CSV line) it came from
    origin: dict[str, list[int]] = field(default_factory=dict)
    from_csv: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    # upload field -> (file name, bytes) of a CSV sent or kept with this form
    uploads: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    # upload field -> (token, file name) of the CSV kept on the server for the next try
    kept: dict[str, tuple[str, str]] = field(default_factory=dict)

    def error(self, name: str, message: str) -> None:
        self.errors.setdefault(name, message)


def _text(form: Mapping[str, str], name: str) -> str:
    return (form.get(name) or "").strip()


def _upload(files: Mapping[str, FileStorage], name: str) -> bytes | None:
    storage = files.get(name)
    if storage is None or not storage.filename:
        return None
    # Read at most one byte past the limit: the size is refused before any parsing.
    return storage.stream.read(csv_tables.MAX_CSV_BYTES + 1)


# An uploaded CSV survives a form that comes back with errors: it is kept on the server under
# a random token (as the roll's preview keeps its upload) and the form offers it again, so
# the user corrects the other fields without choosing the file anew. Kept files are deleted
# after UPLOAD_RETENTION_HOURS.
_KEPT_TOKEN = re.compile(r"[0-9a-f]{64}")


def _kept_dir() -> Path:
    return Path(current_app.instance_path) / "calc-uploads"


def _kept_retention_seconds() -> float:
    return float(current_app.config.get("UPLOAD_RETENTION_HOURS") or 24) * 3600


def keep_upload(calculator: str, upload_name: str, file_name: str, data: bytes) -> str:
    """Keep an uploaded CSV for the next try of this form; the token that names it."""
    directory = _kept_dir()
    directory.mkdir(parents=True, exist_ok=True)
    cutoff = time.time() - _kept_retention_seconds()
    for old in directory.glob("*.*"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink(missing_ok=True)
        except OSError:
            continue
    token = secrets.token_hex(32)
    (directory / f"{token}.csv").write_bytes(data)
    meta = {"calculator": calculator, "field": upload_name, "file": file_name}
    (directory / f"{token}.json").write_text(json.dumps(meta))
    return token


def kept_upload(calculator: str, upload_name: str, token: str) -> tuple[str, bytes] | None:
    """The file name and bytes kept under ``token`` for this form's field (None: unknown,
    expired, or kept for another form)."""
    if not _KEPT_TOKEN.fullmatch(token):
        return None
    directory = _kept_dir()
    try:
        meta = json.loads((directory / f"{token}.json").read_text())
        data = (directory / f"{token}.csv").read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or (meta.get("calculator"), meta.get("field")) != (
        calculator,
        upload_name,
    ):
        return None
    if (directory / f"{token}.csv").stat().st_mtime < time.time() - _kept_retention_seconds():
        return None
    return str(meta.get("file") or "upload.csv"), data


def _file_name(files: Mapping[str, FileStorage], name: str) -> str:
    storage = files.get(name)
    raw = (storage.filename or "") if storage is not None else ""
    base = Path(raw.replace("\\", "/")).name.strip() or "upload.csv"
    return "".join(c for c in base if c.isprintable())[:120]


def _scalar(item: Input, text: str, name: str, state: FormState, target: dict[str, Any]) -> None:
    state.names.add(name)
    if item.kind == "flag":
        if text:
            target[item.key] = True
            state.values[name] = "true"
        return
    state.values[name] = text
    if not text:
        if item.required:
            state.error(name, _("This value is required."))
        return
    problem = inputs.check_value(item, text, _)
    if problem:
        state.error(name, problem)
        return
    target[item.key] = inputs.json_value(item, text)


def _table_rows(
    spec: FormSpec,
    table: Table,
    form: Mapping[str, str],
    files: Mapping[str, FileStorage],
    state: FormState,
) -> list[dict[str, Any]] | None:
    """The rows of a table from its CSV file if one was sent, else from the form's rows."""
    upload_name = f"{table.key}_csv"
    state.names.update({upload_name, table.key})
    open_columns = (spec.name, table.key) in forms.OPEN_TABLES
    data = _upload(files, upload_name)
    if data is not None:
        state.uploads[upload_name] = (_file_name(files, upload_name), data)
    elif _text(form, f"{upload_name}_keep") == "yes" and _text(form, f"{upload_name}_kept"):
        found = kept_upload(spec.name, upload_name, _text(form, f"{upload_name}_kept"))
        if found is None:
            state.error(
                upload_name,
                _("The file kept from the last try is no longer here; choose the file again."),
            )
            return None
        state.uploads[upload_name] = found
        data = found[1]
    pasted = _text(form, f"{table.key}_paste") if open_columns else ""
    if pasted and data is None:
        data = pasted.encode("utf-8")
        upload_name = f"{table.key}_paste"
        state.values[upload_name] = pasted
        state.names.add(upload_name)
    if data is not None and table.csv:
        try:
            numbered = csv_tables.read_csv_numbered(
                data, table, field_name=upload_name, open_columns=open_columns, _=_
            )
        except FindingsError as exc:
            state.error(upload_name, " ".join(f.message for f in exc.findings[:5]))
            return None
        state.from_csv.add(table.key)
        state.origin[table.key] = [number for number, _row in numbered]
        rows = [row for _number, row in numbered]
        # Show the file's rows in the form, so that a correction elsewhere needs no new upload.
        if open_columns:
            state.values[f"{table.key}_paste"] = csv_tables.decode_upload(data, upload_name, _)
        elif len(rows) <= MAX_FORM_ROWS:
            _fill_rows(state, table, rows)
        return rows
    count = 0
    for key in form:
        match = re.fullmatch(rf"{re.escape(table.key)}-(\d+)-\w+", key)
        if match:
            count = max(count, int(match.group(1)) + 1)
    if count > MAX_FORM_ROWS:
        # Nothing is computed from part of the input: longer lists come as a file.
        state.error(
            table.key,
            _("The form takes at most %(n)s rows; upload a CSV file instead.", n=MAX_FORM_ROWS),
        )
        return None
    rows = []
    origin: list[int] = []
    for i in range(count):
        texts = {c.key: _text(form, cell_name(table.key, i, c.key)) for c in table.columns}
        if not any(texts.values()):
            continue
        row: dict[str, Any] = {}
        for column in table.columns:
            _scalar(column, texts[column.key], cell_name(table.key, i, column.key), state, row)
        rows.append(row)
        origin.append(i)
    state.origin[table.key] = origin
    state.rows[table.key] = max(table.min_rows, count + 2 if count else table.min_rows)
    return rows


def _fill_rows(state: FormState, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    for i, row in enumerate(rows):
        for column in table.columns:
            if column.key in row:
                state.values[cell_name(table.key, i, column.key)] = _as_text(row[column.key])
    state.rows[table.key] = max(table.min_rows, len(rows) + 2)


def read_form(
    spec: FormSpec, form: Mapping[str, str], files: Mapping[str, FileStorage]
) -> tuple[dict[str, Any], FormState]:
    """The document a filled form stands for, and the state to show it again."""
    state = FormState()
    document: dict[str, Any] = {}
    for item in spec.items():
        if isinstance(item, Input):
            _scalar(item, _text(form, item.key), item.key, state, document)
        elif isinstance(item, Group):
            group: dict[str, Any] = {}
            for sub in item.fields:
                name = group_name(item.key, sub.key)
                _scalar(sub, _text(form, name), name, state, group)
            if group:
                document[item.key] = group
        else:
            rows = _table_rows(spec, item, form, files, state)
            if rows and (spec.name, item.key) in forms.PAIR_TABLES:
                document[item.key] = {r["name"]: r["value"] for r in rows if "name" in r}
            elif rows:
                document[item.key] = rows
    return document, state


def form_from_document(spec: FormSpec, document: Mapping[str, Any]) -> FormState:
    """The form filled in with a document (to edit the input of a result)."""
    state = FormState()
    for item in spec.items():
        value = document.get(item.key)
        if isinstance(item, Input):
            if value is not None:
                state.values[item.key] = _as_text(value)
        elif isinstance(item, Group):
            if isinstance(value, Mapping):
                for sub in item.fields:
                    if sub.key in value:
                        state.values[group_name(item.key, sub.key)] = _as_text(value[sub.key])
        else:
            rows: list[Mapping[str, Any]] = []
            if isinstance(value, list):
                rows = [r for r in value if isinstance(r, Mapping)]
            elif isinstance(value, Mapping):
                rows = [{"name": k, "value": v} for k, v in value.items()]
            if (spec.name, item.key) in forms.OPEN_TABLES and rows:
                columns = list(dict.fromkeys(k for r in rows for k in r))
                lines = [",".join(columns)] + [
                    ",".join(_csv_cell(_as_text(r.get(c, ""))) for c in columns) for r in rows
                ]
                state.values[f"{item.key}_paste"] = "\n".join(lines)
            _fill_rows(state, item, rows[:MAX_FORM_ROWS])
    return state


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


_PATH = re.compile(r"^(\w+)\[(\d+)\](?:\.(\w+))?")


def place_error(spec: FormSpec, state: FormState, exc: InputError) -> None:
    """Show a calculator's error next to the field it names (or above the form)."""
    path = exc.field
    said = exc.message
    # Next to the field, the field's name the message starts with says nothing new.
    if isinstance(said, Message) and said.msgid == "%(field)s: %(reason)s":
        reason = render(dict(said.params)["reason"])
    else:
        reason = render(said)
        if path and reason.startswith(f"{path}: "):
            reason = reason[len(path) + 2 :]
    message = _("Not accepted: %(reason)s", reason=reason)
    match = _PATH.match(path)
    if match:
        table, index, column = match.group(1), int(match.group(2)), match.group(3)
        origin = state.origin.get(table, [])
        if table in state.from_csv and index < len(origin):
            state.error(
                f"{table}_csv",
                _("Row %(row)s of the file: %(reason)s", row=origin[index], reason=reason),
            )
            return
        if index < len(origin):
            name = cell_name(table, origin[index], column or "")
            if name in state.names:
                state.error(name, message)
                return
        if table in state.names:
            state.error(table, message)
            return
    dotted = path.replace(".", "-", 1) if "." in path else path
    for name in (path, dotted, path.split(".", 1)[0]):
        if name in state.names and name:
            state.error(name, message)
            return
    state.general.append(message)


# --------------------------------------------------------------------------------------
# Showing a result


def _money_ticks(amount: Decimal) -> str:
    return str(
        format_currency(amount, "USD", "¤#,##0", currency_digits=False, locale=i18n.format_locale())
    )


def build_chart(spec: FormSpec, result: Mapping[str, Any]) -> charts.Chart | None:
    """The chart of a result, when the calculator has one and the result has its data."""
    months = result.get("months")
    if spec.chart == "waterfall" and isinstance(months, list) and months:
        keys: list[str] = []
        values: dict[str, dict[str, Decimal]] = {}
        for month in months:
            allocations = month.get("allocations") if isinstance(month, Mapping) else None
            if not isinstance(allocations, Mapping):
                return None
            keys.extend(k for k in allocations if k not in keys)
            values[str(month.get("month"))] = {k: Decimal(str(v)) for k, v in allocations.items()}
        return charts.stacked_bars(
            id=f"chart-{spec.name}",
            title=_("Month by month, by recipient"),
            description=_(
                "Stacked columns: for each month, what each recipient received, in the "
                "statute's order from the bottom up."
            ),
            categories=list(values),
            series=[(k, label(k)) for k in keys],
            values=values,
            fmt=lambda a: i18n.money(a),
            tick_fmt=_money_ticks,
            total_label=_("Total"),
        )
    municipalities = result.get("municipalities")
    if spec.chart == "adjustments" and isinstance(municipalities, list) and municipalities:
        items = [
            (str(m.get("name")), Decimal(str(m.get("adjustment", "0"))))
            for m in municipalities
            if isinstance(m, Mapping)
        ]
        return charts.signed_bars(
            id=f"chart-{spec.name}",
            title=_("Hold-harmless adjustments by municipality"),
            description=_(
                "Bars right of zero: top-ups to the FY2007-08 allocation; left of zero: what "
                "was taken from the other municipalities to pay for them."
            ),
            items=items,
            fmt=lambda a: i18n.money(a),
            tick_fmt=_money_ticks,
            value_label=_("Adjustment"),
        )
    return None


def localized(value: Any) -> Any:
    """The result as a reader sees it: Spanish explanations where the result has them."""
    if isinstance(value, Mapping):
        out = {k: localized(v) for k, v in value.items()}
        if isinstance(value.get("explanation"), Message):
            out["explanation"] = i18n.localized(value["explanation"])
        elif i18n.language() == "es" and "explanation_es" in value:
            out["explanation"] = value["explanation_es"]
        return out
    if isinstance(value, list):
        return [localized(v) for v in value]
    return value


def shown_warnings(result: Mapping[str, Any]) -> list[str]:
    """The result's warnings in the reader's language (each rendered from its message)."""
    return [i18n.localized(w) for w in result.get("warnings") or []]


def result_context(
    spec: FormSpec, document: Mapping[str, Any], result: Mapping[str, Any]
) -> dict[str, Any]:
    shown = localized(result)
    return {
        "spec": spec,
        "document": document,
        "document_json": json.dumps(document, ensure_ascii=False, separators=(",", ":")),
        "result": result,
        "figures": results.summary(shown),
        "tables": results.result_tables(shown),
        "input_figures": results.summary(document),
        "input_tables": results.result_tables(document),
        "warnings": shown_warnings(result),
        "trace": list(result.get("trace") or []),
        "citations": documents.citations(result),
        "chart": build_chart(spec, result),
        "today": today(),
        "pdf": False,
    }


# --------------------------------------------------------------------------------------
# Routes


def _spec(calculator: str) -> FormSpec:
    spec = forms.FORMS.get(calculator)
    if spec is None and calculator in calculators.CALCULATORS:
        # A calculator without a form of its own: the JSON document only.
        spec = FormSpec(calculator, calculator, "", "", ())
    if spec is None:
        abort(404)
    return spec


def _document_field(state: FormState) -> dict[str, Any] | None:
    """The document pasted as JSON (for every calculator, below the form), if one was."""
    text = _text(request.form, "document_json")
    state.names.add("document_json")
    if not text:
        return None
    state.values["document_json"] = text
    try:
        document = documents.load_json(text)
    except documents.DocumentError as exc:
        if exc.line:
            message = _(
                "This is not valid JSON: %(problem)s (line %(line)s).",
                problem=exc.problem,
                line=exc.line,
            )
        else:
            message = _(
                "This document cannot be read: it nests too deeply or holds a number with "
                "too many digits."
            )
        state.error("document_json", message)
        return None
    if not isinstance(document, dict):
        state.error("document_json", _("The document must be a JSON object."))
        return None
    return document


def _form_page(spec: FormSpec, state: FormState, status: int = 200) -> Any:
    if status != 200:
        # The form comes back: each CSV it read without a problem is kept for the next try.
        for upload_name, (file_name, data) in state.uploads.items():
            if upload_name not in state.errors and len(data) <= csv_tables.MAX_CSV_BYTES:
                token = keep_upload(spec.name, upload_name, file_name, data)
                state.kept[upload_name] = (token, file_name)
    tables = {t.key for t in spec.tables()}
    error_links = [
        (name if name in tables else f"f-{name}", message) for name, message in state.errors.items()
    ]
    return (
        render_template(
            "calc/form.html",
            spec=spec,
            state=state,
            available=documents.available(spec.name),
            pasted=bool(state.values.get("document_json")),
            open_tables=forms.OPEN_TABLES,
            error_links=error_links,
        ),
        status,
    )


@bp.route("/")
@public
def index() -> Any:
    """The calculators (public)."""
    names = list(forms.FORMS) + sorted(set(calculators.CALCULATORS) - set(forms.FORMS))
    items = [
        {"spec": _spec(name), "available": documents.available(name)}
        for name in names
        if name in calculators.CALCULATORS
    ]
    return render_template("calc/index.html", items=items)


@bp.route("/parameters")
@public
def parameters() -> Any:
    """Every dated parameter with its history and citations (public; trace steps link here)."""
    from tid.rules.params import all_parameters

    return render_template("calc/parameters.html", parameters=all_parameters())


@bp.route("/<calculator>", methods=["GET", "POST"])
@public
def form(calculator: str) -> Any:
    """A calculator's form; its result once posted (public, nothing stored)."""
    spec = _spec(calculator)
    if request.method == "GET":
        return _form_page(spec, form_from_document(spec, {}))
    if request.form.get("edit"):
        document = _posted_document()
        return _form_page(spec, form_from_document(spec, document))
    if not documents.available(calculator):
        state = form_from_document(spec, {})
        state.general.append(_("This calculator is not available yet."))
        return _form_page(spec, state, 503)
    pasted_state = FormState()
    pasted = _document_field(pasted_state)
    if pasted_state.errors:
        empty = form_from_document(spec, {})
        empty.values.update(pasted_state.values)
        empty.errors.update(pasted_state.errors)
        return _form_page(spec, empty, 422)
    if pasted is not None:
        document, state = pasted, form_from_document(spec, pasted)
        state.values["document_json"] = pasted_state.values["document_json"]
        state.names.add("document_json")
    else:
        document, state = read_form(spec, request.form, request.files)
    if state.errors:
        return _form_page(spec, state, 422)
    try:
        calc_guard.check_rate()
        with calc_guard.time_budget():
            result = calculators.run(calculator, document)
    except (calc_guard.CalculationRateLimited, calc_guard.CalculationTooLong) as exc:
        # The page comes back with what was typed in, and says why and for how long.
        state.general.append(exc.description or "")
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() == "retry-after"]
        page, status = _form_page(spec, state, exc.code or 429)
        return page, status, headers
    except InputError as exc:
        if pasted is not None:
            state.error(
                "document_json",
                render(exc.message)
                if isinstance(exc.message, Message)
                else _("%(field)s: %(reason)s", field=exc.field or "—", reason=exc.message),
            )
        else:
            place_error(spec, state, exc)
        return _form_page(spec, state, 422)
    return render_template("calc/result.html", **result_context(spec, document, result))


def _posted_document() -> dict[str, Any]:
    try:
        document = documents.load_json(request.form.get("document") or "")
    except InputError:
        abort(400)
    if not isinstance(document, dict):
        abort(400)
    return document


def _run_posted(calculator: str) -> tuple[FormSpec, dict[str, Any], dict[str, Any]]:
    spec = _spec(calculator)
    if not documents.available(calculator):
        abort(404)
    document = _posted_document()
    calc_guard.check_rate()
    with calc_guard.time_budget():
        result = calculators.run(calculator, document)  # an InputError is a 422 page
    return spec, document, result


@bp.route("/<calculator>/csv", methods=["POST"])
@public
def download_csv(calculator: str) -> Any:
    """The result as CSV, computed again from the posted document (public, nothing stored)."""
    result = _run_posted(calculator)[2]
    body = "\ufeff" + result_csv(result)  # the BOM lets spreadsheets read UTF-8
    return Response(
        body,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{calculator}.csv"'},
    )


@bp.route("/<calculator>/pdf", methods=["POST"])
@public
def download_pdf(calculator: str) -> Any:
    """The result as a PDF report, computed again from the posted document (public)."""
    from tid.render.pdf import render_pdf

    spec, document, result = _run_posted(calculator)
    context = {**result_context(spec, document, result), "pdf": True}
    pdf = render_pdf("pdf/calc_report.html", **context)
    return Response(
        pdf,
        mimetype="application/pdf",
        headers={"Content-Disposition": f'attachment; filename="{calculator}.pdf"'},
    )
