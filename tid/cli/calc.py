"""``tid calc NAME [FILE]``: a calculator of the pure core (tid.rules) on one JSON document.

It runs without the web app: no Flask, no database, nothing written to the instance folder.
Of the installation's configuration it reads the settings of the rules only (the
environment's ``TID_DEADLINE_SKIP_SATURDAY``, else ``config.toml`` when there is one), so that
its deadlines are those the app computes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from tid.cli.errors import fail
from tid.rules.errors import InputError


@click.command("calc")
@click.argument("name")
@click.argument("file", default="-")
@click.option(
    "--reform",
    "reform_file",
    default=None,
    help="A reform (TOML) to run beside the law: the result is both and the difference.",
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
                raise InputError("", "the input must be a JSON object")
            body = {**body, "reform": read_reform(reform_file)}
        result = reform_compare.run_request(name, body)
    except InputError as exc:
        fail(exc)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))


def read_json(file: str) -> Any:
    """The JSON document in ``file`` ("-": standard input); problems are InputErrors."""
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            with open(file, encoding="utf-8-sig") as fh:
                text = fh.read()
    except FileNotFoundError:
        raise InputError("file", f"There is no file {file!r}.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            "file", f"The file {file!r} cannot be read as UTF-8 text: {exc}."
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
        raise InputError("reform", f"There is no reform file {file!r}.") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError("reform", f"The reform file {file!r} cannot be read: {exc}.") from None
    base = document.get("base")
    if isinstance(base, str) and base.endswith(".toml"):
        target = str(path.parent / base)
        if target in seen or len(seen) > 8:
            raise InputError("reform.base", f"The reform {file!r} starts from itself.")
        document["base"] = read_reform(target, (*seen, target))
    return document
