"""Excise allocations of 13 LPRA § 31751, month by month in a fiscal year.

- § 31751(a)(1)–(2): the gasoline tax, 4¢ a gallon of the diesel tax and the crude-oil excise
  go to the Highways and Transportation Authority (HTA) special deposit, less the
  reimbursements of §§ 31669–31670.
- § 31751(a)(3)–(5): the cigarette tax pays, in priority, HTA up to $20,000,000 a FY in
  monthly payments of up to $2,500,000; the Metropolitan Bus Authority (MBA) up to
  $10,000,000, monthly up to $800,000; from FY2015-16 the Integrated Transportation Authority
  (PRITA) up to $36,000,000, monthly up to $3,000,000; the rest to the General Fund. A month
  short of a payment is made up from later months of the same FY (no claw-back). The cigarette
  tax allocated is the month's collections less the amounts reimbursed under § 31668.
- History: "retroactive to Jan. 1, 2011": FY2010-11 is computed from January 2011, its
  months counted from January (/readings#excise-from-2011).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cached_property, lru_cache
from typing import Any

from tid.rules import readings
from tid.rules.errors import InputError, field_error
from tid.rules.messages import N_, Amount, Figure, Message, cited_together, render_all
from tid.rules.money import from_cents, money_str
from tid.rules.params import (
    Overlay,
    ParamValue,
    active_overlay,
    history,
    note_period,
    on_reload,
    param,
    param_or_none,
)
from tid.rules.periods import (
    FiscalYear,
    fiscal_month,
    fiscal_month_days,
    month_label,
    month_of_fiscal,
    parse_fiscal_year,
)
from tid.rules.trace import TraceStep
from tid.rules.waterfall import (
    Recipient,
    WaterfallResult,
    check_keys,
    missing_months_warning,
    parse_months,
    reachable_annual_max,
    run_waterfall,
)

CIGARETTE_KEYS = ("hta_cigarette", "mba", "prita")
ALLOCATION_KEYS = ("hta_fuel", "hta_cigarette", "mba", "prita", "general_fund")
MONEY_FIELDS = ("gasoline_tax", "crude_oil_excise", "reimbursements", "cigarette_tax")
OPTIONAL_MONEY_FIELDS = ("cigarette_reimbursements",)
DIESEL = "excise.fuel.diesel_cents_to_hta"
REIMBURSED = "excise.cigarette.reimbursements_deducted"
SUBJECT_TO = "excise.cigarette.subject_to_hta_deposit"
_FUEL_CITATION = N_("13 LPRA § 31751(a)(1)–(2), (a)(1)(A)")

# recipient key -> (parameter prefix, label, citation of its priority)
_CIGARETTE = (
    ("hta_cigarette", "excise.cigarette.hta", "HTA (cigarette tax)", "13 LPRA § 31751(a)(3)"),
    ("mba", "excise.cigarette.mba", "Metropolitan Bus Authority", "13 LPRA § 31751(a)(4)"),
    (
        "prita",
        "excise.cigarette.prita",
        "Integrated Transportation Authority",
        "13 LPRA § 31751(a)(5)",
    ),
)
# The section's figures, read month by month on each month's first day; its readings of the
# reimbursements and of the Highways Authority's deposit, for the year on its first day.
MONTHLY = (
    DIESEL,
    *(
        f"{prefix}.{cap}"
        for _k, prefix, _l, _c in _CIGARETTE
        for cap in ("annual_cap", "monthly_cap")
    ),
)
YEARLY = (REIMBURSED, SUBJECT_TO)
# recipient key -> its label as a message, for the warnings
_LABELS = {
    "hta_cigarette": Message("HTA (cigarette tax)"),
    "mba": Message("Metropolitan Bus Authority"),
    "prita": Message("Integrated Transportation Authority"),
}
_GENERAL_FUND = Recipient(
    "general_fund",
    Message("General Fund (rest of the cigarette tax)"),
    N_("13 LPRA § 31751(a) (proceeds not allocated go to the General Fund)"),
    remainder=True,
)


@dataclass(frozen=True, slots=True)
class ExciseMonth:
    """The collections of one fiscal month (1 = July)."""

    fiscal_month: int
    gasoline_tax: Decimal
    diesel_gallons: Decimal
    crude_oil_excise: Decimal
    reimbursements: Decimal
    cigarette_tax: Decimal
    cigarette_reimbursements: Decimal = Decimal(0)  # 13 LPRA § 31668


@dataclass(frozen=True, slots=True)
class ExcisePlan:
    """What a fiscal year's allocation needs from the parameters, read once per FY."""

    fiscal_year: FiscalYear
    diesel: ParamValue
    first_month: int  # the first fiscal month the section applies in (7 in FY2010-11)
    recipients: tuple[Recipient, ...]
    used: tuple[ParamValue, ...]
    reachable_annual_max: dict[str, int]
    warnings: tuple[str, ...]
    steps: tuple[TraceStep, ...]
    # Each fiscal month's values (1 = July), read on its first day (before the section
    # applies, the first month's): the diesel's 4¢ and the cigarette tax's recipients.
    months: tuple[tuple[ParamValue, tuple[Recipient, ...]], ...] = ()

    def in_month(self, fiscal_month_number: int) -> tuple[ParamValue, tuple[Recipient, ...]]:
        """The 4¢ and the recipients of a fiscal month."""
        if not self.months:
            return self.diesel, self.recipients
        return self.months[fiscal_month_number - 1]


