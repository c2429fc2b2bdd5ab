""":func:`evaluate`: a compiled formula over the properties, each property's amount rounded
to cents half-up, with its explanation written only when read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, Overflow, localcontext
from typing import Any, NamedTuple

from tid.rules import readings
from tid.rules.errors import InputError, field_error
from tid.rules.imposts.apportionment import apportion, apportioned_attribute
from tid.rules.imposts.compiler import CONTEXT, MAX_AMOUNT, Compiler, EvalError, Value
from tid.rules.imposts.explanations import compose_text, fmt_number, label_of, money_text
from tid.rules.imposts.language import CITATION
from tid.rules.imposts.tree import NUM, Formula
from tid.rules.limits import checkpoint
from tid.rules.messages import N_, Message, render
from tid.rules.money import CENT, ZERO, money_str, round_cents
from tid.rules.trace import TraceStep


class PropertyImpost(NamedTuple):
    """One property's yearly impost (immutable): the amount (cents) and how it was reached.

    The explanation is written when read, so that billing many properties does not pay for
    sentences nobody reads (a named tuple, too, because it is made 100,000 times in a run).
    """

    id: str
    amount: Decimal
    exact: Decimal  # the formula's value before rounding to cents
    source: _Explainer  # shared by every line of one evaluation
    position: int  # the property's place in the list evaluated

    @property
    def explanation(self) -> str:
        """How the amount was computed: a message (as a ``str``, its English), said in any
        language with :func:`tid.rules.messages.render`."""
        return self.source.explain(self.position, self.exact, self.amount)

    @property
    def explanation_es(self) -> str:
        """The same explanation in Spanish (the notices speak Spanish first)."""
        return render(self.explanation, "es")


@dataclass(frozen=True, eq=False, repr=False)
class _Explainer:
    """What the explanations of one evaluation need: the compiled formula and the inputs."""

    def __repr__(self) -> str:
        return f"<explanations of {self.formula.text!r}>"

    compiler: Compiler
    formula: Formula
    properties: Sequence[Mapping[str, Any]]
    budget: Decimal | None

    def explain(self, index: int, exact: Decimal, amount: Decimal) -> str:
        return _explanation(
            self.compiler, self.formula, self.properties[index], exact, amount, self.budget
        )


@dataclass(frozen=True)
class ImpostResult:
    formula: str
    properties: tuple[PropertyImpost, ...]
    total: Decimal
    apportioned: bool
    budget: Decimal | None  # the amount apportioned, when the formula is an apportionment
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def _property_ids(properties: Sequence[Mapping[str, Any]]) -> list[str]:
    ids: list[str] = []
    for i, p in enumerate(properties):
        try:
            raw = p.get("id")
        except AttributeError:
            raise field_error(f"properties[{i}]", Message(N_("not a property"))) from None
        if raw.__class__ is str:
            pid = raw.strip()
        elif raw.__class__ is int:
            pid = str(raw)
        else:
            pid = ""
        if not pid:
            raise field_error(f"properties[{i}].id", Message(N_("every property needs an id")))
        ids.append(pid)
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        for i, pid in enumerate(ids):
            if pid in seen:
                raise field_error(
                    f"properties[{i}].id", Message(N_("%(id)s is used twice"), id=repr(pid))
                )
            seen.add(pid)
    return ids


def evaluate(
    formula: Formula,
    properties: Sequence[Mapping[str, Any]],
    parameters: Mapping[str, Value] | None = None,
) -> ImpostResult:
    """21 LPRA § 6653(3)(d): the yearly impost of each property by the ordinance's formula.

    Each property is a mapping with an ``id`` and its attributes (``Decimal`` numbers or text).
    Amounts are rounded to cents half-up; an apportionment ``X * A / sum(A)`` is split by
    the largest-remainder method so that its shares add up to ``X`` to the cent.
    """
    params: Mapping[str, Value] = parameters or {}
    ids = _property_ids(properties)
    _check_parameters(formula, properties, params, ids)
    compiler = Compiler(formula, params)
    warnings: list[str] = []
    trace = _parameter_steps(formula, params)
    with localcontext(CONTEXT):
        try:
            compiler.compute_aggregates(properties, ids)
        except (InvalidOperation, Overflow):
            raise field_error("formula", Message("a total is too large to compute")) from None
        for node in formula.aggregates:
            trace.append(
                TraceStep(
                    formula.source(node),
                    fmt_number(compiler.aggregates[id(node)]),
                    f"{CITATION}; over all {len(properties)} properties",
                )
            )
        exacts = _exact_amounts(compiler, properties, ids)
        attribute = apportioned_attribute(formula, params) if properties else None
        budget: Decimal | None = None
        if attribute is not None:
            amounts, budget = apportion(formula, compiler, properties, attribute, warnings)
            trace.append(
                TraceStep(
                    Message(
                        "apportionment of %(budget)s in proportion to %(attribute)s",
                        budget=money_text(budget),
                        attribute=label_of(attribute),
                    ),
                    "largest remainder",
                    readings.cite("splits-to-the-cent"),
                )
            )
        else:
            amounts = [v.quantize(CENT, rounding=ROUND_HALF_UP) for v in exacts]
            trace.append(
                TraceStep(
                    Message("each amount"),
                    Message("rounded to cents half-up"),
                    readings.cite("splits-to-the-cent"),
                )
            )
        source = _Explainer(compiler, formula, properties, budget)
        lines = [
            PropertyImpost(pid, amount, exact, source, i)
            for i, (pid, amount, exact) in enumerate(zip(ids, amounts, exacts, strict=True))
        ]
    total = sum(amounts, ZERO)
    trace.append(TraceStep(Message("total"), money_str(total), CITATION))
    return ImpostResult(
        formula=formula.text,
        properties=tuple(lines),
        total=total,
        apportioned=attribute is not None,
        budget=budget,
        warnings=tuple(warnings),
        trace=tuple(trace),
    )


def _check_parameters(
    formula: Formula,
    properties: Sequence[Mapping[str, Any]],
    params: Mapping[str, Value],
    ids: Sequence[str],
) -> None:
    """A name of the formula is a parameter or an attribute of the properties, not both."""
    for name in formula.names:
        if name in params:
            for i, p in enumerate(properties):
                if name in p:
                    raise InputError(
                        f"properties[{i}].{name}",
                        Message(
                            "property %(property)s: %(name)s is both a parameter and an attribute",
                            property=ids[i],
                            name=repr(name),
                        ),
                    )


def _parameter_steps(formula: Formula, params: Mapping[str, Value]) -> list[TraceStep]:
    """The trace's first steps: the formula, then each parameter it uses."""
    trace = [TraceStep(Message("formula"), formula.text, CITATION)]
    for name in formula.names:
        if name in params:
            value = params[name]
            shown = fmt_number(value) if isinstance(value, Decimal) else repr(value)
            trace.append(
                TraceStep(
                    Message(
                        "parameter %(name)s",
                        name=name,
                    ),
                    shown,
                    N_("the ordinance"),
                )
            )
    return trace


