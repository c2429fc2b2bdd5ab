"""The calculators' registry and their machine interface (docs/calculators.md): one JSON document
in, one out.

Each calculator is one module of this package (its :class:`~tid.rules.calculators.kit.
Calculator`: its rule's entry point, its form, its labels and its chart), listed in
:data:`MODULES` in the order a person meets them. Its rule is a pure function ``document ->
result document`` living beside the rule it serves: it parses its input strictly (raising
:class:`~tid.rules.errors.InputError` that names the field), and returns a JSON-ready
``dict`` (amounts as strings) that always carries ``warnings`` and ``trace``, and
``warnings_es``: the same warnings in Spanish, line for line. The web form, the JSON API,
``tid calc`` and the documents all read :data:`CALCULATORS` and go through :func:`run`, so
they cannot drift apart.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any

from tid.rules.calculators import (
    deadlines,
    equalization,
    excise_allocation,
    impost,
    liens,
    room_tax,
    room_tax_distribution,
)
from tid.rules.calculators.inputs import FormSpec
from tid.rules.calculators.json_input import DocumentError, load_json
from tid.rules.calculators.kit import SHARED_LABELS, Calculator
from tid.rules.errors import InputError
from tid.rules.limits import check_document
from tid.rules.messages import N_, Message

__all__ = [
    "CALCULATORS",
    "FORMS",
    "MODULES",
    "Calculator",
    "DocumentError",
    "available",
    "citations",
    "get",
    "labels",
    "load_json",
    "registry",
    "run",
]

Document = Mapping[str, Any]
Rule = Callable[[Document], dict[str, Any]]

# The calculators' modules, in the order the calculators are listed to a person.
MODULES = (
    room_tax,
    room_tax_distribution,
    excise_allocation,
    equalization,
    liens,
    deadlines,
    impost,
)


def registry(modules: Iterable[ModuleType]) -> dict[str, Calculator]:
    """Each module's calculator (its ``CALCULATOR``) by its name, in the modules' order."""
    found: dict[str, Calculator] = {}
    for module in modules:
        calculator: Calculator = module.CALCULATOR
        found[calculator.name] = calculator
    return found


# name -> calculator; its rule's module is imported on first use, so none loads at import.
CALCULATORS: dict[str, Calculator] = registry(MODULES)


class _Forms(Mapping[str, FormSpec]):
    """Each calculator's form by its name, read from :data:`CALCULATORS` when asked."""

    def __getitem__(self, name: str) -> FormSpec:
        return CALCULATORS[name].form

    def __iter__(self) -> Iterator[str]:
        return iter(CALCULATORS)

    def __len__(self) -> int:
        return len(CALCULATORS)


FORMS: Mapping[str, FormSpec] = _Forms()


def get(name: str) -> Rule:
    """The rule of calculator ``name``; an unknown name is an :class:`InputError`."""
    try:
        target = CALCULATORS[name].rule
    except KeyError:
        known = ", ".join(sorted(CALCULATORS))
        raise InputError(
            "name",
            Message(
                N_("unknown calculator %(name)s; known: %(known)s"), name=repr(name), known=known
            ),
        ) from None
    module_name, func_name = target.split(":")
    module = importlib.import_module(module_name)
    func: Rule = getattr(module, func_name)
    return func


def run(name: str, document: object) -> dict[str, Any]:
    """Run calculator ``name`` on a parsed JSON document (refused at once, naming the bound,
    when it is larger than any real case: :mod:`tid.rules.limits`)."""
    if not isinstance(document, Mapping):
        raise InputError("", N_("the input must be a JSON object"))
    calculator = get(name)
    check_document(document)
    return calculator(document)


def available(name: str) -> bool:
    """Whether calculator ``name`` is registered and its rule's module is in place."""
    if name not in CALCULATORS:
        return False
    try:
        get(name)
    except (ImportError, AttributeError):
        return False
    return True


def reading(area: str) -> tuple[str, ...]:
    """The calculators whose rules read the parameters of ``tid/rules/params/<area>.toml``."""
    return tuple(name for name, c in CALCULATORS.items() if area in c.reads)


_LABELS: dict[tuple[int, ...], dict[str, str]] = {}


def labels() -> dict[str, str]:
    """The label (a msgid) of every field of the calculators' documents, in and out: those
    every result shares and each calculator's (gathered once for the registry as it is)."""
    key = tuple(id(calculator) for calculator in CALCULATORS.values())
    found = _LABELS.get(key)
    if found is None:
        found = dict(SHARED_LABELS)
        for calculator in CALCULATORS.values():
            found.update(calculator.labels)
        _LABELS.clear()
        _LABELS[key] = found
    return found


def citations(result: Mapping[str, Any]) -> list[str]:
    """The distinct citations of a result's trace, in order of first use."""
    seen: list[str] = []
    for step in result.get("trace") or []:
        citation = step.get("citation") if isinstance(step, Mapping) else None
        if citation and citation not in seen:
            seen.append(str(citation))
    return seen