@dataclass(frozen=True)
class ExciseResult:
    """The allocation of a fiscal year's months, in cents, with its warnings and trace.

    The trace is built from the stored figures the first time it is read.
    """

    plan: ExcisePlan
    months: tuple[ExciseMonth, ...]
    fuel: tuple[tuple[int, int, int, int, int], ...]  # gasoline, diesel, crude, reimb., net
    hta_fuel: tuple[int, ...]  # cents to the HTA fuel special deposit, per month
    cigarette: WaterfallResult
    warnings: tuple[str, ...]
    cigarette_net: tuple[tuple[int, int, int], ...] = ()  # collected, reimbursed, allocated

    @property
    def fiscal_year(self) -> FiscalYear:
        return self.plan.fiscal_year

    @property
    def reachable_annual_max(self) -> dict[str, int]:
        return self.plan.reachable_annual_max

    @cached_property
    def trace(self) -> tuple[TraceStep, ...]:
        steps = list(self.plan.steps)
        for m, (gas, dsl, crude, reimb, net) in zip(self.months, self.fuel, strict=True):
            diesel = self.plan.in_month(m.fiscal_month)[0]
            label = month_label(*month_of_fiscal(self.fiscal_year, m.fiscal_month))
            steps.append(
                TraceStep(
                    Message(
                        "%(label)s: HTA fuel special deposit",
                        label=label,
                    ),
                    Message(
                        "gasoline %(gasoline)s + diesel %(gallons)s gal × %(rate)s = %(diesel)s "
                        "+ crude oil %(crude)s − reimbursements %(reimbursements)s = %(net)s",
                        gasoline=_m(gas),
                        gallons=m.diesel_gallons,
                        rate=diesel.value,
                        diesel=_m(dsl),
                        crude=_m(crude),
                        reimbursements=_m(reimb),
                        net=_m(net),
                    ),
                    cited_together(diesel.citation, _FUEL_CITATION),
                    diesel.name,
                )
            )
        reimbursed = param(REIMBURSED, max(self.fiscal_year.start, hta_start()))
        for m, (collected, back, net) in zip(self.months, self.cigarette_net, strict=True):
            if back:
                label = month_label(*month_of_fiscal(self.fiscal_year, m.fiscal_month))
                steps.append(
                    TraceStep(
                        Message(
                            "%(label)s: cigarette tax allocated, less the amounts reimbursed "
                            "under 13 LPRA § 31668",
                            label=label,
                        ),
                        f"{_m(collected)} − {_m(back)} = {_m(net)}",
                        reimbursed.citation,
                        reimbursed.name,
                    )
                )
        return (*steps, *self.cigarette.explain())


_HUNDRED = Decimal(100)


def _cents(amount: Decimal) -> int:
    """Exact integer cents of an amount of whole cents (the hot-path form of ``to_cents``)."""
    scaled = amount * _HUNDRED
    cents = int(scaled)
    if cents != scaled:
        raise ValueError(f"{amount} is not a whole number of cents")
    return cents


def _m(cents: int) -> str:
    """An amount of cents as the JSON writes it, and as money on a page (:class:`Figure`)."""
    return Figure(from_cents(cents))


def _more_than_revenue(i: int, reimbursements: Decimal, revenue: int) -> InputError:
    return field_error(
        f"months[{i}].reimbursements",
        Message(
            "%(amount)s is more than the month's fuel revenue for HTA (%(revenue)s)",
            amount=Amount(reimbursements),
            revenue=Amount.of_cents(revenue),
        ),
    )


