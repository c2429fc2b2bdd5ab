"""Reforms on the web: write one (signed in), open a saved one at its permanent address
(public: it is policy text, with nothing of who wrote it), print its reform note, try it on
any calculator, and see the Equalization Fund municipality by municipality under it."""

from __future__ import annotations

import json
import pickle
import re
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from markupsafe import Markup

from tid import i18n
from tid.app_reader import reader
from tid.db import get_session
from tid.documents import calc_reports, calc_text, reform_note
from tid.render import charts
from tid.rules import calculators, fund_compare, fund_example, params
from tid.rules.calculators.inputs import N_
from tid.rules.errors import InputError
from tid.rules.reform import Reform, reference_id
from tid.services import reform_library
from tid.web import calc_guard, nav, reform_cache
from tid.web.access import ALL_ROLES, public, require
from tid.web.forms import Form
from tid.web.public_fragments import Fragment
from tid.web.reform_examples import EXAMPLES
from tid.web.util import send, today

bp = Blueprint("reforms", __name__, url_prefix="/reforms")

nav.add(
    "reforms.index",
    N_("Reforms"),
    N_(
        "Try a change of the law's rates, shares and caps before the vote: every calculator "
        "and the Equalization Fund municipality by municipality, under the law and the reform."
    ),
    None,
)

# How many change rows the editor shows at first, and at most.
ROWS = 6
MAX_ROWS = 40


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return calc_text.template_helpers()


def _reform_or_404(reform_id: str) -> Reform:
    try:
        found = reform_library.open_reform(session=get_session(), public_id=reform_id)
    except InputError:
        found = None
    if found is None:
        abort(404)
    return found


# --------------------------------------------------------------------------------------
# The list and the editor


@bp.route("/")
@public
def index() -> Any:
    """What a reform is (public), and to those signed in the reforms saved last: a saved
    reform opens to anyone with its address, but the list of them is not published."""
    recent = (
        reform_library.recent_reforms(session=get_session())
        if current_user.is_authenticated
        else []
    )
    return render_template("reforms/index.html", recent=recent, reform_examples=EXAMPLES)


# The parameter files' areas, as the editor groups the parameters.
AREAS = {
    "room_tax": N_("Room occupancy tax"),
    "distribution": N_("Room tax distribution"),
    "excise": N_("Excise allocations"),
    "equalization": N_("Municipal Equalization Fund"),
    "district": N_("Districts"),
}


def parameter_options() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every parameter by area: (the area's label, [(name, description)])."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for p in params.all_parameters():
        area = p["name"].split(".", 1)[0]
        groups.setdefault(area, []).append((p["name"], calc_text.translated(p["description"])))
    return [(_(AREAS.get(area, area)), options) for area, options in groups.items()]


def read_editor(form: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str], list[int]]:
    """The reform document the editor's fields stand for, the values typed, and for each
    change the form row it came from."""
    values = {k: (form.get(k) or "").strip() for k in form if k != "csrf_token"}
    document: dict[str, Any] = {
        "title": values.get("title", ""),
        "description": values.get("description", ""),
        "changes": [],
    }
    if values.get("base"):
        document["base"] = reference_id(values["base"])
    origin: list[int] = []
    rows = row_count(values)
    for i in range(rows):
        parameter = values.get(f"change-{i}-parameter", "")
        start = values.get(f"change-{i}-from", "")
        value = values.get(f"change-{i}-value", "")
        if not (parameter or start or value):
            continue
        document["changes"].append({"parameter": parameter, "from": start, "value": value})
        origin.append(i)
    return document, values, origin


def row_count(values: Mapping[str, str]) -> int:
    found = [int(m.group(1)) for k in values if (m := re.fullmatch(r"change-(\d+)-\w+", k))]
    return min(MAX_ROWS, max([ROWS - 1, *found]) + 1)


def editor_field(path: str, origin: list[int]) -> str:
    """The editor's field for an error's path (``reform.changes[2].value``)."""
    match = re.fullmatch(r"reform\.changes\[(\d+)\]\.(parameter|from|value)", path)
    if match and int(match.group(1)) < len(origin):
        return f"change-{origin[int(match.group(1))]}-{match.group(2)}"
    match = re.fullmatch(r"reform\.changes\[(\d+)\].*", path)
    if match and int(match.group(1)) < len(origin):
        return f"change-{origin[int(match.group(1))]}-parameter"
    if path.startswith("reform.base"):
        return "base"
    if path in ("reform.title", "reform.description"):
        return path.split(".")[1]
    return "changes"


