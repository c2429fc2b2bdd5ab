"""The import graph of ``tid/``: no import cycles, and the layers' rules. Every module is
parsed with ``ast`` and its imports of ``tid.…`` are resolved to modules (``from tid.rules
import params`` is the module ``tid.rules.params``; relative imports too).

Two graphs are checked:

- the imports made when a module is loaded (module level, outside ``if TYPE_CHECKING``):
  no cycle at all — a module must be importable on its own, whatever was imported before;
- every import, including those inside functions: an import deferred into a function hides a
  cycle rather than removing it (the two modules still need each other), so these count too.
  The few that remain are listed below with the reason each is kept; the test fails on any
  other cycle, and on a listed one that has gone (so the list only shrinks).

The layers (:data:`LAYERS`): what a layer may not import, counting every import of its
modules, those inside functions and those under ``if TYPE_CHECKING`` too (a type names the
layer it comes from as much as a call does). The modules still being moved out of a rule are
listed beside it with their reason; a listed one that keeps the rule fails the test, so the
lists only shrink.

An import of ``tid.a.b`` also runs the packages ``tid`` and ``tid.a``; those implicit edges
are not counted (every module would otherwise "import" the app factory in ``tid/__init__``).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.source_trees import syntax_tree

ROOT = Path(__file__).resolve().parent.parent / "tid"

# Cycles through imports inside functions that are kept, each with its reason.
KEPT: dict[frozenset[str], str] = {
    frozenset({"tid", "tid.cli.app"}): (
        "the app factory registers the commands, and the `tid` command creates the app: "
        "Flask's factory pattern (both imports run only when called)"
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


def _imports(module: str, path: Path, *, type_checking: bool = False) -> Iterator[tuple[str, bool]]:
    """(imported module, at module level) for each ``tid`` import of ``module`` (those under
    ``if TYPE_CHECKING`` only when ``type_checking``)."""
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
            if (
                not type_checking
                and isinstance(child, ast.If)
                and "TYPE_CHECKING" in ast.unparse(child.test)
            ):
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

    yield from walk(_parsed(path), True)


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """A module's syntax tree, read once by every test of the process (nothing changes it)."""
    return syntax_tree(path)


@functools.cache
def _graph(*, module_level_only: bool, type_checking: bool = False) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for target, top in _imports(module, path, type_checking=type_checking):
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
    assert "tid.services.notices" in graph["tid.jobs.scheduled_jobs"]  # inside run_yearly_notices
    assert "tid.services.notices" not in _graph(module_level_only=True)["tid.jobs.scheduled_jobs"]
    # A made-up cycle is found.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_no_module_level_import_cycle() -> None:
    assert _cycles(_graph(module_level_only=True)) == []


def test_no_import_cycle_but_the_few_kept_for_a_stated_reason() -> None:
    cycles = set(_cycles(_graph(module_level_only=False)))
    assert cycles - set(KEPT) == set(), "new import cycle(s)"
    assert set(KEPT) - cycles == set(), "a kept cycle is gone: remove it from KEPT"


def test_no_cycle_through_the_types_either() -> None:
    # A type imported under ``if TYPE_CHECKING`` names the module it comes from as much as a
    # call does: two services that name each other's types are one piece cut in two.
    cycles = set(_cycles(_graph(module_level_only=False, type_checking=True)))
    assert cycles - set(KEPT) == set(), "import cycle(s) through the types"


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
    for node in syntax_tree(path).body:
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
    # A reform that names a saved one opens the app's database: that module is named, not
    # imported, and loaded at the first look-up only (tid/cli/calc.py ``SavedReforms``).
    assert "tid.cli.saved_reforms" not in reached
    assert "tid.services" in {m.rsplit(".", 1)[0] for m in graph["tid.cli.saved_reforms"]}
    libraries = {
        m: _module_level_libraries(MODULES[m]) & set(NOT_FOR_THE_CALCULATORS) for m in reached
    }
    assert {m: found for m, found in libraries.items() if found} == {}
    # The check sees a library imported at module level.
    assert "flask" in _module_level_libraries(MODULES["tid.cli.app"])


