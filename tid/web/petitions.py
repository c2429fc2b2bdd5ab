"""The municipal legislature clerk's petition tracker (21 LPRA § 6653(1)–(5), (7)): record a
petition, its findings and its ordinance, walk it through its lifecycle, and watch its clocks
on a dashboard, in a printable report and in a calendar program."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import (
    Blueprint,
    Response,
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

from tid.app_reader import reader
from tid.clock import utcnow
from tid.db import get_session
from tid.documents import petitions as petition_documents
from tid.i18n import day, language, localized, say
from tid.ids import parse_id
from tid.models import Petition, PetitionState
from tid.rules.errors import N_, InputError
from tid.services import petitions as svc
from tid.services import places
from tid.services.audit_trail import audit
from tid.services.auth import access as policy
from tid.services.auth import users
from tid.services.petitions import attachments, proofs
from tid.services.public import register
from tid.web import nav
from tid.web.access import deny_unless, may_write_district, me, public, require
from tid.web.account.kept import kept_content
from tid.web.forms import Form
from tid.web.util import send, today

bp = Blueprint("petitions", __name__, url_prefix="/petitions")

READERS = policy.PETITION_READERS
WRITERS = policy.PETITION_WRITERS

nav.add(
    "petitions.dashboard",
    N_("Petitions"),
    N_("Petitions before the municipal legislature, their findings, ordinances and deadlines."),
    READERS,
)

STEP_ACTIONS = ("study", "deny", "to_mayor", "approve", "veto", "publish", "crim", "association")


# --------------------------------------------------------------------------- helpers


def _scope() -> list[int] | None:
    """The municipalities the logged-in user may see (None: all)."""
    return policy.visible_municipalities(me())


def _translate(exc: InputError) -> str:
    """An error in the user's language: its message, like every service's."""
    return str(say(exc.message))


def _errors(exc: InputError) -> dict[str, str]:
    errors = exc.errors if isinstance(exc, svc.PetitionFieldsError) else [exc]
    result: dict[str, str] = {}
    for error in errors:
        result.setdefault(error.field, _translate(error))
    return result


def _petition_or_404(petition_id: int) -> Petition:
    petition = svc.petition(session=get_session(), petition_id=petition_id)
    if petition is None:
        abort(404)
    deny_unless(me().can_see_municipality(petition.municipality_id))
    return petition


def explanation(clock: svc.Clock) -> str:
    return localized(clock.explanation)


state_label = petition_documents.state_label


@bp.app_template_global("petition_state")
def _petition_state(state: str) -> str:
    return state_label(state)


@bp.app_template_global("clock_explanation")
def _clock_explanation(clock: svc.Clock) -> str:
    return explanation(clock)


def _municipality_options() -> list[tuple[int, str]]:
    return svc.municipality_names(session=get_session(), scope=_scope())


def _state_options() -> list[tuple[str, str]]:
    return [(s.value, state_label(s.value)) for s in PetitionState]


# --------------------------------------------------------------------------- dashboard


def _filters() -> dict[str, str]:
    """The dashboard's filters as asked (``?municipality=&state=``), those that mean nothing
    left out."""
    chosen = parse_id(request.args.get("municipality", ""))
    state = request.args.get("state", "")
    return {
        "municipality": request.args.get("municipality", "") if chosen is not None else "",
        "state": state if state in petition_documents.STATES else "",
    }


def _dashboard_rows() -> tuple[list[svc.DashboardRow], dict[str, str]]:
    filters = _filters()
    rows = svc.visible_dashboard(
        session=get_session(),
        today=today(),
        scope=_scope(),
        municipality=parse_id(filters["municipality"]),
        state=filters["state"] or None,
    )
    return rows, filters


@bp.route("/")
@require(*READERS)
def dashboard() -> Any:
    """Every open petition with its running clock: kept per version of the register (its
    petitions, ordinances and findings), the reader's scope and the day."""

    options = _municipality_options()  # their names too are in the key (not the register's)

    def make() -> Markup:
        rows, filters = _dashboard_rows()
        return Markup(
            render_template(
                "petitions/_dashboard_body.html",
                rows=rows,
                filters=filters,
                municipality_options=options,
                state_options=_state_options(),
                today=today(),
                soon_days=svc.SOON_DAYS,
            )
        )

    version = register.version(session=get_session())
    key = ("petitions", tuple(options))
    body = kept_content(district_id=0, key=key, make=make, version=version)
    return render_template("petitions/dashboard.html", body=body)


