"""The statute calculators on the web: a form per calculator, the result, CSV and PDF.

Public pages (no login): they compute what the law says from what the visitor types and
keep nothing. Each calculator's form is declared by its module (tid/rules/calculators/); it
builds the same JSON document the API and ``tid calc`` take (docs/calculators.md) and hands it to
:func:`tid.rules.calculators.run`; the result page carries
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
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, render_template, request
from flask_babel import gettext as _
from werkzeug.datastructures import FileStorage

from tid import i18n
from tid.app_reader import reader
from tid.documents import calc_reports, calc_tables, calc_text
from tid.rules import calculators
from tid.rules.calculators import inputs
from tid.rules.calculators.inputs import N_, FormSpec, Group, Table
from tid.rules.calculators.inputs import Field as Input
from tid.rules.errors import FindingsError, InputError
from tid.rules.messages import Message, render
from tid.rules.reform import reference_id
from tid.web import calc_csv, calc_guard, nav, readings
from tid.web.access import public
from tid.web.util import send, today

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


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return calc_text.template_helpers(readings.reading_address)


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
    return storage.stream.read(calc_csv.MAX_CSV_BYTES + 1)


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
    open_columns = table.open_columns
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
            numbered = calc_csv.read_csv_numbered(
                data, table, field_name=upload_name, open_columns=open_columns, _=_
            )
        except FindingsError as exc:
            state.error(upload_name, " ".join(render(f.message) for f in exc.findings[:5]))
            return None
        state.from_csv.add(table.key)
        state.origin[table.key] = [number for number, _row in numbered]
        rows = [row for _number, row in numbered]
        # Show the file's rows in the form, so that a correction elsewhere needs no new upload.
        if open_columns:
            state.values[f"{table.key}_paste"] = calc_csv.decode_upload(data, upload_name, _)
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
            if rows and item.pairs:
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
            if item.open_columns and rows:
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


def _plain_reason(path: str, said: str) -> str:
    """Why a value was refused, from a rule's message that is plain English text (not a
    :class:`~tid.rules.messages.Message`): in English as the rule wrote it, the field's path
    it starts with left out; in another language, a sentence of that language (the English
    detail would name the document's fields by their JSON names)."""
    reason = said[len(path) + 2 :] if path and said.startswith(f"{path}: ") else str(said)
    if i18n.language() == "en":
        return reason
    return str(_("this value cannot be accepted as it is written; see the field's help."))


def said_of(exc: InputError) -> str:
    """A calculator's refusal as the page says it: the field by its label, why in the
    reader's language."""
    if isinstance(exc.message, Message):
        return render(exc.message)
    field = calc_text.field_label(exc.field) if exc.field else "—"
    return str(
        _("%(field)s: %(reason)s", field=field, reason=_plain_reason(exc.field, exc.message))
    )


# What Python's JSON reader says of a broken document, in the reader's language.
_JSON_PROBLEMS = {
    "Expecting value": N_("a value was expected"),
    "Expecting property name enclosed in double quotes": N_(
        "a field's name in double quotes was expected"
    ),
    "Expecting ',' delimiter": N_("a comma was expected"),
    "Expecting ':' delimiter": N_("a colon was expected"),
    "Unterminated string starting at": N_("a text is not closed by its double quote"),
    "Invalid control character at": N_("a text holds a control character"),
    "Extra data": N_("there is more after the end of the document"),
    "Illegal trailing comma before end of object": N_("a comma stands before the closing brace"),
    "Illegal trailing comma before end of array": N_("a comma stands before the closing bracket"),
}


def json_problem(problem: str) -> str:
    """Python's JSON reader's ``problem`` in the reader's language."""
    msgid = _JSON_PROBLEMS.get(problem)
    if msgid is None:
        return str(_("the text is not written as JSON here"))
    return str(_(msgid))


def place_error(spec: FormSpec, state: FormState, exc: InputError) -> None:
    """Show a calculator's error next to the field it names (or above the form)."""
    path = exc.field
    said = exc.message
    # Next to the field, the field's name the message starts with says nothing new.
    if isinstance(said, Message) and said.msgid == "%(field)s: %(reason)s":
        reason = render(dict(said.params)["reason"])
    elif isinstance(said, Message):
        reason = render(said)
    else:
        reason = _plain_reason(path, said)
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
# Routes


def _spec(calculator: str) -> FormSpec:
    try:
        return calc_reports.spec_of(calculator)
    except InputError:
        abort(404)


def _document_field(state: FormState) -> dict[str, Any] | None:
    """The document pasted as JSON (for every calculator, below the form), if one was."""
    text = _text(request.form, "document_json")
    state.names.add("document_json")
    if not text:
        return None
    state.values["document_json"] = text
    try:
        document = calculators.load_json(text)
    except calculators.DocumentError as exc:
        if exc.line:
            message = _(
                "This is not valid JSON: %(problem)s (line %(line)s).",
                problem=json_problem(exc.problem),
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
            if upload_name not in state.errors and len(data) <= calc_csv.MAX_CSV_BYTES:
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
            available=calculators.available(spec.name),
            pasted=bool(state.values.get("document_json")),
            open_tables={(spec.name, t.key) for t in spec.tables() if t.open_columns},
            error_links=error_links,
        ),
        status,
    )


