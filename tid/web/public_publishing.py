"""Publishing a district's fiscal years and documents of record: the association of the
district, the clerk of its municipality or an administrator chooses when a year's figures
become public (by default once the year is locked) or withdraws them, and publishes a year's
statement as a document of record (made, archived, listed on the public page) or withdraws
it; each choice is kept in the history."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, request, url_for
from flask_babel import gettext as _

from tid import documents
from tid.app_reader import reader
from tid.db import get_session
from tid.i18n import language
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear, parse_fiscal_year
from tid.services import places
from tid.services.public import published_records, publishing
from tid.web.access import deny_unless, me, require
from tid.web.forms import Form
from tid.web.util import today

bp = Blueprint("public_publishing", __name__, url_prefix="/publico")
CHOOSERS = ("admin", "clerk", "association")


def _district(district_id: int) -> Any:
    district = places.district(session=get_session(), district_id=district_id)
    if district is None:
        abort(404)
    deny_unless(publishing.may_publish(me(), district))
    return district


@bp.route("/distritos/<int:district_id>/publicacion")
@require(*CHOOSERS)
def years(district_id: int) -> Any:
    """The district's fiscal years, each public or not, with the choice to change it."""
    district = _district(district_id)
    return _page(district, Form())


def _page(district: Any, form: Form, values: dict[str, str] | None = None) -> Any:
    session = get_session()
    rows = publishing.years_to_choose(session=session, district_id=district.id)
    kept = published_records.listed(session=session, district_id=district.id, withdrawn_too=True)
    offered = publishing.statement_years(session=session, district_id=district.id, today=today())
    return render_template(
        "public/publishing.html",
        district=district,
        rows=rows,
        year_options=[(label, label) for label in offered],
        documents=kept,
        errors=form.errors,
        values=values or {},
    )


@bp.route("/distritos/<int:district_id>/publicacion/<fiscal_year>", methods=["POST"])
@require(*CHOOSERS)
def choose(district_id: int, fiscal_year: str) -> Any:
    """Publish (``published=1``) or withdraw (``published=0``) one fiscal year's figures."""
    district = _district(district_id)
    try:
        fy = parse_fiscal_year(fiscal_year)
    except InputError:
        abort(404)
    published = request.form.get("published") == "1"
    form = Form()
    form.write(
        lambda: publishing.choose(
            session=get_session(), actor=me().actor, district=district, fy=fy, published=published
        )
    )
    said = (
        _("The figures of %(year)s are public.", year=fy.label)
        if published
        else _(
            "The figures of %(year)s are no longer public, nor any document published of that "
            "year.",
            year=fy.label,
        )
    )
    return form.flashed(said, url_for("public_publishing.years", district_id=district_id))


def _year_of(district_id: int, value: str) -> FiscalYear:
    """A year whose statement may be published (ended, public, and the year before too)."""
    try:
        fy = parse_fiscal_year(value)
    except InputError:
        raise InputError("fiscal_year", publishing.NOT_A_STATEMENT_YEAR) from None
    publishing.check_statement_year(
        session=get_session(), district_id=district_id, fy=fy, today=today()
    )
    return fy


def _publish(district: Any, fy: FiscalYear, kind: str, title: str) -> Any:
    """Make the document for the year in the reader's language and publish it."""
    made = documents.make(
        get_session(), kind, reader=reader(language()), district=district.id, year=fy
    )
    return published_records.publish(
        session=get_session(),
        actor=me().actor,
        district=district,
        fy=fy,
        kind=kind,
        title=title,
        language=language(),
        content=made.data,
        media_type=made.media_type,
    )


@bp.route("/distritos/<int:district_id>/publicacion/documentos", methods=["POST"])
@require(*CHOOSERS)
def publish_document(district_id: int) -> Any:
    """Make the year's statement as published (PDF/A), archive it and publish it."""
    district = _district(district_id)
    values = {k: request.form.get(k, "")[:400] for k in ("fiscal_year", "title")}
    kind = "published-statement.pdf"
    form = Form()
    fy = form.read(lambda: _year_of(district_id, values["fiscal_year"]))
    if fy is not None:
        title = values["title"].strip() or _(published_records.PUBLISHABLE[kind], year=fy.label)
        form.write(lambda: _publish(district, fy, kind, title))
    saved = form.saved(
        _("The statement of %(year)s is published.", year=values["fiscal_year"]),
        url_for("public_publishing.years", district_id=district_id),
    )
    return saved or (_page(district, form, values), 422)


@bp.route(
    "/distritos/<int:district_id>/publicacion/documentos/<int:document_id>/retirar",
    methods=["POST"],
)
@require(*CHOOSERS)
def withdraw_document(district_id: int, document_id: int) -> Any:
    """Take a published document off the public side (the archive keeps it)."""
    _district(district_id)
    form = Form()
    found = form.write(
        lambda: published_records.withdraw(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            document_id=document_id,
        )
    )
    if found is None and form.refused is None:
        abort(404)
    return form.flashed(
        _("The document is no longer public."),
        url_for("public_publishing.years", district_id=district_id),
    )