@bp.route("/deadlines.pdf")
@require(*READERS)
def deadlines_pdf() -> Any:
    filters = _filters()
    document = petition_documents.deadlines_pdf(
        get_session(),
        reader=reader(language()),
        municipality=parse_id(filters["municipality"]),
        state=filters["state"] or None,
        scope=_scope(),
    )
    return send(document, inline=True)


# --------------------------------------------------------------------------- record


_PETITION_FIELDS = ("municipality_id", "district_name", "petitioner", "received_on", "documents")


@bp.route("/new", methods=["GET", "POST"])
@require(*WRITERS)
def new() -> Any:
    session = get_session()
    options = _municipality_options()
    values = {name: request.form.get(name, "") for name in _PETITION_FIELDS}
    if request.method == "GET" and len(options) == 1:
        values["municipality_id"] = str(options[0][0])
    errors: dict[str, str] = {}
    if request.method == "POST":
        form = Form(words=_errors)
        petition = form.write(
            lambda: svc.record_petition(
                session=session,
                actor=me().actor,
                today=today(),
                allowed_municipalities=_scope(),
                **values,
            )
        )
        done = form.saved(
            _("Petition recorded."),
            lambda: url_for("petitions.show", petition_id=petition.id if petition else None),
        )
        if done:
            return done
        errors = form.errors
    return render_template(
        "petitions/new.html",
        values=values,
        errors=errors,
        municipality_options=options,
        today=today(),
    ), (422 if errors else 200)


# --------------------------------------------------------------------------- one petition


def _publication_window(petition: Petition) -> Any:
    """The week the approved ordinance is published in (21 LPRA § 6653(7)); None before."""
    from tid.rules.calendar import publication_window

    return publication_window(petition.approved_on) if petition.approved_on else None


def _may_bill(district_id: int) -> bool:
    """Whether the reader may run the district's billing (its association, an admin)."""
    place = places.district(session=get_session(), district_id=district_id)
    return place is not None and may_write_district(place)


def _render_petition(petition: Petition, *, status: int = 200) -> Any:
    session = get_session()
    ordinance = svc.ordinance_of(session=session, petition=petition)
    findings = svc.findings_of(session=session, petition=petition)
    municipality = places.municipality(session=session, municipality_id=petition.municipality_id)
    clocks = svc.clocks(petition, ordinance, today=today())
    running = svc.running_clock(petition, ordinance, today=today())
    rows = audit.changes(svc.history(session=session, petition=petition))
    window = _publication_window(petition)
    return render_template(
        "petitions/show.html",
        petition=petition,
        tone=svc.state_tone(petition.state),
        municipality=municipality,
        ordinance=ordinance,
        findings=findings,
        factors=svc.FACTORS,
        unfavourable=svc.unfavourable_factors(session=session, petition=petition),
        clocks=clocks,
        running=running,
        window=window,
        rows=rows,
        names=audit.names_of(session=session, rows=rows),
        today=today(),
        can_write=me().role in WRITERS,
        S=PetitionState,
        correctable=_correctable(petition, ordinance),
        rebill=svc.runs_to_rebill(session=session, ordinance=ordinance),
        may_bill=ordinance is not None and _may_bill(ordinance.district_id),
        ordinance_parameters=svc.parameters_text(ordinance.parameters) if ordinance else "",
        missing_proofs=proofs.missing_proofs(session=session, petition=petition),
        file_count=len(attachments.file_of(session=session, petition_id=petition.id or 0)),
    ), status


@bp.route("/<int:petition_id>")
@require(*READERS)
def show(petition_id: int) -> Any:
    return _render_petition(_petition_or_404(petition_id))


def _step_open(petition: Petition, action: str) -> bool:
    """Whether the petition's state lets this step's form be sent now."""
    if action == "finding":
        return petition.state in (PetitionState.RECEIVED, PetitionState.UNDER_STUDY)
    if action in ("crim", "association"):
        return (
            petition.state in (PetitionState.APPROVED, PetitionState.PUBLISHED)
            and svc.ordinance_of(session=get_session(), petition=petition) is not None
        )
    allowed, _target = svc.TRANSITIONS[action]
    return petition.state in allowed


