"""The open data's read-only JSON API, ``/api/v1/public/…``, and its OpenAPI description at
``/api/v1/openapi.json``: the municipalities, districts, ordinances, petitions with their
steps, each district's roll and published fiscal years, the spending by purpose and the
published documents (tables of :mod:`tid.services.public.open_data`).

Every answer is a page of rows in the order of their stable key, with the cursor of the next
page (``links.next``; none on the last): a client that follows them gets every row. Answers
carry an ``ETag`` (a request with ``If-None-Match`` gets 304) and ``Cache-Control: public``,
and anyone's page may read them (``Access-Control-Allow-Origin: *``). Without a login the
public pages' rate limit holds. Nothing here writes."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for

from tid.db import get_session
from tid.ids import parse_id
from tid.services.public import open_data, versions
from tid.web.access import public
from tid.web.public_pages import rate_limit
from tid.web.util import today

bp = Blueprint("public_api", __name__, url_prefix="/api/v1")
bp.before_request(rate_limit)

CACHE = "public, max-age=60"
# The path of each table (its name with dashes).
PATHS = {name: name.replace("_", "-") for name in open_data.TABLES if name != "petition_steps"}
TABLE_OF = {path: name for name, path in PATHS.items()}


@bp.after_request
def _open_to_every_page(response: Response) -> Response:
    if request.endpoint and request.endpoint.startswith("public_api."):
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Access-Control-Allow-Methods"] = "GET"
        response.headers.setdefault("Vary", "Accept-Language")
    return response


def _serialized(document: object) -> tuple[str, str]:
    """The answer's body and its ETag."""
    body = json.dumps(document, ensure_ascii=False, sort_keys=False) + "\n"
    return body, hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


def _answer(document: object) -> Response:
    return _send(*_serialized(document))


def _send(body: str, tag: str) -> Response:
    response = current_app.response_class(body, mimetype="application/json")
    response.set_etag(tag)
    response.headers["Cache-Control"] = CACHE
    return response.make_conditional(request)  # type: ignore[return-value]


def _limit() -> int:
    raw = request.args.get("limit", "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 6 else 100


@bp.route("/public")
@public
def index() -> Any:
    """The open data's tables, each with its address."""
    return _answer(
        {
            "tables": [
                {
                    "name": path,
                    "title": open_data.TABLES[name].title,
                    "url": url_for("public_api.table", path=path),
                }
                for name, path in PATHS.items()
            ],
            "openapi": url_for("public_api.openapi"),
        }
    )


@bp.route("/public/<path>")
@public
def table(path: str) -> Any:
    """A page of a table's rows (``?district_id=``, ``?cursor=``, ``?limit=`` up to 500)."""
    name = TABLE_OF.get(path)
    if name is None:
        abort(404)
    district_id = None
    if "district_id" in request.args:
        district_id = parse_id(request.args.get("district_id", ""))
        if district_id is None:
            abort(404)
    session = get_session()

    def make() -> tuple[str, str]:
        found = open_data.page(
            session=session,
            table=name,
            today=today(),
            district_id=district_id,
            after=request.args.get("cursor", "")[:200] or None,
            limit=_limit(),
        )
        following = None
        if found.next_after is not None:
            args: dict[str, Any] = {**request.args.to_dict(), "cursor": found.next_after}
            following = url_for("public_api.table", path=path, **args)
        return _serialized({"data": found.rows, "links": {"next": following}})

    # kept once per version of the installation's public side, day and address
    asked = tuple(sorted((k, v[:200]) for k, v in request.args.items(multi=True)))
    body, tag = versions.kept(
        session=session,
        district_id=0,
        key=("api", path, today(), asked),
        make=make,
        version=open_data.site_version(session=session),
    )
    session.commit()  # the figures a first reading computed, kept for every worker
    return _send(body, tag)


@bp.route("/openapi.json")
@public
def openapi() -> Any:
    """The OpenAPI 3.1 description of the open data's API."""
    return _answer(openapi_document())


def _schema(name: str) -> dict[str, Any]:
    kinds: dict[str, dict[str, Any]] = {
        "integer": {"type": ["integer", "null"]},
        "number": {"type": ["string", "null"], "pattern": r"^-?[0-9]+(\.[0-9]+)?$"},
        "date": {"type": ["string", "null"], "format": "date"},
        "boolean": {"type": ["boolean", "null"]},
        "string": {"type": ["string", "null"]},
    }
    properties: dict[str, Any] = {"key": {"type": "string", "description": "The row's stable id."}}
    for f in open_data.TABLES[name].fields:
        properties[f.name] = {**kinds[f.type], "description": f.description}
    if name == "petitions":
        properties["steps"] = {
            "type": "array",
            "items": {"$ref": "#/components/schemas/petition_steps"},
        }
    return {"type": "object", "title": open_data.TABLES[name].title, "properties": properties}


def openapi_document() -> dict[str, Any]:
    """The API's paths and each table's schema, from the tables' one definition."""
    parameters = [
        {
            "name": "district_id",
            "in": "query",
            "required": False,
            "schema": {"type": "integer"},
            "description": "Only this district's rows.",
        },
        {
            "name": "cursor",
            "in": "query",
            "required": False,
            "schema": {"type": "string"},
            "description": "The previous page's links.next cursor.",
        },
        {
            "name": "limit",
            "in": "query",
            "required": False,
            "schema": {"type": "integer", "minimum": 1, "maximum": open_data.MOST_PER_PAGE},
        },
    ]
    paths: dict[str, Any] = {}
    for name, path in PATHS.items():
        paths[f"/api/v1/public/{path}"] = {
            "get": {
                "operationId": f"list_{name}",
                "summary": open_data.TABLES[name].title,
                "parameters": parameters,
                "responses": {
                    "200": {
                        "description": "A page of rows and the next page's address.",
                        "headers": {
                            "ETag": {"schema": {"type": "string"}},
                            "Cache-Control": {"schema": {"type": "string"}},
                        },
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["data", "links"],
                                    "properties": {
                                        "data": {
                                            "type": "array",
                                            "items": {"$ref": f"#/components/schemas/{name}"},
                                        },
                                        "links": {
                                            "type": "object",
                                            "properties": {"next": {"type": ["string", "null"]}},
                                        },
                                    },
                                }
                            }
                        },
                    },
                    "304": {"description": "Not modified since the ETag given."},
                    "404": {"description": "No such table or district."},
                    "429": {"description": "Too many requests from this address."},
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tourism improvement districts of Puerto Rico: open data",
            "version": "1",
            "description": "The public register of petitions and ordinances and each "
            "district's published fiscal years (21 LPRA § 6653). Amounts are dollars as "
            "exact decimal text.",
        },
        "paths": paths,
        "components": {"schemas": {name: _schema(name) for name in open_data.TABLES}},
    }
