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

from tests.source_trees import parsed, syntax_tree

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
    for node in ast.walk(parsed(source)):
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


# --------------------------------------------------------------------------------------
# Commits and rollbacks: a page's write is committed or rolled back by the one submit helper
# (tid/web/forms.py ``Form``), or by the service that owns the steps (a sign-in commits its
# count before it checks the password). The modules below still call ``.commit()`` or
# ``.rollback()`` themselves, with how many times; a count may only go down (a module that
# needs fewer is lowered here, one that needs none leaves the list).
COMMITS_OUTSIDE_THE_FORM: dict[str, int] = {
    "account/fields.py": 1,
    "account/payment_pages.py": 4,
    "account/spending.py": 1,
    "account/statement.py": 1,
    "admin.py": 3,
    "auth.py": 8,
    "calc_guard.py": 1,
    "jobs.py": 1,
    "leaving.py": 2,
    "petition_files.py": 1,
    "petitions.py": 2,
    "portal.py": 4,
    "portal_account.py": 2,
    "portal_email.py": 2,
    "public_api.py": 1,
    "public_fragments.py": 1,
    "public_pages.py": 2,
    "verification_pages.py": 3,
}
SUBMIT_HELPER = "forms.py"


def _commits(source: str) -> int:
    """The calls of ``.commit()`` and ``.rollback()`` on anything."""
    return sum(
        1
        for node in ast.walk(parsed(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("commit", "rollback")
    )


def test_commits_and_rollbacks_outside_the_submit_helper_only_go_down() -> None:
    found = {
        str(path.relative_to(WEB)): _commits(path.read_text(encoding="utf-8"))
        for path in _modules()
        if str(path.relative_to(WEB)) != SUBMIT_HELPER
    }
    found = {name: count for name, count in found.items() if count}
    more = {n: c for n, c in found.items() if c > COMMITS_OUTSIDE_THE_FORM.get(n, 0)}
    assert more == {}, "commit through the submit helper (tid/web/forms.py) or the service"
    fewer = {n: c for n, c in found.items() if c < COMMITS_OUTSIDE_THE_FORM[n]}
    gone = sorted(set(COMMITS_OUTSIDE_THE_FORM) - set(found))
    assert (fewer, gone) == ({}, []), "fewer now: lower the count (or remove the module)"
    assert sum(found.values()) <= 41


def test_the_commit_count_sees_commits_and_rollbacks() -> None:
    source = "db.commit()\nget_session().rollback()\nsession.commit\nform.saved('x', '/')\n"
    assert _commits(source) == 2


# The sign-in's routes read the form and render; the service decides (password, second
# factor, the throttle and its lock-outs): tid/services/auth/sign_in.py.
SIGN_IN_ROUTES = ("login", "second_factor", "enrol", "reset", "_confirmed", "_finish_login")
DECIDED_BY_THE_SERVICE = ("throttle", "users", "passwords", "two_factor")
# What a route may still ask of them: which page a person waiting for their second factor
# gets, and the reset link's person and its new password (the form's one write); what these
# prove is the service's to decide.
MAY_READ = ("two_factor.is_enabled", "passwords.reset_user", "passwords.reset_with_token")
SERVICE_STEPS = {"by_password", "by_code", "open_login", "enrolled", "by_reset_link", "confirm"}


def _calls_in(function: ast.FunctionDef) -> set[str]:
    """``module.name`` of every call of an attribute of a plain name in ``function``."""
    return {
        f"{node.func.value.id}.{node.func.attr}"
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
    }


def test_the_sign_in_routes_call_one_service_that_decides() -> None:
    tree = syntax_tree(WEB / "auth.py")
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in SIGN_IN_ROUTES
    }
    assert sorted(functions) == sorted(SIGN_IN_ROUTES)
    deciding = {
        name: sorted(
            call
            for call in _calls_in(function)
            if (call.split(".")[0] in DECIDED_BY_THE_SERVICE and call not in MAY_READ)
            or call.endswith((".commit", ".rollback"))
        )
        for name, function in functions.items()
    }
    assert {name: calls for name, calls in deciding.items() if calls} == {}
    used = {c.split(".")[1] for f in functions.values() for c in _calls_in(f)}
    assert used | {"reserve"} >= SERVICE_STEPS
