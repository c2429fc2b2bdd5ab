"""The ``impost`` calculator of docs/calculators.md: a document of (formula, properties,
parameters) in, each property's amount and explanation out.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from tid.rules.errors import InputError, field_error, field_names
from tid.rules.imposts.compiler import Value
from tid.rules.imposts.evaluation import evaluate
from tid.rules.imposts.language import compile_formula
from tid.rules.limits import check_impost_work, checkpoint
from tid.rules.messages import Message, render, render_all
from tid.rules.money import money_str, parse_decimal


def _document_value(value: object, field: str) -> Value:
    """A number written as text becomes a Decimal; other text stays text (e.g. "hotel")."""
    if isinstance(value, bool | float | int):
        raise field_error(field, Message('write the value as text ("1234.50"), not as a number'))
    if isinstance(value, str):
        try:
            number = parse_decimal(value, field, allow_negative=True)
        except InputError:
            return value
        # "120" is the whole number 120 (not 120.0): it reads back as written.
        return number if "." in value else number.quantize(Decimal(1))
    raise field_error(field, Message("expected a number or text"))


IMPOST_DOCUMENT_FIELDS = ("formula", "properties", "parameters")


def impost_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """docs/calculators.md `impost`: each property's yearly impost by the ordinance's formula
    (21 LPRA § 6653(3)(d)).

    An unknown field of the document is refused (a property's attributes are open: any
    column of the roll may be one)."""
    for key in document:
        if key not in IMPOST_DOCUMENT_FIELDS:
            raise field_error(
                str(key),
                Message(
                    "unknown field; the fields here are %(fields)s",
                    fields=field_names(IMPOST_DOCUMENT_FIELDS),
                ),
            )
    raw_params = document.get("parameters") or {}
    if not isinstance(raw_params, Mapping):
        raise field_error("parameters", Message("give the parameters as {name: value}"))
    parameters = {str(k): _document_value(v, f"parameters.{k}") for k, v in raw_params.items()}
    text = document.get("formula")
    if not isinstance(text, str):
        raise field_error("formula", Message("write the formula of the impost as text"))
    formula = compile_formula(text, parameters=parameters)
    raw_props = document.get("properties")
    if not isinstance(raw_props, list) or not raw_props:
        raise field_error("properties", Message("give the list of properties, each with an id"))
    check_impost_work(len(raw_props), formula.size)
    properties: list[dict[str, Any]] = []
    for i, item in enumerate(raw_props):
        if not isinstance(item, Mapping):
            raise field_error(f"properties[{i}]", Message("each property is an object"))
        prop: dict[str, Any] = {"id": item.get("id")}
        for key, value in item.items():
            if key != "id":
                prop[str(key)] = _document_value(value, f"properties[{i}].{key}")
        properties.append(prop)
    result = evaluate(formula, properties, parameters)
    lines = []
    for line in result.properties:
        checkpoint()
        explanation = line.explanation  # built once, said in both languages
        lines.append(
            {
                "id": line.id,
                "amount": money_str(line.amount),
                # The message itself: a str equal to its English (the JSON's), which a page
                # renders in its reader's language.
                "explanation": explanation,
                "explanation_es": render(explanation, "es"),
            }
        )
    return {
        "properties": lines,
        "total": money_str(result.total),
        "apportioned": result.apportioned,
        **({"budget": money_str(result.budget)} if result.budget is not None else {}),
        "parameters_used": list(formula.parameters),
        "attributes_used": list(formula.attributes),
        "warnings": list(result.warnings),
        "warnings_es": render_all(result.warnings, "es"),
        "trace": [t.as_json() for t in result.trace],
    }