def _render_step(
    petition: Petition,
    action: str,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status: int = 200,
) -> Any:
    """One step's form on a page of its own, under the petition's summary: where a failed
    form comes back (its error summary first on the page) and what a reload of its address
    shows (the address answers GET too, never 405)."""
    session = get_session()
    ordinance = svc.ordinance_of(session=session, petition=petition)
    window = _publication_window(petition)
    return render_template(
        "petitions/step.html",
        petition=petition,
        action=action,
        open=_step_open(petition, action),
        municipality=places.municipality(session=session, municipality_id=petition.municipality_id),
        running=svc.running_clock(petition, ordinance, today=today()),
        window=window,
        factors=svc.FACTORS,
        errors=errors or {},
        values=values or {},
        today=today(),
    ), status


@bp.route("/<int:petition_id>/findings", methods=["GET", "POST"])
@require(*WRITERS)
def finding(petition_id: int) -> Any:
    session = get_session()
    petition = _petition_or_404(petition_id)
    if request.method == "GET":
        return _render_step(petition, "finding")
    values = {k: request.form.get(k, "") for k in ("factor", "favourable", "grounds", "on")}
    form = Form(words=_errors)
    form.write(
        lambda: svc.record_finding(
            session=session, actor=me().actor, petition=petition, today=today(), **values
        )
    )
    done = form.saved(
        _("Finding recorded."),
        url_for("petitions.show", petition_id=petition_id, _anchor="findings"),
    )
    if done:
        return done
    return _render_step(
        _petition_or_404(petition_id), "finding", errors=form.errors, values=values, status=422
    )


_ORDINANCE_FIELDS = (
    "number",
    "district_name",
    "expected_amount",
    "term_years",
    "formula",
    "parameters",
    "association_name",
    "issued_on",
)


@bp.route("/<int:petition_id>/ordinance", methods=["GET", "POST"])
@require(*WRITERS)
def ordinance(petition_id: int) -> Any:
    session = get_session()
    petition = _petition_or_404(petition_id)
    values = {k: request.form.get(k, "") for k in _ORDINANCE_FIELDS}
    if request.method == "GET":
        values["district_name"] = petition.district_name
    errors: dict[str, str] = {}
    if request.method == "POST":
        form = Form(words=_errors)
        form.write(
            lambda: svc.issue_ordinance(
                session=session, actor=me().actor, petition=petition, today=today(), **values
            )
        )
        done = form.saved(
            _("Ordinance recorded."), url_for("petitions.show", petition_id=petition_id)
        )
        if done:
            return done
        petition = _petition_or_404(petition_id)
        errors = form.errors
    findings = svc.findings_of(session=session, petition=petition)
    return render_template(
        "petitions/ordinance.html",
        petition=petition,
        values=values,
        errors=errors,
        missing=[letter for letter in svc.FACTORS if letter not in findings],
        unfavourable=svc.unfavourable_factors(session=session, petition=petition),
        today=today(),
    ), (422 if errors else 200)


@bp.route("/<int:petition_id>/step/<action>", methods=["GET", "POST"])
@require(*WRITERS)
def step(petition_id: int, action: str) -> Any:
    if action not in STEP_ACTIONS:
        abort(404)
    session = get_session()
    petition = _petition_or_404(petition_id)
    if request.method == "GET":
        return _render_step(petition, action)
    values = {k: request.form.get(k, "") for k in ("on", "notes", "newspaper", "confirm")}
    common: dict[str, Any] = {
        "session": session,
        "actor": me().actor,
        "petition": petition,
        "on": values["on"],
        "today": today(),
    }
    form = Form(words=_errors)
    form.write(lambda: _take_step(action, values, common))
    done = form.saved(_("Saved."), url_for("petitions.show", petition_id=petition_id))
    if done:
        return done
    return _render_step(
        _petition_or_404(petition_id), action, errors=form.errors, values=values, status=422
    )


def _take_step(action: str, values: dict[str, str], common: dict[str, Any]) -> None:
    """The step ``action`` of a petition's lifecycle, with the form's ``values``."""
    if action == "study":
        svc.start_study(**common)
    elif action == "deny":
        svc.deny(notes=values["notes"], **common)
    elif action == "to_mayor":
        svc.send_to_mayor(**common)
    elif action == "approve":
        svc.mayor_approves(**common)
    elif action == "veto":
        svc.mayor_vetoes(notes=values["notes"], **common)
    elif action == "publish":
        svc.publish(
            newspaper=values["newspaper"],
            outside_window_confirmed=values["confirm"] == "yes",
            **common,
        )
    elif action == "crim":
        svc.record_crim_copy(**common)
    else:
        svc.record_association_receipt(**common)


