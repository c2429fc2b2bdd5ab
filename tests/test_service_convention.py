"""One calling convention for the services: every public function of ``tid/services/`` that
takes the database session takes it, and every other argument, by keyword
(``def f(*, session: Session, …)``), so a call names what it passes and an argument added
later never shifts another."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source_trees import syntax_tree

SERVICES = Path(__file__).resolve().parent.parent / "tid" / "services"


def _positional_sessions() -> tuple[list[str], int]:
    """The functions that take ``session`` positionally, and how many take it at all."""
    wrong, seen = [], 0
    for path in sorted(SERVICES.rglob("*.py")):
        for node in syntax_tree(path).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            args = node.args
            positional = [a.arg for a in [*args.posonlyargs, *args.args]]
            if "session" in positional:
                wrong.append(f"{path.relative_to(SERVICES.parent)}:{node.lineno} {node.name}")
            if "session" in positional or any(a.arg == "session" for a in args.kwonlyargs):
                seen += 1
                if positional:
                    wrong.append(f"{path.relative_to(SERVICES.parent)}:{node.name} positional")
    return sorted(set(wrong)), seen


def test_every_service_takes_its_session_and_arguments_by_keyword() -> None:
    wrong, seen = _positional_sessions()
    assert wrong == []
    assert seen > 150  # the check reads the services: most of them take a session
