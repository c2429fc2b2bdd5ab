"""What anyone may see without an account (21 LPRA § 6653(3), (6)): every municipality with
districts and petitions, each district's page at a permanent address (its ordinance, its
roll, its money year by year) and each published fiscal year's page. Every value comes from
:mod:`tid.services.public`, which builds its rows through the one declaration of public
fields. Without a login, each address may read :data:`DEFAULT_RATE_LIMIT` pages a minute
(``PUBLIC_RATE_LIMIT``), counted in the database so that the limit holds across workers."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from markupsafe import Markup
from werkzeug.exceptions import TooManyRequests

from tid.clock import utcnow
from tid.db import get_session
from tid.i18n import language, money
from tid.render.public_charts import grouped_bars
from tid.rules.errors import N_, InputError
from tid.rules.periods import FiscalYear, parse_fiscal_year
from tid.services.public import (
    district_figures,
    estimate,
    feeds,
    open_data,
    published_records,
    publishing,
    register,
    versions,
    visits,
)
from tid.web import calc_guard, nav, public_fragments
from tid.web.access import public
from tid.web.forms import Form
from tid.web.public_fragments import Fragment
from tid.web.util import today

bp = Blueprint("public", __name__, url_prefix="/publico")

nav.add(
    "public.index",
    N_("Districts in the open"),
    N_(
        "Every district's ordinance, its roll and its money year by year, and the petitions "
        "before each municipal legislature: open to anyone, without an account."
    ),
    None,
)

DEFAULT_RATE_LIMIT = 300


class PublicRateLimited(TooManyRequests):
    """Too many public pages from one address in this minute."""


@bp.before_request
def rate_limit() -> None:
    """Count an anonymous request; past the limit, 429 with ``Retry-After``."""
    limit = int(current_app.config.get("PUBLIC_RATE_LIMIT", DEFAULT_RATE_LIMIT))
    if limit <= 0 or current_user.is_authenticated:
        return
    db = get_session()
    decision = visits.count_visit(session=db, address=request.remote_addr or "unknown", limit=limit)
    if db.in_transaction():  # the count was written (a lease held by the worker writes nothing)
        db.commit()
    if not decision.allowed:
        raise PublicRateLimited(retry_after=decision.retry_after)


def _fiscal_year(value: str) -> FiscalYear:
    try:
        return parse_fiscal_year(value)
    except InputError:
        abort(404)


@bp.route("")
@public
def index() -> Any:
    """Every municipality with districts or petitions, each with its districts."""
    session = get_session()

    def make() -> Fragment:
        rows = district_figures.municipalities(session=session)
        title = _("Districts in the open")
        return _fragment(title, "public/_index_body.html", municipalities=rows)

    found = public_fragments.kept(
        version=open_data.site_version(session=session), key=("index",), make=make
    )
    return _page(found)


def _fragment(
    title: str, template: str, frame: dict[str, Any] | None = None, **values: Any
) -> Fragment:
    return Fragment(title, Markup(render_template(template, **values)), frame or {})


def _page(found: Fragment | None, chooses: bool = False) -> Any:
    if found is None:
        abort(404)
    return render_template("public/page.html", fragment=found, chooses=chooses)


@bp.route("/distritos/<int:district_id>")
@public
def district(district_id: int) -> Any:
    """A district's page: its ordinance, its roll, its published years and documents."""
    session = get_session()

    def make() -> Fragment | None:
        page = district_figures.district_page(
            session=session, district_id=district_id, today=today()
        )
        if page is None:
            return None
        chart = grouped_bars(
            [
                (y["fiscal_year"], [("billed", y["billed"]), ("revenue", y["collected"])])
                for y in reversed(page.years)
            ],
            chart_id="public-years",
            title=_("Billed and collected, by fiscal year"),
            series_titles={"billed": _("Billed"), "revenue": _("Collected")},
            money=money,
        )
        frame = {"district_id": district_id}
        return _fragment(
            page.district["name"], "public/_district_body.html", frame, page=page, chart=chart
        )

    version = versions.version_of(session=session, district_id=district_id)
    found = public_fragments.kept(version=version, key=("district", district_id), make=make)
    # the link to choosing the public years, for those who choose them
    chooses = current_user.is_authenticated and publishing.may_publish_district(
        session=session, person=current_user, district_id=district_id
    )
    return _page(found, chooses)


