"""The web is thin: a route parses the request, calls a service, renders. No module under
``tid/web/`` queries the database itself — every read and write goes through a function of
``tid/services/``.

Each module is parsed with ``ast``; the test fails on

- an import of a query-building name from ``sqlmodel`` or ``sqlalchemy`` (``select``, ``col``,
  ``func``, ``text``, ``Session``…): the web has no use for them;
- a call of ``.exec(``, ``.execute(``, ``.scalar(``, ``.scalars(`` or ``.query(`` on anything;
- a call of ``.get(Model, …)``: a session's look-up of a row by its key (a model is a
  CamelCase name; ``flask.session.get(KEY, default)`` names a constant or a string).

The modules listed in ``ALLOWED`` still hold such calls, each with the reason; the list only
shrinks: the test fails on a listed module that no longer needs its place.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

WEB = Path(__file__).resolve().parent.parent / "tid" / "web"

ALLOWED: dict[str, str] = {
    "jobs.py": "the jobs' status and the health check (alembic version, SELECT 1)",
    "calc_guard.py": "the calculators' guard types the session it is given",
}

QUERY_MODULES = ("sqlmodel", "sqlalchemy")
QUERY_CALLS = {"exec", "execute", "scalar", "scalars", "query"}
MODEL = re.compile(r"^[A-Z][a-z]\w*$")


def _offences(path: Path) -> list[str]:
    return sorted(_found(path.read_text(encoding="utf-8")), key=lambda o: int(o.split(":")[0][5:]))


def _found(source: str) -> Iterator[str]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in QUERY_MODULES:
            names = ", ".join(alias.name for alias in node.names)
            yield f"line {node.lineno}: from {node.module} import {names}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in QUERY_MODULES:
                    yield f"line {node.lineno}: import {alias.name}"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method in QUERY_CALLS:
                yield f"line {node.lineno}: .{method}(…)"
            elif (
                method == "get"
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Name)
                and MODEL.match(node.args[0].id)
            ):
                yield f"line {node.lineno}: .get({node.args[0].id}, …)"


def _modules() -> list[Path]:
    return sorted(WEB.rglob("*.py"))


def _allowed(path: Path) -> bool:
    return path.relative_to(WEB).parts[0] in ALLOWED


def test_the_web_holds_no_query() -> None:
    found = {
        str(path.relative_to(WEB)): _offences(path) for path in _modules() if not _allowed(path)
    }
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_allowed_modules_still_need_their_place() -> None:
    """A module that no longer queries leaves the list (one that is gone: its entry too)."""
    for name in ALLOWED:
        place = WEB / name
        paths = [place] if place.is_file() else sorted(place.rglob("*.py"))
        if paths:
            assert any(_offences(path) for path in paths), f"{name} queries no more"


def test_the_check_sees_a_query() -> None:
    """The parser finds what it is meant to find, and leaves Flask's session alone."""
    source = (
        "from sqlmodel import select\n"
        "row = db.get(User, 1)\n"
        "rows = db.exec(select(User))\n"
        "value = session.get(KEY, '')\n"
    )
    assert sorted(_found(source)) == [
        "line 1: from sqlmodel import select",
        "line 2: .get(User, …)",
        "line 3: .exec(…)",
    ]