@bp.route("/new", methods=["GET", "POST"])
@require(*ALL_ROLES)
def new() -> Any:
    """Write a reform (it may start from a saved one) and save it at its own address."""
    form = Form()
    values: dict[str, str] = {}
    rows = ROWS
    if request.method == "GET":
        base = request.args.get("base", "")
        if base:
            values["base"] = reference_id(base)
        parameter = request.args.get("parameter", "")
        if parameter:
            values["change-0-parameter"] = parameter
    else:
        document, values, origin = read_editor(request.form)
        rows = max(row_count(values), ROWS)
        if request.form.get("more"):
            rows = min(MAX_ROWS, rows + 4)
        else:
            saved = form.write(
                lambda: reform_library.save_reform(session=get_session(), document=document)
            )
            if saved is not None and not form.errors:
                flash(_("The reform is saved. Anyone with its address can open it."))
                return redirect(url_for("reforms.show", reform_id=saved.public_id))
            if form.refused is not None:
                form.errors = {
                    editor_field(form.refused.field, origin): i18n.say(form.refused.message)
                }
    starts_from = _base_of(values.get("base", ""))
    return render_template(
        "reforms/new.html",
        form=form,
        values=values,
        rows=rows,
        options=parameter_options(),
        base=reform_note.page_context(starts_from) if starts_from is not None else None,
    ), (422 if form.errors else 200)


def _base_of(reference: str) -> Reform | None:
    """The saved reform the editor starts from, to show what it already changes (None: none
    given, or none saved there; saving says so next to the field)."""
    if not reference:
        return None
    try:
        return reform_library.open_reform(session=get_session(), public_id=reference)
    except InputError:
        return None


# --------------------------------------------------------------------------------------
# A saved reform: its page, its note, its API document


def _known_or_404(reform_id: str) -> None:
    """A reform saved at ``reform_id`` (one read, nothing computed), else 404."""
    if reform_library.saved_reform(session=get_session(), public_id=reform_id) is None:
        abort(404)


@bp.route("/<reform_id>")
@public
def show(reform_id: str) -> Any:
    """A saved reform: what it changes, from when, and where to try it (public). Its content
    is made once per language in each worker, within the calculators' bounds, then kept."""
    key = ("page", reform_id, i18n.language())
    fragment = reform_cache.found(key)
    if fragment is None:
        _known_or_404(reform_id)
        with calc_guard.bounded():
            reform = _reform_or_404(reform_id)
            body = Markup(
                render_template("reforms/_show_body.html", **reform_note.page_context(reform))
            )
        fragment = Fragment(reform.title, body, {"ident": reform.ident or reform_id})
        reform_cache.keep(key, fragment, len(body.encode()))
    return render_template("reforms/show.html", fragment=fragment)


@bp.route("/<reform_id>/note.pdf")
@public
def note(reform_id: str) -> Any:
    """The reform note (PDF/A): the whole reform first, then the details (public). Laid out
    once per language and day in each worker, within the calculators' bounds, then kept."""
    key = ("note", reform_id, i18n.language(), today())
    document = reform_cache.found(key)
    if document is None:
        _known_or_404(reform_id)
        with calc_guard.bounded():
            _reform_or_404(reform_id)
            document = reform_note.reform_note_pdf(
                get_session(), reader=reader(i18n.language()), reform=reform_id
            )
        reform_cache.keep(key, document, len(document.data))
    return send(document)


# --------------------------------------------------------------------------------------
# The Equalization Fund municipality by municipality


def _fund_document(reform_id: str) -> tuple[dict[str, Any], dict[str, str], bool]:
    """The fund's inputs: posted (a form with a CSV of the municipalities, or the document
    of a page being sorted or downloaded), or the invented example figures."""
    if request.method != "POST":
        return fund_example.document(), {}, True
    posted = request.form.get("document")
    if posted:
        try:
            document = calculators.load_json(posted)
        except InputError:
            abort(400)
        if not isinstance(document, dict):
            abort(400)
        return document, {}, request.form.get("example") == "1"
    from tid.web.calc import read_form  # the calculator's own form reader and CSV checks

    spec = calc_reports.spec_of("equalization")
    document, state = read_form(spec, request.form, request.files)
    if not state.errors and "municipalities" not in document:
        state.errors["municipalities_csv"] = _(
            "Upload the CSV of the municipalities (name, base, allocation_2007_08, income_2007_08)."
        )
    return document, dict(state.errors), False


