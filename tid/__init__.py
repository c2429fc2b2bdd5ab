"""tid: Puerto Rico's tourism improvement districts and statutory fund distributions."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tid import config as tid_config

if TYPE_CHECKING:
    from flask import Flask

__all__ = ["create_app"]


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app factory: config → db → babel → login → csrf → blueprints → cli."""
    instance = (
        Path(config.get("INSTANCE_PATH", ""))
        if config and config.get("INSTANCE_PATH")
        else tid_config.instance_path()
    )
    from flask import Flask

    app = Flask(
        __name__,
        instance_path=str(instance),
        template_folder=str(tid_config.PROJECT_ROOT / "templates"),
    )
    from tid.web.request import CleanRequest, refuse_nul_in_path

    app.request_class = CleanRequest
    app.before_request(refuse_nul_in_path)
    from tid.ids import BoundedIntConverter

    app.url_map.converters["int"] = BoundedIntConverter
    from tid.files import private_folder

    private_folder(instance)  # 0700: the secret key, the database, uploads and mail
    app.config.update(tid_config.load(instance, config))
    register_rules_settings(app)
    register_proxies(app)
    register_extensions(app)
    register_queue(app)
    register_blueprints(app)
    register_errors(app)
    register_security_headers(app)
    register_cli(app)
    register_scheduler(app)
    register_pdf_warm_up(app)
    register_page_warm_up(app)
    return app


def register_page_warm_up(app: Flask) -> None:
    """Compile every template and load every language's catalogs as the app is made for a
    web server (gunicorn makes one per worker, before it takes a request): a worker's first
    reader of a page waits for none of it. ``PAGE_WARM_UP``: on for a web server, off under
    tests and for the command line (its commands serve no pages, ``tid run`` one reader)."""
    warm = app.config.get("PAGE_WARM_UP")
    if warm is None:
        warm = not app.config.get("TESTING") and not app.config.get("MADE_BY_COMMAND_LINE")
    if not warm:
        return
    from jinja2 import TemplateError

    from tid import i18n

    for name in app.jinja_env.list_templates():
        try:
            app.jinja_env.get_template(name)
        except TemplateError:  # said by the request that renders it, in its place
            app.logger.exception("a template does not compile: %s", name)
    i18n.warm_catalogs(app)


def register_pdf_warm_up(app: Flask) -> None:
    """A web worker lays out a small PDF and compiles the documents' templates in the
    background, so that its first reader of a document does not wait for WeasyPrint, the
    fonts and the templates to load: at once when the app is made for a web server (gunicorn
    makes one per worker), at the first request when the command line made it (``tid run``;
    its other commands serve no pages). It warms this process's own memory, which no queued
    job in a worker can do; the day's round of the statements readers open first is the
    scheduler's job (:mod:`tid.web.account.prepared`). Off under tests and with
    ``PDF_WARM_UP = false``."""
    if app.config.get("TESTING") or not app.config.get("PDF_WARM_UP", True):
        return
    from jinja2 import TemplateError

    from tid.render import pdf

    def warm() -> None:
        pdf.warm()
        for name in app.jinja_env.list_templates(filter_func=lambda n: n.startswith("pdf/")):
            try:
                app.jinja_env.get_template(name)
            except TemplateError:  # said by the request that renders it, in its place
                app.logger.exception("a document's template does not compile: %s", name)

    def start() -> None:
        threading.Thread(target=warm, name="pdf-warm-up", daemon=True).start()

    if not app.config.get("MADE_BY_COMMAND_LINE"):
        start()
        return
    started = threading.Event()

    @app.before_request
    def _warm_pdf_once() -> None:
        if not started.is_set():
            started.set()
            start()


def register_rules_settings(app: Flask) -> None:
    """The installation's settings of the rules, applied to the parameters every computation
    of the process reads (``TID_DEADLINE_SKIP_SATURDAY``; unset: district.toml decides)."""
    tid_config.apply_rules_settings(app.config)


def register_proxies(app: Flask) -> None:
    """Behind ``PROXIES`` reverse proxies, take the client's address and scheme from their
    X-Forwarded headers (the portal's per-address limit needs the real address)."""
    proxies = int(app.config.get("PROXIES") or 0)
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies
        )


def register_extensions(app: Flask) -> None:
    """The database, the languages, the logins and CSRF protection."""
    from flask_wtf.csrf import CSRFProtect

    from tid import db, i18n
    from tid.web import access

    db.init_app(app)
    i18n.init_app(app)
    access.init_app(app)
    CSRFProtect(app)


def register_queue(app: Flask) -> None:
    """The task queue that ``tid worker`` serves (tid/jobs/queue.py, tid/jobs/tasks.py)."""
    from tid.jobs import tasks

    tasks.init_app(app)


def register_blueprints(app: Flask) -> None:
    """Every blueprint of ``tid.web``."""
    from tid.web import blueprints
    from tid.web.nav import nav_items
    from tid.web.util import url_pattern

    for blueprint in blueprints():
        app.register_blueprint(blueprint)
    app.jinja_env.globals["nav_items"] = nav_items
    app.jinja_env.globals["url_pattern"] = url_pattern


def register_errors(app: Flask) -> None:
    """Error pages in the user's language (JSON under ``/api/``)."""
    from tid.web.errors import register

    register(app)


def register_security_headers(app: Flask) -> None:
    """Headers that keep pages out of frames and scripts out of pages; no page or document
    of the app (logged-in pages, notices, statements, CSV, calendars) is kept by a browser or
    a proxy cache, only the static files; HSTS when the cookies are for HTTPS only. An answer
    a shared cache may keep sets no cookie (:mod:`tid.web.shared_cache`)."""
    from flask import Response, request

    from tid.web.shared_cache import PublicAnswersSetNoCookie

    app.session_interface = PublicAnswersSetNoCookie()

    policy = (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    )

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        kept = response.headers.get("Cache-Control", "")
        # The public feeds, files and open data say so themselves ("public, …"): nothing in
        # them is anyone's own (tid/services/public/declared.py).
        if (
            request.endpoint != "static"
            and "no-store" not in kept
            and not (kept.startswith("public") and (request.endpoint or "").startswith("public"))
        ):
            response.headers["Cache-Control"] = "no-store"
        max_age = int(app.config.get("HSTS_MAX_AGE") or 0)
        if app.config.get("SESSION_COOKIE_SECURE") and max_age > 0:
            response.headers.setdefault(
                "Strict-Transport-Security", f"max-age={max_age}; includeSubDomains"
            )
        return response


def register_cli(app: Flask) -> None:
    """The ``tid`` commands beyond Flask's own."""
    from tid.cli.app import register

    register(app)


def register_scheduler(app: Flask) -> None:
    """Start the scheduler in this process when configured (the demo's dev server)."""
    if app.config.get("SCHEDULER_IN_PROCESS"):
        from tid.jobs import scheduler

        scheduler.start_in_process(app)
