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
from typing import Any

from tid.rules.calendar import FiscalYear, month_label, month_of_fiscal, parse_fiscal_year
from tid.rules.errors import InputError
from tid.rules.money import from_cents, money_str, to_cents
from tid.rules.params import ParamValue, TraceStep, history, param_or_none
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
class ExciseResult:
    """The allocation of a fiscal year's months, in cents, with its warnings and trace."""

    fiscal_year: FiscalYear
    hta_fuel: tuple[int, ...]  # per month, in the order of ``cigarette.periods``
    cigarette: WaterfallResult
    reachable_annual_max: dict[str, int]
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def cigarette_recipients(fy: FiscalYear) -> tuple[list[Recipient], list[ParamValue]]:
    """The cigarette waterfall of § 31751(a)(3)–(5) for fiscal year ``fy``, from the parameters.

    A recipient whose caps are not in force on the first day of the FY (PRITA before
    FY2015-16) receives nothing that year.
    """
    recipients: list[Recipient] = []
    used: list[ParamValue] = []
    for key, prefix, label, citation in _CIGARETTE:
        annual = param_or_none(f"{prefix}.annual_cap", fy.start)
        monthly = param_or_none(f"{prefix}.monthly_cap", fy.start)
        first = history(f"{prefix}.annual_cap").values[0].start
        start_fy = first.year if first.month >= 7 else first.year - 1
        if annual is None or monthly is None:
            recipients.append(
                Recipient(key, label, citation, monthly_cap=0, start_fiscal_year=start_fy)
            )
            continue
        used += [annual, monthly]
        recipients.append(
            Recipient(
                key,
                label,
                f"{annual.citation}; {monthly.citation}",
                monthly_cap=monthly.cents,
                annual_cap=annual.cents,
                carry_forward=True,
                start_fiscal_year=start_fy,
                parameter=monthly.name,
            )
        )
    recipients.append(_GENERAL_FUND)
    return recipients, used


def allocate_excise(fy: FiscalYear, months: Sequence[ExciseMonth]) -> ExciseResult:
    """Allocate the fuel and cigarette excise of ``months`` of ``fy`` (13 LPRA § 31751(a)).

    Fuel: gasoline + 4¢ × diesel gallons + crude-oil excise − reimbursements → HTA
    (§ 31751(a)(1)–(2)). Cigarette: the priority waterfall of § 31751(a)(3)–(5).
    """
    diesel = param_or_none(DIESEL, fy.start)
    if diesel is None:
        first = history(DIESEL).values[0]
        raise InputError(
            "fiscal_year",
            f"fiscal_year: {fy.label} is before the first fiscal year this project computes "
            f"under 13 LPRA § 31751 (from {first.start.isoformat()})",
        )
    d_num, d_den = diesel.ratio
    recipients, used = cigarette_recipients(fy)
    fuel: list[int] = []
    periods: list[tuple[int, int]] = []
    trace: list[TraceStep] = [
        TraceStep(
            "Diesel tax to HTA, a gallon",
            f"{diesel.value}",
            diesel.citation,
            diesel.name,
        )
    ]
    for i, m in enumerate(months):
        # cents of the diesel part: gallons × $/gal × 100, rounded half-up
        g_num, g_den = m.diesel_gallons.as_integer_ratio()
        num, den = 100 * g_num * d_num, g_den * d_den
        diesel_cents = (2 * num + den) // (2 * den)
        gross = to_cents(m.gasoline_tax) + diesel_cents + to_cents(m.crude_oil_excise)
        net = gross - to_cents(m.reimbursements)
        if net < 0:
            raise InputError(
                f"months[{i}].reimbursements",
                f"months[{i}].reimbursements: {money_str(m.reimbursements)} is more than the "
                f"month's fuel revenue for HTA ({money_str(from_cents(gross))})",
            )
        fuel.append(net)
        label = month_label(*month_of_fiscal(fy, m.fiscal_month))
        trace.append(
            TraceStep(
                f"{label}: HTA fuel special deposit",
                f"gasoline {money_str(m.gasoline_tax)} + diesel {m.diesel_gallons} gal × "
                f"{diesel.value} = {money_str(from_cents(diesel_cents))} + crude oil "
                f"{money_str(m.crude_oil_excise)} − reimbursements "
                f"{money_str(m.reimbursements)} = {money_str(from_cents(net))}",
                "13 LPRA § 31751(a)(1)–(2), (a)(1)(A)",
                diesel.name,
            )
        )
        periods.append((m.fiscal_month, to_cents(m.cigarette_tax)))
    cigarette = run_waterfall(recipients, periods, fiscal_year=fy.start_year)
    reachable: dict[str, int] = {}
    warnings: list[str] = []
    for r, (key, prefix, label, _c) in zip(recipients, _CIGARETTE, strict=False):
        most = reachable_annual_max(r, fy.start_year)
        reachable[key] = most if most is not None else 0
        if r.active_in(fy.start_year) and r.annual_cap is not None and r.monthly_cap:
            if most is not None and most < r.annual_cap:
                warnings.append(
                    f"{label}: 12 monthly payments of at most "
                    f"${from_cents(r.monthly_cap):,.2f} reach "
                    f"${from_cents(most):,.2f}, less than the "
                    f"${from_cents(r.annual_cap):,.2f} a fiscal year of the text; "
                    f"its reachable maximum is ${from_cents(most):,.2f}."
                )
        elif not r.active_in(fy.start_year):
            trace.append(
                TraceStep(
                    f"{label}: not yet a recipient in FY{fy.label}",
                    "0.00",
                    f"{_c} (from FY{FiscalYear(r.start_fiscal_year or 0).label})",
                    f"{prefix}.annual_cap",
                )
            )
    for pv in used:
        trace.append(TraceStep(f"Parameter {pv.name}", str(pv.value), pv.citation, pv.name))
    if any(any(p.carried[:3]) for p in cigarette.periods):
        warnings.append(
            "A month short of a payment is made up from later months of the same fiscal year "
            "only: money already paid out to lower priorities in earlier months is not taken "
            "back (RULES.md § 4; the text also speaks of earlier months' excess)."
        )
    gaps = missing_months_warning(fy, [m.fiscal_month for m in months])
    if gaps:
        warnings.append(gaps)
    return ExciseResult(fy, tuple(fuel), cigarette, reachable, tuple(warnings), tuple(trace))


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
        "trace": [s.as_json() for s in (*result.trace, *result.cigarette.explain())],
    }
