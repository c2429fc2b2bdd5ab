"""The roll's yearly check (21 LPRA § 6653(3)(b), (3)(d); /readings#roll-yearly-check): the
year's changes against last year's roll, filtered, counted by kind and in pages (a
bookmarkable address), each accepted or sent back; the CSV of every change; the correction file
for the CRIM and its answers imported; the district's setting; and the verified billing
statement, signed and read back.

The association answers and signs (its own district; an administrator any); the auditor and
the municipality's clerk read the page and the statements.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, abort, render_template, request, url_for
from flask_babel import gettext as _

from tid.app_reader import reader
from tid.db import get_session
from tid.documents import roll_statement
from tid.i18n import day, language, money
from tid.ids import parse_page
from tid.rules.errors import N_, InputError
from tid.rules.periods import parse_fiscal_year
from tid.rules.roll_changes import KINDS
from tid.services.auth import access as policy
from tid.services.roll_check import answers, crim_file, gate
from tid.services.roll_check import billing_statement as statements
from tid.web import paging
from tid.web.access import deny_unless, may_write_district, me, require, visible_district
from tid.web.forms import Form
from tid.web.util import send

bp = Blueprint("roll_check", __name__, url_prefix="/roll")

READERS = policy.DISTRICT_READERS
WRITERS = policy.DISTRICT_WRITERS
MAX_CORRECTION_BYTES = 5_000_000


@bp.app_template_filter("iso_day")
def _iso_day(text: str | None) -> str:
    """A day kept as ISO text (``2027-06-01``) in the reader's language."""
    return day(date.fromisoformat(text)) if text else "—"


@bp.app_template_global("roll_change_kind")
def _roll_change_kind(kind: str) -> str:
    """The msgid of a kind of change (the template says it in the reader's language)."""
    return KINDS.get(kind, kind)


@bp.app_template_global("roll_check_waiting")
def _roll_check_waiting(district_id: int, fiscal_year: str) -> int:
    """How many changes of the year's roll wait for an answer (0 with the check off)."""
    db = get_session()
    try:
        fy = parse_fiscal_year(fiscal_year).label
    except InputError:
        return 0
    if not gate.setting(session=db, district_id=district_id).enabled:
        return 0
    return gate.open_count(session=db, district_id=district_id, fiscal_year=fy)


FIGURE_LABELS = {
    "numbers": N_("Cadastral number"),
    "owner": N_("Owner"),
    "address": N_("Physical address"),
    "assessed_value": N_("Assessed value"),
    "use_class": N_("Use"),
    "rooms": N_("Rooms"),
    "exempt": N_("Exempt"),
}


@bp.app_template_global("roll_change_figures")
def _roll_change_figures(values: dict[str, str]) -> list[tuple[str, str]]:
    """A change's figures as the page says them: (label, value), money as money."""
    said = []
    for key, value in values.items():
        if not value or key == "numbers" or key not in FIGURE_LABELS:
            continue
        if key == "assessed_value":
            value = money(Decimal(value))
        elif key == "exempt":
            value = _("yes") if value == "yes" else _("no")
        said.append((str(_(FIGURE_LABELS[key])), value))
    return said


@bp.app_template_global("roll_check_of")
def _roll_check_of(district_id: int) -> dict[str, Any]:
    """What the district's page shows of the check: its statements, newest first."""
    return {"statements": statements.of_district(session=get_session(), district_id=district_id)}


def _fy(fiscal_year: str) -> str:
    try:
        return parse_fiscal_year(fiscal_year).label
    except InputError:
        abort(404)


def _back(district_id: int, fy: str) -> str:
    """The check page, with the filters the form came from."""
    kept: dict[str, Any] = {
        k: request.args[k][:40] for k in ("kind", "status", "q", "page") if request.args.get(k)
    }
    return url_for("roll_check.check", district_id=district_id, fiscal_year=fy, **kept)


@bp.route("/<int:district_id>/check/<fiscal_year>")
@require(*READERS)
def check(district_id: int, fiscal_year: str) -> Any:
    place = visible_district(district_id)
    fy = _fy(fiscal_year)
    db = get_session()
    kind = request.args.get("kind", "")[:20]
    status = request.args.get("status", "")[:20]
    search = request.args.get("q", "")[:40]
    found = answers.check_page(
        session=db,
        district_id=district_id,
        fiscal_year=fy,
        kind=kind,
        status=status,
        search=search,
        page=parse_page(request.args.get("page", "1")),
    )
    return render_template(
        "roll_check/check.html",
        district=place,
        fiscal_year=fy,
        found=found,
        kind=kind,
        status=status,
        search=search,
        kinds=KINDS,
        statuses=answers.STATUSES,
        treatments=answers.TREATMENTS,
        figures=answers.figures,
        numbers=answers.numbers,
        setting=gate.setting(session=db, district_id=district_id),
        waiting=found.by_status.get(gate.OPEN, 0),
        signed=statements.latest(session=db, district_id=district_id, fiscal_year=fy),
        may_write=may_write_district(place),
        pager=paging.pager(
            found.info,
            "roll_check.check",
            district_id=district_id,
            fiscal_year=fy,
            kind=kind,
            status=status,
            q=search,
        ),
        signer=me().name,
    )