def _more_than_collected(i: int, reimbursements: Decimal, collected: int) -> InputError:
    return field_error(
        f"months[{i}].cigarette_reimbursements",
        Message(
            "%(amount)s is more than the month's cigarette tax (%(tax)s); the amounts "
            "reimbursed under 13 LPRA § 31668 cannot exceed the collections",
            amount=Amount(reimbursements),
            tax=Amount.of_cents(collected),
        ),
    )


def _d(cents: int) -> str:
    return f"${from_cents(cents):,.2f}"


def excise_plan(fy: FiscalYear) -> ExcisePlan:
    """The parameters of 13 LPRA § 31751(a) for ``fy`` (under the overlay in force, if any:
    :func:`tid.rules.params.overlaid`)."""
    return _excise_plan(fy, active_overlay())


@lru_cache(maxsize=64)
def _excise_plan(fy: FiscalYear, overlay: Overlay | None) -> ExcisePlan:
    """The parameters of 13 LPRA § 31751(a) for ``fy``: the 4¢ and the cigarette waterfall.

    A recipient whose caps are not in force on the first day of the FY (PRITA before
    FY2015-16) receives nothing that year.
    """
    first_day = history(DIESEL).values[0].start
    on = max(fy.start, first_day)
    diesel = param_or_none(DIESEL, on) if fy.contains(on) else None
    if diesel is None:
        raise field_error(
            "fiscal_year",
            Message(
                "%(fy)s is before 13 LPRA § 31751 applies (from %(first)s, retroactive per its "
                "history note)",
                fy=fy.label,
                first=first_day,
            ),
        )
    first_month = fiscal_month(on.year, on.month) if on > fy.start else 1
    recipients: list[Recipient] = []
    used: list[ParamValue] = []
    steps = [
        TraceStep(
            Message("Diesel tax to HTA, a gallon"), str(diesel.value), diesel.citation, DIESEL
        )
    ]
    reachable: dict[str, int] = {}
    warnings: list[str] = []
    if first_month > 1:
        _applies_from(fy, on, first_day, first_month, diesel, warnings, steps)
    for key, prefix, _english, citation in _CIGARETTE:
        r = _cigarette_recipient(key, prefix, citation, on, first_month, used, steps)
        recipients.append(r)
        reachable[key] = _reachable(fy, r, warnings, steps)
    recipients.append(_GENERAL_FUND)
    months = _excise_months(fy, first_month, diesel, tuple(recipients))
    return ExcisePlan(
        fy,
        diesel,
        first_month,
        tuple(recipients),
        tuple(used),
        reachable,
        tuple(warnings),
        tuple(steps),
        months,
    )


def _excise_months(
    fy: FiscalYear, first_month: int, diesel: ParamValue, recipients: tuple[Recipient, ...]
) -> tuple[tuple[ParamValue, tuple[Recipient, ...]], ...]:
    """Each fiscal month's 4¢ and recipients, read on the month's first day (the project's
    reading ``reform-periods``); a recipient that is none on the year's first day stays
    none all year."""
    months = []
    for m in range(1, 13):
        if m <= first_month:
            months.append((diesel, recipients))
            continue
        on = date(*month_of_fiscal(fy, m), 1)
        month_diesel = param(DIESEL, on)
        found: list[Recipient] = []
        for year_recipient, (key, prefix, _english, citation) in zip(
            recipients, _CIGARETTE, strict=False
        ):
            if not year_recipient.carry_forward:
                found.append(year_recipient)
                continue
            found.append(_cigarette_recipient(key, prefix, citation, on, first_month, [], []))
        found.append(_GENERAL_FUND)
        months.append((month_diesel, tuple(found)))
    return tuple(months)


def _applies_from(
    fy: FiscalYear,
    on: date,
    first_day: date,
    first_month: int,
    diesel: ParamValue,
    warnings: list[str],
    steps: list[TraceStep],
) -> None:
    """13 LPRA § 31751, history note ("retroactive to Jan. 1, 2011"): the fiscal year in
    which the section starts is computed from that day, its monthly payments counted from
    that month."""
    months = 12 - first_month + 1
    start_label = month_label(on.year, on.month)
    warnings.append(
        Message(
            '13 LPRA § 31751 applies from %(first_day)s (its history note: "retroactive to '
            'Jan. 1, 2011"): FY%(label)s is computed from %(start_label)s, and the monthly '
            "payments count %(months)s months from %(start_label)s (%(reading)s).",
            reading=readings.note("excise-from-2011"),
            first_day=first_day,
            label=fy.label,
            start_label=start_label,
            months=months,
        )
    )
    steps.append(
        TraceStep(
            Message(
                "FY%(label)s: the section applies from %(on)s",
                label=fy.label,
                on=on,
            ),
            f"{months} months",
            diesel.citation,
            DIESEL,
        )
    )


