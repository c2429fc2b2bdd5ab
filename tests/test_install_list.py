"""Every program the app or the tests run is one `make test` installs.

The Makefile's ``TEST_PROGRAMS`` lists each program with the Debian package that brings it;
``make sysdeps-test`` installs the packages of those missing. A program that the code or the
tests call but the list does not name would work on a developer's machine that has it by
hand and fail on a fresh one: this test reads every call of a program in ``tid/`` and
``tests/`` (a subprocess's command, a look-up by name, a path under /usr/bin) and fails on
one that is not listed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.source_trees import syntax_tree

ROOT = Path(__file__).resolve().parent.parent
# The project's own programs and the interpreter: the virtual environment brings them.
OWN = {"python", "python3", "tid"}
# Functions that take a program's name as their first argument.
LOOK_UPS = {"which", "_binary", "_pg_binary"}
RUNNERS = {"run", "Popen", "check_output", "check_call", "call"}


def _listed() -> dict[str, str]:
    text = (ROOT / "Makefile").read_text()
    match = re.search(r"^TEST_PROGRAMS :=((?:.*\\\n)*.*)$", text, re.MULTILINE)
    assert match, "the Makefile has no TEST_PROGRAMS list"
    pairs = match.group(1).replace("\\\n", " ").split()
    return dict(pair.split(":", 1) for pair in pairs)


def _called(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            first = node.args[0]
            if name in LOOK_UPS and isinstance(first, ast.Constant):
                found.add(str(first.value))
            if (
                name in RUNNERS
                and isinstance(first, ast.List | ast.Tuple)
                and first.elts
                and isinstance(first.elts[0], ast.Constant)
                and isinstance(first.elts[0].value, str)
            ):
                found.add(Path(first.elts[0].value).name)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for path in re.findall(r"/usr/s?bin/([\w.-]+)", node.value):
                found.add(path)
    return found


def _programs_called() -> dict[str, str]:
    """Each program called by name, with the first file that calls it."""
    where: dict[str, str] = {}
    for folder in ("tid", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for program in _called(syntax_tree(path)):
                where.setdefault(program, str(path.relative_to(ROOT)))
    # The Makefile's own checks; a line that installs its package itself (the benchmarks'
    # wrk) needs no entry in the list.
    for line in (ROOT / "Makefile").read_text().splitlines():
        if "PKGS=" in line:
            continue
        for program in re.findall(r"command -v \$?\$?(\w[\w.-]*)", line):
            if program != "prog":
                where.setdefault(program, "Makefile")
    return where


def test_the_scan_sees_the_calls_it_is_meant_to_see() -> None:
    tree = ast.parse(
        "import shutil, subprocess\n"
        "shutil.which('gs')\n"
        "subprocess.run(['/opt/x/pdftotext', '-'])\n"
        "subprocess.Popen(('qpdf', 'a'))\n"
        "CHROME = '/usr/bin/chromium'\n"
    )
    assert _called(tree) == {"gs", "pdftotext", "qpdf", "chromium"}


def test_every_program_the_code_or_the_tests_run_is_installed_by_make() -> None:
    listed = _listed()
    called = _programs_called()
    assert {"pdftotext", "initdb", "redis-server", "chromium"} <= set(called)
    missing = {p: f for p, f in called.items() if p not in listed and p not in OWN}
    assert not missing, (
        f"programs called but not in the Makefile's TEST_PROGRAMS (add program:package): {missing}"
    )