def _exact_amounts(
    compiler: Compiler, properties: Sequence[Mapping[str, Any]], ids: Sequence[str]
) -> list[Decimal]:
    """The formula's value for each property, before rounding: an amount, not negative and
    not too large (run inside the evaluation's decimal context)."""
    fn = compiler.build(compiler.formula.tree, NUM)
    exacts: list[Decimal] = []
    for i, p in enumerate(properties):
        checkpoint()
        try:
            value = fn(p)
        except EvalError as err:
            raise compiler.error(err, i, ids[i]) from None
        except (InvalidOperation, Overflow):
            raise InputError(
                f"properties[{i}]",
                Message(
                    "property %(property)s: the amount is too large to compute", property=ids[i]
                ),
            ) from None
        if value.__class__ is not Decimal:
            raise InputError(
                f"properties[{i}]",
                Message(
                    "property %(property)s: the formula gives %(value)s, not an amount",
                    property=ids[i],
                    value=repr(value),
                ),
            )
        if value < 0:
            raise InputError(
                f"properties[{i}]",
                Message(
                    "property %(property)s: the formula gives a negative amount (%(amount)s); "
                    "an impost cannot be negative (use max(0, ...) if that is the intent)",
                    property=ids[i],
                    amount=fmt_number(value),
                ),
            )
        if value >= MAX_AMOUNT:
            raise InputError(
                f"properties[{i}]",
                Message(
                    "property %(property)s: the formula gives %(value)s, too large for an amount",
                    property=ids[i],
                    value=f"{value:E}",
                ),
            )
        exacts.append(value)
    return exacts


def _explanation(
    compiler: Compiler,
    formula: Formula,
    p: Mapping[str, Any],
    exact: Decimal,
    amount: Decimal,
    budget: Decimal | None,
) -> str:
    body, _ = compiler.explain(formula.tree, p)
    text = compose_text("%(body)s = %(amount)s", body=body, amount=money_text(amount))
    if budget is not None:
        if amount != round_cents(exact):
            return Message(
                "%(computed)s (a largest-remainder share of %(budget)s)",
                computed=text,
                budget=money_text(budget),
            )
    elif amount != exact:
        return Message("%(computed)s (rounded to cents)", computed=text)
    return text
