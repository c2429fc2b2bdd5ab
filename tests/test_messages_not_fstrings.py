"""One way for the code to say something to a person: an error's message is a catalog message
(``N_("…")`` or ``Message("…", name=value)``, tid/rules/messages.py), rendered in the
reader's language where it is shown — never an English sentence built on the spot (an
f-string, a ``%``-formatted or ``.format``-ted string), which no catalog can translate.

Checked with ``ast`` over every module of ``tid/``: the message argument of each call of
``InputError(…)``, ``Finding(…)``, ``PetitionError(…)``, ``CapExceededError(…)`` and
``field_error(…)`` (the second positional argument, or ``message=``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.source_trees import parsed

ROOT = Path(__file__).resolve().parent.parent
CALLS = {"InputError", "Finding", "PetitionError", "CapExceededError", "field_error"}


def _built_on_the_spot(node: ast.AST) -> str | None:
    """How a message argument is an English sentence built on the spot, or None."""
    if isinstance(node, ast.JoinedStr):
        return "an f-string"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return "a %-formatted string"
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        return "a .format-ted string"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return "a plain string (not N_)"
    return None


def _name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _message_argument(call: ast.Call) -> ast.AST | None:
    if len(call.args) > 1:
        return call.args[1]
    return next((k.value for k in call.keywords if k.arg == "message"), None)


def offenders(source: str, name: str) -> Iterator[str]:
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Call) and _name(node) in CALLS:
            message = _message_argument(node)
            how = _built_on_the_spot(message) if message is not None else None
            if how is not None:
                yield f"{name}:{node.lineno}: {_name(node)} with {how}"


def test_no_error_message_is_an_english_sentence_built_on_the_spot() -> None:
    found = [
        line
        for path in sorted((ROOT / "tid").rglob("*.py"))
        for line in offenders(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    ]
    assert found == []


def test_the_check_sees_each_way_of_building_a_sentence() -> None:
    source = (
        "raise InputError('a', f'{x} is wrong')\n"
        "raise InputError('a', 'Row %s' % n)\n"
        "raise errors.InputError('a', message='{} is wrong'.format(x))\n"
        "Finding('a', 'plain words')\n"
        "PetitionError('a', f'{x}')\n"
        "raise InputError('a', N_('Fine.'))\n"
        "raise InputError('a', Message('%(x)s is fine', x=x))\n"
        "raise InputError('a', exc.message)\n"
    )
    assert [line.split(": ", 1)[1] for line in offenders(source, "m")] == [
        "InputError with an f-string",
        "InputError with a %-formatted string",
        "InputError with a .format-ted string",
        "Finding with a plain string (not N_)",
        "PetitionError with an f-string",
    ]