def _libraries(path: Path) -> set[str]:
    """The top-level names of every library a module imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


@dataclass(frozen=True)
class Layer:
    """A rule of the layers: the modules of ``layer`` import nothing of ``forbidden`` (tid's
    modules and packages, or libraries by their top-level name), but the modules of
    ``moving`` (each with its reason) that are still to be brought under the rule."""

    name: str
    layer: tuple[str, ...]
    forbidden: tuple[str, ...]
    moving: Mapping[str, str] = field(default_factory=dict)


WEB_LIBRARIES = ("flask", "flask_babel", "flask_login", "flask_wtf", "werkzeug")
# The modules that stand on Flask: the documents and drawings import none of them either.
ON_FLASK = (
    "tid.web",
    "tid.i18n",
    "tid.app_reader",
    "tid.db",
    "tid.jobs.scheduled_jobs",
    "tid.jobs.tasks",
    "tid.cli",
)
LAYERS = (
    Layer(
        "the rules are the pure core: no services, web, command line, tables or database",
        ("tid.rules",),
        (
            "tid.services",
            "tid.web",
            "tid.cli",
            "tid.documents",
            "tid.render",
            "tid.models",
            "tid.db",
            "tid.i18n",
            "sqlmodel",
            "sqlalchemy",
            *WEB_LIBRARIES,
        ),
    ),
    Layer(
        "documents and drawings know no Flask: the caller passes today, the language and "
        "the reader in",
        ("tid.documents", "tid.render"),
        (*WEB_LIBRARIES, *ON_FLASK),
        {},
    ),
    Layer("drawing takes values, never a service", ("tid.render",), ("tid.services",)),
    Layer("the command line stands beside the web, not on it", ("tid.cli",), ("tid.web",)),
    Layer(
        "the configuration is read before any service exists",
        ("tid.config",),
        ("tid.services", "tid.web", "tid.cli", "tid.documents", "tid.db"),
    ),
    Layer(
        "the words and formats run no SQL: a page's service reads its data",
        ("tid.i18n",),
        ("tid.db", "sqlmodel", "sqlalchemy"),
    ),
)


def _breaches(layer: Layer) -> dict[str, set[str]]:
    """The modules of ``layer.layer`` with what each imports of ``layer.forbidden``."""
    found: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        if not _within(module, layer.layer):
            continue
        imported = {t for t, _ in _imports(module, path, type_checking=True)} | _libraries(path)
        bad = {name for name in imported if _within(name, layer.forbidden)}
        if bad:
            found[module] = bad
    return found


def test_the_layers_hold_their_rules() -> None:
    for layer in LAYERS:
        breaches = _breaches(layer)
        assert {m: b for m, b in breaches.items() if m not in layer.moving} == {}, layer.name
        kept = sorted(m for m in layer.moving if m not in breaches)
        assert kept == [], f"{layer.name}: now under the rule, remove from its moving list"


def test_the_layer_rules_see_imports_under_type_checking(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tid.services import ledger\n"
        "def f():\n    import flask\n",
        encoding="utf-8",
    )
    assert ("tid.services.ledger", True) in set(_imports("m", source, type_checking=True))
    assert set(_imports("m", source)) == set()
    assert "flask" in _libraries(source)


# Module names that more than one package holds, each with the packages that hold it and why
# the name is right in each: a concept seen from each layer (the package says the layer, the
# name the concept), or a package's shared part. A reason that starts with "moving" is a
# name still to be given to one of them. Any other shared name fails, as does an entry whose
# packages are no longer exactly these.
SHARED_NAMES: dict[str, tuple[frozenset[str], str]] = {
    name: (frozenset(packages), reason)
    for name, packages, reason in (
        ("aboard", ("tid.cli", "tid.web.account"), "moving in: its command and its page"),
        (
            "access",
            ("tid.services.auth", "tid.web"),
            "the access policy and the web's checks of it",
        ),
        ("account", ("tid.cli", "tid.demo", "tid.documents"), "the special account"),
        ("base", ("tid.demo", "tid.documents"), "what the package's modules share"),
        ("calc", ("tid.web", "tid.cli"), "the calculators' pages and command"),
        ("db", ("tid", "tid.cli"), "the database and its commands"),
        (
            "errors",
            ("tid.rules", "tid.web", "tid.cli", "tid.services.petitions"),
            "each layer's refusals: the rules' InputError, the web's pages, the command's exit",
        ),
        (
            "deadlines",
            ("tid.rules.calculators", "tid.services.petitions"),
            "the deadlines calculator and the petitions' clocks, each named for what it times",
        ),
        (
            "equalization",
            ("tid.rules", "tid.rules.calculators"),
            "a calculator's module is named after the rule it runs",
        ),
        ("journal", ("tid.services.ledger", "tid.web.account"), "the journal's reads and page"),
        ("paging", ("tid.services", "tid.web"), "which rows a page holds, and its links"),
        (
            "room_tax",
            ("tid.rules", "tid.rules.calculators"),
            "a calculator's module is named after the rule it runs",
        ),
        (
            "liens",
            ("tid.rules", "tid.rules.calculators"),
            "the liens' ranking, its calculator and the district's liens",
        ),
        ("notices", ("tid.web", "tid.demo", "tid.documents"), "the certified-mail notices"),
        ("petitions", ("tid.web", "tid.demo", "tid.documents"), "the petitions"),
        ("portal", ("tid.services.owners", "tid.web"), "the owners' portal"),
        ("readings", ("tid.rules", "tid.web"), "the readings of the law"),
        ("roll", ("tid.web", "tid.cli", "tid.demo"), "the property roll"),
        ("users", ("tid.services.auth", "tid.cli"), "the users"),
    )
}


def _shared_names() -> dict[str, frozenset[str]]:
    """Each module name held by more than one package, with the packages."""
    held: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        if path.name in ("__init__.py", "__main__.py"):
            continue
        package, _, name = module.rpartition(".")
        held.setdefault(name, set()).add(package)
    return {name: frozenset(p) for name, p in held.items() if len(p) > 1}


def test_no_two_packages_hold_a_module_of_one_name_but_for_a_stated_reason() -> None:
    shared = _shared_names()
    assert {n: sorted(p) for n, p in shared.items() if n not in SHARED_NAMES} == {}
    assert {
        n: sorted(packages)
        for n, (packages, _) in SHARED_NAMES.items()
        if shared.get(n) != packages
    } == {}, "the packages holding a listed name changed: update SHARED_NAMES"
    assert "jobs" not in shared and "tasks" not in shared


# The only modules outside the demo package that may import it: the command that loads it.
MAY_IMPORT_THE_DEMO = ("tid.cli.demo",)


def _importers_of_the_demo(modules: Mapping[str, Path]) -> set[str]:
    """The modules, outside ``tid.demo``, that import anything of it (anywhere in them, under
    ``if TYPE_CHECKING`` too)."""
    return {
        module
        for module, path in modules.items()
        if not _within(module, ("tid.demo",))
        and any(_within(t, ("tid.demo",)) for t, _ in _imports(module, path, type_checking=True))
    }


def test_no_production_module_imports_the_demo() -> None:
    # The demo's invented people and figures stand on the product, never under it: a page or
    # a document that needs example figures finds them in their own home.
    assert sorted(_importers_of_the_demo(MODULES) - set(MAY_IMPORT_THE_DEMO)) == []
    assert _importers_of_the_demo(MODULES) >= set(MAY_IMPORT_THE_DEMO)


def test_the_demo_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from tid.demo import base\n", encoding="utf-8")
    assert _importers_of_the_demo({"tid.web.m": source}) == {"tid.web.m"}
