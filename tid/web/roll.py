"""The association's property roll and yearly billing (21 LPRA § 6653(3)(b), (3)(d), (5)):
import the roll (upload → preview with every bad row → commit), browse it by fiscal year with
each property's history, run the year's billing and see its total against the ordinance's
expected amount.

An association sees and works on its own district only; an administrator on every district;
the auditor (every district) and the municipality's clerk (its districts) read only.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from markupsafe import Markup

from tid.config import upload_retention
from tid.db import get_session
from tid.i18n import money, number, say
from tid.ids import parse_page
from tid.jobs import tasks
from tid.models import BillingRun, District, JobState, Ordinance
from tid.rules.errors import N_, Finding, InputError
from tid.rules.periods import fiscal_year_of, parse_date, parse_fiscal_year
from tid.rules.vocab.roll_columns import MONEY, QUANTITY, RollColumn
from tid.services import billing, roll
from tid.services.auth import access as policy
from tid.services.billing import billing_reads
from tid.services.petitions import parameters_text
from tid.services.roll import columns as roll_columns
from tid.services.roll_check import changes as roll_changes
from tid.web import jobs, nav, paging
from tid.web.access import deny_unless, may_write_district, me, require, visible_district
from tid.web.account.kept import kept_content, kept_figures
from tid.web.forms import Form
from tid.web.util import today

bp = Blueprint("roll", __name__, url_prefix="/roll")


@bp.context_processor
def _words() -> dict[str, Any]:
    """The roll's columns and encodings by their labels (tid/rules/vocab/roll_columns.py,
    tid/services/roll/columns.py), and a property's figures, each printed by its type."""
    return {
        "roll_column": roll.column_label,
        "roll_encoding": roll.encoding_label,
        "roll_figures": roll.figure_columns,
        "roll_cell": _figure,
    }


def _figure(year: Any, column: RollColumn) -> Any:
    """A figure of a roll's line: money, a number, or as written (— when missing)."""
    value = getattr(year, column.code)
    if column.kind == MONEY:
        return money(value)
    if column.kind == QUANTITY:
        return number(value)
    return "—" if value is None else value


READERS = policy.DISTRICT_READERS
WRITERS = policy.DISTRICT_WRITERS

nav.add(
    "roll.districts",
    N_("Property roll and billing"),
    N_("The district's properties and owners per fiscal year, and the yearly bills."),
    READERS,
)

# Messages of the roll's findings and warnings, so that the catalog keeps them.
_MESSAGES = (
    N_("This column has no usable name."),
    N_("This column's name cannot be used by a formula; rename it."),
    N_("This column repeats the column %(other)s."),
    N_("This line cannot be read as CSV (a stray quote?)."),
    N_("This cadastral number is already on row %(first_row)s of the file."),
    N_("The file has a header but no rows."),
    N_("This row has more cells than the header has columns."),
    N_("This text is longer than %(limit)s characters."),
    N_("The cadastral number is missing."),
    N_("A cadastral number is written NNN-NNN-NNN-NN, optionally with -NNN."),
    N_("The owner is missing."),
    N_("The owner's mailing address is missing: the certified-mail notice needs it."),
    N_("The ZIP code of the mailing address is missing."),
    N_("A ZIP code is written 00901 or 00901-1234."),
    N_("A state is written with its two letters, like PR."),
    N_("The assessed value is missing."),
    N_("An amount of money has at most two decimals."),
    N_("The number of rooms is a whole number."),
    N_(
        "This cell starts with %(char)s, which a spreadsheet would run as a formula; "
        "the roll refuses it. Remove the sign or put the text in other words."
    ),
    N_("This is not a number."),
    N_("A negative value is not allowed here."),
    N_("This number has more than four decimals."),
    N_("This number is too large."),
)


# --------------------------------------------------------------------------- helpers


def _uploads() -> Path:
    return Path(current_app.instance_path) / "uploads"


def _limits() -> dict[str, int]:
    return {
        "max_bytes": int(current_app.config.get("ROLL_MAX_BYTES") or roll.DEFAULT_MAX_BYTES),
        "max_rows": int(current_app.config.get("ROLL_MAX_ROWS") or roll.DEFAULT_MAX_ROWS),
    }


