"""The closing's JSON for signed-in users (``/api/v1/account/…``), beside the calculators' API
(tid/web/api.py) and in its manner: 422 and ``{"error", "field"}`` for bad input, 401 without
a login, 403 for a district the user may not see. Reading only (a quote is issued on its page
or with ``tid document payoff.pdf``), so no form token is needed.

- ``GET /api/v1/account/<district>/properties/<property>/payoff?through=YYYY-MM-DD``: what a
  quote good through that day (by default 30 days on) would say: each bill owed with its
  surcharge and interest to that day, the total, the interest each day after adds
  (``per_day``) and the one-time charges landing in the 30 days after (``one_time_charges``).
- ``GET /api/v1/account/<district>/issued/<reference>``: a document issued about a property
  (a payoff quote, a lien certificate, a release) with its state: paid against it, settled,
  past its day, its verification page.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from flask import Blueprint, abort, current_app, request

from tid.db import get_session
from tid.i18n import say
from tid.models import IssuedDocument
from tid.rules.errors import InputError
from tid.rules.money import ZERO, money_str
from tid.services.closing import issued, payoffs
from tid.web.access import require, visible_district
from tid.web.account.blueprint import READERS
from tid.web.account.fields import date_field, district_property
from tid.web.util import today

bp = Blueprint("closing_api", __name__, url_prefix="/api/v1/account")


def _json(document: object, status: int = 200) -> Any:
    body = json.dumps(document, ensure_ascii=False)
    return current_app.response_class(body + "\n", status=status, mimetype="application/json")


def _lines(lines: Any) -> list[dict[str, str]]:
    keys = ("fiscal_year", "due_date", "days_late", "impost", "surcharge", "interest")
    return [{k: str(line[k]) for k in keys} for line in lines]


def _one_time(charges: list[issued.OneTimeCharge]) -> list[dict[str, str | None]]:
    """The one-time charges landing in the 30 days after a quote's day: the day each lands,
    its bill's fiscal year and due date, the surcharge, and the interest a day it adds from
    then when the quote's ``per_day`` does not count it yet."""
    return [
        {
            "on": charge.on.isoformat(),
            "fiscal_year": charge.fiscal_year,
            "due_date": charge.due_date.isoformat(),
            "surcharge": money_str(charge.surcharge),
            "per_day_from_then": money_str(charge.per_day) if charge.per_day else None,
        }
        for charge in charges
    ]


@bp.route("/<int:district_id>/properties/<int:property_id>/payoff")
@require(*READERS)
def payoff(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    prop = district_property(district, property_id)
    on = today()
    through = payoffs.default_good_through(on)
    if request.args.get("through"):
        try:
            through = date_field(dict(request.args), "through")
        except InputError as exc:
            return _json({"error": say(exc.message), "field": exc.field}, 422)
    problems = payoffs.quote_problems(good_through=through, today=on)
    if problems:
        return _json({"error": say(problems[0].message), "field": "through"}, 422)
    figures = payoffs.figures(session=get_session(), prop=prop, through=through)
    return _json(
        {
            "cadastral_number": prop.cadastral_number,
            "through": through.isoformat(),
            "issued": False,
            "lines": _lines(figures.lines),
            "secured": money_str(figures.secured),
            "charges": money_str(figures.charges),
            "total": money_str(figures.total),
            "per_day": money_str(figures.per_day),
            "one_time_charges": _one_time(figures.one_time_charges),
        }
    )


def _state(document: IssuedDocument, on: date) -> str:
    if document.settled_on is not None:
        return "settled"
    if payoffs.expired(document, on):
        return "past_its_day"
    return "valid"


@bp.route("/<int:district_id>/issued/<reference>")
@require(*READERS)
def issued_document(district_id: int, reference: str) -> Any:
    visible_district(district_id)
    document = issued.by_reference(
        session=get_session(), district_id=district_id, reference=reference
    )
    if document is None:
        abort(404)
    base = str(current_app.config.get("BASE_URL") or request.host_url).rstrip("/")
    return _json(
        {
            "kind": document.kind,
            "reference": document.reference,
            "cadastral_number": document.cadastral_number,
            "issued_on": document.issued_on.isoformat(),
            "issued_by": document.issued_by,
            "association": document.association,
            "good_through": document.good_through.isoformat() if document.good_through else None,
            "lines": _lines(issued.lines_of(document)),
            "secured": money_str(document.secured),
            "charges": money_str(document.charges),
            "total": money_str(document.total),
            "per_day": money_str(document.per_day),
            "one_time_charges": _one_time(issued.one_time_charges(issued.lines_of(document)))
            if issued.says_one_time_charges(issued.lines_of(document))
            else None,
            "paid": money_str(document.paid),
            "remaining": money_str(max(document.total - document.paid, ZERO)),
            "settled_on": document.settled_on.isoformat() if document.settled_on else None,
            "state": _state(document, today()),
            "sha256": document.sha256,
            "verify_url": f"{base}/verificar/{issued.shown_code(document.code)}",
        }
    )
