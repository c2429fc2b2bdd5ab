"""The suite's shortcut through Werkzeug's routing (tests/conftest.py: each distinct rule
parsed and its URL builders compiled once per test process) routes as Werkzeug itself does:
the same parts, trace, converters and arguments for every rule of the app, the same URLs
built and the same endpoints matched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.routing.rules import Rule

from tests import conftest
from tests.conftest import make_test_app


def _routing(app: Flask) -> list[tuple[Any, ...]]:
    return sorted(
        (
            rule.rule,
            str(rule.endpoint),
            tuple(rule._parts),
            tuple(rule._trace),
            tuple(sorted((k, type(v).__name__, v.regex) for k, v in rule._converters.items())),
            tuple(sorted(rule.arguments)),
        )
        for rule in app.url_map.iter_rules()
    )


def _answers(app: Flask) -> list[tuple[str, str, str]]:
    """Each rule's URL built with a number for each argument, and what that URL matches."""
    found = []
    adapter = app.url_map.bind("localhost")
    for rule in app.url_map.iter_rules():
        values = {name: 7 for name in rule.arguments if name not in (rule.defaults or {})}
        try:
            url = adapter.build(str(rule.endpoint), values)
        except Exception as exc:  # a converter that takes no number: the same refusal
            found.append((str(rule.endpoint), type(exc).__name__, ""))
            continue
        method = next(iter(rule.methods or {"GET"}))
        try:
            endpoint, _args = adapter.match(url.split("?")[0], method=method)
        except Exception as exc:
            endpoint = type(exc).__name__
        found.append((str(rule.endpoint), url, str(endpoint)))
    return sorted(found)


@pytest.mark.parametrize("backend", ["sqlite"])
def test_the_cached_routing_is_werkzeugs_own(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Rule.compile is conftest._cached_compile
    cached = make_test_app(database_url, tmp_path)
    again = make_test_app(database_url, tmp_path)  # every rule from the cache this time
    monkeypatch.setattr(Rule, "compile", conftest._compile_rule)
    monkeypatch.setattr(Rule, "_compile_builder", conftest._compile_builder)
    own = make_test_app(database_url, tmp_path)
    assert len(_routing(own)) > 100
    assert _routing(cached) == _routing(again) == _routing(own)
    assert _answers(cached) == _answers(again) == _answers(own)
    for rule in again.url_map.iter_rules():  # converters of its own app's map
        assert all(c.map is again.url_map for c in rule._converters.values())
    for app in (cached, again, own):
        app.extensions["tid.engine"].dispose()
