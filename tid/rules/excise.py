"""Excise allocations of 13 LPRA § 31751 (RULES.md § 4), month by month in a fiscal year.

- § 31751(a)(1)–(2): the gasoline tax, 4¢ a gallon of the diesel tax and the crude-oil excise
  go to the Highways and Transportation Authority (HTA) special deposit, less the
  reimbursements of §§ 31669–31670.
- § 31751(a)(3)–(5): the cigarette tax pays, in priority, HTA up to $20,000,000 a FY in
  monthly payments of up to $2,500,000; the Metropolitan Bus Authority (MBA) up to
  $10,000,000, monthly up to $800,000; from FY2015-16 the Integrated Transportation Authority
  (PRITA) up to $36,000,000, monthly up to $3,000,000; the rest to the General Fund. A month
  short of a payment is made up from later months of the same FY (no claw-back).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, cached_property
from typing import Any

from tid.rules.calendar import FiscalYear, month_label, month_of_fiscal, parse_fiscal_year
from tid.rules.errors import Bilingual, InputError, spanish_all
from tid.rules.money import from_cents, money_str
from tid.rules.params import ParamValue, history, param_or_none
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
DIESEL = "excise.fuel.diesel_cents_to_hta"

# recipient key -> (parameter prefix, label, citation of its priority)
_CIGARETTE = (
    ("hta_cigarette", "excise.cigarette.hta", "HTA (cigarette tax)", "13 LPRA § 31751(a)(3)"),
    ("mba", "excise.cigarette.mba", "Metropolitan Bus Authority", "13 LPRA § 31751(a)(4)"),
    ("prita", "excise.cigarette.prita", "Integrated Transportation Authority", "§ 31751(a)(5)"),
)
# recipient key -> its label in Spanish, for the warnings
_SPANISH_LABELS = {
    "hta_cigarette": "Autoridad de Carreteras (impuesto sobre cigarrillos)",
    "mba": "Autoridad Metropolitana de Autobuses",
    "prita": "Autoridad de Transporte Integrado",
}
_GENERAL_FUND = Recipient(
    "general_fund",
    "General Fund (rest of the cigarette tax)",
    "13 LPRA § 31751(a) (proceeds not allocated go to the General Fund)",
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


@dataclass(frozen=True, slots=True)
class ExcisePlan:
    """What a fiscal year's allocation needs from the parameters, read once per FY."""

    fiscal_year: FiscalYear
    diesel: ParamValue
    recipients: tuple[Recipient, ...]
    used: tuple[ParamValue, ...]
    reachable_annual_max: dict[str, int]
    warnings: tuple[str, ...]
    steps: tuple[TraceStep, ...]


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

    @property
    def fiscal_year(self) -> FiscalYear:
        return self.plan.fiscal_year

    @property
    def reachable_annual_max(self) -> dict[str, int]:
        return self.plan.reachable_annual_max

    @cached_property
    def trace(self) -> tuple[TraceStep, ...]:
        diesel = self.plan.diesel
        steps = list(self.plan.steps)
        for m, (gas, dsl, crude, reimb, net) in zip(self.months, self.fuel, strict=True):
            label = month_label(*month_of_fiscal(self.fiscal_year, m.fiscal_month))
            steps.append(
                TraceStep(
                    f"{label}: HTA fuel special deposit",
                    f"gasoline {_m(gas)} + diesel {m.diesel_gallons} gal × {diesel.value} = "
                    f"{_m(dsl)} + crude oil {_m(crude)} − reimbursements {_m(reimb)} = {_m(net)}",
                    "13 LPRA § 31751(a)(1)–(2), (a)(1)(A)",
                    diesel.name,
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
    return money_str(from_cents(cents))


def _d(cents: int) -> str:
    return f"${from_cents(cents):,.2f}"


@cache
def excise_plan(fy: FiscalYear) -> ExcisePlan:
    """The parameters of 13 LPRA § 31751(a) for ``fy``: the 4¢ and the cigarette waterfall.

    A recipient whose caps are not in force on the first day of the FY (PRITA before
    FY2015-16) receives nothing that year.
    """
    diesel = param_or_none(DIESEL, fy.start)
    if diesel is None:
        first = history(DIESEL).values[0]
        raise InputError(
            "fiscal_year",
            f"fiscal_year: {fy.label} is before the first fiscal year this project computes "
            f"under 13 LPRA § 31751 (from {first.start.isoformat()})",
        )
    recipients: list[Recipient] = []
    used: list[ParamValue] = []
    steps = [TraceStep("Diesel tax to HTA, a gallon", str(diesel.value), diesel.citation, DIESEL)]
    reachable: dict[str, int] = {}
    warnings: list[str] = []
    for key, prefix, label, citation in _CIGARETTE:
        annual = param_or_none(f"{prefix}.annual_cap", fy.start)
        monthly = param_or_none(f"{prefix}.monthly_cap", fy.start)
        first_day = history(f"{prefix}.annual_cap").values[0].start
        start = FiscalYear(first_day.year if first_day.month >= 7 else first_day.year - 1)
        if annual is None or monthly is None:
            r = Recipient(key, label, citation, monthly_cap=0, start_fiscal_year=start.start_year)
            steps.append(
                TraceStep(
                    f"{label}: not a recipient before FY{start.label}",
                    "0.00",
                    f"{citation} (from FY{start.label})",
                    f"{prefix}.annual_cap",
                )
            )
        else:
            used += [annual, monthly]
            r = Recipient(
                key,
                label,
                f"{annual.citation}; {monthly.citation}",
                monthly_cap=monthly.cents,
                annual_cap=annual.cents,
                carry_forward=True,
                start_fiscal_year=start.start_year,
                parameter=monthly.name,
            )
            steps += [
                TraceStep(f"{label}: most a fiscal year", _m(annual.cents), annual.citation,
                          annual.name),
                TraceStep(f"{label}: monthly payment", _m(monthly.cents), monthly.citation,
                          monthly.name),
            ]  # fmt: skip
        recipients.append(r)
        most = reachable_annual_max(r, fy.start_year) or 0
        reachable[key] = most
        if r.annual_cap is not None and r.monthly_cap is not None and most < r.annual_cap:
            warnings.append(
                Bilingual(
                    f"{label}: 12 monthly payments of at most {_d(r.monthly_cap)} reach "
                    f"{_d(most)}, less than the {_d(r.annual_cap)} a fiscal year of the text; "
                    f"its reachable maximum is {_d(most)}.",
                    f"{_SPANISH_LABELS.get(key, label)}: 12 pagos mensuales de {_d(r.monthly_cap)} "
                    f"como máximo suman {_d(most)}, menos que los {_d(r.annual_cap)} por año "
                    f"fiscal del texto; su máximo alcanzable es {_d(most)}.",
                )
            )
            steps.append(
                TraceStep(
                    f"{label}: reachable in a fiscal year = min(annual, 12 × monthly)",
                    _m(most),
                    r.citation,
                    r.parameter,
                )
            )
    recipients.append(_GENERAL_FUND)
    return ExcisePlan(
        fy, diesel, tuple(recipients), tuple(used), reachable, tuple(warnings), tuple(steps)
    )


def cigarette_recipients(fy: FiscalYear) -> tuple[list[Recipient], list[ParamValue]]:
    """The cigarette waterfall of § 31751(a)(3)–(5) for ``fy`` and the parameters it used."""
    plan = excise_plan(fy)
    return list(plan.recipients), list(plan.used)


SHORTFALL_WARNING = Bilingual(
    "A month short of a payment is made up from later months of the same fiscal year only: "
    "money already paid out to lower priorities in earlier months is not taken back "
    "(RULES.md § 4; the text also speaks of earlier months' excess).",
    "Lo que le falte a un mes para un pago se completa solo con los meses posteriores del mismo "
    "año fiscal: el dinero ya pagado a prioridades inferiores en meses anteriores no se "
    "recupera (RULES.md § 4; el texto también habla del exceso de meses anteriores).",
)


def allocate_excise(fy: FiscalYear, months: Sequence[ExciseMonth]) -> ExciseResult:
    """Allocate the fuel and cigarette excise of ``months`` of ``fy`` (13 LPRA § 31751(a)).

    Fuel: gasoline + 4¢ × diesel gallons + crude-oil excise − reimbursements → HTA
    (§ 31751(a)(1)–(2)). Cigarette: the priority waterfall of § 31751(a)(3)–(5).
    """
    plan = excise_plan(fy)
    d_num, d_den = plan.diesel.ratio
    d_num *= 100  # dollars a gallon -> cents a gallon
    fuel: list[tuple[int, int, int, int, int]] = []
    hta_fuel: list[int] = []
    periods: list[tuple[int, int]] = []
    for i, m in enumerate(months):
        g_num, g_den = m.diesel_gallons.as_integer_ratio()
        num, den = g_num * d_num, g_den * d_den
        diesel = (2 * num + den) // (2 * den)  # gallons × ¢/gal, rounded half-up
        gasoline = _cents(m.gasoline_tax)
        crude = _cents(m.crude_oil_excise)
        reimbursed = _cents(m.reimbursements)
        net = gasoline + diesel + crude - reimbursed
        if net < 0:
            raise InputError(
                f"months[{i}].reimbursements",
                f"months[{i}].reimbursements: {money_str(m.reimbursements)} is more than the "
                f"month's fuel revenue for HTA ({_m(net + reimbursed)})",
            )
        fuel.append((gasoline, diesel, crude, reimbursed, net))
        hta_fuel.append(net)
        periods.append((m.fiscal_month, _cents(m.cigarette_tax)))
    cigarette = run_waterfall(plan.recipients, periods, fiscal_year=fy.start_year)
    warnings = list(plan.warnings)
    if any(p.carried[0] or p.carried[1] or p.carried[2] for p in cigarette.periods):
        warnings.append(SHORTFALL_WARNING)
    gaps = missing_months_warning(fy, [p[0] for p in periods])
    if gaps:
        warnings.append(gaps)
    return ExciseResult(
        plan, tuple(months), tuple(fuel), tuple(hta_fuel), cigarette, tuple(warnings)
    )


def excise_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``excise-allocation`` calculator of CALCULATORS.md (13 LPRA § 31751(a))."""
    check_keys(document, ("fiscal_year", "months"))
    fy = parse_fiscal_year(document.get("fiscal_year"))
    rows = parse_months(document.get("months"), fy, MONEY_FIELDS, ("diesel_gallons",))
    months = [
        ExciseMonth(
            m,
            a["gasoline_tax"],
            a["diesel_gallons"],
            a["crude_oil_excise"],
            a["reimbursements"],
            a["cigarette_tax"],
        )
        for m, _label, a in rows
    ]
    result = allocate_excise(fy, months)
    out_months: list[dict[str, Any]] = []
    totals = dict.fromkeys(ALLOCATION_KEYS, 0)
    for (_m, label, _a), fuel, period in zip(
        rows, result.hta_fuel, result.cigarette.periods, strict=True
    ):
        cents = {"hta_fuel": fuel, **dict(zip(result.cigarette.keys, period.paid, strict=True))}
        for key in ALLOCATION_KEYS:
            totals[key] += cents[key]
        out_months.append(
            {
                "month": label,
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
        "warnings_es": spanish_all(result.warnings),
        "trace": [s.as_json() for s in result.trace],
    }
