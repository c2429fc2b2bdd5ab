"""The owner's estimate (21 LPRA § 6653(3)(d)): the district's formula applied to what an
owner types — the roll's columns it reads, said in words — computing the impost with its
explanation, as the bill would (the same formula, parameters and rules of
:mod:`tid.rules.imposts` the billing run uses). Nothing about any real property is read or
shown: the inputs are the visitor's alone, and nothing is kept."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tid.models import District, PropertyYear
from tid.rules.errors import Finding, FindingsError, InputError
from tid.rules.imposts import apportioned_attribute, compile_formula, evaluate
from tid.rules.imposts.tree import Formula
from tid.rules.messages import N_, Message
from tid.rules.money import CENT, ZERO, parse_decimal, parse_money
from tid.rules.vocab import formula_name_label
from tid.rules.vocab.roll_columns import COUNT, MONEY, QUANTITY, ROLL_COLUMNS, TEXT
from tid.services.billing.parameters import parse_parameters
from tid.services.public import district_figures
from tid.services.public.declared import public_view

ESTIMATE_ID = "estimate"


@dataclass(frozen=True)
class Input:
    """One field of the estimate: a name of the formula (a roll's column, or an extra numeric
    column of the district's roll), said in words, of a kind, with the values the formula
    compares it with (a text column)."""

    name: str
    label: str  # a message
    kind: str  # money, quantity, count, text
    choices: tuple[str, ...] = ()

    @property
    def options(self) -> tuple[tuple[str, str], ...]:
        """The choices as a select offers them: (value, text), each as the roll writes it."""
        return tuple((c, c) for c in self.choices)


@dataclass(frozen=True)
class EstimateForm:
    district: dict[str, Any]
    ordinance: dict[str, Any] | None
    inputs: tuple[Input, ...]
    apportioned: bool  # the formula splits a budget over the whole roll: no estimate alone


@dataclass(frozen=True)
class Estimate:
    amount: Decimal
    explanation: str  # a message: how it was computed, as the bill says it
    warnings: tuple[str, ...]


def _setup(
    session: Session, district_id: int
) -> tuple[District, dict[str, Any] | None, Formula | None, dict[str, Any]] | None:
    district = session.get(District, district_id)
    if district is None:
        return None
    ordinance = district_figures.ordinance_in_force(session=session, district_id=district_id)
    if ordinance is None:
        return district, None, None, {}
    run = district_figures.active_run_parameters(session=session, district_id=district_id)
    params: dict[str, Any] = dict(parse_parameters(run))
    params.setdefault("expected_amount", ordinance.expected_amount)
    try:
        formula = compile_formula(ordinance.formula, parameters=list(params))
    except InputError:
        formula = None
    return district, public_view("ordinance", ordinance), formula, params


def _roll_values(session: Session, district_id: int, name: str) -> tuple[str, ...]:
    """The values the district's roll (its latest fiscal year) writes in the text column
    ``name`` (a class of use: ``residencial``, ``comercial``), in order; none for a column
    that is not a property's year's."""
    column = getattr(PropertyYear, name, None)
    if column is None:
        return ()
    latest = session.exec(
        select(PropertyYear.fiscal_year)
        .where(PropertyYear.district_id == district_id)
        .order_by(col(PropertyYear.fiscal_year).desc())
        .limit(1)
    ).first()
    if latest is None:
        return ()
    found = session.exec(
        select(column)
        .where(PropertyYear.district_id == district_id, PropertyYear.fiscal_year == latest)
        .distinct()
    ).all()
    return tuple(sorted(str(v).strip() for v in found if v is not None and str(v).strip()))


def _inputs(formula: Formula, session: Session, district_id: int) -> tuple[Input, ...]:
    """The formula's fields; a text column's choices are the values the roll writes in it
    (the formula's own words where the roll has none)."""
    literals = tuple(dict.fromkeys(re.findall(r'"([^"]*)"', formula.text)))
    found = []
    for name in dict.fromkeys(formula.attributes):
        column = ROLL_COLUMNS.get(name)
        kind = column.kind if column is not None else QUANTITY
        label = formula_name_label(name) or name.replace("_", " ")
        choices: tuple[str, ...] = ()
        if kind == TEXT:
            choices = _roll_values(session, district_id, name) or literals
        found.append(Input(name, label, kind, choices))
    return tuple(found)


def estimate_form(*, session: Session, district_id: int) -> EstimateForm | None:
    """The estimate's fields for the district (None: there is no such district)."""
    found = _setup(session, district_id)
    if found is None:
        return None
    district, ordinance, formula, params = found
    return EstimateForm(
        district=public_view("district", district),
        ordinance=ordinance,
        inputs=_inputs(formula, session, district_id) if formula is not None else (),
        apportioned=formula is not None
        and apportioned_attribute(formula, list(params)) is not None,
    )


# What a field needs, said when its value is not one.
NEEDS = {
    MONEY: N_("Write the amount in dollars, like 250,000.00."),
    COUNT: N_("Write a whole number, like 12 (empty: none)."),
    QUANTITY: N_("Write a number, like 1,250.5."),
}


def _value(item: Input, raw: str) -> object:
    """The typed value as the billing reads the roll's cell: money to the cent, a count a
    whole number (empty: none), a quantity a number, text as written."""
    text = raw.strip()
    if item.kind == TEXT:
        if item.choices and text not in item.choices:
            raise InputError(item.name, N_("Choose one of the options."))
        return text[:200]
    if item.kind == COUNT and not text:
        return ZERO
    try:
        number = (parse_money if item.kind == MONEY else parse_decimal)(text, item.name)
    except InputError:
        raise InputError(item.name, NEEDS.get(item.kind, NEEDS[QUANTITY])) from None
    if item.kind == MONEY:
        return number.quantize(CENT)
    if item.kind == COUNT:
        if number != number.to_integral_value():
            raise InputError(item.name, NEEDS[COUNT])
        return Decimal(int(number))
    return number


def estimate(*, session: Session, district_id: int, values: Mapping[str, str]) -> Estimate | None:
    """The impost the district's formula gives for ``values`` (by the formula's names), with
    its explanation; None when the district has no formula to estimate with. Raises
    :class:`FindingsError` naming every bad field."""
    found = _setup(session, district_id)
    if found is None or found[2] is None:
        return None
    _district, _ordinance, formula, params = found
    assert formula is not None
    item: dict[str, object] = {"id": ESTIMATE_ID}
    findings = []
    for field in _inputs(formula, session, district_id):
        try:
            item[field.name] = _value(field, values.get(field.name, ""))
        except InputError as exc:
            findings.append(Finding(exc.field, exc.message))
    if findings:
        raise FindingsError(findings)
    result = evaluate(formula, [item], params)
    line = result.properties[0]
    return Estimate(
        amount=line.amount,
        explanation=line.explanation,
        warnings=tuple(Message(w) for w in result.warnings),
    )
