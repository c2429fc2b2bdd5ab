"""The formula studio of a petition (21 LPRA § 6653(3)(b), (d)): the clerk, or the association
of the district the petition is about, tries proposed formulas on a district's roll it may
see, or on a roll file uploaded for the study, sees each one's total against the expected
amount, its split by class and value, its largest payers and who pays more or less against
the formula in force; the clerk saves the study (its report archived) with the petition."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _

from tid.app_reader import reader
from tid.config import upload_retention
from tid.db import get_session
from tid.documents import CSV, PDF, Document
from tid.documents import studio_reports as study_documents
from tid.i18n import language, money, say
from tid.jobs import tasks
from tid.models import FormulaStudy, Petition
from tid.rules.errors import InputError
from tid.rules.money import from_cents
from tid.services import petitions as petition_service
from tid.services import places, studio
from tid.services import roll as roll_files
from tid.services.auth import access as policy
from tid.web import jobs
from tid.web.access import deny_unless, me, require
from tid.web.forms import Form
from tid.web.util import send

bp = Blueprint("studio", __name__, url_prefix="/petitions")

READERS = policy.STUDIO_READERS
WRITERS = policy.PETITION_WRITERS
FIELDS = ("source", "expected_amount", "baseline", "title", "file_token", "file_name")


def _uploads() -> Path:
    return Path(current_app.instance_path) / "uploads" / "studies"


def _petition_or_404(petition_id: int) -> Petition:
    petition = petition_service.petition(session=get_session(), petition_id=petition_id)
    if petition is None:
        abort(404)
    deny_unless(studio.may_study(session=get_session(), person=me(), petition=petition))
    return petition


def _study_or_404(study_id: int) -> tuple[FormulaStudy, Petition]:
    session = get_session()
    study = studio.saved_study(session=session, study_id=study_id)
    if study is None:
        abort(404)
    petition = _petition_or_404(study.petition_id)
    deny_unless(studio.may_open_study(session=session, person=me(), petition=petition, study=study))
    return study, petition


def _back(petition: Petition) -> str:
    """Where the page's first link goes: the petition's studies, or (for the association,
    which does not read the legislature's petitions) its district's page."""
    if me().role in policy.PETITION_READERS:
        return url_for("petitions.show", petition_id=petition.id, _anchor="studies")
    return url_for("roll.district", district_id=me().district_id, _anchor="petitions")


def _roll_options(petition: Petition) -> list[tuple[str, str]]:
    session = get_session()
    districts = [d for d, _m in places.visible_districts(session=session, person=me())]
    options = studio.roll_choices(session=session, petition=petition, districts=districts)
    return [(value, say(label)) for value, label in options] + [
        (studio.FILE, _("A roll file uploaded for this study (CSV, as the CRIM gives it)"))
    ]


def _defaults(petition: Petition, options: list[tuple[str, str]]) -> dict[str, str]:
    """The form as it first opens: the first roll, the petition's ordinance (or the one in
    force on that roll) as the first variant, compared with the formula in force."""
    session = get_session()
    values = {"source": options[0][0] if options else studio.FILE, "baseline": studio.IN_FORCE}
    ordinance = petition_service.ordinance_of(session=session, petition=petition)
    if ordinance is not None:
        values["v1_name"] = _("The petition's formula")
    else:  # the formula in force on that roll, as a starting point
        district, _sep, fy = values["source"].partition(":")
        found = (
            studio.in_force(session=session, district_id=int(district), fiscal_year=fy)
            if fy
            else None
        )
        ordinance = found[1] if found else None
    if ordinance is not None:
        values["expected_amount"] = f"{ordinance.expected_amount:,.2f}"
        values["v1_formula"] = ordinance.formula
    return values


def _values() -> dict[str, str]:
    values = {name: request.form.get(name, "") for name in FIELDS}
    for number in range(1, studio.MAX_VARIANTS + 1):
        for part in ("name", "formula", "parameters"):
            values[f"v{number}_{part}"] = request.form.get(f"v{number}_{part}", "")
    return values


def _keep_file(values: dict[str, str], errors: dict[str, str]) -> None:
    """A roll file sent with the form is kept (by its SHA-256) for the tries that follow."""
    file = request.files.get("file")
    if file is None or not file.filename:
        return
    data = file.stream.read(roll_files.DEFAULT_MAX_BYTES + 1)
    try:
        roll_files.purge_uploads(_uploads(), older_than=upload_retention(current_app.config))
        values["file_token"] = roll_files.store_upload(
            _uploads(), data, meta={"file_name": file.filename, "user_id": me().id}
        )
        values["file_name"] = file.filename[:255]
        values["source"] = studio.FILE
    except InputError as exc:
        errors["file"] = say(exc.message)


def _page(
    petition: Petition,
    values: dict[str, str],
    *,
    errors: dict[str, str] | None = None,
    outcome: studio.Outcome | None = None,
    status: int = 200,
) -> Any:
    options = _roll_options(petition)
    return render_template(
        "studio/studio.html",
        petition=petition,
        back=_back(petition),
        values=values,
        errors=errors or {},
        outcome=outcome,
        charts=study_documents.study_charts(outcome, say) if outcome else [],
        roll_options=options,
        names=studio.formula_names(session=get_session(), source=values.get("source", "")),
        can_write=me().role in WRITERS,
        max_variants=studio.MAX_VARIANTS,
        baseline_options=[
            (studio.IN_FORCE, _("The formula in force on this roll (when there is one)")),
            *(
                (str(n), _("Variant %(number)s", number=n))
                for n in range(1, studio.MAX_VARIANTS + 1)
            ),
        ],
        **_helpers(outcome),
    ), status


def _helpers(outcome: studio.Outcome | None) -> dict[str, Any]:
    def explanation(index: int, position: int) -> str:
        assert outcome is not None
        return say(studio.explanation(outcome.evaluated[index], position))

    return {
        "cents": lambda value: money(from_cents(value)),
        "class_label": lambda code: study_documents.class_label(code, say),
        "share": study_documents.share,
        "band_label": study_documents.band_label,
        "explanation": explanation,
    }


@bp.route("/<int:petition_id>/studio", methods=["GET", "POST"])
@require(*READERS)
def studio_page(petition_id: int) -> Any:
    petition = _petition_or_404(petition_id)
    if request.method == "GET":
        from_id = request.args.get("from", "")
        if from_id.isdigit():
            saved, _p = _study_or_404(int(from_id))
            deny_unless(saved.petition_id == petition.id)
            return _page(petition, studio.form_values(saved))
        return _page(petition, _defaults(petition, _roll_options(petition)))
    values = _values()
    errors: dict[str, str] = {}
    _keep_file(values, errors)
    if values["source"] not in {value for value, _label in _roll_options(petition)}:
        errors["source"] = _("Choose the roll to try the formulas on.")
        values["source"] = ""
    form = Form()
    asked = form.read(lambda: studio.read_study(values))
    outcome = None
    if asked is not None and not errors:
        large = form.read(
            lambda: studio.too_large(
                session=get_session(), study=asked, uploads=_uploads(), user_id=me().id
            )
        )
        if large:
            return _in_the_background(petition, values)
        outcome = form.read(
            lambda: studio.try_study(
                session=get_session(), study=asked, uploads=_uploads(), user_id=me().id
            )
        )
    errors.update(form.errors)
    if outcome is not None and not errors and request.form.get("action") == "save":
        # tried here (its errors at their fields), saved by a job: laying out the study's
        # report takes seconds, and the job's page shows its progress from the first
        deny_unless(me().role in WRITERS)
        return _in_the_background(petition, values)
    if outcome is not None and not errors and request.form.get("action") == "csv":
        data = study_documents.amounts_csv(outcome, say)
        return send(Document(data, CSV, f"formula-study-petition-{petition.id}-amounts.csv"))
    if outcome is not None and not errors and request.form.get("action") == "pdf":
        return _report_unsaved(petition, outcome)
    return _page(petition, values, errors=errors, outcome=outcome, status=422 if errors else 200)


def _report_unsaved(petition: Petition, outcome: studio.Outcome) -> Any:
    """The report of a study tried and not saved (to send to the clerk, say): the same
    document a saved study archives, made now and kept nowhere."""
    report = study_documents.report_pdf(
        outcome,
        reader=reader(language()),
        petition=petition,
        title=outcome.study.title or _("Formula study"),
    )
    return send(Document(report, PDF, f"formula-study-petition-{petition.id}.pdf"))


def _in_the_background(petition: Petition, values: dict[str, str]) -> Any:
    """A study saved, or one too large for the request: a clerk's is tried and saved by a
    job (its page shows the progress, then links to the study); others are told so at the
    roll."""
    if me().role not in WRITERS:
        return _page(
            petition,
            values,
            errors={
                "source": _(
                    "This roll is too large to try here: a clerk can save the study, "
                    "which is then tried in the background."
                )
            },
            status=422,
        )
    job = jobs.start(
        tasks.STUDIO_SAVE,
        params={
            "petition_id": petition.id,
            "values": values,
            "title": values.get("title") or _("Formula study"),
        },
        district_id=None,
        target=f"studio:{petition.id}",
    )
    return redirect(url_for("jobs.show", job_id=job.id))


@bp.route("/studies/<int:study_id>")
@require(*READERS)
def show(study_id: int) -> Any:
    study, petition = _study_or_404(study_id)
    session = get_session()
    voted = petition_service.ordinance_of(session=session, petition=petition)
    outcome = studio.reopen(session=session, study=study, voted=None)
    against = studio.reopen(session=session, study=study, voted=voted) if voted else None
    return render_template(
        "studio/show.html",
        petition=petition,
        back=_back(petition),
        study=study,
        outcome=outcome,
        against=against,
        voted=voted,
        charts=study_documents.study_charts(outcome, say),
        can_write=me().role in WRITERS,
        **_helpers(outcome),
    )


@bp.route("/studies/<int:study_id>/report.pdf")
@require(*READERS)
def report(study_id: int) -> Any:
    study, _petition = _study_or_404(study_id)
    data = studio.report_bytes(session=get_session(), study=study)
    return send(Document(data, PDF, f"formula-study-{study.id}.pdf"), inline=True)


@bp.route("/studies/<int:study_id>/amounts.csv")
@require(*READERS)
def amounts(study_id: int) -> Any:
    study, _petition = _study_or_404(study_id)
    outcome = studio.reopen(session=get_session(), study=study, voted=None)
    data = study_documents.amounts_csv(outcome, say)
    return send(Document(data, CSV, f"formula-study-{study.id}-amounts.csv"))


@bp.app_template_global("formula_studies")
def _formula_studies(petition_id: int) -> list[FormulaStudy]:
    """The petition's saved studies (its page lists them)."""
    return studio.studies_of(session=get_session(), petition_id=petition_id)


@bp.app_template_global("petitions_to_study")
def _petitions_to_study(district_id: int) -> list[tuple[Petition, list[FormulaStudy], str]]:
    """The petitions about a district whose studio the signed-in user may use, each with
    the saved studies they may open and its page's address if they read petitions (the
    district's page lists them)."""
    session = get_session()
    district = places.district(session=session, district_id=district_id)
    if district is None or me().role not in READERS:
        return []
    reads = me().role in policy.PETITION_READERS
    return [
        (p, studies, url_for("petitions.show", petition_id=p.id) if reads else "")
        for p, studies in studio.petitions_to_study(session=session, district=district, person=me())
    ]