def finding_message(finding: Finding) -> str:
    """A finding in the user's language."""
    msgid = finding.extra.get("msgid") if finding.extra else None
    if not msgid:
        return str(say(finding.message))
    params = finding.extra.get("params") or {}
    return str(_(msgid, **params) if params else _(msgid))


def _error_text(exc: InputError) -> str:
    return str(say(exc.message))


def _current_fy() -> str:
    return fiscal_year_of(today()).label


# --------------------------------------------------------------------------- reading


@bp.route("")
@require(*READERS)
def districts() -> Any:
    rows = billing_reads.district_rows(session=get_session(), person=me())
    return render_template("roll/districts.html", rows=rows)


@bp.route("/<int:district_id>")
@require(*READERS)
def district(district_id: int) -> Any:
    place = visible_district(district_id)
    db = get_session()

    def read() -> dict[str, Any]:
        return {
            "years": roll.fiscal_years(session=db, district_id=district_id),
            "imports": roll.imports(session=db, district_id=district_id)[:20],
            "runs": billing.runs(session=db, district_id=district_id),
            "ordinances": billing_reads.ordinances(session=db, district_id=district_id),
        }

    return render_template(
        "roll/district.html",
        district=place,
        **kept_figures(district_id=district_id, key=(), make=read),
        may_write=may_write_district(place),
    )


@bp.route("/<int:district_id>/years/<fiscal_year>")
@require(*READERS)
def properties(district_id: int, fiscal_year: str) -> Any:
    place = visible_district(district_id)
    try:
        fy = parse_fiscal_year(fiscal_year).label
    except InputError:
        abort(404)
    search = request.args.get("q", "")[:100]
    page = request.args.get("page", "1")
    page_number = parse_page(page)

    def make() -> Markup:
        result = roll.roll_page(
            session=get_session(),
            district_id=district_id,
            fiscal_year=fy,
            search=search,
            page=page_number,
        )
        return Markup(
            render_template(
                "roll/_properties_body.html",
                district=place,
                fiscal_year=fy,
                result=result,
                search=search,
                pager=paging.pager(
                    result, "roll.properties", district_id=district_id, fiscal_year=fy, q=search
                ),
            )
        )

    body = kept_content(district_id=district_id, key=(fy, search, page_number), make=make)
    return render_template("roll/properties.html", district=place, fiscal_year=fy, body=body)


@bp.route("/<int:district_id>/properties/<int:property_id>")
@require(*READERS)
def property_detail(district_id: int, property_id: int) -> Any:
    place = visible_district(district_id)
    db = get_session()
    parcel = roll.parcel(session=db, district_id=district_id, property_id=property_id)
    if parcel is None:
        abort(404)
    history = roll.property_history(session=db, property_id=property_id)
    return render_template(
        "roll/property.html",
        district=place,
        parcel=parcel,
        history=[(y, roll.decimal_attributes(y.attributes)) for y in history],
        bills=billing.bills_of_property(session=db, property_id=property_id),
    )


# --------------------------------------------------------------------------- import


