"""The calculators' machine interface (CALCULATORS.md): one JSON document in, one out.

Each calculator is a pure function ``document -> result document`` living beside the rule
it serves. It parses its input strictly (raising :class:`~tid.rules.errors.InputError` that
names the field), calls the rule, and returns a JSON-ready ``dict`` (amounts as strings)
that always carries ``warnings`` and ``trace``, and ``warnings_es``: the same warnings in
Spanish, line for line. The web form, the JSON API and ``tid calc`` all go through
:func:`run`, so they cannot drift apart.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from tid.rules.errors import InputError
from tid.rules.limits import check_document

Document = Mapping[str, Any]
Calculator = Callable[[Document], dict[str, Any]]

# name -> "module:function"; imported on first use so that no rule module loads at import.
CALCULATORS: dict[str, str] = {
    "room-tax": "tid.rules.room_tax:room_tax_document",
    "room-tax-distribution": "tid.rules.distribution:distribution_document",
    "excise-allocation": "tid.rules.excise:excise_document",
    "equalization": "tid.rules.equalization:equalization_document",
    "liens": "tid.rules.liens:liens_document",
    "deadlines": "tid.rules.calendar:deadlines_document",
    "impost": "tid.rules.imposts:impost_document",
}


def get(name: str) -> Calculator:
    """The calculator called ``name``; an unknown name is an :class:`InputError`."""
    try:
        target = CALCULATORS[name]
    except KeyError:
        known = ", ".join(sorted(CALCULATORS))
        raise InputError("name", f"unknown calculator {name!r}; known: {known}") from None
    module_name, func_name = target.split(":")
    module = importlib.import_module(module_name)
    func: Calculator = getattr(module, func_name)
    return func


def run(name: str, document: object) -> dict[str, Any]:
    """Run calculator ``name`` on a parsed JSON document (refused at once, naming the bound,
    when it is larger than any real case: :mod:`tid.rules.limits`)."""
    if not isinstance(document, Mapping):
        raise InputError("", "the input must be a JSON object")
    calculator = get(name)
    check_document(document)
    return calculator(document)
