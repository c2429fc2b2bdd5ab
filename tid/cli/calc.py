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
def calc_command(name: str, file: str) -> None:
    """Run calculator NAME on the JSON document in FILE (or standard input)."""
    from tid import config
    from tid.rules import calculators

    config.apply_rules_settings(config.rules_settings())
    try:
        result = calculators.run(name, read_json(file))
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