@bp.route("/<int:district_id>/import", methods=["GET", "POST"])
@require(*WRITERS)
def upload(district_id: int) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    errors: dict[str, str] = {}
    values = {"fiscal_year": request.form.get("fiscal_year", _current_fy())}
    kept: tuple[str, str] | None = None  # (token, file name) of a file kept after an error
    if request.method == "POST":
        file = request.files.get("file")
        try:
            fy = parse_fiscal_year(values["fiscal_year"]).label
        except InputError:
            errors["fiscal_year"] = _('Write the fiscal year like "2026-27".')
            fy = ""
        data = b""
        file_name = ""
        kept_token = request.form.get("kept", "")
        if (file is None or not file.filename) and kept_token and request.form.get("keep"):
            # The file sent with a form that came back with an error, kept on the server.
            try:
                data, meta = roll.load_upload(_uploads(), kept_token, user_id=me().id)
                file_name = str(meta.get("file_name") or "roll.csv")
                if meta.get("district_id") != district_id:
                    raise InputError("file", "")
            except InputError:
                errors["file"] = _(
                    "The file kept from the last try is no longer here; choose the file again."
                )
        elif file is None or not file.filename:
            errors["file"] = _("Choose the roll's CSV file.")
        else:
            file_name = file.filename
            limit = _limits()["max_bytes"]
            data = file.stream.read(limit + 1)  # never more than the limit + 1 byte
            if len(data) > limit:
                errors["file"] = _(
                    "The file is larger than the limit for a roll; split it or ask the "
                    "administrator."
                )
            elif not data:
                errors["file"] = _("The file is empty.")
        if data and "file" not in errors:
            roll.purge_uploads(_uploads(), older_than=upload_retention(current_app.config))
            token = roll.store_upload(
                _uploads(),
                data,
                meta={
                    "district_id": district_id,
                    "fiscal_year": fy,
                    "file_name": file_name or "roll.csv",
                    "user_id": me().id,
                },
                max_bytes=_limits()["max_bytes"],
            )
            if not errors:
                if len(data) > IN_REQUEST_BYTES:
                    job = _start_check(district_id, token)
                    return redirect(
                        url_for("roll.preview", district_id=district_id, token=token, job=job.id)
                    )
                return redirect(url_for("roll.preview", district_id=district_id, token=token))
            kept = (token, file_name or "roll.csv")  # the file survives the error
    return render_template(
        "roll/upload.html",
        district=place,
        errors=errors,
        values=values,
        limits=_limits(),
        kept=kept,
    ), (422 if errors else 200)


# A file larger than this (some 1,500 rows) is checked by a worker, not in the request: the
# preview of a roll of 20,000 properties takes seconds.
IN_REQUEST_BYTES = 256 * 1024


def _check_target(district_id: int, token: str) -> str:
    return f"roll-check:{district_id}:{token[:16]}"


def _start_check(district_id: int, token: str) -> Any:
    return jobs.start(
        tasks.ROLL_CHECK,
        params={"district_id": district_id, "token": token},
        district_id=district_id,
        target=_check_target(district_id, token),
    )


@bp.route("/<int:district_id>/import/<token>/check", methods=["POST"])
@require(*WRITERS)
def check(district_id: int, token: str) -> Any:
    """Check a large upload again (its check was lost, or the roll changed since)."""
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    _stored(district_id, token)
    job = _start_check(district_id, token)
    return redirect(url_for("roll.preview", district_id=district_id, token=token, job=job.id))


def _load(district_id: int, token: str) -> tuple[bytes, dict[str, Any]] | None:
    """The upload kept under ``token`` for this district (None: gone, or not this one)."""
    roll.purge_uploads(_uploads(), older_than=upload_retention(current_app.config))
    try:
        data, meta = roll.load_upload(_uploads(), token, user_id=me().id)
    except InputError:
        return None
    if meta.get("district_id") != district_id:
        return None
    return data, meta


def _stored(district_id: int, token: str) -> tuple[bytes, dict[str, Any]]:
    stored = _load(district_id, token)
    if stored is None:
        abort(404)
    return stored


def _choose_another(place: Any, meta: dict[str, Any], exc: InputError, missing: Any) -> Any:
    """The upload form again, naming the columns the file lacks, to choose another file."""
    return render_template(
        "roll/upload.html",
        district=place,
        errors={"file": _error_text(exc)},
        values={"fiscal_year": str(meta.get("fiscal_year", ""))},
        limits=_limits(),
        kept=None,
        missing=missing,
    ), 422


