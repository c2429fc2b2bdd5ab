"""Publishing a district's fiscal years: the association of the district, the clerk of its
municipality or an administrator chooses when a year's figures become public (by default once
the year is locked) or withdraws them; each choice is kept in the history."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, request, url_for
from flask_babel import gettext as _

from tid.db import get_session
from tid.rules.errors import InputError
from tid.rules.periods import parse_fiscal_year
from tid.services import places
from tid.services.public import district_figures, publishing
from tid.web.access import deny_unless, me, require
from tid.web.forms import Form

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
    rows = district_figures.years_to_choose(session=get_session(), district_id=district_id)
    return render_template("public/publishing.html", district=district, rows=rows)


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
        else _("The figures of %(year)s are no longer public.", year=fy.label)
    )
    return form.flashed(said, url_for("public_publishing.years", district_id=district_id))
