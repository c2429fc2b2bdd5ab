"""Error pages: a clear page in the user's language, or JSON under ``/api/``."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from tid.rules.errors import InputError
from tid.web.calc_guard import Bound


def _messages() -> dict[int, str]:
    return {
        400: _("The request could not be understood."),
        401: _("Please log in."),
        403: _("You do not have access to this page."),
        404: _("This page does not exist."),
        405: _("This action is not allowed here."),
        413: _("The file is too large."),
        422: _("Some of the information is not valid."),
        429: _("Too many attempts. Please wait a moment and try again."),
        503: _("The service is busy. Please try again in a moment."),
        500: _("Something went wrong on our side. The error has been logged."),
    }


def register(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        code = exc.code or 500
        message = _messages().get(code, exc.description or "")
        if isinstance(exc, Bound):
            message = exc.description or message  # says the limit, in the reader's language
        if isinstance(exc, CSRFError):
            message = _("The form expired or was sent from elsewhere. Please try again.")
        # Keep what the exception says of itself beyond its page (Retry-After).
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() == "retry-after"]
        if request.path.startswith("/api/"):
            return jsonify({"error": message, "field": ""}), code, headers
        page = render_template("errors/error.html", code=code, message=message)
        return page, code, headers

    @app.errorhandler(InputError)
    def _input_error(exc: InputError) -> Any:
        if request.path.startswith("/api/"):
            return jsonify(exc.as_json()), 422
        return render_template("errors/error.html", code=422, message=exc.message), 422

    @app.errorhandler(500)
    def _server_error(exc: Exception) -> Any:
        message = _messages()[500]
        if request.path.startswith("/api/"):
            return jsonify({"error": message, "field": ""}), 500
        return render_template("errors/error.html", code=500, message=message), 500