@bp.route("/<int:district_id>/import/<token>")
@require(*WRITERS)
def preview(district_id: int, token: str) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    job = jobs.shown(f"roll:{district_id}:{token[:16]}", tasks.ROLL_COMMIT)
    stored = None if job is not None and job.state == JobState.DONE else _load(district_id, token)
    if job is not None and stored is None:
        # Imported, or being imported: the worker deletes the upload once the roll is in,
        # a moment before the job is marked done, so a page that refreshes in between finds
        # no file. The page shows the job (its progress, then its outcome and the link to
        # the year's roll), never "not found".
        meta = jobs.named_upload(job)
        return render_template(
            "roll/preview.html",
            district=place,
            token=token,
            meta=meta,
            result=None,
            file_error=None,
            job=job,
        )
    if stored is None:
        abort(404)
    data, meta = stored
    kept = roll.load_preview(_uploads(), token, user_id=me().id, key=tasks.preview_key(current_app))
    check_job = jobs.shown(_check_target(district_id, token), tasks.ROLL_CHECK)
    if kept is None and len(data) > IN_REQUEST_BYTES:
        # A large file: its check runs in a worker; this page follows it, then shows it.
        return render_template(
            "roll/preview.html",
            district=place,
            token=token,
            meta=meta,
            result=None,
            file_error=None,
            job=check_job,
            checking=True,
        )
    try:
        result = kept or roll_changes.with_changes(
            session=get_session(),
            preview=roll.preview_roll(
                session=get_session(),
                district_id=district_id,
                fiscal_year=str(meta["fiscal_year"]),
                data=data,
                file_name=str(meta.get("file_name", "")),
                **_limits(),
            ),
        )
    except InputError as exc:
        missing = roll_columns.missing_columns(exc.field)
        if missing:  # a file without the required columns: the form again, to choose another
            return _choose_another(place, meta, exc, missing)
        return render_template(
            "roll/preview.html",
            district=place,
            token=token,
            meta=meta,
            result=None,
            file_error=_error_text(exc),
            field=exc.field,
            job=job,
        ), 422
    return render_template(
        "roll/preview.html",
        district=place,
        token=token,
        meta=meta,
        result=result,
        findings=[(f, finding_message(f)) for f in result.parsed.findings],
        file_error=None,
        job=job,
    ), (422 if result.parsed.findings else 200)


@bp.route("/<int:district_id>/import/<token>/commit", methods=["POST"])
@require(*WRITERS)
def commit(district_id: int, token: str) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    roll.purge_uploads(_uploads(), older_than=upload_retention(current_app.config))
    if roll.UPLOAD_TOKEN.match(token) and not (_uploads() / f"{token}.{me().id}.json").exists():
        # Imported already (its file was then deleted) or kept past the retention period.
        flash(_("This upload was imported or has expired; upload the file again."), "warning")
        return redirect(url_for("roll.district", district_id=district_id))
    _data, meta = _stored(district_id, token)
    # A roll of 20,000 properties takes longer than a request should: a worker imports it
    # (tid/jobs/tasks.py), all or nothing, and this page shows how it goes. The job keeps the
    # file's name and year: its page names them once the upload is gone.
    job = jobs.start(
        tasks.ROLL_COMMIT,
        params={
            "district_id": district_id,
            "token": token,
            "file_name": str(meta.get("file_name", "")),
            "fiscal_year": str(meta.get("fiscal_year", "")),
        },
        district_id=district_id,
        target=f"roll:{district_id}:{token[:16]}",
    )
    return redirect(url_for("roll.preview", district_id=district_id, token=token, job=job.id))


# --------------------------------------------------------------------------- billing


def _billing_checks(
    form: Form, district_id: int, values: dict[str, str]
) -> tuple[str | None, date | None]:
    """The billing form's fields checked into ``form``, each error beside its field: the
    year's roll and ordinance, the formula against the roll's columns and the parameters
    given, and the due date — all known now, so refused here rather than by the job."""
    db = get_session()
    due = form.read(
        lambda: parse_date(values["due_date"], "due_date") if values["due_date"] else None
    )
    fy = form.read(lambda: parse_fiscal_year(values["fiscal_year"], "fiscal_year").label)
    given = form.read(lambda: billing.parse_parameters(values["parameters"]))
    checked = (
        form.read(
            lambda: billing.check_run(
                session=db,
                district_id=district_id,
                fiscal_year=fy,
                parameters=values["parameters"] if given is not None else None,
                formula=given is not None,
            )
        )
        if fy is not None
        else None
    )
    if (
        due is not None
        and checked is not None
        and due < billing.earliest_due_date(today(), checked).date
    ):
        form.errors.setdefault(
            "due_date",
            _(
                "The due date is too early: it must leave the 30 days of the "
                "certified-mail notice (21 LPRA § 6653(5))."
            ),
        )
    return fy, due