@bp.route("/distritos/<int:district_id>/<fiscal_year>")
@public
def year(district_id: int, fiscal_year: str) -> Any:
    """A published fiscal year of a district: the statement's figures and its months."""
    fy = _fiscal_year(fiscal_year)
    session = get_session()

    def make() -> Fragment | None:
        page = district_figures.year_page(
            session=session, district_id=district_id, fy=fy, today=today()
        )
        if page is None:
            return None
        chart = grouped_bars(
            [
                (
                    m["month"][5:],
                    [("revenue", m["collected"]), ("program", m["program"]), ("admin", m["admin"])],
                )
                for m in page.months
            ],
            chart_id="public-months",
            title=_("Collected and spent, by month"),
            series_titles={
                "revenue": _("Collected"),
                "program": _("Authorized purposes"),
                "admin": _("Administrative"),
            },
            money=money,
        )
        title = f"{page.district['name']} · {fy.label}"
        return _fragment(title, "public/_year_body.html", page=page, fy=fy, chart=chart)

    version = versions.version_of(session=session, district_id=district_id)
    return _page(
        public_fragments.kept(version=version, key=("year", district_id, fy.label), make=make)
    )


@bp.route("/distritos/<int:district_id>/documentos/<int:document_id>")
@public
def published_document(district_id: int, document_id: int) -> Any:
    """A document of record the district published, exactly as archived (its SHA-256 in
    ``ETag`` and ``X-Content-SHA256``); a withdrawn one is gone (404)."""
    found = published_records.published(
        session=get_session(), district_id=district_id, document_id=document_id
    )
    if found is None:
        abort(404)
    record = found.record
    response = Response(found.content, mimetype=record.media_type)
    name = f"distrito-{district_id}-{record.fiscal_year}-{record.id}.pdf"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["X-Content-SHA256"] = record.sha256
    response.set_etag(record.sha256)
    response.headers["Cache-Control"] = DATA_CACHE
    return response.make_conditional(request)


# The feeds change with a step recorded; a reader polling them every few minutes is enough.
FEED_CACHE = "public, max-age=300"


@bp.route("/municipios/<int:municipality_id>")
@public
def municipality(municipality_id: int) -> Any:
    """The municipality's register of petitions: each petition's steps and deadlines."""
    session = get_session()

    def make() -> Fragment | None:
        found = register.municipality(session=session, municipality_id=municipality_id)
        if found is None:
            return None
        rows = register.petitions(session=session, today=today(), municipality_id=municipality_id)
        title = _("Petitions and ordinances: %(municipality)s", municipality=found["name"])
        feed = url_for("public.feed", municipality_id=municipality_id)
        return _fragment(
            title, "public/_register_body.html", {"feed": feed}, municipality=found, petitions=rows
        )

    version = register.version(session=session)
    return _page(
        public_fragments.kept(version=version, key=("register", municipality_id), make=make)
    )


@bp.route("/peticiones/<int:petition_id>")
@public
def petition(petition_id: int) -> Any:
    """A petition of the register: its steps, deadlines, findings and ordinance."""
    session = get_session()

    def make() -> Fragment | None:
        record = register.petition(session=session, petition_id=petition_id, today=today())
        if record is None:
            return None
        title = record.petition["district_name"]
        return _fragment(title, "public/_petition_body.html", record=record)

    version = register.petition_version(session=session, petition_id=petition_id)
    return _page(public_fragments.kept(version=version, key=("petition", petition_id), make=make))


def _base_url() -> str:
    """The installation's address (``BASE_URL``), never the request's ``Host``."""
    return str(current_app.config.get("BASE_URL") or "").rstrip("/")


