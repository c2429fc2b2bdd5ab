"""The formula's named parameters, as the association gives them for a run."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from tid.rules.errors import N_, InputError
from tid.rules.imposts import Value
from tid.rules.money import parse_decimal

MAX_PARAMETERS = 40


def parse_parameters(value: Mapping[str, Any] | str | None) -> dict[str, Value]:
    """The formula's named parameters: a mapping, or text with one ``name = value`` a line.
    A value that reads as a number is a number (``"1,250,000.00"``); any other is text."""
    if value is None:
        return {}
    raw: dict[str, Any] = {}
    if isinstance(value, str):
        for number, line in enumerate(value.splitlines(), start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            name, sep, rest = text.partition("=")
            if not sep:
                raise InputError(
                    f"parameters[{number}]", N_("Write each parameter as name = value.")
                )
            raw[name.strip()] = rest.strip()
    else:
        raw = dict(value)
    if len(raw) > MAX_PARAMETERS:
        raise InputError("parameters", N_("Too many parameters."))
    result: dict[str, Value] = {}
    for name, item in raw.items():
        if not name.isidentifier() or not name.isascii():
            raise InputError(
                f"parameters.{name}",
                N_("A parameter's name is letters, digits and _ (like budget)."),
            )
        if isinstance(item, Decimal):
            result[name] = item
            continue
        text = str(item).strip()
        if not text:
            raise InputError(f"parameters.{name}", N_("Give the parameter a value."))
        try:
            result[name] = parse_decimal(text, f"parameters.{name}", allow_negative=True)
        except InputError:
            result[name] = text
    return result


def parameters_json(parameters: Mapping[str, Value]) -> str:
    return json.dumps({k: str(v) for k, v in sorted(parameters.items())}, sort_keys=True)
