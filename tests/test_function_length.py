"""No function in ``tid/`` runs over 80 lines (its ``def`` to its last line) unless a comment
right above it, or on its ``def`` line, says why: ``# Long: <the reason>``. A long function
mixes jobs and hides its seams; the few kept whole are those whose length is one sequence
that reads best in one place."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source_trees import parsed

ROOT = Path(__file__).resolve().parent.parent / "tid"
LIMIT = 80
REASON = "# Long: "


def _long_functions() -> list[tuple[str, int, str, int, bool]]:
    """(file, line, name, length, explained) of every function over the limit."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(parsed("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length <= LIMIT:
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            # The comment block right above the def (or its decorators), or the def's line.
            block = []
            i = first - 2
            while i >= 0 and lines[i].strip().startswith("#"):
                block.insert(0, lines[i].strip().lstrip("#").strip())
                i -= 1
            comment = " ".join(block) if block else ""
            head = REASON.lstrip("# ")
            if head not in comment and REASON in lines[node.lineno - 1]:
                comment = lines[node.lineno - 1].split("#", 1)[1].strip()
            explained = head in comment and len(comment.split(head, 1)[1].strip()) >= 20
            name = path.relative_to(ROOT.parent).as_posix()
            found.append((name, node.lineno, node.name, length, explained))
    return found


def test_no_long_function_without_a_reason() -> None:
    unexplained = [
        f"{name}:{line} {function} ({length} lines)"
        for name, line, function, length, explained in _long_functions()
        if not explained
    ]
    assert unexplained == []


def test_the_check_measures_functions() -> None:
    # Something is measured: the longest function of the package is long, and it says why.
    longest = max(_long_functions(), key=lambda f: f[3])
    assert longest[3] > LIMIT and longest[4]
