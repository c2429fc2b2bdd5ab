"""``tid calc NAME [FILE]``: a calculator of the pure core (tid.rules) on one JSON document.

It runs without the web app: no Flask, no database, nothing written to the instance folder.
Of the installation's configuration it reads the settings of the rules only (the
environment's ``TID_DEADLINE_SKIP_SATURDAY``, else ``config.toml`` when there is one), so that
its deadlines are those the app computes. Only a reform that names a saved one (``--reform
ID``, or a reform file whose ``base`` is a saved reform's id or address rather than a file
beside it) reads the installation's database, to find it; nothing is written.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from tid.cli.errors import fail
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message


@click.command("calc")
@click.argument("name")
@click.argument("file", default="-")
@click.option(
    "--reform",
    "reform_file",
    default=None,
    help="A reform to run beside the law (a TOML file, or a saved reform's id or address): "
    "the result is both and the difference.",
)
def calc_command(name: str, file: str, reform_file: str | None) -> None:
    """Run calculator NAME on the JSON document in FILE (or standard input)."""
    from tid import config
    from tid.rules import reform_compare

    config.apply_rules_settings(config.rules_settings())
    try:
        body = read_json(file)
        if reform_file is not None:
            if not isinstance(body, dict):
                raise InputError("", N_("the input must be a JSON object"))
            body = {**body, "reform": reform_argument(reform_file)}
        result = reform_compare.run_request(name, body, resolve=SavedReforms())
    except InputError as exc:
        fail(exc)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))


def reform_argument(value: str) -> object:
    """``--reform``: a TOML file (one that exists, or named ``….toml``), else a saved
    reform's id or shareable address."""
    from pathlib import Path

    if value.endswith(".toml") or Path(value).is_file():
        return read_reform(value)
    from tid.rules.reform import reference_id

    return reference_id(value)


def read_json(file: str) -> Any:
    """The JSON document in ``file`` ("-": standard input); problems are InputErrors."""
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            with open(file, encoding="utf-8-sig") as fh:
                text = fh.read()
    except FileNotFoundError:
        raise InputError(
            "file", Message(N_("There is no file %(file)s."), file=repr(file))
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            "file",
            Message(
                N_("The file %(file)s cannot be read as UTF-8 text: %(problem)s."),
                file=repr(file),
                problem=str(exc),
            ),
        ) from None
    from tid.rules.calculators.json_input import load_json

    return load_json(text)


def read_reform(file: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """The reform in a TOML file; its ``base`` may name another file, beside it."""
    import tomllib
    from pathlib import Path

    path = Path(file)
    try:
        with path.open("rb") as fh:
            document = tomllib.load(fh)
    except FileNotFoundError:
        raise InputError(
            "reform", Message(N_("There is no reform file %(file)s."), file=repr(file))
        ) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(
            "reform",
            Message(
                N_("The reform file %(file)s cannot be read: %(problem)s."),
                file=repr(file),
                problem=str(exc),
            ),
        ) from None
    base = document.get("base")  # a file beside it, else a saved reform's id or address
    if isinstance(base, str) and base.endswith(".toml"):
        target = str(path.parent / base)
        if target in seen or len(seen) > 8:
            raise InputError(
                "reform.base",
                Message(N_("The reform %(file)s starts from itself."), file=repr(file)),
            )
        document["base"] = read_reform(target, (*seen, target))
    elif isinstance(base, str) and base.strip():
        from tid.rules.reform import reference_id

        document["base"] = reference_id(base)
    return document


class SavedReforms:
    """The installation's saved reforms by id, for a reform that names one: the app and its
    database (:mod:`tid.cli.saved_reforms`) are loaded at the first look-up only, so that a
    calculation without a saved reform starts at once."""

    def __init__(self) -> None:
        self._resolve: Any = None

    def __call__(self, ident: str) -> Any:
        if self._resolve is None:
            import importlib

            self._resolve = importlib.import_module(SAVED_REFORMS).resolver()
        return self._resolve(ident)


# Named, not imported: the module that opens the app (tests/test_import_graph.py).
SAVED_REFORMS = "tid.cli.saved_reforms"
