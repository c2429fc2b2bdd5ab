"""The login is a form like every other of the site (tid/web/forms.py's way: the request's
values read by the view, the words from the catalog), not a second form library's."""

from __future__ import annotations

import ast
from pathlib import Path

from flask.testing import FlaskClient

from tests.conftest import People, login
from tests.source_trees import syntax_tree

ROOT = Path(__file__).resolve().parent.parent.parent


def test_no_module_defines_a_form_of_another_library() -> None:
    found = []
    for path in sorted((ROOT / "tid").rglob("*.py")):
        for node in ast.walk(syntax_tree(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
                "wtforms",
            ):
                found.append(f"{path.relative_to(ROOT)}: from {node.module}")
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "flask_wtf"
                and any(a.name == "FlaskForm" for a in node.names)
            ):
                found.append(f"{path.relative_to(ROOT)}: FlaskForm")
    assert found == []


def test_an_empty_login_says_what_is_missing_in_the_readers_language(client: FlaskClient) -> None:
    page = client.post("/login?lang=es", data={"email": "", "password": ""})
    assert page.status_code == 422
    assert "Escriba su correo electrónico y su contraseña." in page.get_data(as_text=True)


def test_the_login_keeps_the_email_and_still_logs_in(client: FlaskClient, people: People) -> None:
    page = client.post("/login", data={"email": "someone@example.org", "password": "wrong one"})
    assert page.status_code == 401
    assert 'value="someone@example.org"' in page.get_data(as_text=True)
    login(client, people.association)
    assert client.get("/").status_code == 200
