"""What a formula gives on a roll, in the figures a legislature weighs (21 LPRA § 6653(3)(b),
(d)): the total against the amount the ordinance expects and what would make them meet, the
impost by property class and by assessed-value band, the median and the largest payers, and,
against another formula, who pays more and who pays less, by how much and why.

Nothing here reads the database: the roll comes in as the formula reads it (the billing
run's reading, so that a study's amounts are a billing run's amounts to the cent), each
variant is evaluated once over it by the impost package (:func:`tid.rules.imposts.evaluate`),
and every split below is of integer cents, so that it adds up to its total exactly.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import cached_property
from typing import Any

from tid.rules.errors import InputError
from tid.rules.imposts import Value, compile_formula, evaluate
from tid.rules.imposts.compiler import CONTEXT
from tid.rules.imposts.evaluation import ImpostResult
from tid.rules.messages import N_, Message
from tid.rules.money import ZERO, from_cents, to_cents

EXPECTED = "expected_amount"  # the ordinance's amount, a parameter every formula may use
SHOWN = 10  # the largest payers, and the largest changes each way
# The assessed-value bands (in dollars): the lower bound of each.
BANDS = (0, 50_000, 100_000, 250_000, 500_000, 1_000_000)


@dataclass(frozen=True)
class Variant:
    """A formula to try: its name, its text and its named parameters."""

    name: str
    formula: str
    parameters: Mapping[str, Value]
    parameters_text: str = ""
    number: int = 0  # its place on the form (1…), when it comes from one


@dataclass(frozen=True)
class StudyRoll:
    """A roll as the formula reads it: each property a mapping with its ``id`` (the
    cadastral number) and attributes, and beside it, in the same order, its class and its
    assessed value (for the distributions) and its owners when known."""

    properties: Sequence[Mapping[str, Any]]
    classes: Sequence[str]
    assessed: Sequence[Decimal]
    attributes: Sequence[str]  # the names a formula may use on this roll
    owners: Mapping[str, str]  # cadastral number -> owners (a file's; a roll's are read later)

    @cached_property
    def bands(self) -> list[str]:
        """Each property's assessed-value band (worked out once for every variant)."""
        keys = [band_key(i) for i in range(len(BANDS))]
        return [keys[band_of(v)] for v in self.assessed]

    @cached_property
    def ids(self) -> list[str]:
        return [str(p["id"]) for p in self.properties]


@dataclass(frozen=True)
class Evaluated:
    """One variant on the roll: every property's amount (cents, in the roll's order)."""

    variant: Variant
    result: ImpostResult
    cents: list[int]
    total: int


@dataclass(frozen=True)
class Share:
    """A part of the roll (a class, a band): how many properties and what they pay."""

    key: str
    count: int
    total: int  # cents


@dataclass(frozen=True)
class Payer:
    position: int
    cadastral: str
    use_class: str
    assessed: Decimal
    cents: int


@dataclass(frozen=True)
class Summary:
    """A variant's figures: the total against the expected amount, the split by class and
    by value band (each adding up to the total), the median and the largest payers."""

    name: str
    formula: str
    parameters_text: str
    count: int
    total: int
    expected: int
    factor: Decimal | None  # expected ÷ total: the scale that makes them meet
    by_class: tuple[Share, ...]
    by_band: tuple[Share, ...]
    median: int
    largest: tuple[Payer, ...]
    apportioned: bool
    warnings: tuple[str, ...]

    @property
    def difference(self) -> int:
        return self.total - self.expected


@dataclass(frozen=True)
class Change:
    position: int
    cadastral: str
    use_class: str
    before: int
    after: int

    @property
    def difference(self) -> int:
        return self.after - self.before