def _cigarette_recipient(
    key: str,
    prefix: str,
    citation: str,
    on: date,
    first_month: int,
    used: list[ParamValue],
    steps: list[TraceStep],
) -> Recipient:
    """13 LPRA § 31751(a)(3)–(5): one recipient of the cigarette tax with its caps a fiscal
    year and a month in force on ``on`` (none before its caps are: it receives nothing)."""
    label = _LABELS[key]
    annual = param_or_none(f"{prefix}.annual_cap", on)
    monthly = param_or_none(f"{prefix}.monthly_cap", on)
    first_day = history(f"{prefix}.annual_cap").values[0].start
    start = FiscalYear(first_day.year if first_day.month >= 7 else first_day.year - 1)
    if annual is None or monthly is None:
        steps.append(
            TraceStep(
                Message(
                    "%(label)s: not a recipient before FY%(label2)s",
                    label=label,
                    label2=start.label,
                ),
                "0.00",
                history(f"{prefix}.annual_cap").values[0].citation,
                f"{prefix}.annual_cap",
            )
        )
        return Recipient(key, label, citation, monthly_cap=0, start_fiscal_year=start.start_year)
    used += [annual, monthly]
    steps += [
        TraceStep(
            Message("%(label)s: most a fiscal year", label=label),
            _m(annual.cents),
            annual.citation,
            annual.name,
        ),
        TraceStep(
            Message("%(label)s: monthly payment", label=label),
            _m(monthly.cents),
            monthly.citation,
            monthly.name,
        ),
    ]
    return Recipient(
        key,
        label,
        cited_together(annual.citation, monthly.citation),
        monthly_cap=monthly.cents,
        annual_cap=annual.cents,
        carry_forward=True,
        start_fiscal_year=start.start_year,
        parameter=monthly.name,
        first_month=first_month,
    )


def _reachable(fy: FiscalYear, r: Recipient, warnings: list[str], steps: list[TraceStep]) -> int:
    """13 LPRA § 31751(a)(3)–(5): what ``r`` can receive in ``fy`` at most — its annual cap,
    unless its monthly payments over the months counted reach less (then said)."""
    most = reachable_annual_max(r, fy.start_year) or 0
    if r.annual_cap is not None and r.monthly_cap is not None and most < r.annual_cap:
        n = r.elapsed(12)
        label = _LABELS[r.key]
        warnings.append(
            Message(
                "%(label)s: %(n)s monthly payments of at most %(monthly_cap)s reach %(most)s, "
                "less than the %(annual_cap)s a fiscal year of the text; its reachable maximum "
                "is %(most)s.",
                label=label,
                n=n,
                monthly_cap=_d(r.monthly_cap),
                most=_d(most),
                annual_cap=_d(r.annual_cap),
            )
        )
        steps.append(
            TraceStep(
                Message(
                    "%(label)s: reachable in a fiscal year = min(annual, %(n)s × monthly)",
                    label=label,
                    n=n,
                ),
                _m(most),
                r.citation,
                r.parameter,
            )
        )
    return most


on_reload(_excise_plan.cache_clear)


SHORTFALL_WARNING = Message(
    "A month short of a payment is made up from later months of the same fiscal "
    "year only: money already paid out to lower priorities in earlier months is "
    "not taken back (%(reading)s; the text also speaks of earlier months' excess).",
    reading=readings.note("excise-made-up-later"),
)


def _before_the_law(fy: FiscalYear, i: int, fiscal_month: int, first_month: int) -> InputError:
    return field_error(
        f"months[{i}].month",
        Message(
            N_(
                "%(month)s is before 13 LPRA § 31751 applies (from %(first)s, "
                "retroactive per its history note)"
            ),
            month=month_label(*month_of_fiscal(fy, fiscal_month)),
            first=month_label(*month_of_fiscal(fy, first_month)),
        ),
    )