@bp.route("/<reform_id>/fund", methods=["GET", "POST"])
@public
def fund(reform_id: str) -> Any:
    """Every municipality's share of the Equalization Fund under the law and under the
    reform, side by side; sortable, with the winners and losers counted (public)."""
    _known_or_404(reform_id)
    with calc_guard.bounded():
        reform = _reform_or_404(reform_id)
        document, errors, example = _fund_document(reform_id)
        context = _fund_context(reform, document, errors, example)
        kind = request.values.get("format", "")
        if kind in ("csv", "pdf") and context.get("comparison") is not None:
            return send(_fund_download(reform, kind, document, example, context["scale"]))
        status = 422 if context["errors"] else 200
        return render_template("reforms/fund.html", **context), status


def _invented(reform: Reform, document: Mapping[str, Any]) -> bool:
    """Whether the fund is asked for on the invented example figures, the same for every
    reader: what is computed from them for a saved reform is kept."""
    return reform.ident is not None and document == fund_example.document()


def _fund_download(
    reform: Reform, kind: str, document: dict[str, Any], example: bool, scale: bool
) -> Any:
    """The fund's CSV or PDF; on the example figures, made once per language (and day, for
    the PDF) in each worker and kept."""
    make = reform_note.fund_csv if kind == "csv" else reform_note.fund_pdf
    key = ("fund." + kind, reform.ident, i18n.language(), scale, today() if kind == "pdf" else None)
    kept = reform_cache.found(key) if _invented(reform, document) else None
    if kept is not None:
        return kept
    made = make(
        None,
        reader=reader(i18n.language()),
        reform=reform,
        document=document,
        example=example,
        scale=scale,
    )
    if _invented(reform, document):
        reform_cache.keep(key, made, len(made.data))
    return made


def _fund_compared(
    reform: Reform, document: dict[str, Any], scale: bool
) -> tuple[dict[str, Any], fund_compare.Comparison | None]:
    """The fund under the law and the reform; on the example figures, computed once per
    reform and scale in each worker and kept (it is the same in every language)."""
    if not _invented(reform, document):
        return reform_note.fund_comparison(reform, document, scale)
    key = ("fund", reform.ident, scale)
    kept = reform_cache.found(key)
    if kept is None:
        kept = reform_note.fund_comparison(reform, document, scale)
        reform_cache.keep(key, kept, len(pickle.dumps(kept)))
    return kept


def _fund_context(
    reform: Reform, document: dict[str, Any], errors: dict[str, str], example: bool
) -> dict[str, Any]:
    sort, _dash, order = (request.values.get("by") or "difference-desc").partition("-")
    descending = order != "asc"
    scale = (request.values.get("rescale") or request.values.get("scale", "1")) != "0"
    context: dict[str, Any] = {
        **reform_note.page_context(reform),
        "document": document,
        "document_json": json.dumps(document, ensure_ascii=False, separators=(",", ":")),
        "errors": errors,
        "example": example,
        "sort": sort,
        "descending": descending,
        "comparison": None,
        "scale": scale,
        "values": {k: v for k, v in request.form.items() if k not in ("csrf_token", "document")},
    }
    if errors:
        return context
    try:
        compared, comparison = _fund_compared(reform, document, scale)
    except InputError as exc:
        context["errors"] = {"municipalities_csv": i18n.say(exc.message)}
        return context
    context.update(
        compared=compared,
        lines_by_field={d["field"]: d for d in compared["differences"]},
        comparison=comparison,
        rows=comparison.sorted(sort, descending) if comparison else [],
        chart=difference_chart(comparison, "fund") if comparison else None,
        warnings=calc_text.shown_warnings(compared["under_reform"]),
    )
    return context


def difference_chart(comparison: fund_compare.Comparison, name: str) -> charts.Chart | None:
    """The differences, one bar each, in the reader's language."""
    return reform_note.difference_chart(comparison, name, i18n.say)


@bp.route("/<reform_id>/calc/<calculator>/<kind>", methods=["POST"])
@public
def compared_download(reform_id: str, calculator: str, kind: str) -> Any:
    """A calculator's result under the law and the reform, as CSV or PDF, computed again
    from the posted document (public, nothing stored)."""
    if kind not in ("csv", "pdf") or not calculators.available(calculator):
        abort(404)
    _known_or_404(reform_id)
    make = reform_note.compared_csv if kind == "csv" else reform_note.compared_pdf
    with calc_guard.bounded():
        reform = _reform_or_404(reform_id)
        try:
            document = calculators.load_json(request.form.get("document") or "")
        except InputError:
            abort(400)
        if not isinstance(document, dict):
            abort(400)
        return send(
            make(
                None,
                reader=reader(i18n.language()),
                reform=reform,
                calculator=calculator,
                document=document,
            )
        )