def _correctable(petition: Petition, ordinance: Any) -> list[tuple[str, str, Any]]:
    """The entries a clerk may correct now: (field, label, recorded value; a date as the
    page writes its days)."""
    found = []
    for name in svc.correctable_fields(petition, ordinance):
        value = svc.recorded_value(petition, ordinance, name)
        if svc.CORRECTABLE[name][2] == "date" and value:
            value = day(date.fromisoformat(value))
        found.append((name, _(svc.CORRECTABLE[name][1]), value))
    return found


@bp.route("/<int:petition_id>/correct", methods=["GET", "POST"])
@require(*WRITERS)
def correct(petition_id: int) -> Any:
    """Correct a recorded date or text, with a reason kept in the history; a refused
    correction comes back on a page of its own (which a reload shows again)."""
    session = get_session()
    petition = _petition_or_404(petition_id)
    values = {k: request.form.get(k, "") for k in ("field", "value", "reason")}
    errors: dict[str, str] = {}
    if request.method == "POST":
        form = Form(words=_errors)
        form.write(
            lambda: svc.correct_petition(
                session=session,
                actor=me().actor,
                petition=petition,
                field_name=values["field"],
                value=values["value"],
                reason=values["reason"],
                today=today(),
            )
        )
        rebill = svc.runs_to_rebill(
            session=session, ordinance=svc.ordinance_of(session=session, petition=petition)
        )
        done = form.saved(
            _(
                "Correction saved. The fiscal years billed with the earlier terms, to bill "
                "again to apply it: %(years)s.",
                years=", ".join(run.fiscal_year for run in rebill),
            )
            if rebill
            else _("Correction saved; the deadlines follow the corrected dates."),
            url_for(
                "petitions.show", petition_id=petition_id, _anchor="rebill" if rebill else "history"
            ),
        )
        if done:
            return done
        petition = _petition_or_404(petition_id)
        errors = form.errors
    return render_template(
        "petitions/correct.html",
        petition=petition,
        correctable=_correctable(petition, svc.ordinance_of(session=session, petition=petition)),
        errors=errors,
        values=values,
    ), (422 if errors else 200)


# --------------------------------------------------------------------------- calendar


@bp.route("/calendar")
@require(*READERS)
def calendar_settings() -> Any:
    session = get_session()
    return render_template(
        "petitions/calendar.html",
        has_token=svc.has_calendar_token(session=session, user_id=me().id),
        feed_url=None,
    )


@bp.route("/calendar/token", methods=["GET", "POST"])
@require(*READERS)
def calendar_token() -> Any:
    if request.method == "GET":  # the link is shown once; a reload goes back to the settings
        return redirect(url_for("petitions.calendar_settings"))
    session = get_session()
    user = users.account(session=session, user_id=me().id)
    if user is None:
        abort(403)
    token = svc.issue_calendar_token(session=session, actor=me().actor, user=user)
    session.commit()
    feed_url = url_for("petitions.calendar_feed", token=token, _external=True)
    # The secret is shown once, on this response; only its hash is kept.
    response = Response(
        render_template("petitions/calendar.html", has_token=True, feed_url=feed_url)
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/calendar/revoke", methods=["POST"])
@require(*READERS)
def calendar_revoke() -> Any:
    session = get_session()
    user = users.account(session=session, user_id=me().id)
    if user is None:
        abort(403)
    svc.revoke_calendar_tokens(session=session, actor=me().actor, user=user)
    session.commit()
    flash(_("The calendar link no longer works."))
    return redirect(url_for("petitions.calendar_settings"))


@bp.route("/calendar/<token>.ics")
@public
def calendar_feed(token: str) -> Any:
    """The deadlines as iCalendar, for a calendar program that cannot log in: the secret in
    the URL stands for the user (see ``tid.services.petitions``)."""
    session = get_session()
    user = svc.user_for_calendar_token(session=session, token=token)
    if user is None:
        abort(404)
    body = svc.user_calendar(
        session=session,
        user=user,
        today=today(),
        stamp=utcnow(),
        base_url=str(current_app.config.get("BASE_URL") or ""),
    )
    response = Response(body, mimetype="text/calendar")
    response.headers["Content-Type"] = "text/calendar; charset=utf-8"
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