def _more_than_fuel(i: int, reimbursements: Decimal, revenue: int) -> InputError:
    return field_error(
        f"months[{i}].reimbursements",
        Message(
            N_("%(amount)s is more than the month's fuel revenue for HTA (%(limit)s)"),
            amount=money_str(reimbursements),
            limit=_m(revenue),
        ),
    )


def _more_than_cigarettes(i: int, reimbursements: Decimal, collected: int) -> InputError:
    return field_error(
        f"months[{i}].cigarette_reimbursements",
        Message(
            N_(
                "%(amount)s is more than the month's cigarette tax (%(limit)s); the "
                "amounts reimbursed under 13 LPRA § 31668 cannot exceed the "
                "collections"
            ),
            amount=money_str(reimbursements),
            limit=_m(collected),
        ),
    )


def allocate_excise(fy: FiscalYear, months: Sequence[ExciseMonth]) -> ExciseResult:
    """Allocate the fuel and cigarette excise of ``months`` of ``fy`` (13 LPRA § 31751(a)).

    Fuel: gasoline + 4¢ × diesel gallons + crude-oil excise − reimbursements → HTA
    (§ 31751(a)(1)–(2)). Cigarette: the priority waterfall of § 31751(a)(3)–(5).
    """
    plan = excise_plan(fy)
    fuel: list[tuple[int, int, int, int, int]] = []
    hta_fuel: list[int] = []
    periods: list[tuple[int, int]] = []
    cigarette_net: list[tuple[int, int, int]] = []
    for i, m in enumerate(months):
        if m.fiscal_month < plan.first_month:
            first = month_label(*month_of_fiscal(fy, plan.first_month))
            raise field_error(
                f"months[{i}].month",
                Message(
                    "%(fy)s is before 13 LPRA § 31751 applies (from %(first)s, retroactive per "
                    "its history note)",
                    fy=month_label(*month_of_fiscal(fy, m.fiscal_month)),
                    first=first,
                ),
            )
        d_num, d_den = plan.in_month(m.fiscal_month)[0].ratio
        g_num, g_den = m.diesel_gallons.as_integer_ratio()
        num, den = g_num * d_num * 100, g_den * d_den  # dollars a gallon -> cents
        diesel = (2 * num + den) // (2 * den)  # gallons × ¢/gal, rounded half-up
        gasoline = _cents(m.gasoline_tax)
        crude = _cents(m.crude_oil_excise)
        reimbursed = _cents(m.reimbursements)
        net = gasoline + diesel + crude - reimbursed
        if net < 0:
            raise _more_than_revenue(i, m.reimbursements, net + reimbursed)
        fuel.append((gasoline, diesel, crude, reimbursed, net))
        hta_fuel.append(net)
        collected = _cents(m.cigarette_tax)
        back = _cents(m.cigarette_reimbursements)
        if back > collected:
            raise _more_than_collected(i, m.cigarette_reimbursements, collected)
        cigarette_net.append((collected, back, collected - back))
        periods.append((m.fiscal_month, collected - back))
    cigarette = _cigarette_waterfall(plan, periods)
    warnings = list(plan.warnings)
    if any(back for _c, back, _n in cigarette_net):
        reimbursed_pv = param(REIMBURSED, max(fy.start, history(REIMBURSED).values[0].start))
        warnings.append(
            Message(
                "The cigarette tax allocated is the month's collections less the amounts "
                "reimbursed under 13 LPRA § 31668 (%(citation)s; %(reading)s).",
                reading=readings.note("cigarette-reimbursements"),
                citation=reimbursed_pv.citation,
            )
        )
    if any(p.carried[0] or p.carried[1] or p.carried[2] for p in cigarette.periods):
        warnings.append(SHORTFALL_WARNING)
    early = _paid_before_hta_deposit(plan, cigarette)
    if early:
        warnings.append(early)
    gaps = missing_months_warning(fy, [p[0] for p in periods], plan.first_month)
    if gaps:
        warnings.append(gaps)
    return ExciseResult(
        plan,
        tuple(months),
        tuple(fuel),
        tuple(hta_fuel),
        cigarette,
        tuple(warnings),
        tuple(cigarette_net),
    )