@bp.route("/<int:district_id>/billing/new", methods=["GET", "POST"])
@require(*WRITERS)
def billing_new(district_id: int) -> Any:
    place = visible_district(district_id)
    deny_unless(may_write_district(place))
    db = get_session()
    years = roll.fiscal_years(session=db, district_id=district_id)
    default_fy = years[0][0] if years else _current_fy()
    fields = ("fiscal_year", "due_date", "parameters", "reason")
    values = {name: request.form.get(name, "") for name in fields}
    if request.method == "GET":
        values["fiscal_year"] = request.args.get("fiscal_year", default_fy)[:10]
    errors: dict[str, str] = {}
    ordinance: Ordinance | None = None
    try:
        ordinance = billing.ordinance_for(
            session=db, district_id=district_id, fiscal_year=values["fiscal_year"] or default_fy
        )
    except InputError:
        ordinance = None
    target = f"billing:{district_id}"
    if request.method == "POST":
        # The quick checks here, next to their fields, all at once; the run itself (every
        # property of the roll) in a worker (tid/jobs/tasks.py), which checks everything again.
        def beside(exc: InputError) -> dict[str, str]:
            field = exc.field.split(".")[0].split("[")[0]
            return {field if field in fields else "formula": _error_text(exc)}

        form = Form(words=beside)
        fy, due = _billing_checks(form, district_id, values)
        errors = form.errors
        if not errors:
            job = jobs.start(
                tasks.BILLING_RUN,
                params={
                    "district_id": district_id,
                    "fiscal_year": fy or "",
                    "run_on": today().isoformat(),
                    "due_date": due.isoformat() if due else "",
                    "parameters": values["parameters"],
                    "reason": values["reason"],
                },
                district_id=district_id,
                target=target,
            )
            return redirect(url_for("roll.billing_new", district_id=district_id, job=job.id))
    return render_template(
        "billing/new.html",
        district=place,
        values=values,
        errors=errors,
        years=years,
        ordinance=ordinance,
        ordinance_parameters=parameters_text(ordinance.parameters) if ordinance else "",
        default_due=billing.default_due_date(today(), ordinance) if ordinance else None,
        earliest_due=billing.earliest_due_date(today(), ordinance) if ordinance else None,
        default_days=billing.DEFAULT_DUE_DAYS,
        job=jobs.shown(target, tasks.BILLING_RUN),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/billing/<int:run_id>")
@require(*READERS)
def billing_run(district_id: int, run_id: int) -> Any:
    place = visible_district(district_id)
    db = get_session()
    search = request.args.get("q", "")[:100]
    page = parse_page(request.args.get("page", "1"))

    def make() -> tuple[BillingRun, Markup] | None:
        lineage = billing_reads.run_lineage(session=db, district_id=district_id, run_id=run_id)
        if lineage is None:
            return None
        return lineage.run, _run_body(place, lineage, search, page)

    found = kept_figures(district_id=district_id, key=(run_id, search, page), make=make)
    if found is None:
        abort(404)
    run, body = found
    return render_template("billing/run.html", district=place, run=run, body=body)


def _run_body(place: District, lineage: Any, search: str, page: int) -> Markup:
    """A billing run's page: its figures, lineage and a page of its bills (no form)."""
    db = get_session()
    run = lineage.run
    bills = billing.bills_page(session=db, run_id=run.id or 0, search=search, page=page)
    return Markup(
        render_template(
            "billing/_run_body.html",
            district=place,
            run=run,
            ordinance=lineage.ordinance,
            difference=lineage.difference,
            parameters=lineage.parameters,
            warnings=lineage.warnings,
            previous=lineage.previous,
            superseded_by=lineage.superseded_by,
            corrections=billing.corrected_notices_needed(session=db, run=run),
            bills=bills,
            search=search,
            pager=paging.pager(
                bills, "roll.billing_run", district_id=place.id, run_id=run.id, q=search
            ),
            may_correct=may_write_district(place) and lineage.correctable,
            stale=run.status == "active"
            and lineage.ordinance is not None
            and billing.applies_other_terms(run, lineage.ordinance),
            imports_of_year=lineage.roll_imports,
        )
    )