@dataclass(frozen=True)
class Comparison:
    """A variant against another (the formula in force, or a variant): how many pay more,
    less or the same, by how much in all, the largest changes each way, and the change by
    class (adding up to the change of the total)."""

    base: str
    variant: str
    more: int
    less: int
    same: int
    raised: int  # cents paid more, in all
    lowered: int  # cents paid less, in all (positive)
    largest_raises: tuple[Change, ...]
    largest_cuts: tuple[Change, ...]
    by_class: tuple[tuple[str, int, int], ...]  # (class, before, after) in cents

    @property
    def net(self) -> int:
        return self.raised - self.lowered


def compile_variant(variant: Variant, roll: StudyRoll, field: str) -> Any:
    """The variant's formula checked against the roll's columns and its parameters; an
    error names ``field`` (the form's field of this variant's formula or parameters)."""
    try:
        formula = compile_formula(
            variant.formula,
            parameters=[*variant.parameters, EXPECTED],
            attributes=roll.attributes,
        )
    except InputError as exc:
        raise InputError(f"{field}_formula", exc.message) from None
    unused = sorted(set(variant.parameters) - set(formula.parameters))
    if unused:
        raise InputError(
            f"{field}_parameters",
            Message(
                N_("parameters: the formula does not use the parameter %(unused)s"),
                unused=repr(unused[0]),
            ),
        )
    return formula


def evaluate_variant(variant: Variant, roll: StudyRoll, expected: Decimal, field: str) -> Evaluated:
    """Every property's amount by the variant (the billing run's evaluation)."""
    formula = compile_variant(variant, roll, field)
    params: dict[str, Value] = dict(variant.parameters)
    if EXPECTED in formula.parameters:
        params[EXPECTED] = expected
    try:
        result = evaluate(formula, roll.properties, params)
    except InputError as exc:
        raise InputError(f"{field}_formula", exc.message) from None
    cents = [to_cents(line.amount) for line in result.properties]
    return Evaluated(variant, result, cents, sum(cents))


def band_of(value: Decimal) -> int:
    """The index of the assessed-value band of ``value`` (a negative value: the first)."""
    return max(bisect_right(BANDS, value) - 1, 0)


def band_key(index: int) -> str:
    low = BANDS[index]
    return f"{low}-{BANDS[index + 1]}" if index + 1 < len(BANDS) else f"{low}-"


def _shares(keys: Sequence[str], cents: Sequence[int], order: Sequence[str]) -> tuple[Share, ...]:
    counts: dict[str, int] = dict.fromkeys(order, 0)
    totals: dict[str, int] = dict.fromkeys(order, 0)
    for key, amount in zip(keys, cents, strict=True):
        counts[key] = counts.get(key, 0) + 1
        totals[key] = totals.get(key, 0) + amount
    return tuple(Share(k, counts[k], totals[k]) for k in counts if counts[k])


def median_cents(cents: Sequence[int]) -> int:
    """The median amount; of an even count, the mean of the middle two rounded half-up."""
    if not cents:
        return 0
    ordered = sorted(cents)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    pair = Decimal(ordered[middle - 1] + ordered[middle]) / 2
    return int(pair.to_integral_value(rounding=ROUND_HALF_UP))


def scale_factor(total: int, expected: int) -> Decimal | None:
    """expected ÷ total to six places: multiplying the formula by it makes the total meet
    the expected amount (give or take the rounding of each amount and any floor or cap)."""
    if total <= 0 or expected <= 0:
        return None
    return (Decimal(expected) / Decimal(total)).quantize(Decimal("0.000001"), ROUND_HALF_UP)