@bp.route("/")
@public
def index() -> Any:
    """The calculators (public)."""
    items = [
        {"spec": calculator.form, "available": calculators.available(name)}
        for name, calculator in calculators.CALCULATORS.items()
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
        state = form_from_document(spec, {})
        state.values["reform"] = (request.args.get("reform") or "").strip()[:300]
        return _form_page(spec, state)
    if request.form.get("edit"):
        document = _posted_document()
        return _form_page(spec, form_from_document(spec, document))
    if not calculators.available(calculator):
        state = form_from_document(spec, {})
        state.general.append(_("This calculator is not available yet."))
        return _form_page(spec, state, 503)
    try:
        with calc_guard.bounded():
            return _compute_form(spec)
    except calc_guard.Refused as exc:
        # The page comes back with what was typed in, and says why and for how long.
        state = _typed_state(spec)
        state.general.append(exc.description or "")
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() == "retry-after"]
        page, status = _form_page(spec, state, exc.code or 429)
        return page, status, headers


def _typed_state(spec: FormSpec) -> FormState:
    """The form as it was sent, to show it again after a refusal: cheap, since a refusal
    must cost the worker little (a pasted document comes back as the text it was, not read
    into the form's rows)."""
    pasted = _text(request.form, "document_json")
    if not pasted:
        return read_form(spec, request.form, request.files)[1]
    state = form_from_document(spec, {})
    state.values["document_json"] = pasted
    state.names.add("document_json")
    return state


def _compute_form(spec: FormSpec) -> Any:
    """Read the posted form (or its pasted document), compute, and answer the result page;
    all of it inside the request's bounds."""
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
    reform = _text(request.form, "reform")[:300]
    state.values["reform"] = reform
    state.names.add("reform")
    if state.errors:
        return _form_page(spec, state, 422)
    try:
        if reform:
            return _compared_page(spec, document, reform)
        result = calculators.run(spec.name, document)
    except InputError as exc:
        if exc.field == "reform" or exc.field.startswith("reform."):
            state.error("reform", render(exc.message))
        elif pasted is not None:
            state.error("document_json", said_of(exc))
        else:
            place_error(spec, state, exc)
        return _form_page(spec, state, 422)
    context = calc_text.result_context(
        spec, document, result, today=today(), most_rows=calc_guard.PAGE_ROWS
    )
    rows = calc_tables.rows_in(document, result)
    return render_template(
        "calc/result.html", **context, pdf_rows=rows, pdf_most=calc_guard.PDF_ROWS
    )


def _compared_page(spec: FormSpec, document: Mapping[str, Any], reference: str) -> Any:
    """The result under the law and under the saved reform ``reference`` (its id or its
    address), side by side, and the difference line by line (an unknown reform is an
    InputError naming ``reform``)."""
    from tid.db import get_session
    from tid.documents import reform_note
    from tid.rules import fund_compare, reform_compare
    from tid.services import reform_library

    found = reform_library.open_reform(session=get_session(), public_id=reference_id(reference))
    if found is None:
        raise InputError("reform", _("There is no saved reform at this address."))
    compared = reform_compare.compare(spec.name, document, found)
    comparison = fund_compare.side_by_side(compared["under_law"], compared["under_reform"])
    return render_template(
        "reforms/compared.html",
        spec=spec,
        compared=compared,
        changed=[d for d in compared["differences"] if d["changed"]],
        comparison=comparison,
        rows=comparison.sorted("difference", True) if comparison else [],
        chart=reform_note.difference_chart(
            comparison,
            spec.name,
            i18n.say,
            calc_text.label if comparison.kind == "recipients" else str,
        )
        if comparison
        else None,
        document_json=json.dumps(document, ensure_ascii=False, separators=(",", ":")),
        warnings=calc_text.shown_warnings(compared["under_reform"]),
        **reform_note.page_context(found),
    )


def _posted_document() -> dict[str, Any]:
    try:
        document = calculators.load_json(request.form.get("document") or "")
    except InputError:
        abort(400)
    if not isinstance(document, dict):
        abort(400)
    return document


def _download(calculator: str, kind: str) -> Any:
    """The result as a CSV or a PDF report, computed again from the posted document within
    the request's bounds; a PDF of more rows than a person reads is refused, naming the CSV
    and the command line."""
    _spec(calculator)
    if not calculators.available(calculator):
        abort(404)
    make = calc_reports.report_pdf if kind == "pdf" else calc_reports.result_csv
    with calc_guard.bounded():
        document = _posted_document()
        if kind == "pdf":
            calc_guard.refuse_long_pdf(calc_tables.rows_in(document), calculator)
        result = calculators.run(calculator, document)  # an InputError is a 422 page
        if kind == "pdf":
            calc_guard.refuse_long_pdf(calc_tables.rows_in(document, result), calculator)
        return send(
            make(
                None,
                calculator=calculator,
                input=document,
                reader=reader(i18n.language()),
                result=result,
            )
        )


@bp.route("/<calculator>/csv", methods=["POST"])
@public
def download_csv(calculator: str) -> Any:
    """The result as CSV (public, nothing stored)."""
    return _download(calculator, "csv")


@bp.route("/<calculator>/pdf", methods=["POST"])
@public
def download_pdf(calculator: str) -> Any:
    """The result as a PDF report (public, nothing stored)."""
    return _download(calculator, "pdf")
