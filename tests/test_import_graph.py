"""No import cycles in ``tid/``: every module is parsed with ``ast`` and its imports of
``tid.…`` are resolved to modules (``from tid.rules import params`` is the module
``tid.rules.params``; relative imports too).

Two graphs are checked:

- the imports made when a module is loaded (module level, outside ``if TYPE_CHECKING``):
  no cycle at all — a module must be importable on its own, whatever was imported before;
- every import, including those inside functions: an import deferred into a function hides a
  cycle rather than removing it (the two modules still need each other), so these count too.
  The few that remain are listed below with the reason each is kept; the test fails on any
  other cycle, and on a listed one that has gone (so the list only shrinks).

An import of ``tid.a.b`` also runs the packages ``tid`` and ``tid.a``; those implicit edges
are not counted (every module would otherwise "import" the app factory in ``tid/__init__``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "tid"

# Cycles through imports inside functions that are kept, each with its reason.
KEPT: dict[frozenset[str], str] = {
    frozenset({"tid", "tid.cli.app"}): (
        "the app factory registers the commands, and the `tid` command creates the app: "
        "Flask's factory pattern (both imports run only when called)"
    ),
    frozenset({"tid.services.passwords", "tid.services.users"}): (
        "the password rules set a new hash with the account service's hasher, which the tests "
        "replace by a cheap one in one place (tests/conftest.py)"
    ),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module an imported name lives in (the longest known prefix)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> Iterator[tuple[str, bool]]:
    """(imported module, at module level) for each ``tid`` import of ``module``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def targets(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
            return
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([node.module] if node.module else [])])
        for alias in node.names:
            full = f"{base}.{alias.name}"
            yield full if full in MODULES else base

    def walk(node: ast.AST, top: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                for name in targets(child):
                    target = _resolve(name) if name.split(".")[0] == "tid" else None
                    if target is not None and target != module:
                        yield target, top
            inner = top and not isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            yield from walk(child, inner)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), True)


def _graph(*, module_level_only: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for target, top in _imports(module, path):
            if top or not module_level_only:
                graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_the_imports_it_must() -> None:
    graph = _graph(module_level_only=False)
    assert "tid.rules.params" in graph["tid.rules.calendar"]  # from tid.rules import params
    assert "tid.rules.periods" in graph["tid.rules.params"]  # from tid.rules.periods import …
    assert "tid.services.notices" in graph["tid.jobs"]  # inside run_yearly_notices
    assert "tid.services.notices" not in _graph(module_level_only=True)["tid.jobs"]
    # A made-up cycle is found.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_no_module_level_import_cycle() -> None:
    assert _cycles(_graph(module_level_only=True)) == []


def test_no_import_cycle_but_the_few_kept_for_a_stated_reason() -> None:
    cycles = set(_cycles(_graph(module_level_only=False)))
    assert cycles - set(KEPT) == set(), "new import cycle(s)"
    assert set(KEPT) - cycles == set(), "a kept cycle is gone: remove it from KEPT"


def test_the_documents_of_record_never_need_the_web() -> None:
    # tid/documents serves the web, the jobs and the command line alike: nothing it imports,
    # directly or through another module, is of tid.web.
    graph = _graph(module_level_only=False)
    reached: set[str] = set()
    todo = [m for m in graph if m == "tid.documents" or m.startswith("tid.documents.")]
    assert len(todo) > 3
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(graph[module])
    assert "tid.services.ledger" in reached
    assert sorted(m for m in reached if m == "tid.web" or m.startswith("tid.web.")) == []


# What ``tid calc`` must not load: the app and what it stands on.
NOT_FOR_THE_CALCULATORS = ("flask", "flask_babel", "sqlalchemy", "sqlmodel", "weasyprint")


def _module_level_libraries(path: Path) -> set[str]:
    """The top-level names of the libraries a module imports when it is loaded."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_calculators_command_loads_no_app() -> None:
    # `tid calc` loads the packages tid and tid.cli, tid.cli.calc, what its functions import,
    # and what all these import when loaded: none of it is the web, the models, the database
    # or the services, and none of it loads Flask, SQLAlchemy or WeasyPrint (the command's run
    # itself is checked in a fresh interpreter: tests/test_cli_calc.py).
    graph = _graph(module_level_only=False)
    loaded = _graph(module_level_only=True)
    reached: set[str] = set()
    todo = ["tid", "tid.cli", "tid.cli.calc", *graph["tid.cli.calc"]]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(loaded[module])
    assert {"tid.rules.calculators", "tid.rules.calculators.json_input", "tid.config"} <= reached
    heavy = ("tid.web", "tid.models", "tid.db", "tid.services", "tid.cli.app")
    assert sorted(m for m in reached if m.startswith(heavy)) == []
    libraries = {
        m: _module_level_libraries(MODULES[m]) & set(NOT_FOR_THE_CALCULATORS) for m in reached
    }
    assert {m: found for m, found in libraries.items() if found} == {}
    # The check sees a library imported at module level.
    assert "flask" in _module_level_libraries(MODULES["tid.cli.app"])
