"""The open data's read-only JSON API, ``/api/v1/public/…``, and its OpenAPI description at
``/api/v1/openapi.json``: the municipalities, districts, ordinances, petitions with their
steps, each district's roll and published fiscal years, the spending by purpose and the
published documents (tables of :mod:`tid.services.public.open_data`).

Every answer is a page of rows in the order of their stable key, with the cursor of the next
page (``links.next``; none on the last): a client that follows them gets every row. A
``limit`` that is not a whole number from 1 to 500, or a ``cursor`` that is not a key of the
table, is answered 400 with ``{"error", "field"}`` naming the parameter; a ``district_id``
that names no district, 404. Answers carry an ``ETag`` (a request with ``If-None-Match`` gets
304) and ``Cache-Control: public``, set no cookie (:mod:`tid.web.shared_cache`), and anyone's
page may read them (``Access-Control-Allow-Origin: *``). Without a login the public pages'
rate limit holds. Nothing here writes."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, url_for
from flask_babel import gettext as _

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


DEFAULT_PER_PAGE = 100


class BadParameterError(Exception):
    """A query parameter the API cannot read (400) or whose record there is not (404):
    answered with the parameter's name."""

    def __init__(self, field: str, message: str, code: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.code = code


@bp.errorhandler(BadParameterError)
def _bad_parameter(exc: BadParameterError) -> Any:
    return jsonify({"error": exc.message, "field": exc.field}), exc.code


def _limit() -> int:
    """``?limit=``: a whole number from 1 to the most a page holds (absent: 100)."""
    raw = request.args.get("limit", "")
    if raw == "":
        return DEFAULT_PER_PAGE
    value = parse_id(raw)
    if value is None or not 1 <= value <= open_data.MOST_PER_PAGE:
        message = _(
            "limit: a whole number from 1 to %(most)s, the rows a page holds.",
            most=open_data.MOST_PER_PAGE,
        )
        raise BadParameterError("limit", message)
    return value


def _cursor(table: str) -> tuple[int | str, ...] | None:
    """``?cursor=``: the previous page's ``links.next`` cursor (absent: the first page)."""
    raw = request.args.get("cursor", "")
    if raw == "":
        return None
    found = open_data.cursor_position(table, raw)
    if found is None:
        message = _("cursor: not a cursor of this table; follow the previous page's links.next.")
        raise BadParameterError("cursor", message)
    return found


def _district_id() -> int | None:
    """``?district_id=``: a district's id (absent: every district); no such district: 404."""
    if "district_id" not in request.args:
        return None
    district_id = parse_id(request.args.get("district_id", ""))
    if district_id is None or not open_data.known_district(
        session=get_session(), district_id=district_id
    ):
        message = _("district_id: there is no such district.")
        raise BadParameterError("district_id", message, 404)
    return district_id


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
    district_id = _district_id()
    after, limit = _cursor(name), _limit()
    session = get_session()

    def make() -> tuple[str, str]:
        found = open_data.page(
            session=session,
            table=name,
            today=today(),
            district_id=district_id,
            after=after,
            limit=limit,
        )
        following = None
        if found.next_after is not None:
            args: dict[str, Any] = {"cursor": found.next_after}
            if district_id is not None:
                args["district_id"] = district_id
            if "limit" in request.args:
                args["limit"] = limit
            following = url_for("public_api.table", path=path, **args)
        return _serialized({"data": found.rows, "links": {"next": following}})

    # kept once per version of the installation's public side, day and page asked
    asked = (district_id, after, limit, "limit" in request.args)
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
    return _answer(openapi_document(base_url=str(current_app.config.get("BASE_URL") or "")))


_KINDS: dict[str, dict[str, Any]] = {
    "integer": {"type": "integer"},
    "number": {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?$"},
    "date": {"type": "string", "format": "date"},
    "boolean": {"type": "boolean"},
    "string": {"type": "string"},
}


def _property(field: open_data.Field) -> dict[str, Any]:
    """A field's schema: its type, and null besides only where a row may have no value."""
    found = {**_KINDS[field.type], "description": field.description}
    if field.values:
        found["enum"] = list(field.values)
    if field.nullable:
        found["type"] = [found["type"], "null"]
    return found


def _schema(name: str, *, leave_out: frozenset[str] = frozenset(), key: bool = True) -> Any:
    """A table's row: every field present, null only where the field says it may be."""
    properties: dict[str, Any] = {}
    if key:
        properties["key"] = {
            "type": "string",
            "description": "The row's stable id: its key fields' values joined by ':', "
            "each with '%' written '%25' and ':' written '%3A'. The cursor of the page "
            "after it.",
        }
    for f in open_data.TABLES[name].fields:
        if f.name not in leave_out:
            properties[f.name] = _property(f)
    if name == "petitions":
        properties["steps"] = {
            "type": "array",
            "items": _schema("petition_steps", leave_out=frozenset({"petition_id"}), key=False),
        }
    return {
        "type": "object",
        "title": open_data.TABLES[name].title,
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


_ERROR = {
    "description": "",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/error"}}},
}
_ERROR_SCHEMA = {
    "type": "object",
    "required": ["error", "field"],
    "properties": {
        "error": {"type": "string", "description": "What is wrong, in the reader's language."},
        "field": {"type": "string", "description": "The parameter at fault (or empty)."},
    },
}


def _parameters() -> list[dict[str, Any]]:
    """The query parameters of every table's address."""
    return [
        {
            "name": "district_id",
            "in": "query",
            "required": False,
            "schema": {"type": "integer", "minimum": 0},
            "description": "Only this district's rows (no such district: 404).",
        },
        {
            "name": "cursor",
            "in": "query",
            "required": False,
            "schema": {"type": "string", "maxLength": open_data.MOST_CURSOR_CHARS},
            "description": "The previous page's links.next cursor: the key of its last "
            "row (one that is not a key of this table: 400).",
        },
        {
            "name": "limit",
            "in": "query",
            "required": False,
            "schema": {
                "type": "integer",
                "minimum": 1,
                "maximum": open_data.MOST_PER_PAGE,
                "default": DEFAULT_PER_PAGE,
            },
            "description": "The most rows a page holds (out of range or not a number: 400).",
        },
    ]


def openapi_document(*, base_url: str) -> dict[str, Any]:
    """The API's paths and each table's schema, from the tables' one definition; its
    server is the installation's own address (``BASE_URL``)."""
    parameters = _parameters()
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
                                            "required": ["next"],
                                            "properties": {
                                                "next": {
                                                    "type": ["string", "null"],
                                                    "description": "The next page's address; "
                                                    "null on the last page.",
                                                }
                                            },
                                        },
                                    },
                                }
                            }
                        },
                    },
                    "304": {"description": "Not modified since the ETag given."},
                    "400": {**_ERROR, "description": "A limit or a cursor it cannot read."},
                    "404": {**_ERROR, "description": "No such table or district."},
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
        "servers": [{"url": base_url.rstrip("/")}] if base_url else [],
        "paths": paths,
        "components": {
            "schemas": {
                **{name: _schema(name) for name in open_data.TABLES},
                "error": _ERROR_SCHEMA,
            }
        },
    }