def _cigarette_waterfall(plan: ExcisePlan, periods: Sequence[tuple[int, int]]) -> WaterfallResult:
    """§ 31751(a)(3)–(5) over the months given, each by its own values (read on its first
    day); a reform's change dated inside a month given is noted (reading reform-periods)."""
    fy = plan.fiscal_year
    on = max(fy.start, hta_start())
    note_period(YEARLY, on, fy.end, Message("FY%(label)s", label=fy.label))
    for m, _cents in periods:
        note_period(MONTHLY, *fiscal_month_days(fy, m))
    return run_waterfall(
        plan.recipients,
        periods,
        fiscal_year=fy.start_year,
        by_month={m: found[1] for m, found in enumerate(plan.months, 1)},
    )


def _paid_before_hta_deposit(plan: ExcisePlan, cigarette: WaterfallResult) -> str | None:
    """/readings#subject-to-hta-deposit: the Bus Authority's and PRITA's shares are "contingent on
    the deposit of twenty million dollars" to HTA. Read as priority month by month; a result that
    pays them before HTA has its $20M for the year names the stricter reading."""
    hta = plan.recipients[0]
    if hta.annual_cap is None:
        return None
    keys = cigarette.keys
    hta_i, lower = keys.index("hta_cigarette"), [keys.index("mba"), keys.index("prita")]
    to_date = 0
    for p in cigarette.periods:
        to_date += p.paid[hta_i]
        if to_date < hta.annual_cap and any(p.paid[i] for i in lower):
            label = month_label(*month_of_fiscal(plan.fiscal_year, p.fiscal_month))
            reading = param(SUBJECT_TO, max(plan.fiscal_year.start, hta_start()))
            return Message(
                "From %(label)s the Metropolitan Bus Authority or the Integrated "
                "Transportation Authority is paid while HTA has received %(to_date)s of its "
                '%(annual_cap)s for the year. Their shares are "contingent on the deposit of '
                'twenty million dollars" to HTA: this project reads that as priority month by '
                "month; under the stricter reading they would receive nothing until HTA had "
                "its %(annual_cap)s for the year (%(citation)s).",
                label=label,
                to_date=_d(to_date),
                annual_cap=_d(hta.annual_cap),
                citation=Message(reading.citation),
            )
    return None


def hta_start() -> date:
    """The first day of 13 LPRA § 31751 (2011-01-01, retroactive per its history note)."""
    return history(DIESEL).values[0].start


def excise_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``excise-allocation`` calculator of docs/calculators.md (13 LPRA § 31751(a))."""
    check_keys(document, ("fiscal_year", "months"))
    fy = parse_fiscal_year(document.get("fiscal_year"))
    rows = parse_months(
        document.get("months"),
        fy,
        MONEY_FIELDS,
        ("diesel_gallons",),
        optional_money_fields=OPTIONAL_MONEY_FIELDS,
    )
    months = [
        ExciseMonth(
            m,
            a["gasoline_tax"],
            a["diesel_gallons"],
            a["crude_oil_excise"],
            a["reimbursements"],
            a["cigarette_tax"],
            a["cigarette_reimbursements"],
        )
        for m, _label, a in rows
    ]
    result = allocate_excise(fy, months)
    out_months: list[dict[str, Any]] = []
    totals = dict.fromkeys(ALLOCATION_KEYS, 0)
    for (_m, label, _a), fuel, period, net in zip(
        rows, result.hta_fuel, result.cigarette.periods, result.cigarette_net, strict=True
    ):
        cents = {"hta_fuel": fuel, **dict(zip(result.cigarette.keys, period.paid, strict=True))}
        for key in ALLOCATION_KEYS:
            totals[key] += cents[key]
        out_months.append(
            {
                "month": label,
                "cigarette_allocated": money_str(from_cents(net[2])),
                "allocations": {k: money_str(from_cents(cents[k])) for k in ALLOCATION_KEYS},
                "carried_shortfall": {
                    k: money_str(from_cents(c))
                    for k, c in zip(result.cigarette.keys, period.carried, strict=True)
                    if k in CIGARETTE_KEYS
                },
            }
        )
    outstanding = dict(zip(result.cigarette.keys, result.cigarette.outstanding, strict=True))
    return {
        "fiscal_year": fy.label,
        "months": out_months,
        "totals": {k: money_str(from_cents(v)) for k, v in totals.items()},
        "reachable_annual_max": {
            k: money_str(from_cents(v)) for k, v in result.reachable_annual_max.items()
        },
        "outstanding": {k: money_str(from_cents(outstanding[k])) for k in CIGARETTE_KEYS},
        "warnings": list(result.warnings),
        "warnings_es": render_all(result.warnings, "es"),
        "trace": [s.as_json() for s in result.trace],
    }