def _site_url(endpoint: str, **values: Any) -> str:
    """An address of the site, whole: the installation's ``BASE_URL`` (which names any
    prefix the app is served under) and the route's path."""
    path = url_for(endpoint, **values)
    root = request.script_root
    if root and path.startswith(root + "/"):
        path = path[len(root) :]
    return _base_url() + path


@bp.route("/municipios/<int:municipality_id>/novedades.atom")
@public
def feed(municipality_id: int) -> Any:
    """The municipality's new petitions, steps and ordinances (Atom): its ids and links the
    installation's own addresses."""
    body = feeds.atom_feed(
        session=get_session(),
        municipality_id=municipality_id,
        today=today(),
        lang=language(),
        feed_url=_site_url("public.feed", municipality_id=municipality_id),
        page_url=_site_url("public.municipality", municipality_id=municipality_id),
        petition_url=lambda pid: _site_url("public.petition", petition_id=pid),
    )
    if body is None:
        abort(404)
    response = Response(body, mimetype="application/atom+xml")
    response.headers["Cache-Control"] = FEED_CACHE
    return response


@bp.route("/municipios/<int:municipality_id>/plazos.ics")
@public
def deadlines(municipality_id: int) -> Any:
    """The statutory deadlines of the municipality's petitions (iCalendar)."""
    body = feeds.deadlines_calendar(
        session=get_session(),
        municipality_id=municipality_id,
        today=today(),
        lang=language(),
        stamp=utcnow(),
        base_url=_base_url(),
    )
    if body is None:
        abort(404)
    response = Response(body, mimetype="text/calendar")
    response.headers["Content-Type"] = "text/calendar; charset=utf-8"
    response.headers["Cache-Control"] = FEED_CACHE
    return response


@bp.route("/distritos/<int:district_id>/estimado")
@public
def owner_estimate(district_id: int) -> Any:
    """The owner's estimate: the formula's inputs typed in, the impost computed with its
    explanation as the bill gives it. A GET form: nothing is written or kept."""
    session = get_session()

    def make() -> Fragment | None:
        shape = estimate.estimate_form(session=session, district_id=district_id)
        if shape is None:
            return None
        values = {i.name: request.args.get(i.name, "")[:200] for i in shape.inputs}
        form = Form()
        result = None
        if request.args and not shape.apportioned:
            result = form.read(
                lambda: estimate.estimate(session=session, district_id=district_id, values=values)
            )
        title = f"{_('Estimate your impost')} · {shape.district['name']}"
        return _fragment(
            title,
            "public/_estimate_body.html",
            shape=shape,
            values=values,
            errors=form.errors,
            result=result,
        )

    if request.args:  # an estimate: computed for this reader, never kept, within the bounds
        with calc_guard.bounded():  # of the calculators (a district's formula runs)
            return _page(make())
    version = versions.version_of(session=session, district_id=district_id)
    return _page(public_fragments.kept(version=version, key=("estimate", district_id), make=make))


DATA_CACHE = "public, max-age=300"


@bp.route("/datos/<int:district_id>.zip")
@public
def district_data(district_id: int) -> Any:
    """The district's open data: every table as CSV with its data package."""
    return _package(district_id)


@bp.route("/datos/todo.zip")
@public
def all_data() -> Any:
    """The installation's open data: every district's tables as CSV with the data package."""
    return _package(None)


def _package(district_id: int | None) -> Any:
    """The package as first made for this version of the open data and day: the same bytes
    on every download (its ``ETag`` their SHA-256), ``304`` to a reader who has them."""
    session = get_session()
    found = open_data.kept_package(
        session=session, today=today(), district_id=district_id, now=utcnow()
    )
    session.commit()  # the figures a first reading computed, kept for every worker
    if found is None:
        abort(404)
    name = "tid-todo.zip" if district_id is None else f"tid-distrito-{district_id}.zip"
    response = Response(found.body, mimetype="application/zip")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = DATA_CACHE
    response.set_etag(found.sha256)
    response.last_modified = found.made_at
    return response.make_conditional(request)
