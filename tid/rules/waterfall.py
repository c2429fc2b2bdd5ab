"""The one engine for every priority / cap / carry-forward split (Act 272-2003 § 31;
13 LPRA § 31751).

Two statutes pay a month's money out in a fixed order of recipients, each taking only what
is left by the ones before it:

- Act 272-2003 § 31(A)–(B): the Bank's certified amount in fixed monthly transfers (1/10 July
  to April; 1/9 October to June in FY2003-04), shortfall carried to later months of the FY;
  then 2 %, 5 % and 9 % of the month's total tax (the 9 % with an optional floor of $375,000
  a month, cumulative inside the FY: owed to date max(9 % of the tax to date, $375,000 × m));
  then the rest.
- 13 LPRA § 31751(a)(3)–(5): the cigarette tax to HTA, MBA and PRITA, each entitled to date to
  min(annual cap, monthly cap × fiscal month), paid in priority as far as the month's money
  reaches, shortfalls made up from later months of the FY (no claw-back); the rest to the
  General Fund.

A recipient is described by data (:class:`Recipient`), never by a new function. The engine
works in integer cents: every period pays out exactly its total, nothing is negative.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from tid.rules import readings
from tid.rules.errors import field_error, field_names
from tid.rules.messages import FieldRef, Figure, Message
from tid.rules.money import (
    from_cents,
    json_money,
    json_quantity,
)
from tid.rules.periods import (
    FiscalYear,
    fiscal_month,
    fiscal_year_of_month,
    month_label,
    month_of_fiscal,
    parse_month,
)
from tid.rules.trace import TraceStep

MONTHS_IN_FY = 12


@dataclass(frozen=True, slots=True)
class Recipient:
    """One step of a priority waterfall, described by data.

    What it is owed in a fiscal month (its *accrual*) is, in this order of precedence:

    - ``share`` of the period's total (rounded to cents half-up), or
    - ``installments[m - 1]``, a fixed schedule of cents for fiscal months 1–12, or
    - ``monthly_cap`` when it has neither (a fixed monthly amount);

    a share or installment is further limited to ``monthly_cap`` when both are given.

    ``carry_forward``: the entitlement accumulates within the FY (months skipped included),
    limited to ``annual_cap``; what a month cannot pay is owed by the following months, so the
    entitlement to date after month m is min(annual cap, Σ accruals) and the month pays what
    is owed to date as far as the money reaches. Without it a month's shortfall is lost and
    ``annual_cap`` only limits the year's payments.

    ``floor`` (cents a month, with a ``share`` only): the floor is cumulative inside the FY
    (/readings#bureau-floor-to-date): after fiscal month m the recipient is owed to date
    max(share of the FY's total to date, floor × months elapsed), and each month it is paid
    what it is owed to date less what it was already paid, as far as the money reaches; what
    a month cannot pay is carried. Early months whose share exceeds the floor count toward
    the floor of later months.

    ``first_month``: the fiscal month its fixed accruals and its floor start counting from
    (a statute that takes effect inside the FY); months elapsed = m − first_month + 1. A
    month not given collected nothing but still counts.

    ``remainder``: takes whatever is left (exactly one, the last).
    ``start_fiscal_year``: receives nothing in fiscal years starting before this one.
    """

    key: str
    label: str
    citation: str
    share: Decimal | Fraction | None = None
    installments: tuple[int, ...] | None = None
    monthly_cap: int | None = None
    annual_cap: int | None = None
    carry_forward: bool = False
    floor: int | None = None
    start_fiscal_year: int | None = None
    remainder: bool = False
    parameter: str | None = None
    first_month: int = 1

    def elapsed(self, fiscal_month_number: int) -> int:
        """Months counted after fiscal month ``fiscal_month_number`` (given or not)."""
        return max(0, fiscal_month_number - self.first_month + 1)

    def active_in(self, fiscal_year: int) -> bool:
        return self.start_fiscal_year is None or fiscal_year >= self.start_fiscal_year


class Period(NamedTuple):
    """One period (fiscal month) of a waterfall run, in cents, one entry per recipient.

    (An immutable named tuple rather than a frozen dataclass: a year makes twelve of them on
    the hot path, and a tuple is built several times faster.)
    """

    fiscal_month: int
    total: int
    owed: tuple[int, ...]
    paid: tuple[int, ...]
    carried: tuple[int, ...]  # shortfall carried out of this month (0 when none is carried)


@dataclass(frozen=True, slots=True)
class WaterfallResult:
    """A run of the waterfall over the periods of one fiscal year."""

    fiscal_year: int
    recipients: tuple[Recipient, ...]
    periods: tuple[Period, ...]
    # The recipients of a fiscal month whose values differ from the year's (a reform's
    # change from inside the year: read on each month's first day): month -> recipients.
    by_month: tuple[tuple[int, tuple[Recipient, ...]], ...] = ()

    def recipients_in(self, fiscal_month_number: int) -> tuple[Recipient, ...]:
        """The recipients as they stand in a fiscal month (their labels and citations)."""
        for month, recipients in self.by_month:
            if month == fiscal_month_number:
                return recipients
        return self.recipients

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(r.key for r in self.recipients)

    @property
    def totals(self) -> tuple[int, ...]:
        """Cents paid to each recipient over all periods."""
        return tuple(sum(col) for col in zip(*(p.paid for p in self.periods), strict=True))

    @property
    def outstanding(self) -> tuple[int, ...]:
        """Shortfall still carried after the last period (owed when the FY ends, if June)."""
        if not self.periods:
            return tuple(0 for _ in self.recipients)
        return self.periods[-1].carried

    def explain(self) -> list[TraceStep]:
        """The trace: for each month and recipient, what was owed, paid and carried."""
        steps: list[TraceStep] = []
        fy = FiscalYear(self.fiscal_year)
        for p in self.periods:
            label = month_label(*month_of_fiscal(fy, p.fiscal_month))
            left = p.total
            for r, owed, paid, carried in zip(
                self.recipients_in(p.fiscal_month), p.owed, p.paid, p.carried, strict=True
            ):
                if not r.active_in(self.fiscal_year):
                    continue
                if r.remainder:
                    text: str = Message("%(paid)s (what was left)", paid=Figure(from_cents(paid)))
                elif carried:
                    text = Message(
                        "owed %(owed)s, paid %(paid)s of %(left)s left; shortfall carried "
                        "%(carried)s",
                        owed=Figure(from_cents(owed)),
                        paid=Figure(from_cents(paid)),
                        left=Figure(from_cents(left)),
                        carried=Figure(from_cents(carried)),
                    )
                else:
                    text = Message(
                        "owed %(owed)s, paid %(paid)s of %(left)s left",
                        owed=Figure(from_cents(owed)),
                        paid=Figure(from_cents(paid)),
                        left=Figure(from_cents(left)),
                    )
                steps.append(
                    TraceStep(
                        Message(
                            "%(label)s: %(label2)s",
                            label=label,
                            label2=r.label,
                        ),
                        text,
                        r.citation,
                        r.parameter,
                    )
                )
                left -= paid
        return steps


def _half_up(exact: Fraction) -> int:
    """A non-negative exact amount of cents rounded half-up."""
    return (2 * exact.numerator + exact.denominator) // (2 * exact.denominator)


def _ratio(share: Decimal | Fraction) -> tuple[int, int]:
    n, d = share.as_integer_ratio()
    if n < 0:
        raise ValueError("a share cannot be negative")
    return int(n), int(d)


def check_recipients(recipients: Sequence[Recipient]) -> None:
    """Refuse a waterfall that could not pay out exactly its total (a programming error)."""
    if not recipients or not recipients[-1].remainder:
        raise ValueError("a waterfall ends with exactly one remainder recipient")
    keys = [r.key for r in recipients]
    if len(set(keys)) != len(keys):
        raise ValueError("recipient keys must be unique")
    for r in recipients[:-1]:
        if r.remainder:
            raise ValueError("only the last recipient takes the remainder")
        if r.share is None and r.installments is None and r.monthly_cap is None:
            raise ValueError(f"{r.key}: give a share, installments or a monthly cap")
        if r.installments is not None and len(r.installments) != MONTHS_IN_FY:
            raise ValueError(f"{r.key}: installments are given for the 12 fiscal months")
        if r.carry_forward and r.floor is not None:
            raise ValueError(f"{r.key}: a floor already carries its own shortfall")
        if r.floor is not None and (
            r.share is None or r.monthly_cap is not None or r.annual_cap is not None
        ):
            raise ValueError(f"{r.key}: a floor applies to a share without caps")
        if not 1 <= r.first_month <= MONTHS_IN_FY:
            raise ValueError(f"{r.key}: the first month is a fiscal month, 1 to 12")
        amounts = [r.monthly_cap, r.annual_cap, r.floor, *(r.installments or ())]
        if any(a is not None and a < 0 for a in amounts):
            raise ValueError(f"{r.key}: amounts cannot be negative")
    last = recipients[-1]
    if (
        last.share is not None
        or last.installments is not None
        or last.monthly_cap is not None
        or last.annual_cap is not None
        or last.floor is not None
        or last.carry_forward
    ):
        raise ValueError("the remainder recipient takes what is left, nothing else")


# Kinds of step in a compiled plan.
_REMAINDER, _FIXED_CARRY, _CARRY, _MONTHLY, _FLOOR = range(5)
_Step = tuple[
    int,  # index of the recipient
    int,  # kind
    int | None,  # share numerator
    int | None,  # share denominator
    int | None,  # monthly cap
    int | None,  # annual cap
    tuple[int, ...] | None,  # installments
    tuple[int, ...] | None,  # cumulative entitlement after month m (fixed, carried; floor)
    int,  # first fiscal month it accrues in
]
_Plan = tuple[_Step, ...]


@lru_cache(maxsize=256)
def _plan(recipients: tuple[Recipient, ...], fiscal_year: int) -> _Plan:
    """Compile the recipients of a fiscal year once: checks, ratios, cumulative schedules."""
    check_recipients(recipients)
    plan: list[_Step] = []
    for i, r in enumerate(recipients):
        if not r.active_in(fiscal_year):
            continue
        if r.remainder:
            plan.append((i, _REMAINDER, None, None, None, None, None, None, 1))
            continue
        num, den = _ratio(r.share) if r.share is not None else (None, None)
        cumulative = None
        if r.carry_forward and r.share is None:
            # Fixed accruals (installments or a monthly amount) fall due month by month,
            # given or not: the entitlement to date after month m is min(annual, Σ accruals).
            total, cumulative_list = 0, [0]
            for m in range(1, MONTHS_IN_FY + 1):
                due = r.installments[m - 1] if r.installments is not None else r.monthly_cap
                assert due is not None
                if m < r.first_month:
                    due = 0
                if r.monthly_cap is not None and due > r.monthly_cap:
                    due = r.monthly_cap
                total += due
                cap = r.annual_cap
                cumulative_list.append(total if cap is None or total <= cap else cap)
            cumulative = tuple(cumulative_list)
            kind = _FIXED_CARRY
        elif r.floor is not None:
            # The floor to date after month m: floor × months elapsed
            # (/readings#bureau-floor-to-date).
            cumulative = tuple(r.floor * r.elapsed(m) for m in range(MONTHS_IN_FY + 1))
            kind = _FLOOR
        else:
            kind = _CARRY if r.carry_forward else _MONTHLY
        plan.append(
            (
                i,
                kind,
                num,
                den,
                r.monthly_cap,
                r.annual_cap,
                r.installments,
                cumulative,
                r.first_month,
            )
        )
    return tuple(plan)


def _month_plans(
    recipients: tuple[Recipient, ...],
    by_month: Mapping[int, Sequence[Recipient]],
    fiscal_year: int,
) -> tuple[_Plan, ...]:
    """Each fiscal month's plan when the recipients' values change inside the year: the
    month's own shares and caps, and the sums to date (fixed accruals, floors) of each
    month's own values up to it."""
    plans = [
        _plan(tuple(by_month.get(m, recipients)), fiscal_year) for m in range(1, MONTHS_IN_FY + 1)
    ]
    shape = [(step[0], step[1]) for step in plans[0]]
    if any([(step[0], step[1]) for step in plan] != shape for plan in plans):
        raise ValueError("the recipients of each month are the same, in the same kinds")
    mixed: list[list[_Step]] = [list(plan) for plan in plans]
    for j, (_i, kind) in enumerate(shape):
        if kind not in (_FIXED_CARRY, _FLOOR):
            continue
        sums, to_date = [0], 0
        for m in range(1, MONTHS_IN_FY + 1):
            _i2, _k, _n, _d, cap, _a, installments, cumulative, first = plans[m - 1][j]
            assert cumulative is not None
            if kind == _FLOOR:
                due = cumulative[m] - cumulative[m - 1]  # the month's floor, when counted
            else:
                due = installments[m - 1] if installments is not None else (cap or 0)
                due = 0 if m < first else (cap if cap is not None and due > cap else due)
            to_date += due
            sums.append(to_date)
        for m in range(1, MONTHS_IN_FY + 1):
            step = mixed[m - 1][j]
            annual = step[5]
            cumulative = tuple(
                min(v, annual) if kind == _FIXED_CARRY and annual is not None else v for v in sums
            )
            mixed[m - 1][j] = (*step[:7], cumulative, step[8])
    return tuple(tuple(plan) for plan in mixed)


def _plans(
    recipients: tuple[Recipient, ...],
    by_month: Mapping[int, Sequence[Recipient]] | None,
    fiscal_year: int,
) -> tuple[dict[int, tuple[Recipient, ...]], tuple[_Plan, ...]]:
    """The months whose recipients are not the year's, and each fiscal month's plan."""
    changed = {m: tuple(r) for m, r in (by_month or {}).items() if tuple(r) != recipients}
    if changed:
        return changed, _month_plans(recipients, changed, fiscal_year)
    return changed, (_plan(recipients, fiscal_year),) * MONTHS_IN_FY


def run_waterfall(
    recipients: Sequence[Recipient],
    periods: Sequence[tuple[int, int]],
    *,
    fiscal_year: int,
    by_month: Mapping[int, Sequence[Recipient]] | None = None,
) -> WaterfallResult:
    """Pay each period's total (cents) down the recipients in priority order.

    ``periods``: (fiscal month 1–12, total cents), months strictly increasing; a month not
    given collected nothing (fixed accruals of carried recipients still accrue for it).
    ``by_month``: a month's own recipients (same keys and kinds, other values), its sums to
    date (fixed accruals, a floor, a share of the total to date) adding each month's own.
    """
    recipients = tuple(recipients)
    changed, plans = _plans(recipients, by_month, fiscal_year)
    n, last = len(recipients), 0
    accrued, paid_to_date = [0] * n, [0] * n
    floor_share = [Fraction(0)] * n  # a floor's share of the total to date, exactly
    result: list[Period] = []
    for month, total in periods:
        if not last < month <= MONTHS_IN_FY:
            raise ValueError("fiscal months must be strictly increasing, from 1 to 12")
        plan = plans[month - 1]
        if total < 0:
            raise ValueError("a period's total cannot be negative")
        left = total
        owed_row = [0] * n
        paid_row = [0] * n
        carried_row = [0] * n
        for i, kind, num, den, cap, annual, installments, cumulative, first in plan:
            if kind == _REMAINDER:
                owed_row[i] = paid_row[i] = left
                left = 0
                continue
            if kind == _FIXED_CARRY:
                assert cumulative is not None
                owed = cumulative[month] - paid_to_date[i]
            elif kind == _FLOOR:
                assert cumulative is not None and num is not None and den is not None
                if month >= first:  # each month's total at its month's share, to date
                    floor_share[i] += Fraction(num * total, den)
                share_to_date = _half_up(floor_share[i])
                floor_to_date = cumulative[month]
                owed_to_date = share_to_date if share_to_date > floor_to_date else floor_to_date
                owed = owed_to_date - paid_to_date[i]
            else:
                if num is not None:
                    assert den is not None
                    accrual = (2 * num * total + den) // (2 * den)  # half-up, non-negative
                elif installments is not None:
                    accrual = installments[month - 1]
                else:
                    assert cap is not None
                    accrual = cap
                if cap is not None and accrual > cap:
                    accrual = cap
                if month < first:
                    accrual = 0
                if kind == _CARRY:
                    accrued[i] += accrual
                    entitled = accrued[i]
                    if annual is not None and entitled > annual:
                        entitled = annual
                    owed = entitled - paid_to_date[i]
                else:
                    owed = accrual
                    if annual is not None and owed > annual - paid_to_date[i]:
                        owed = annual - paid_to_date[i]
            pay = owed if owed <= left else left
            left -= pay
            paid_to_date[i] += pay
            owed_row[i] = owed
            paid_row[i] = pay
            if kind != _MONTHLY:
                carried_row[i] = owed - pay
        result.append(Period(month, total, tuple(owed_row), tuple(paid_row), tuple(carried_row)))
        last = month
    return WaterfallResult(fiscal_year, recipients, tuple(result), tuple(sorted(changed.items())))


def reachable_annual_max(recipient: Recipient, fiscal_year: int) -> int | None:
    """Most a fixed-amount recipient can receive in a FY: min(annual cap, months × monthly cap)
    (12 months, or those from ``first_month``).

    None when it depends on the money (a share, the remainder).
    """
    if not recipient.active_in(fiscal_year):
        return 0
    if recipient.remainder or recipient.share is not None:
        return None
    if recipient.installments is not None:
        most = sum(recipient.installments[recipient.first_month - 1 :])
    else:
        assert recipient.monthly_cap is not None
        most = recipient.monthly_cap * recipient.elapsed(MONTHS_IN_FY)
    if recipient.annual_cap is not None and recipient.annual_cap < most:
        most = recipient.annual_cap
    return most


def split_exact(total: int, exact: Sequence[Fraction]) -> list[int]:
    """Round exact shares (adding up to ``total`` cents) to whole cents, exactly.

    Each share is truncated; the cents left over go one each to the largest remainders, ties
    to the earlier recipient (/readings#splits-to-the-cent). A share that is already whole cents is
    never raised, so caps written as whole cents stay exact.
    """
    if sum(exact, Fraction(0)) != total:
        raise ValueError("the exact shares do not add up to the total")
    if any(e < 0 for e in exact):
        raise ValueError("shares cannot be negative")
    floors = [int(e) for e in exact]  # truncation toward zero = floor for non-negatives
    leftover = total - sum(floors)
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in order[:leftover]:
        floors[i] += 1
    return floors


def installment_schedule(amount: int, count: int, first_month: int) -> tuple[int, ...]:
    """``amount`` cents in ``count`` equal monthly transfers from ``first_month``, to the cent.

    The cents that do not divide go to the earliest transfers (largest remainder, ties to the
    earlier month), so the transfers add up to the amount exactly.
    """
    if count < 1 or first_month < 1 or first_month + count - 1 > MONTHS_IN_FY:
        raise ValueError("the transfers must fall inside the fiscal year")
    base, extra = divmod(amount, count)
    schedule = [0] * MONTHS_IN_FY
    for j in range(count):
        schedule[first_month - 1 + j] = base + (1 if j < extra else 0)
    return tuple(schedule)


# ---------------------------------------------------------------------------------------------
# Input of month-by-month documents (room-tax-distribution, excise-allocation)


def check_keys(document: Mapping[str, Any], allowed: Iterable[str], where: str = "") -> None:
    """Refuse a field the calculator does not know (a misspelt field would be lost)."""
    allowed = tuple(allowed)
    for key in document:
        if key not in allowed:
            path = f"{where}.{key}" if where else str(key)
            raise field_error(
                path,
                Message(
                    "unknown field; the fields here are %(fields)s", fields=field_names(allowed)
                ),
            )


def parse_months(
    value: object,
    fy: FiscalYear,
    money_fields: Sequence[str],
    quantity_fields: Sequence[str] = (),
    *,
    field: str = "months",
    optional_money_fields: Sequence[str] = (),
) -> list[tuple[int, str, dict[str, Decimal]]]:
    """Parse ``months`` [{month, <amounts>}] of fiscal year ``fy`` strictly.

    Returns (fiscal month, "YYYY-MM", amounts) in the order given, which must be the order
    of the months. A month outside the FY, a month given twice or out of order, a JSON number,
    a negative amount or an unknown field is an :class:`InputError` naming
    ``months[i].<field>``. ``optional_money_fields`` are 0 when absent or empty.
    """
    if not isinstance(value, list):
        raise field_error(field, Message("give a list of months"))
    if not value:
        raise field_error(field, Message("give at least one month"))
    seen: dict[int, int] = {}
    out: list[tuple[int, str, dict[str, Decimal]]] = []
    allowed = ("month", *money_fields, *quantity_fields, *optional_money_fields)
    first, last = fy.months()[0], fy.months()[-1]
    for i, entry in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(entry, Mapping):
            raise field_error(where, Message("each month is an object with a month and amounts"))
        check_keys(entry, allowed, where)
        year, month = parse_month(entry.get("month"), f"{where}.month")
        label = month_label(year, month)
        if fiscal_year_of_month(year, month) != fy:
            raise field_error(
                f"{where}.month",
                Message(
                    "%(month)s is not in fiscal year %(fy)s (%(first)s to %(last)s)",
                    month=label,
                    fy=fy.label,
                    first=month_label(*first),
                    last=month_label(*last),
                ),
            )
        m = fiscal_month(year, month)
        if m in seen:
            raise field_error(
                f"{where}.month",
                Message(
                    "%(month)s is given twice (also %(other)s)",
                    month=label,
                    other=FieldRef(f"{field}[{seen[m]}]"),
                ),
            )
        if out and m < out[-1][0]:
            raise field_error(
                f"{where}.month",
                Message(
                    "give the months in order; %(month)s comes after %(before)s",
                    month=label,
                    before=out[-1][1],
                ),
            )
        seen[m] = i
        amounts: dict[str, Decimal] = {}
        for name in money_fields:
            amounts[name] = json_money(entry.get(name), f"{where}.{name}")
        for name in quantity_fields:
            amounts[name] = json_quantity(entry.get(name), f"{where}.{name}")
        for name in optional_money_fields:
            raw = entry.get(name)
            amounts[name] = (
                Decimal(0) if raw is None or raw == "" else json_money(raw, f"{where}.{name}")
            )
        out.append((m, label, amounts))
    return out


def missing_months_warning(fy: FiscalYear, given: Sequence[int], first: int = 1) -> str | None:
    """A warning naming the fiscal months from ``first`` to the last given that were not given."""
    if not given:
        return None
    missing = [m for m in range(first, max(given) + 1) if m not in set(given)]
    if not missing:
        return None
    labels = ", ".join(month_label(*month_of_fiscal(fy, m)) for m in missing)
    return Message(
        "Months not given (%(labels)s) are taken as collecting nothing and still "
        "count: what fell due in them (transfers, floors, monthly payments) is owed by "
        "the following months of the fiscal year (one rule for a missing month: "
        "%(reading)s).",
        reading=readings.note("missing-months"),
        labels=labels,
    )