@bp.route("/<int:district_id>/check/<fiscal_year>/changes.csv")
@require(*READERS)
def changes_csv(district_id: int, fiscal_year: str) -> Any:
    visible_district(district_id)
    fy = _fy(fiscal_year)
    data = answers.changes_csv(
        session=get_session(),
        district_id=district_id,
        fiscal_year=fy,
        say=lambda msgid: str(_(msgid)),
    )
    return _csv(data, f"cambios-{fy}.csv")


def _csv(data: bytes, name: str) -> Response:
    return Response(
        data,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.route("/<int:district_id>/check/<fiscal_year>/changes/<int:change_id>", methods=["POST"])
@require(*WRITERS)
def answer(district_id: int, fiscal_year: str, change_id: int) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    fy = _fy(fiscal_year)
    form = Form()
    form.write(
        lambda: answers.answer(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            fiscal_year=fy,
            change_id=change_id,
            accept=request.form.get("answer") == "accept",
            reason=request.form.get("reason", "")[:2000],
            treatment=request.form.get("treatment", gate.EXCLUDE)[:20],
        )
    )
    return form.flashed(_("Answer saved."), _back(district_id, fy))


@bp.route("/<int:district_id>/check/settings", methods=["POST"])
@require(*WRITERS)
def settings(district_id: int) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    fy = _fy(request.form.get("fiscal_year", "")[:10])
    form = Form()
    form.write(
        lambda: answers.set_setting(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            enabled=request.form.get("enabled") == "on",
            threshold_percent=request.form.get("threshold", "")[:10],
        )
    )
    return form.flashed(_("The roll's check is set."), _back(district_id, fy))


@bp.route("/<int:district_id>/check/<fiscal_year>/corrections.csv")
@require(*READERS)
def correction_file(district_id: int, fiscal_year: str) -> Any:
    visible_district(district_id)
    fy = _fy(fiscal_year)
    data = crim_file.correction_file(session=get_session(), district_id=district_id, fiscal_year=fy)
    return _csv(data, f"correcciones-crim-{fy}.csv")


@bp.route("/<int:district_id>/check/<fiscal_year>/corrections", methods=["POST"])
@require(*WRITERS)
def import_corrections(district_id: int, fiscal_year: str) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    fy = _fy(fiscal_year)
    file = request.files.get("file")
    data = file.stream.read(MAX_CORRECTION_BYTES + 1) if file is not None else b""
    form = Form()
    if not data:
        form.failed(InputError("file", N_("Choose the CRIM's CSV file.")))
    elif len(data) > MAX_CORRECTION_BYTES:
        form.failed(InputError("file", N_("The file is larger than the limit for a roll.")))
    else:
        form.write(
            lambda: crim_file.import_corrections(
                session=get_session(),
                actor=me().actor,
                district_id=district_id,
                fiscal_year=fy,
                data=data,
                file_name=(file.filename if file is not None else "") or "crim.csv",
            )
        )
    return form.flashed(_("The CRIM's corrections are imported."), _back(district_id, fy))


@bp.route("/<int:district_id>/check/<fiscal_year>/statement", methods=["POST"])
@require(*WRITERS)
def sign(district_id: int, fiscal_year: str) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    fy = _fy(fiscal_year)
    form = Form()
    form.write(
        lambda: roll_statement.sign_pdf(
            get_session(),
            district=district_id,
            fiscal_year=fy,
            reader=reader(language()),
            signed_by=request.form.get("signed_by", "")[:300],
            actor=me().actor,
        )
    )
    return form.flashed(_("The verified billing statement is signed."), _back(district_id, fy))


@bp.route("/<int:district_id>/statements/<int:statement_id>.pdf")
@require(*READERS)
def statement_pdf(district_id: int, statement_id: int) -> Any:
    visible_district(district_id)
    try:
        made = roll_statement.statement_pdf(
            get_session(), district=district_id, statement_id=statement_id
        )
    except InputError:
        abort(404)
    return send(made, inline=True)
