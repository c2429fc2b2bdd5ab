"""A calculator run under the law in force and under a reform, and the difference, line by
line (docs/calculators.md, "Trying a reform").

A request carries its reform beside the document (``"reform": {…}`` or a saved reform's id):
:func:`split_reform` takes it out, so that a request without one is the calculator's as
always. :func:`compare` answers ``{"reform", "under_law", "under_reform", "differences"}``;
each trace step of both results says which value it used (``"source": "law"`` or
``"reform"``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from tid.rules import calculators, params
from tid.rules.errors import InputError
from tid.rules.messages import render_all
from tid.rules.reform import Reform, Resolver, describe, parse_reform, reforms_in

_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_SKIPPED = frozenset({"trace", "warnings", "warnings_es"})
_ROW_KEYS = ("name", "id", "month", "recipient")


def split_reform(body: object) -> tuple[object, object | None]:
    """The document without its ``reform``, and the reform (None: none given)."""
    if isinstance(body, Mapping) and "reform" in body:
        document = {k: v for k, v in body.items() if k != "reform"}
        return document, body["reform"]
    return body, None


def run_request(name: str, body: object, *, resolve: Resolver | None = None) -> dict[str, Any]:
    """A calculator's request as the API and ``tid calc`` take it: the law's result alone, or,
    with a reform beside the document, :func:`compare`'s."""
    document, raw = split_reform(body)
    if raw is None:
        return calculators.run(name, document)
    return compare(name, document, parse_reform(raw, resolve=resolve))


def run_under(name: str, document: object, reform: Reform | None) -> dict[str, Any]:
    """A calculator's result under ``reform`` (None: the law), each trace step marked."""
    overlay = reform.overlay() if reform is not None else None
    with params.overlaid(overlay), params.noting() as notes:
        result = calculators.run(name, document)
    if notes:
        # The changes dated inside a period that does not use them (reading reform-periods).
        result["warnings"] = [*result.get("warnings", []), *notes]
        result["warnings_es"] = [*result.get("warnings_es", []), *render_all(notes, "es")]
    marks = overlay.citations if overlay is not None else frozenset()
    for step in result.get("trace") or []:
        if isinstance(step, dict):
            cited = str(step.get("citation") or "")
            step["source"] = "reform" if any(m in cited for m in marks) else "law"
    return result


def compare(name: str, document: object, reform: Reform) -> dict[str, Any]:
    """Both results and their difference, line by line."""
    law = run_under(name, document, None)
    try:
        reformed = run_under(name, document, reform)
    except InputError as exc:
        raise InputError(exc.field, exc.message) from None
    return {
        "reform": reform_summary(reform),
        "under_law": law,
        "under_reform": reformed,
        "differences": differences(law, reformed),
    }


def reform_summary(reform: Reform) -> dict[str, Any]:
    """The reform as applied: its stack and every change with the law's value that day."""
    return {
        "title": reform.title,
        "description": reform.description,
        "stack": reforms_in(reform.stack),
        "changes": [
            {
                "parameter": line.parameter,
                "description": line.description,
                "from": line.start.isoformat(),
                "law": line.law,
                "value": line.reform,
            }
            for line in describe(reform)
        ],
    }


def _leaves(value: Any, path: str, rows: tuple[str, ...]) -> Iterator[tuple[str, str, Any]]:
    """Each leaf of a result: its path, the rows it sits in (a month, a municipality's
    name; else the row's number) and its value."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if path == "" and key in _SKIPPED:
                continue
            yield from _leaves(item, f"{path}.{key}" if path else str(key), rows)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            tag = next(
                (str(item[k]) for k in _ROW_KEYS if isinstance(item, Mapping) and k in item),
                str(i + 1),
            )
            yield from _leaves(item, f"{path}[{i}]", (*rows, tag))
    else:
        yield path, " · ".join(rows), value


def differences(law: Mapping[str, Any], reformed: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every line of the two results (amounts, rates, flags) with the reform's difference:
    ``{field, row, law, reform, difference, changed}`` (``row``: the month or the name of
    the row the line is in; ``difference`` for numbers only)."""
    law_lines = {path: (row, value) for path, row, value in _leaves(law, "", ())}
    lines: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path, row, value in _leaves(reformed, "", ()):
        seen.add(path)
        before = law_lines.get(path, (row, None))[1]
        lines.append(_line(path, row, before, value))
    for path, (row, value) in law_lines.items():
        if path not in seen:
            lines.append(_line(path, row, value, None))
    return lines


def _line(path: str, row: str, before: Any, after: Any) -> dict[str, Any]:
    difference = None
    if _is_number(before) and _is_number(after):
        difference = str(Decimal(str(after)) - Decimal(str(before)))
    return {
        "field": path,
        "row": row,
        "law": before,
        "reform": after,
        "difference": difference,
        "changed": before != after,
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, str) and bool(_NUMBER.match(value))
