"""A page's test that races requests (tabs sending one form at once, guesses against a limit)
checks the database's own locking, so it runs on every backend: it is marked
``both_databases`` (tests/conftest.py runs the other page tests on SQLite alone)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.source_trees import syntax_tree

PAGES = Path(__file__).resolve().parent / "web"
# What a test calls to send requests at the same moment.
RACING = {"at_once", "Barrier", "ThreadPoolExecutor"}


def _marked(decorators: list[ast.expr]) -> bool:
    return any("both_databases" in ast.unparse(d) for d in decorators)


def _module_marked(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
        and "both_databases" in ast.unparse(node.value)
        for node in tree.body
    )


def _names(node: ast.AST) -> set[str]:
    return {
        n.id if isinstance(n, ast.Name) else n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Name | ast.Attribute)
    }


def racing_tests_on_one_database() -> list[str]:
    found = []
    for path in sorted(PAGES.rglob("test_*.py")):
        tree = syntax_tree(path)
        if _module_marked(tree):
            continue
        for node in tree.body:
            if (
                isinstance(node, ast.FunctionDef)
                and node.name.startswith("test_")
                and _names(node) & RACING
                and not _marked(node.decorator_list)
            ):
                found.append(f"{path.relative_to(PAGES.parent)}::{node.name}")
    return found


def test_every_page_test_that_races_requests_runs_on_both_databases() -> None:
    assert racing_tests_on_one_database() == []


def test_the_check_finds_a_racing_test_left_unmarked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "web" / "test_example.py"
    page.parent.mkdir()
    page.write_text(
        "def test_two_tabs(app):\n    at_once(app, None, lambda c, i: c.post('/'))\n\n"
        "@pytest.mark.both_databases\ndef test_marked(app):\n    at_once(app, None, None)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "PAGES", page.parent)
    assert racing_tests_on_one_database() == ["web/test_example.py::test_two_tabs"]
