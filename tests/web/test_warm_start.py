"""A web worker is ready before its first reader: every template compiled and every
language's catalogs loaded as the app is made (tid/__init__.py ``register_page_warm_up``), so
that the first request of a page costs what the next ones cost."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from tests.conftest import make_test_app


def _cached(app: Flask) -> set[str]:
    return {name for (_loader, name) in list(app.jinja_env.cache.keys())}  # type: ignore[union-attr]


def test_a_web_worker_compiles_every_template_and_catalog_before_its_first_request(
    database_url: str, tmp_path: Path
) -> None:
    app = make_test_app(database_url, tmp_path, PAGE_WARM_UP=True)
    try:
        assert set(app.jinja_env.list_templates()) <= _cached(app)
        kept = app.extensions.get("tid.translations", {})
        assert {locale.language for locale in kept} == set(app.config["LANGUAGES"])
        compiled: list[str] = []
        real = app.jinja_env.compile
        app.jinja_env.compile = (  # type: ignore[method-assign]
            lambda source, name=None, *a, **kw: (
                compiled.append(str(name)) or real(source, name, *a, **kw)
            )
        )
        client = app.test_client()
        for path in ("/login", "/publico", "/calc/"):
            assert client.get(path).status_code == 200, path
        client.post("/lang/en", data={"next": "/login"})
        assert client.get("/login").status_code == 200
        assert compiled == []
    finally:
        app.extensions["tid.engine"].dispose()


def test_under_tests_nothing_is_compiled_ahead(database_url: str, tmp_path: Path) -> None:
    app = make_test_app(database_url, tmp_path)
    try:
        assert _cached(app) == set()
    finally:
        app.extensions["tid.engine"].dispose()