def summarize(evaluated: Evaluated, roll: StudyRoll, expected: Decimal) -> Summary:
    cents = evaluated.cents
    classes = [c or "" for c in roll.classes]
    class_order = sorted(set(classes))
    bands = roll.bands
    band_order = [band_key(i) for i in range(len(BANDS))]
    ids = roll.ids
    top = heapq.nlargest(SHOWN, range(len(cents)), key=lambda i: (cents[i], ids[i]))
    expected_cents = to_cents(expected)
    return Summary(
        name=evaluated.variant.name,
        formula=evaluated.variant.formula,
        parameters_text=evaluated.variant.parameters_text,
        count=len(cents),
        total=evaluated.total,
        expected=expected_cents,
        factor=scale_factor(evaluated.total, expected_cents),
        by_class=tuple(sorted(_shares(classes, cents, class_order), key=lambda s: -s.total)),
        by_band=_shares(bands, cents, band_order),
        median=median_cents(cents),
        largest=tuple(Payer(i, ids[i], classes[i], roll.assessed[i], cents[i]) for i in top),
        apportioned=evaluated.result.apportioned,
        warnings=evaluated.result.warnings,
    )


@dataclass(frozen=True)
class Row:
    """A part of the roll with what it pays under each variant, side by side."""

    key: str
    count: int
    totals: tuple[int, ...]  # cents, in the variants' order


def side_by_side(summaries: Sequence[Summary], *, by: str) -> tuple[Row, ...]:
    """The split ``by`` "class" or "band" of every variant in one table (the same roll, so
    the same parts and counts): a row per part, in the first variant's order."""
    if not summaries:
        return ()
    parts = [{s.key: s for s in getattr(v, f"by_{by}")} for v in summaries]
    return tuple(
        Row(key, first.count, tuple(p[key].total if key in p else 0 for p in parts))
        for key, first in parts[0].items()
    )


def compare(base: Evaluated, variant: Evaluated, roll: StudyRoll) -> Comparison:
    """``variant`` against ``base`` property by property (the same roll, the same order)."""
    more = less = raised = lowered = 0
    ids = roll.ids
    changed: list[int] = []
    classes = [c or "" for c in roll.classes]
    before_by: dict[str, int] = {}
    after_by: dict[str, int] = {}
    for i, (old, new) in enumerate(zip(base.cents, variant.cents, strict=True)):
        key = classes[i]
        before_by[key] = before_by.get(key, 0) + old
        after_by[key] = after_by.get(key, 0) + new
        if new > old:
            more += 1
            raised += new - old
            changed.append(i)
        elif new < old:
            less += 1
            lowered += old - new
            changed.append(i)

    def change(i: int) -> Change:
        return Change(i, ids[i], classes[i], base.cents[i], variant.cents[i])

    def up(i: int) -> tuple[int, str]:
        return (variant.cents[i] - base.cents[i], ids[i])

    def down(i: int) -> tuple[int, str]:
        return (base.cents[i] - variant.cents[i], ids[i])

    raises = [i for i in heapq.nlargest(SHOWN, changed, key=up) if up(i)[0] > 0]
    cuts = [i for i in heapq.nlargest(SHOWN, changed, key=down) if down(i)[0] > 0]
    return Comparison(
        base=base.variant.name,
        variant=variant.variant.name,
        more=more,
        less=less,
        same=len(ids) - more - less,
        raised=raised,
        lowered=lowered,
        largest_raises=tuple(change(i) for i in raises),
        largest_cuts=tuple(change(i) for i in cuts),
        by_class=tuple((k, before_by[k], after_by[k]) for k in sorted(before_by)),
    )


def scaled_total(evaluated: Evaluated, factor: Decimal) -> int:
    """What ``factor * (formula)`` gives in all, in cents: each property's unrounded value
    scaled and rounded half-up, as the scaled formula's evaluation would round it."""
    cents = Decimal("0.01")
    with localcontext(CONTEXT):
        return sum(
            to_cents((factor * line.exact).quantize(cents, rounding=ROUND_HALF_UP))
            for line in evaluated.result.properties
        )


def explanation(evaluated: Evaluated, position: int) -> str:
    """How a property's amount was computed, as billing writes it on the bill (a message)."""
    return evaluated.result.properties[position].explanation


def money(cents: int) -> Decimal:
    return from_cents(cents) if cents else ZERO
