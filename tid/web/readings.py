"""The project's readings of the law, published: every point where the statutes are silent,
cut off or ambiguous and how the project reads it (tid/rules/readings.py). Public, like the
calculators whose citations link here (``/readings#<slug>``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, url_for
from markupsafe import Markup

from tid.documents import calc_text
from tid.rules.calculators.inputs import N_
from tid.rules.readings import READINGS
from tid.web import nav
from tid.web.access import public

bp = Blueprint("readings", __name__)

nav.add(
    "readings.index",
    N_("Readings of the law"),
    N_(
        "How the project reads the statutes where they are silent, cut off or ambiguous: "
        "the readings the calculators' citations name."
    ),
    None,
)


@bp.app_template_filter("cited")
def cited(citation: str) -> Markup:
    """A citation for a page, in the reader's language, its readings linked here."""
    return calc_text.cited(citation, reading_address)


@bp.app_template_filter("linked_readings")
def linked_readings(text: str) -> Markup:
    """Text in the reader's language (a warning) with the readings it names linked here."""
    return calc_text.linked_readings(text, reading_address)


def reading_address(slug: str) -> str:
    """A reading's address on this site."""
    return url_for("readings.index", _anchor=slug)


@bp.route("/readings")
@public
def index() -> Any:
    """Every reading of the project, each under its own anchor (public)."""
    return render_template(
        "readings/index.html", readings=list(READINGS.values()), cite=calc_text.cite
    )
