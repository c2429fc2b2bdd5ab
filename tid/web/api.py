"""The JSON API of the statute calculators (docs/calculators.md): ``/api/v1/…``.

These routes are public on purpose: they compute what the law says from the document they
are given, read and write nothing else, and keep no state, so there is nothing to log in to
and nothing a forged cross-site request could change. That is also why they are exempt from
CSRF protection (a token would only stop programs from calling them).

- ``GET /api/v1/calc``: the calculators, with the URLs of their API and web page.
- ``POST /api/v1/calc/<calculator>``: the same JSON document as ``tid calc``; 200 and the
  result, 422 and ``{"error", "field"}`` for bad input (also a body that is not JSON, or a
  document past a bound of :mod:`tid.rules.limits`), 413 for a body over 1 MB, 404 for an
  unknown calculator, 429 with ``Retry-After`` past the rate limit or while the same client
  has a computation under way, 503 with ``Retry-After`` when every place for anonymous
  computations is taken or the request ran past its time budget (:mod:`tid.web.calc_guard`).
- ``GET /api/v1/parameters``: every dated parameter with its history and citations.
- ``GET /api/v1/reforms/<id>``: a saved reform (public policy text) as the document a
  request may carry beside its own (``"reform": {…}``, or the saved reform's id or its
  shareable address): the result is then both, the law's and the reform's, and their
  difference line by line.
- ``POST /api/v1/reforms`` (signed in): save the reform document of the body (``title``,
  ``description``, ``changes``, and ``base``: a saved reform's id or address to start from);
  201, the saved document as ``GET`` gives it and its address in ``Location``; 422 and
  ``{"error", "field"}`` naming the parameter (``reform.changes[0].value``) for a bad one,
  401 without a login. The body must be sent as ``application/json`` (415 otherwise): a page
  of another site cannot send that without the browser asking first, so a signed-in
  person's session cannot be made to save a reform from elsewhere.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, current_app, request, url_for
from flask.blueprints import BlueprintSetupState

from tid.db import get_session
from tid.rules import calculators, reform_compare
from tid.rules.errors import InputError
from tid.rules.limits import MAX_DOCUMENT_BYTES
from tid.web import calc_guard
from tid.web.access import ALL_ROLES, public, require

bp = Blueprint("api", __name__, url_prefix="/api/v1")

# The largest JSON body read (a year of months or the 78 municipalities is a few kB).
DEFAULT_MAX_BYTES = MAX_DOCUMENT_BYTES


@bp.record_once
def _exempt_from_csrf(state: BlueprintSetupState) -> None:
    csrf = state.app.extensions.get("csrf")
    if csrf is not None:
        csrf.exempt(bp)


def _json(document: object, status: int = 200) -> Any:
    """A JSON response that keeps the document's key order (the statute's order)."""
    body = json.dumps(document, ensure_ascii=False, indent=None)
    return current_app.response_class(body + "\n", status=status, mimetype="application/json")


def _error(message: str, field: str, status: int) -> Any:
    return _json({"error": message, "field": field}, status)


@bp.route("/calc")
@public
def calculators_list() -> Any:
    """The calculators, each with its API and web URL (public: no data, no state)."""
    return _json(
        {
            "calculators": [
                {
                    "name": name,
                    "title": calculators.CALCULATORS[name].form.title,
                    "citation": calculators.CALCULATORS[name].form.citation,
                    "available": calculators.available(name),
                    "url": url_for("api.calculate", calculator=name),
                    "form": url_for("calc.form", calculator=name),
                }
                for name in sorted(calculators.CALCULATORS)
            ]
        }
    )


@bp.route("/calc/<calculator>", methods=["POST"])
@public
def calculate(calculator: str) -> Any:
    """Run a calculator on the JSON body (public and stateless: see the module docstring)."""
    if calculator not in calculators.CALCULATORS:
        known = ", ".join(sorted(calculators.CALCULATORS))
        return _error(f"Unknown calculator {calculator!r}; known: {known}.", "name", 404)
    if not calculators.available(calculator):
        return _error(f"The calculator {calculator!r} is not available yet.", "name", 404)
    limit = int(current_app.config.get("CALC_MAX_BYTES", DEFAULT_MAX_BYTES))
    if request.content_length is not None and request.content_length > limit:
        return _error(f"The document is too large (at most {limit:,} bytes).", "", 413)
    with calc_guard.bounded():
        body = request.get_data(cache=False)
        if len(body) > limit:
            return _error(f"The document is too large (at most {limit:,} bytes).", "", 413)
        try:
            document = calculators.load_json(body.decode("utf-8-sig"))
            result = _run(calculator, document)
        except UnicodeDecodeError:
            return _error("The body is not UTF-8 text.", "", 422)
        except InputError as exc:
            return _json(exc.as_json(), 422)
        return _json(result)


def _run(calculator: str, document: object) -> dict[str, Any]:
    """The law's result, or with a reform beside the document both and the difference."""
    if isinstance(document, dict) and "reform" in document:
        from tid.services import reform_library

        resolve = reform_library.resolver(session=get_session())
        document = {**document, "reform": reform_library.canonical(document["reform"])}
        return reform_compare.run_request(calculator, document, resolve=resolve)
    return calculators.run(calculator, document)


@bp.route("/reforms/<reform_id>")
@public
def reform(reform_id: str) -> Any:
    """A saved reform as a document (public policy text: no one's data)."""
    from tid.services import reform_library

    found = reform_library.saved_reform(session=get_session(), public_id=reform_id)
    if found is None:
        return _error(f"There is no saved reform {reform_id!r}.", "reform", 404)
    return _json(reform_library.document_of(found))


@bp.route("/reforms", methods=["POST"])
@require(*ALL_ROLES)
def save_reform() -> Any:
    """Save the reform of the JSON body at its permanent address (signed in; see the module
    docstring for why the body must be JSON)."""
    from tid.services import reform_library

    if request.mimetype != "application/json":
        return _error("Send the reform as JSON (Content-Type: application/json).", "", 415)
    limit = int(current_app.config.get("CALC_MAX_BYTES", DEFAULT_MAX_BYTES))
    if request.content_length is not None and request.content_length > limit:
        return _error(f"The document is too large (at most {limit:,} bytes).", "", 413)
    body = request.get_data(cache=False)
    if len(body) > limit:
        return _error(f"The document is too large (at most {limit:,} bytes).", "", 413)
    try:
        document = calculators.load_json(body.decode("utf-8-sig"))
        if not isinstance(document, dict):
            return _error("A reform is an object with its title and changes.", "reform", 422)
        saved = reform_library.save_reform(session=get_session(), document=document)
    except UnicodeDecodeError:
        return _error("The body is not UTF-8 text.", "", 422)
    except InputError as exc:
        return _json(exc.as_json(), 422)
    response = _json(reform_library.document_of(saved), 201)
    response.headers["Location"] = url_for("api.reform", reform_id=saved.public_id)
    return response


@bp.route("/parameters")
@public
def parameters() -> Any:
    """Every dated parameter with its values over time and the citation of each (public)."""
    from tid.rules.params import all_parameters

    return _json({"parameters": all_parameters()})
