"""The amounts of a run: the ordinance's formula (§ 6653(3)(d)) compiled against the year's
roll and applied to every property, each bill's explanation, and the run's fingerprint."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlmodel import Session

from tid.models import Ordinance, Property, Quantity
from tid.rules import messages, periods
from tid.rules.errors import N_, InputError
from tid.rules.imposts import PropertyImpost, Value, compile_formula, evaluate
from tid.rules.messages import Message
from tid.rules.money import ZERO, to_cents
from tid.rules.vocab.roll_columns import (
    COUNT,
    MONEY,
    QUANTITY,
    ROLL_COLUMNS,
    TEXT,
    formula_columns,
)
from tid.services.roll import attribute_names
from tid.services.roll_check import gate as roll_gate

if TYPE_CHECKING:
    from tid.rules.imposts.evaluation import ImpostResult
    from tid.rules.imposts.tree import Formula
from tid.services.billing.bulk_tables import _YEAR_ROWS
from tid.services.billing.parameters import parameters_json, parse_parameters

CITATION_FORMULA = "21 LPRA § 6653(3)(d)"
CITATION_EXPECTED = "21 LPRA § 6653(3)(b)"


ORDINANCE_AMOUNT_PARAMETER = "expected_amount"


def _roll_properties(
    session: Session, district_id: int, fiscal_year: str, used: Collection[str]
) -> tuple[list[dict[str, Any]], list[tuple[int, int]]]:
    """The year's roll as the formula reads it (``id`` = cadastral number, and only the
    attributes ``used``) and, in the same order, each row's (property id, property-year id)."""
    year = _YEAR_ROWS
    prop = Property.__table__  # type: ignore[attr-defined]
    decimal = Decimal
    scale = Quantity.SCALE

    def money(cents: int) -> Decimal:
        return decimal(cents).scaleb(-2)

    def quantity(value: int | None) -> Decimal | None:
        return None if value is None else decimal(value) / scale

    def count(value: int | None) -> Decimal:
        # A property without lodging rooms has none: an empty cell is 0.
        return ZERO if value is None else decimal(value)

    def text(value: str) -> str:
        return value

    by_kind: dict[str, Callable[[Any], Any]] = {
        MONEY: money,
        QUANTITY: quantity,
        TEXT: text,
        COUNT: count,
    }
    converters = {code: by_kind[ROLL_COLUMNS[code].kind] for code in formula_columns()}
    standard = [name for name in converters if name in used]
    with_extras = any(name not in converters for name in used)
    columns = [prop.c.id, prop.c.cadastral_number, year.c.id]
    columns += [year.c[name] for name in standard]
    if with_extras:
        columns.append(year.c.attributes)
    stmt = (
        select(*columns)
        .select_from(year.join(prop, year.c.property_id == prop.c.id))
        .where(
            year.c.district_id == district_id,
            year.c.fiscal_year == fiscal_year,
            year.c.in_roll.is_(True),
        )
        .order_by(prop.c.cadastral_number)
    )
    plan = [(name, index, converters[name]) for index, name in enumerate(standard, start=3)]
    extras_at = len(columns) - 1
    properties: list[dict[str, Any]] = []
    ids: list[tuple[int, int]] = []
    loads = json.loads
    extras: dict[str, dict[str, Decimal]] = {}  # the same extra attributes, parsed once
    for row in session.execute(stmt):
        item: dict[str, Any] = {"id": row[1]}
        for name, index, convert in plan:
            value = convert(row[index])
            if value is not None:
                item[name] = value
        if with_extras:
            extra = row[extras_at]
            if extra and extra != "{}":
                parsed = extras.get(extra)
                if parsed is None:
                    parsed = extras[extra] = {k: decimal(v) for k, v in loads(extra).items()}
                item.update(parsed)
        properties.append(item)
        ids.append((row[0], row[2]))
    return properties, ids


def _explanations(
    lines: Sequence[PropertyImpost], keys: Sequence[Hashable]
) -> list[tuple[str, str | None, str | None]]:
    """Each bill's explanation: in English, in Spanish when the formula gives one, and as a
    message (JSON) that the pages say in their reader's language. Properties with the same
    values of the attributes the formula reads, the same amount and the same unrounded value
    have the same explanation: it is written once for them."""
    out: list[tuple[str, str | None, str | None]] = []
    seen: dict[Hashable, tuple[str, str | None, str | None]] = {}
    for line, key in zip(lines, keys, strict=True):
        texts = seen.get(key)
        if texts is None:
            explanation = line.explanation  # built once, said in both languages
            if isinstance(explanation, Message):
                texts = seen[key] = (
                    str(explanation),
                    messages.render(explanation, "es"),
                    messages.to_json(explanation),
                )
            else:
                texts = seen[key] = (explanation, getattr(line, "explanation_es", None), None)
        out.append(texts)
    return out


