"""Try a reform without an account: write it on the page, see a calculator under the law and
under it side by side, download its note and the comparison's CSV. Nothing is stored: the
reform and the calculator's document travel in the page's hidden fields, as a calculator's
result page carries its document, and every computation runs under the calculators' guard
(tid/web/calc_guard.py) like every anonymous one. Saving a reform (its permanent address)
stays for those signed in (tid/web/reform_pages.py ``new``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, abort, render_template, request
from flask_babel import gettext as _

from tid import i18n
from tid.app_reader import reader
from tid.db import get_session
from tid.documents import calc_reports, calc_text, reform_note
from tid.rules import calculators, fund_compare, reform_compare
from tid.rules.errors import InputError
from tid.rules.reform import Reform
from tid.services import reform_library
from tid.web import calc_guard, reform_pages
from tid.web.access import public
from tid.web.reform_examples import EXAMPLES, example_values
from tid.web.util import send

bp = Blueprint("reform_try", __name__, url_prefix="/reforms/try")


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return calc_text.template_helpers()


def _editor(values: Mapping[str, str], errors: dict[str, str], rows: int, status: int) -> Any:
    every = [
        (name, _(c.form.title))
        for name, c in calculators.CALCULATORS.items()
        if calculators.available(name)
    ]
    return render_template(
        "reforms/try.html",
        values=values,
        errors=errors,
        rows=rows,
        options=reform_pages.parameter_options(),
        calculators=every,
        examples=EXAMPLES,
    ), status


@bp.route("/", methods=["GET", "POST"])
@public
def editor() -> Any:
    """Write a reform and try it on a calculator (public, nothing stored)."""
    if request.method == "GET":
        values = example_values(request.args.get("example", ""))
        return _editor(values, {}, reform_pages.ROWS, 200)
    document, values, origin = reform_pages.read_editor(request.form)
    for key in ("calculator", "document_json"):
        values[key] = (request.form.get(key) or "").strip()
    rows = max(reform_pages.row_count(values), reform_pages.ROWS)
    if request.form.get("more"):
        return _editor(values, {}, min(reform_pages.MAX_ROWS, rows + 4), 200)
    with calc_guard.bounded():
        errors, page = _tried(document, values, origin)
    if errors:
        return _editor(values, errors, rows, 422)
    return page


def _tried(
    reform_document: dict[str, Any], values: Mapping[str, str], origin: list[int]
) -> tuple[dict[str, str], Any]:
    """The comparison page of the reform on the chosen calculator, or the errors by field."""
    calculator = values.get("calculator", "")
    if not calculators.available(calculator):
        return {"calculator": _("Choose a calculator to try the reform on.")}, None
    try:
        reform = reform_library.check_reform(session=get_session(), document=reform_document)
    except InputError as exc:
        return {reform_pages.editor_field(exc.field, origin): i18n.say(exc.message)}, None
    try:
        document = calculators.load_json(values.get("document_json") or "{}")
    except InputError:
        return {"document_json": _("The document must be a JSON object.")}, None
    if not isinstance(document, dict):
        return {"document_json": _("The document must be a JSON object.")}, None
    try:
        page = compared_page(calculator, document, reform, reform_document)
    except InputError as exc:
        from tid.web.calc import said_of

        return {"document_json": said_of(exc)}, None
    return {}, page


def compared_page(
    calculator: str,
    document: Mapping[str, Any],
    reform: Reform,
    reform_document: Mapping[str, Any],
) -> str:
    """The calculator's result under the law and the unsaved reform, side by side."""
    spec = calc_reports.spec_of(calculator)
    compared = reform_compare.compare(calculator, document, reform)
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
            calculator,
            i18n.say,
            calc_text.label if comparison.kind == "recipients" else str,
        )
        if comparison
        else None,
        document_json=json.dumps(document, ensure_ascii=False, separators=(",", ":")),
        reform_json=json.dumps(reform_document, ensure_ascii=False, separators=(",", ":")),
        warnings=calc_text.shown_warnings(compared["under_reform"]),
        **reform_note.page_context(reform),
    )


def _posted_json(name: str) -> dict[str, Any]:
    try:
        document = calculators.load_json(request.form.get(name) or "")
    except InputError:
        abort(400)
    if not isinstance(document, dict):
        abort(400)
    return document


@bp.route("/<calculator>/<kind>", methods=["POST"])
@public
def download(calculator: str, kind: str) -> Any:
    """The unsaved reform's note (PDF), or the calculator's comparison as CSV or PDF,
    computed again from the posted reform and document (public, nothing stored)."""
    if kind not in ("csv", "pdf", "note") or not calculators.available(calculator):
        abort(404)
    with calc_guard.bounded():
        reform_document = _posted_json("reform")
        try:
            reform = reform_library.check_reform(session=get_session(), document=reform_document)
        except InputError:
            abort(400)
        page_reader = reader(i18n.language())
        if kind == "note":
            return send(reform_note.reform_note_pdf(None, reader=page_reader, reform=reform))
        make = reform_note.compared_csv if kind == "csv" else reform_note.compared_pdf
        document = _posted_json("document")
        return send(
            make(
                None,
                reader=page_reader,
                reform=reform,
                calculator=calculator,
                document=document,
            )
        )
