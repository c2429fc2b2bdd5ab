"""Apportionment. A formula of the shape ``X * attr / sum(attr)`` (``X`` the same for every
property, e.g. a budget) apportions ``X``: its shares are rounded by the largest-remainder
method so that they add up to ``X`` to the cent (/readings#splits-to-the-cent).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from decimal import Decimal
from typing import Any

from tid.rules.errors import InputError, field_error
from tid.rules.imposts.compiler import MAX_AMOUNT, Compiler
from tid.rules.imposts.explanations import fmt_number, label_of, money_text
from tid.rules.imposts.tree import NUM, Arith, Call, Formula, Name, Node
from tid.rules.messages import Message
from tid.rules.money import ZERO, allocate, round_cents
from tid.rules.vocab.formula_names import formula_name


def _product_factors(node: Node, inverted: bool, out: list[tuple[Node, bool]]) -> None:
    """The factors of a top-level product/quotient, each marked as divisor or not."""
    if isinstance(node, Arith) and node.rest[0].op in "*/":
        _product_factors(node.first, inverted, out)
        for operation in node.rest:
            _product_factors(
                operation.operand, inverted if operation.op == "*" else not inverted, out
            )
    else:
        out.append((node, inverted))


def apportioned_attribute(formula: Formula, parameters: Collection[str]) -> str | None:
    """The attribute ``A`` when the formula is ``X * A / sum(A)`` (in any order of factors,
    ``X`` the same for every property): the formula apportions ``X`` in proportion to ``A``."""
    factors: list[tuple[Node, bool]] = []
    _product_factors(formula.tree, False, factors)
    divisors = [f for f, inverted in factors if inverted]
    if len(divisors) != 1:
        return None
    divisor = divisors[0]
    if not (
        isinstance(divisor, Call)
        and divisor.func == "sum"
        and isinstance(divisor.args[0], Name)
        and divisor.args[0].name not in parameters
    ):
        return None
    attribute = divisor.args[0].name
    weights = [f for f, inverted in factors if not inverted and _is_name(f, attribute)]
    others = [f for f, inverted in factors if not inverted and not _is_name(f, attribute)]
    if len(weights) != 1:
        return None
    constant = Compiler(formula, dict.fromkeys(parameters, ZERO))
    if any(constant.depends(f) for f in others):
        return None
    return attribute


def _is_name(node: Node, name: str) -> bool:
    return isinstance(node, Name) and node.name == name


def apportion(
    formula: Formula,
    compiler: Compiler,
    properties: Sequence[Mapping[str, Any]],
    attribute: str,
    warnings: list[str],
) -> tuple[list[Decimal], Decimal]:
    factors: list[tuple[Node, bool]] = []
    _product_factors(formula.tree, False, factors)
    budget = Decimal(1)
    for node, inverted in factors:
        if not inverted and not _is_name(node, attribute):
            budget *= compiler.build(node, NUM)({})
    weight = compiler.attribute(attribute)
    weights = [weight(p) for p in properties]
    for i, w in enumerate(weights):
        if w < 0:
            raise InputError(
                f"properties[{i}].{attribute}",
                Message(
                    "property %(property)s: %(name)s is negative (%(amount)s); a share of the "
                    "apportioned amount cannot be",
                    property=properties[i].get("id"),
                    name=formula_name(attribute),
                    amount=fmt_number(w),
                ),
            )
    if not 0 <= budget < MAX_AMOUNT:
        raise field_error(
            "formula",
            Message("the amount apportioned (%(amount)s) is not usable", amount=f"{budget:E}"),
        )
    rounded = round_cents(budget)
    if rounded != budget:
        warnings.append(
            Message(
                "The amount apportioned, %(budget)s, is not whole cents: %(rounded)s is "
                "apportioned (rounded half-up).",
                budget=budget,
                rounded=money_text(rounded),
            )
        )
    warnings.append(
        Message(
            "The formula apportions %(rounded)s in proportion to %(attribute)s: each share "
            "is rounded to cents by the largest-remainder method so that the shares add up "
            "to %(rounded)s exactly; a share may differ by a cent from its own rounding.",
            rounded=money_text(rounded),
            attribute=label_of(attribute),
        )
    )
    return allocate(rounded, weights), rounded