def _fingerprint(formula: str, parameters: str, lines: list[str]) -> str:
    digest = hashlib.sha256()
    digest.update(formula.encode())
    digest.update(b"\x00")
    digest.update(parameters.encode())
    for line in lines:
        digest.update(b"\x00")
        digest.update(line.encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class _Computed:
    """A run's bills as computed from the roll, before anything is written."""

    formula: Formula
    result: ImpostResult
    properties: list[dict[str, Any]]
    ids: list[tuple[int, int]]
    params_text: str
    amounts: list[int]
    keys: list[tuple[Decimal, str, tuple[str, ...]]]
    fingerprint: str


NO_ROLL = N_("There is no roll for this fiscal year: import the roll first.")


def _has_roll(session: Session, district_id: int, fy: str) -> bool:
    """Whether the district has a roll for the fiscal year."""
    return (
        session.execute(
            select(_YEAR_ROWS.c.id)
            .where(
                _YEAR_ROWS.c.district_id == district_id,
                _YEAR_ROWS.c.fiscal_year == fy,
                _YEAR_ROWS.c.in_roll.is_(True),
            )
            .limit(1)
        ).first()
        is not None
    )


def _checked_formula(
    session: Session, district_id: int, fy: str, ordinance: Ordinance, params: dict[str, Value]
) -> Formula:
    """The ordinance's formula compiled against the year's roll (§ 6653(3)(d)): refused,
    naming the field, when the year has no roll, the formula reads a column the roll lacks or
    a parameter is given that the formula does not use. ``params`` gains the ordinance's
    parameters (where the run gives none of that name) and its expected amount when the
    formula uses it."""
    if not _has_roll(session, district_id, fy):
        raise InputError("fiscal_year", NO_ROLL)
    # The ordinance's own parameters, unless the run gives another value.
    for name, value in parse_parameters(json.loads(ordinance.parameters or "{}")).items():
        params.setdefault(name, value)
    names = attribute_names(session=session, district_id=district_id, fiscal_year=fy)
    formula = compile_formula(
        ordinance.formula,
        parameters=[*params, ORDINANCE_AMOUNT_PARAMETER],
        attributes=names,
    )
    if (
        ORDINANCE_AMOUNT_PARAMETER in formula.parameters
        and ORDINANCE_AMOUNT_PARAMETER not in params
    ):
        params[ORDINANCE_AMOUNT_PARAMETER] = ordinance.expected_amount
    unused = sorted(set(params) - set(formula.parameters))
    if unused:
        raise InputError(
            f"parameters.{unused[0]}",
            Message("The formula does not use the parameter %(name)s.", name=unused[0]),
        )
    return formula


def _read_the_roll(
    session: Session, district_id: int, fy: str, ordinance: Ordinance, params: dict[str, Value]
) -> tuple[Formula, list[dict[str, Any]], list[tuple[int, int]]]:
    """The checked formula (:func:`_checked_formula`) and the roll's properties as it reads
    them."""
    formula = _checked_formula(session, district_id, fy, ordinance, params)
    properties, ids = _roll_properties(session, district_id, fy, formula.attributes)
    back = roll_gate.sent_back(session=session, district_id=district_id, fiscal_year=fy)
    if back:
        properties, ids = _without_sent_back(
            session, district_id, fy, formula, back, properties, ids
        )
    return formula, properties, ids


def _without_sent_back(
    session: Session,
    district_id: int,
    fy: str,
    formula: Formula,
    back: roll_gate.SentBack,
    properties: list[dict[str, Any]],
    ids: list[tuple[int, int]],
) -> tuple[list[dict[str, Any]], list[tuple[int, int]]]:
    """The roll as billing reads it once the year's check sent changes back
    (/readings#roll-yearly-check): their numbers out, and those billed at last year's figures
    at last year's row."""
    kept = [(p, i) for p, i in zip(properties, ids, strict=True) if p["id"] not in back.excluded]
    if back.last_year:
        last = periods.FiscalYear(periods.parse_fiscal_year(fy).start_year - 1).label
        then, then_ids = _roll_properties(session, district_id, last, formula.attributes)
        kept += [(p, i) for p, i in zip(then, then_ids, strict=True) if p["id"] in back.last_year]
        kept.sort(key=lambda pair: str(pair[0]["id"]))
    return [p for p, _ in kept], [i for _, i in kept]


def _compute(
    formula: Formula,
    properties: list[dict[str, Any]],
    ids: list[tuple[int, int]],
    params: dict[str, Value],
) -> _Computed:
    """Every property's bill by the formula, and the run's fingerprint."""
    result = evaluate(formula, properties, params)
    params_text = parameters_json(params)
    amounts = [to_cents(line.amount) for line in result.properties]
    # What each bill depends on: the values of the attributes the formula reads (as written,
    # so 1.0 and 1.00 differ), its amount and its unrounded value. The fingerprint is made
    # of these, so a rerun that changes nothing is known without writing any explanation.
    used = formula.attributes
    keys = [
        (line.amount, str(line.exact), tuple(str(p.get(name, "")) for name in used))
        for line, p in zip(result.properties, properties, strict=True)
    ]
    fingerprint = _fingerprint(
        formula.text,
        params_text,
        [
            f"{pid}|{yid}|{cents}|{key[1]}|{key[2]}"
            for (pid, yid), cents, key in zip(ids, amounts, keys, strict=True)
        ],
    )
    return _Computed(formula, result, properties, ids, params_text, amounts, keys, fingerprint)
