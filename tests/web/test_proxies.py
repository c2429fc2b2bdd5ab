"""Behind a reverse proxy (``TID_PROXIES``) the app sees the client's address."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask, request

from tests.conftest import make_test_app


def _address_seen(app: Flask) -> str:
    seen: list[str] = []

    @app.get("/_whoami")
    def whoami() -> str:
        seen.append(request.remote_addr or "")
        return "ok"

    app.test_client().get(
        "/_whoami",
        headers={"X-Forwarded-For": "203.0.113.7"},
        environ_base={"REMOTE_ADDR": "127.0.0.1"},
    )
    return seen[0]


@pytest.mark.parametrize(("proxies", "expected"), [(0, "127.0.0.1"), (1, "203.0.113.7")])
def test_the_client_address_comes_from_the_proxy_only_when_configured(
    database_url: str, tmp_path: Path, proxies: int, expected: str
) -> None:
    app = make_test_app(database_url, tmp_path, PROXIES=proxies)
    try:
        assert _address_seen(app) == expected
    finally:
        app.extensions["tid.engine"].dispose()
