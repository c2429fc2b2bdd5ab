"""Distribution of the room occupancy tax collections (RULES.md § 3).

- Until 2003-09-08: IRC 1994 § 2051, ¶ (5) ff. (``room-tax-irc1994-s2051-es.txt``), per fiscal
  year up to FY2002-03: the tax is cut in percentage points of each lodging's taxed base; the
  first 6 points are split 5/6 (30 % General Fund, 70 % Bond Redemption Fund up to the
  Secretary's amount, the rest Recreational Development Fund, topped up to $3,000,000 from the
  General Fund's 30 %) and 1/6 (recipient not named in the supplied text).
- From 2003-09-09: Act 272-2003 § 31 (``act-272-2003-room-occupancy-tax.txt``), month by month
  from October 2003: the Bank's certified amount first (1/10 July–April; 1/9 October–June in
  FY2003-04), then 2 %, 5 % and 9 % of the month's total tax, then the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any

from tid.rules import readings
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message, render_all
from tid.rules.money import from_cents, json_money, money_str, to_cents
from tid.rules.params import ParamValue, history, param, param_or_none
from tid.rules.periods import (
    FiscalYear,
    fiscal_month,
    fiscal_year_of,
    month_label,
    month_of_fiscal,
    parse_date,
    parse_fiscal_year,
)
from tid.rules.trace import TraceStep
from tid.rules.waterfall import (
    Recipient,
    WaterfallResult,
    check_keys,
    installment_schedule,
    missing_months_warning,
    parse_months,
    run_waterfall,
    split_exact,
)

# ---------------------------------------------------------------------------------------------
# IRC 1994 regime, per fiscal year (RULES.md § 3.1)

IRC1994_TYPES = ("hotel", "apartment_hotel", "guest_house", "casino_hotel", "motel", "parador")
CASINO_TYPES = frozenset({"casino_hotel"})
IRC1994_KEYS = (
    "general_fund",
    "special_account_i",
    "special_account_ii",
    "convention_center_account",
    "unnamed_above_general_fund",
    "bond_redemption_fund",
    "recreational_development_fund",
    "unnamed_one_sixth",
)
UNNAMED_LABEL = "1/6 of 6% — recipient not named in the supplied text"
UNNAMED_ABOVE = "unnamed_above_general_fund"
UNNAMED_ABOVE_LABEL = "points above 7/9 before FY1997-98 — recipient not named in the supplied text"
UNNAMED_WARNING = Message(
    "1/6 of 6%% — recipient not named in the supplied text: the last sixth of the "
    "first six points of IRC 1994 § 2051 ¶ (5) is reported apart (%(reading)s).",
    reading=readings.note("unnamed-recipients"),
)
_P = "distribution.irc1994"


@dataclass(frozen=True, slots=True)
class Irc1994Result:
    """A fiscal year's distribution under IRC 1994 § 2051 ¶ (5), in cents."""

    fiscal_year: FiscalYear
    collected: int
    allocations: dict[str, int]
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def _frac(pv: ParamValue) -> Fraction:
    n, d = pv.ratio
    return Fraction(n, d)


def _dollars(cents: Fraction) -> str:
    """An exact amount of cents shown in dollars to 4 decimals (before rounding to cents)."""
    return f"{Decimal(cents.numerator) / Decimal(cents.denominator) / 100:.4f}"


def _points(rate: Fraction) -> str:
    """A rate shown in percentage points: 17/200 -> "8.5"."""
    return f"{(Decimal(rate.numerator) * 100 / Decimal(rate.denominator)).normalize():f}"


def _pct(pv: ParamValue) -> str:
    """A rate parameter shown as a percentage: 0.02 -> "2%"."""
    return f"{(pv.decimal * 100).normalize():f}%"


def _step(text: str, cents: Fraction, pv: ParamValue) -> TraceStep:
    return TraceStep(text, _dollars(cents), pv.citation, pv.name)


def _irc1994_kind(
    kind: str,
    collected: Decimal,
    tax_cents: int,
    on: date,
    six: Fraction,
    special: bool,
    above: ParamValue,
    funds: dict[str, Fraction],
    trace: list[TraceStep],
) -> Fraction:
    """One lodging kind's tax under ¶ (5): its points above the pool go to the General Fund
    and then to the Special Accounts or the convention center account (into ``funds``, with
    their ``trace``); returns the taxed base's share of the pool (its first 6 points)."""
    rate_pv = param(f"room_tax.irc1994.rate.{kind}", on)
    rate = _frac(rate_pv)
    group = "casino" if kind in CASINO_TYPES else "non_casino"
    gf_top_pv = param(f"{_P}.general_fund_up_to.{group}", on)
    gf_top = min(rate, _frac(gf_top_pv))
    base = Fraction(tax_cents) / rate
    trace.append(
        _step(
            f"{kind}: taxed base = tax {collected} ÷ rate {rate_pv.value}",
            base,
            rate_pv,
        )
    )
    funds["general_fund"] += base * max(Fraction(0), gf_top - six)
    rest = rate - gf_top
    if rest > 0:
        if special:
            sa1_pv = param(f"{_P}.special_account_i_up_to.{group}", on)
            sa1_top = min(rate, _frac(sa1_pv))
            funds["special_account_i"] += base * (sa1_top - gf_top)
            funds["special_account_ii"] += base * (rate - sa1_top)
            sa2_pv = param(f"{_P}.special_account_ii_points", on)
            trace.append(
                _step(
                    f"{kind}: Special Account I (points {_points(gf_top)}–{_points(sa1_top)})",
                    base * (sa1_top - gf_top),
                    sa1_pv,
                )
            )
            trace.append(
                _step(
                    f"{kind}: Special Account II (the remaining points "
                    f"{_points(sa1_top)}–{_points(rate)})",
                    base * (rate - sa1_top),
                    sa2_pv,
                )
            )
        elif above.value == "not_named":
            funds[UNNAMED_ABOVE] += base * rest
            trace.append(
                _step(
                    f"{kind}: {UNNAMED_ABOVE_LABEL} (points above {_points(gf_top)})",
                    base * rest,
                    above,
                )
            )
        else:
            funds["convention_center_account"] += base * rest
            trace.append(
                _step(
                    f"{kind}: convention center account (points above {_points(gf_top)})",
                    base * rest,
                    above,
                )
            )
    trace.append(
        _step(
            f"{kind}: General Fund (points {_points(six)}–{_points(gf_top)})",
            base * max(Fraction(0), gf_top - six),
            gf_top_pv,
        )
    )
    return base * min(rate, six)


def irc1994_first_day() -> date:
    """The first day the IRC 1994 rules are read on: the Code's approval, 1994-10-31."""
    return history(f"{_P}.above_general_fund").values[0].start


def _irc1994_on(fy: FiscalYear) -> date:
    """The day ``fy``'s rules are read on: its first day, or the Code's approval in FY1994-95."""
    return max(fy.start, irc1994_first_day())


def _irc1994_regime(
    fy: FiscalYear, collections_until: date | None
) -> tuple[ParamValue, ParamValue | None]:
    """Where ¶ (5) sends the points above the General Fund's in ``fy``, and the part-year's
    last day when ``fy`` is FY2003-04; the inputs that do not fit the regime are refused."""
    on = _irc1994_on(fy)
    above = param_or_none(f"{_P}.above_general_fund", on) if fy.end >= on else None
    part_year = param_or_none(f"{_P}.part_year_until", on)
    if above is None:
        raise InputError(
            "fiscal_year",
            f"fiscal_year: FY{fy.label} is outside the supplied IRC 1994 text's distribution "
            f"(from {irc1994_first_day().isoformat()}, in FY1994-95, to FY2002-03, and FY2003-04 "
            "up to 2003-09-08 with collections_until); from 2003-09 give months under "
            "Act 272-2003",
        )
    if part_year is not None and collections_until is None:
        raise InputError(
            "collections_until",
            f"collections_until: FY{fy.label} is distributed by the IRC 1994 rules only up to "
            f"{part_year.value}, as a part-year; give collections_until {part_year.value} "
            "(what was collected from 2003-09-09 goes under Act 272-2003 as month 2003-09)",
        )
    if collections_until is not None:
        if part_year is None:
            raise InputError(
                "collections_until",
                f"collections_until: only FY2003-04 is a part-year; FY{fy.label} is "
                "distributed whole",
            )
        last = part_year.value
        assert isinstance(last, date)
        if not fy.start <= collections_until <= last:
            raise InputError(
                "collections_until",
                f"collections_until: {collections_until.isoformat()} is not in the part of "
                f"FY{fy.label} under the IRC 1994 rules ({fy.start.isoformat()} to "
                f"{last.isoformat()})",
            )
    return above, part_year


def distribute_irc1994(
    fy: FiscalYear,
    collections: Mapping[str, Decimal],
    bond_fund_amount: Decimal,
    collections_until: date | None = None,
) -> Irc1994Result:
    """Distribute a fiscal year's room tax under IRC 1994 § 2051 ¶ (5) (RULES.md § 3.1).

    ¶ (5): points 6–7 (9 for casinos) → General Fund; above → Special Accounts I/II
    (FY1997-98 to FY1999-2000) or the convention center account (from FY2000-01); the first
    6 points: 30 % of 5/6 → General Fund, 70 % of 5/6 → Bond Redemption Fund up to the
    Secretary's amount, the rest → Recreational Development Fund (topped up to $3,000,000
    from the General Fund's 30 %); 1/6 → not named.

    The seam of 2003 (RULES.md § 3.2): FY2003-04's collections up to ``collections_until``
    (2003-09-08, the day before Act 272-2003's approval) are distributed by these rules as a
    part-year; the Special Accounts do not apply (they ended with FY1999-2000).
    """
    above, part_year = _irc1994_regime(fy, collections_until)
    trace: list[TraceStep] = [
        TraceStep(
            Message("Points above the General Fund's go to"),
            str(above.value),
            above.citation,
            above.name,
        )
    ]
    funds = dict.fromkeys(IRC1994_KEYS, Fraction(0))
    pool, total = _irc1994_points_by_kind(fy, collections, above, funds, trace)
    top_up_warning = _irc1994_first_six_points(fy, pool, bond_fund_amount, funds, trace)
    cents = split_exact(total, [funds[k] for k in IRC1994_KEYS])
    allocations = dict(zip(IRC1994_KEYS, cents, strict=True))
    if above.value != "not_named":  # a recipient only of the years the text names none for
        del allocations[UNNAMED_ABOVE]
    trace.append(
        TraceStep(
            Message("Rounded to cents (largest remainder, ties to the earlier fund)"),
            money_str(from_cents(total)),
            readings.cite("splits-to-the-cent"),
        )
    )
    warnings = [UNNAMED_WARNING, *_irc1994_first_years_warnings(fy, above)]
    if collections_until is not None:
        trace.insert(
            0,
            TraceStep(
                Message("Part-year: collections of FY2003-04 up to"),
                collections_until.isoformat(),
                str(part_year.citation) if part_year else readings.cite("seam-of-2003"),
                f"{_P}.part_year_until",
            ),
        )
        warnings.append(_irc1994_part_year_warning(fy, collections_until))
    if top_up_warning is not None:
        warnings.append(top_up_warning)
    return Irc1994Result(fy, total, allocations, tuple(warnings), tuple(trace))


def _irc1994_points_by_kind(
    fy: FiscalYear,
    collections: Mapping[str, Decimal],
    above: ParamValue,
    funds: dict[str, Fraction],
    trace: list[TraceStep],
) -> tuple[Fraction, int]:
    """IRC 1994 § 2051 ¶ (5), 1st and 2nd paragraphs: each lodging kind's points above the
    first 6 (into ``funds``, with their ``trace``); returns the pool of the first 6 points
    of every kind's taxed base, and the tax collected in cents."""
    on = _irc1994_on(fy)
    six = _frac(param(f"{_P}.pool_points", on))
    special = above.value == "special_accounts"
    pool = Fraction(0)
    total = 0
    for kind in IRC1994_TYPES:
        if kind not in collections:
            continue
        tax_cents = to_cents(collections[kind])
        total += tax_cents
        if tax_cents == 0:
            continue
        pool += _irc1994_kind(
            kind, collections[kind], tax_cents, on, six, special, above, funds, trace
        )
    return pool, total


def _irc1994_first_six_points(
    fy: FiscalYear,
    pool: Fraction,
    bond_fund_amount: Decimal,
    funds: dict[str, Fraction],
    trace: list[TraceStep],
) -> Message | None:
    """IRC 1994 § 2051 ¶ (5), 3rd paragraph: the first 6 points — of 5/6, 30 % to the
    General Fund and 70 % to the Bond Redemption Fund up to the Secretary's amount, the rest
    to the Recreational Development Fund (topped up from the General Fund's 30 % toward
    $3,000,000 when the 70 % is under it); 1/6 not named. Into ``funds``, with their
    ``trace``; returns the top-up's warning, if there is one."""
    on = _irc1994_on(fy)
    pool_pts = param(f"{_P}.pool_points", on)
    named = param(f"{_P}.pool_named_part", on)
    gf_share = param(f"{_P}.pool_general_fund_share", on)
    bond_share = param(f"{_P}.pool_bond_fund_share", on)
    minimum = param(f"{_P}.recreational_minimum", on)
    named_part = pool * _frac(named)
    gf30 = named_part * _frac(gf_share)
    bond70 = named_part * _frac(bond_share)
    bond_cap = to_cents(bond_fund_amount)
    bond = min(bond70, Fraction(bond_cap))
    recreational = bond70 - bond
    top_up = Fraction(0)
    floor = minimum.cents
    if bond70 < floor:
        top_up = min(gf30, max(Fraction(0), floor - recreational))
    funds["general_fund"] += gf30 - top_up
    funds["bond_redemption_fund"] = bond
    funds["recreational_development_fund"] = recreational + top_up
    funds["unnamed_one_sixth"] = pool - named_part
    trace += [
        _step("First 6 points of every lodging's base", pool, pool_pts),
        _step("5/6 of the first 6 points", named_part, named),
        _step(f"{_pct(gf_share)} of {named.value} → General Fund", gf30, gf_share),
        _step(f"{_pct(bond_share)} of {named.value}", bond70, bond_share),
        TraceStep(
            Message("Bond Redemption Fund: up to the Secretary's amount (input)"),
            money_str(bond_fund_amount),
            "IRC 1994 § 2051 ¶ (5), 3rd paragraph",
        ),
        _step("Bond Redemption Fund receives", bond, bond_share),
        _step(
            f"Recreational Development Fund: the rest of the {_pct(bond_share)}",
            recreational,
            param(f"{_P}.recreational_fund_rest", on),
        ),
        _step(
            f"Top-up from the General Fund's {_pct(gf_share)} to bring the Recreational "
            f"Development Fund to {money_str(minimum.decimal)} (only when the "
            f"{_pct(bond_share)} is under it)",
            top_up,
            minimum,
        ),
        _step(UNNAMED_LABEL, pool - named_part, named),
    ]
    if not top_up:
        return None
    return Message(
        "The %(bond_share)s share (%(bond70)s) is under $%(decimal)s: %(top_up)s moves "
        "from the General Fund's %(gf_share)s share to the Recreational Development "
        "Fund, toward receipts of $%(decimal)s and at most the whole %(gf_share)s "
        "share (IRC 1994 § 2051 ¶ (5); %(reading)s).",
        reading=readings.note("recreational-fund-top-up"),
        bond_share=_pct(bond_share),
        bond70=_dollars(bond70),
        decimal=format(minimum.decimal, ",.2f"),
        top_up=_dollars(top_up),
        gf_share=_pct(gf_share),
    )


def _irc1994_first_years_warnings(fy: FiscalYear, above: ParamValue) -> list[str]:
    """The fiscal years before FY1997-98: ¶ (5) names no recipient for the points above 7 / 9,
    and the first of them starts with the Code's approval (no effective-date clause)."""
    warnings: list[str] = []
    first_day = irc1994_first_day()
    if fy.start <= first_day <= fy.end:
        minimum = param(f"{_P}.recreational_minimum", first_day)
        warnings.append(
            Message(
                "FY%(label)s: the IRC 1994 rules are taken to apply from %(first_day)s, the "
                "Code's approval date (the supplied text has no effective-date clause); the "
                "collections given are taken as those from that day to %(end)s, and the "
                "Secretary's amount and the $%(decimal)s of the Recreational Development Fund "
                "are applied to them as given (%(reading)s).",
                reading=readings.note("in-force-from-approval"),
                label=fy.label,
                first_day=first_day.isoformat(),
                end=fy.end.isoformat(),
                decimal=format(minimum.decimal, ",.2f"),
            )
        )
    if above.value == "not_named":
        warnings.append(
            Message(
                "Points above 7/9 before FY1997-98 — recipient not named in the supplied text: "
                "IRC 1994 § 2051 ¶ (5) sends the points above 7%% (9%% for hotels with a "
                "casino) to a recipient only from the fiscal years after June 30, 1997; for "
                "FY%(label)s they are computed and reported apart (%(reading)s).",
                reading=readings.note("unnamed-recipients"),
                label=fy.label,
            )
        )
    return warnings


def _irc1994_part_year_warning(fy: FiscalYear, collections_until: date) -> Message:
    """RULES.md § 3.2: FY2003-04 up to ``collections_until`` is a part-year under ¶ (5)."""
    minimum = param(f"{_P}.recreational_minimum", fy.start)
    return Message(
        "FY%(label)s is a part-year: the collections from %(start)s to "
        "%(collections_until)s are distributed by the IRC 1994 rules, and what was "
        "collected from 2003-09-09 goes under Act 272-2003 as month 2003-09. The text "
        "leaves the seam open; this part-year reading is ours, and the Secretary's "
        "amount and the $%(decimal)s of the Recreational Development Fund are applied "
        "to the part-year as given (%(reading)s).",
        reading=readings.note("seam-of-2003"),
        label=fy.label,
        start=fy.start.isoformat(),
        collections_until=collections_until.isoformat(),
        decimal=format(minimum.decimal, ",.2f"),
    )


# ---------------------------------------------------------------------------------------------
# Act 272-2003 regime, month by month (RULES.md § 3.2)

ACT272_KEYS = (
    "authority_debt_service",
    "tourism_company_admin",
    "general_fund",
    "convention_bureau",
    "tourism_company_remainder",
)
RESERVE_KEY = "convention_center_reserve"
CARRIED_KEYS = ("authority_debt_service", "convention_bureau")
_A = "distribution.act272"
REMAINDER_LABEL = "Tourism Company — remainder (the supplied § 31(B) is cut off after clause iii)"
RESERVE_LABEL = "reserve (General Fund after the deficit is known)"


@dataclass(frozen=True, slots=True)
class ConventionCenterReserve:
    """§ 31(B)(ii)'s reserve of a fiscal year inside its years (the fiscal year of the
    opening and the ten after it), in cents.

    ``deficit`` is the FY's operating deficit when given; ``covered`` the part above the
    threshold that the reserve covers; ``released`` the surplus for the Treasury.
    """

    opened_on: date
    first_fiscal_year: FiscalYear
    last_fiscal_year: FiscalYear
    held: int
    deficit: int | None
    threshold: int
    covered: int | None
    released: int | None


@dataclass(frozen=True, slots=True)
class Act272Result:
    """A fiscal year's months under Act 272-2003 § 31, in cents.

    ``joined``: fiscal month distributed → the fiscal months whose money it carries (only
    October 2003, which carries September 2003's, RULES.md § 3.2).
    """

    fiscal_year: FiscalYear
    installments: tuple[int, ...]
    floor_on: bool
    waterfall: WaterfallResult
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]
    joined: dict[int, tuple[tuple[int, int], ...]]
    reserve: ConventionCenterReserve | None


def act272_first_month() -> date:
    """The first month § 31 distributes: the month after enactment (October 2003)."""
    value = history(f"{_A}.first_month").values[-1].value
    assert isinstance(value, date)
    return value


def act272_first_collection_month() -> date:
    """The first month whose collections are given under § 31 (September 2003, whose money
    joins October's)."""
    value = history(f"{_A}.first_collection_month").values[-1].value
    assert isinstance(value, date)
    return value


def reserve_years(opened_on: date) -> tuple[FiscalYear, FiscalYear, ParamValue]:
    """§ 31(B)(ii): the fiscal years of the Convention Center's reserve — the FY in which it
    opened and the ten after it (the years count from the FY of the opening)."""
    years = param(f"{_A}.convention_center_reserve_years", max(opened_on, act272_first_month()))
    first = fiscal_year_of(opened_on)
    return first, FiscalYear(first.start_year + years.integer), years


def reserve_years_said(years: ParamValue) -> Message:
    """§ 31(B)(ii)'s years of the reserve, as the project reads them: the fiscal year of the
    opening and the ten subsequent ones, eleven in all."""
    return Message(
        "The reserve's years are the fiscal year of the Convention Center's opening and the "
        "%(after)s subsequent fiscal years, %(total)s in all: Act 272-2003 § 31(B)(ii) "
        "(“As of the year … and during the ten (10) subsequent years”) as the project reads "
        "it (%(reading)s).",
        reading=readings.note("convention-center-reserve-years"),
        after=years.integer,
        total=years.integer + 1,
    )


def act272_recipients(
    fy: FiscalYear, bank_certified_amount: Decimal, *, floor_on: bool, reserve: bool = False
) -> tuple[list[Recipient], tuple[int, ...], list[ParamValue]]:
    """The § 31(A)–(B) waterfall of fiscal year ``fy`` as data.

    With ``reserve`` the 5 % of (ii) is held in the Convention Center's reserve.
    """
    count = param(f"{_A}.bank_installment_count", fy.start)
    first = param(f"{_A}.bank_first_fiscal_month", fy.start)
    on = max(fy.start, act272_first_month())  # the shares are Act 272's, from 2003-09-09
    admin = param(f"{_A}.tourism_company_admin_share", on)
    gf = param(f"{_A}.general_fund_share", on)
    account = param(f"{_A}.convention_center_reserve_account", on)
    bureau = param(f"{_A}.convention_bureau_share", on)
    floor = param(f"{_A}.convention_bureau_monthly_floor", on)
    schedule = installment_schedule(to_cents(bank_certified_amount), count.integer, first.integer)
    recipients = [
        Recipient(
            "authority_debt_service",
            "Bank transfer for the Convention Center District Authority's debt service",
            f"{count.citation}; {first.citation}",
            installments=schedule,
            carry_forward=True,
            parameter=count.name,
        ),
        Recipient(
            "tourism_company_admin",
            f"Tourism Company, administration of the tax ({_pct(admin)} of the month's total)",
            admin.citation,
            share=admin.decimal,
            parameter=admin.name,
        ),
        Recipient(
            RESERVE_KEY if reserve else "general_fund",
            f"Convention Center {RESERVE_LABEL} ({_pct(gf)} of the month's total)"
            if reserve
            else f"Treasury General Fund ({_pct(gf)} of the month's total)",
            account.citation if reserve else gf.citation,
            share=gf.decimal,
            parameter=account.name if reserve else gf.name,
        ),
        Recipient(
            "convention_bureau",
            f"Tourism Company for the Convention Bureau ({_pct(bureau)} of the month's total"
            + (
                f"; owed to date at least ${floor.decimal:,.2f} × months elapsed)"
                if floor_on
                else ")"
            ),
            bureau.citation + (f"; {floor.citation}" if floor_on else ""),
            share=bureau.decimal,
            floor=floor.cents if floor_on else None,
            parameter=floor.name if floor_on else bureau.name,
            # In FY2003-04 the months elapsed count from October, the first distributed.
            first_month=first.integer if floor_on else 1,
        ),
        Recipient(
            "tourism_company_remainder",
            REMAINDER_LABEL,
            f"{N_('Act 272-2003 § 31(B)')}; {readings.cite('remainder-to-tourism-company')}",
            remainder=True,
        ),
    ]
    return recipients, schedule, [count, first, admin, gf, bureau, floor]


def _floor_warnings(
    fy: FiscalYear, floor: ParamValue, bureau_floor_from_fy: FiscalYear | None, floor_on: bool
) -> list[str]:
    if bureau_floor_from_fy is None:
        return [
            Message(
                "The Convention Bureau's floor of $%(decimal)s a month is off: the supplied § "
                "31(B)(iii) leaves blank the fiscal year it applies from and "
                "bureau_floor_from_fy was not given (%(reading)s).",
                reading=readings.note("bureau-floor-year"),
                decimal=format(floor.decimal, ",.2f"),
            )
        ]
    if floor_on:
        annual = param(f"{_A}.convention_bureau_annual_floor", max(fy.start, floor.start))
        return [
            Message(
                "The Convention Bureau's floor applies from FY%(label)s as set by "
                "bureau_floor_from_fy (the supplied § 31(B)(iii) leaves the fiscal year "
                "blank). It is annual, $%(decimal)s, paid in monthly instalments of "
                "$%(decimal2)s, and cumulative inside the fiscal year: after month m the "
                "Bureau is owed to date the greater of 9%% of the year's tax to date and "
                "$%(decimal2)s × m, so early months whose 9%% is larger count toward the floor "
                "of later months (%(reading)s).",
                reading=readings.note("bureau-floor-to-date"),
                label=bureau_floor_from_fy.label,
                decimal=format(annual.decimal, ",.2f"),
                decimal2=format(floor.decimal, ",.2f"),
            )
        ]
    return [
        Message(
            "The Convention Bureau's floor is off in FY%(label)s: bureau_floor_from_fy is "
            "FY%(label2)s (the supplied § 31(B)(iii) leaves the year blank).",
            label=fy.label,
            label2=bureau_floor_from_fy.label,
        )
    ]


def _reserve(
    fy: FiscalYear,
    opened_on: date | None,
    deficit: Decimal | None,
    trace: list[TraceStep],
    warnings: list[str],
) -> tuple[date, FiscalYear, FiscalYear] | None:
    """Whether § 31(B)(ii)'s reserve holds the 5 % in ``fy`` (and its warnings and trace)."""
    gf = param(f"{_A}.general_fund_share", max(fy.start, act272_first_month()))
    if opened_on is None:
        if deficit is not None:
            raise InputError(
                "convention_center_opened_on",
                "convention_center_opened_on: give the day the Convention Center opened; the "
                "operating deficit is used only in the reserve's years (the fiscal year of the "
                "opening and the ten after it)",
            )
        years = param(f"{_A}.convention_center_reserve_years", act272_first_month())
        warnings.append(
            Message(
                "The %(gf)s goes to the Treasury General Fund: convention_center_opened_on was "
                "not given, and in the years of the Convention Center's reserve the %(gf)s is "
                "held for the Center's operating deficit. %(years)s",
                gf=_pct(gf),
                years=reserve_years_said(years),
            )
        )
        return None
    first, last, years = reserve_years(opened_on)
    inside = first <= fy <= last
    trace.append(
        TraceStep(
            Message(
                "Convention Center reserve: FY%(label)s (opened %(opened_on)s) and the "
                "%(integer)s fiscal years after it, %(total)s in all, to FY%(label2)s",
                label=first.label,
                opened_on=opened_on.isoformat(),
                integer=years.integer,
                total=years.integer + 1,
                label2=last.label,
            ),
            f"FY{fy.label} {'inside' if inside else 'outside'}",
            years.citation,
            years.name,
        )
    )
    if not inside:
        if deficit is not None:
            warnings.append(
                Message(
                    "The Convention Center's operating deficit was not used: FY%(label)s is "
                    "outside the reserve's years (FY%(label2)s to FY%(label3)s), so the %(gf)s "
                    "goes to the Treasury General Fund (Act 272-2003 § 31(B)(ii)).",
                    label=fy.label,
                    label2=first.label,
                    label3=last.label,
                    gf=_pct(gf),
                )
            )
        return None
    return opened_on, first, last


def distribute_act272(
    fy: FiscalYear,
    months: Sequence[tuple[int, int]],
    bank_certified_amount: Decimal,
    bureau_floor_from_fy: FiscalYear | None = None,
    *,
    convention_center_opened_on: date | None = None,
    convention_center_operating_deficit: Decimal | None = None,
) -> Act272Result:
    """Distribute the months of ``fy`` under Act 272-2003 § 31(A)–(B) (RULES.md § 3.2).

    § 31(A): the Bank's certified amount in monthly transfers, a month's shortfall carried to
    later months of the FY. § 31(B): of what is left, 2 % of the total → Tourism Company;
    5 % → General Fund (for ten years from the Convention Center's opening, a reserve that
    covers its operating deficit above $2,500,000, the surplus to the General Fund); 9 % →
    Convention Bureau (with the floor on: owed to date max(9 % of the tax to date,
    $375,000 × months elapsed)); the rest → Tourism Company. ``months``: (fiscal month,
    cents collected). A month not given collected nothing and still counts. September 2003
    (collected from 2003-09-09) joins October's money.
    """
    if param_or_none(f"{_A}.bank_installment_count", fy.start) is None:
        raise InputError(
            "fiscal_year",
            f"fiscal_year: FY{fy.label} falls under the IRC 1994 regime: give its collections "
            "by lodging type (Act 272-2003 § 31 distributes from October 2003)",
        )
    periods, joined = _act272_periods(fy, months)
    trace: list[TraceStep] = []
    warnings: list[str] = [_act272_opening_warning()]
    reserve_on = _reserve(
        fy, convention_center_opened_on, convention_center_operating_deficit, trace, warnings
    )
    floor_on = bureau_floor_from_fy is not None and fy >= bureau_floor_from_fy
    recipients, schedule, used = act272_recipients(
        fy, bank_certified_amount, floor_on=floor_on, reserve=reserve_on is not None
    )
    waterfall = run_waterfall(recipients, periods, fiscal_year=fy.start_year)
    count, first, floor = used[0], used[1], used[5]
    trace.insert(0, _act272_bank_transfers(fy, count, first, schedule))
    for pv in used[2:5]:
        trace.append(
            TraceStep(Message("Share %(name)s", name=pv.name), str(pv.value), pv.citation, pv.name)
        )
    warnings += _floor_warnings(fy, floor, bureau_floor_from_fy, floor_on)
    if floor_on:
        trace += _act272_bureau_floor(fy, floor, waterfall, recipients)
    reserve: ConventionCenterReserve | None = None
    if reserve_on is not None:
        reserve = _act272_reserve_outcome(
            fy, reserve_on, waterfall, used[3], convention_center_operating_deficit, trace, warnings
        )
    warnings += _act272_seam_warnings(fy, joined)
    trace += _act272_joined_months(fy, joined)
    first_distributed = act272_first_month()
    first_fm = fiscal_month(first_distributed.year, first_distributed.month)
    gaps = missing_months_warning(
        fy, [m for m, _ in periods], first_fm if fy.start <= first_distributed else 1
    )
    if gaps:
        warnings.append(gaps)
    trace += _act272_outstanding(fy, waterfall, floor)
    part_year = _act272_part_year_warning(fy, waterfall, schedule)
    if part_year is not None:
        warnings.append(part_year)
    return Act272Result(
        fy, schedule, floor_on, waterfall, tuple(warnings), tuple(trace), joined, reserve
    )


def _act272_periods(
    fy: FiscalYear, months: Sequence[tuple[int, int]]
) -> tuple[list[tuple[int, int]], dict[int, tuple[tuple[int, int], ...]]]:
    """§ 31 distributes from the month after the Act's approval: September 2003's money
    (collected from 2003-09-09) joins October's (RULES.md § 3.2). Returns the periods to
    distribute, (fiscal month, cents), and the months joined: fiscal month distributed → the
    (fiscal month, cents) it carries."""
    first_distributed = act272_first_month()
    first_fm = fiscal_month(first_distributed.year, first_distributed.month)
    joined: dict[int, tuple[tuple[int, int], ...]] = {}
    periods: list[tuple[int, int]] = []
    early: list[tuple[int, int]] = []
    for m, cents in months:
        if fy.start <= first_distributed and m < first_fm:
            early.append((m, cents))  # September 2003: joins October's money
            continue
        if early and m == first_fm:
            joined[m] = (*early, (m, cents))
            periods.append((m, cents + sum(c for _m, c in early)))
        else:
            if early:  # October not given: September's money is October's alone
                joined[first_fm] = tuple(early)
                periods.append((first_fm, sum(c for _m, c in early)))
            periods.append((m, cents))
        early = []
    if early:
        joined[first_fm] = tuple(early)
        periods.append((first_fm, sum(c for _m, c in early)))
    return periods, joined


def _act272_opening_warning() -> Message:
    """Act 272-2003 § 31, opening words: the fiscal year it starts from is blank."""
    opening = param(f"{_A}.opening_fiscal_year", act272_first_month())
    return Message(
        "Act 272-2003 § 31 opens 'For the fiscal year [blank] and subsequent fiscal "
        "years': the supplied text leaves the year blank; this project distributes "
        "under it from FY%(value)s (the Act's approval, 2003-09-09; %(reading)s).",
        reading=readings.note("act-272-distribution-year"),
        value=opening.value,
    )


def _act272_bank_transfers(
    fy: FiscalYear, count: ParamValue, first: ParamValue, schedule: Sequence[int]
) -> TraceStep:
    """§ 31(A): the Bank's certified amount in monthly transfers."""
    return TraceStep(
        Message(
            "Bank certified amount in %(integer)s monthly transfers from %(value)s",
            integer=count.integer,
            value=month_label(*month_of_fiscal(fy, first.integer)),
        ),
        ", ".join(money_str(from_cents(c)) for c in schedule if c),
        f"{count.citation}; {first.citation}",
        count.name,
    )


def _act272_bureau_floor(
    fy: FiscalYear, floor: ParamValue, waterfall: WaterfallResult, recipients: list[Recipient]
) -> list[TraceStep]:
    """§ 31(B)(iii): the Convention Bureau's floor owed to date, month by month."""
    i = waterfall.keys.index("convention_bureau")
    steps = []
    for p in waterfall.periods:
        elapsed = recipients[i].elapsed(p.fiscal_month)
        steps.append(
            TraceStep(
                Message(
                    "%(value)s: Convention Bureau floor to date = %(decimal)s × "
                    "%(elapsed)s months elapsed",
                    value=month_label(*month_of_fiscal(fy, p.fiscal_month)),
                    decimal=money_str(floor.decimal),
                    elapsed=elapsed,
                ),
                money_str(from_cents(floor.cents * elapsed)),
                floor.citation,
                floor.name,
            )
        )
    return steps


def _act272_reserve_outcome(
    fy: FiscalYear,
    reserve_on: tuple[date, FiscalYear, FiscalYear],
    waterfall: WaterfallResult,
    gf: ParamValue,
    operating_deficit: Decimal | None,
    trace: list[TraceStep],
    warnings: list[str],
) -> ConventionCenterReserve:
    """§ 31(B)(ii): the Convention Center's reserve held in ``fy`` (the 5 % of each month);
    with the year's operating deficit, what it covers above the threshold and the surplus
    released to the Treasury General Fund (with their ``trace`` and ``warnings``)."""
    opened_on, first_fy, last_fy = reserve_on
    on = max(fy.start, opened_on)
    threshold = param(f"{_A}.convention_center_deficit_threshold", on)
    years = param(f"{_A}.convention_center_reserve_years", max(opened_on, act272_first_month()))
    held = dict(zip(waterfall.keys, waterfall.totals, strict=True))[RESERVE_KEY]
    if operating_deficit is None:
        warnings.append(
            Message(
                "FY%(label)s is inside the years of the Convention Center's reserve "
                "(opened %(opened_on)s; FY%(label2)s to FY%(label3)s): the %(gf)s is kept as "
                "reserve (General Fund after the deficit is known). Give "
                "convention_center_operating_deficit (the FY's deficit) to see what covers the "
                "deficit above $%(decimal)s and what the Treasury receives. %(years)s",
                label=fy.label,
                opened_on=opened_on.isoformat(),
                label2=first_fy.label,
                label3=last_fy.label,
                years=reserve_years_said(years),
                gf=_pct(gf),
                decimal=format(threshold.decimal, ",.2f"),
            )
        )
        return ConventionCenterReserve(
            opened_on, first_fy, last_fy, held, None, threshold.cents, None, None
        )
    deficit = to_cents(operating_deficit)
    covered = min(held, max(0, deficit - threshold.cents))
    released = held - covered
    trace += _act272_reserve_steps(fy, gf, threshold, held, deficit, covered, released)
    warnings.append(
        Message(
            "FY%(label)s is inside the years of the Convention Center's reserve "
            "(opened %(opened_on)s; FY%(label2)s to FY%(label3)s): the %(gf)s of each month "
            "is held in reserve; it covers %(covered)s of the operating deficit above "
            "$%(decimal)s, and the surplus, %(released)s, goes to the Treasury General Fund. "
            "%(years)s",
            label=fy.label,
            opened_on=opened_on.isoformat(),
            label2=first_fy.label,
            label3=last_fy.label,
            years=reserve_years_said(years),
            gf=_pct(gf),
            covered=money_str(from_cents(covered)),
            decimal=format(threshold.decimal, ",.2f"),
            released=money_str(from_cents(released)),
        )
    )
    return ConventionCenterReserve(
        opened_on, first_fy, last_fy, held, deficit, threshold.cents, covered, released
    )


def _act272_reserve_steps(
    fy: FiscalYear,
    gf: ParamValue,
    threshold: ParamValue,
    held: int,
    deficit: int,
    covered: int,
    released: int,
) -> list[TraceStep]:
    """§ 31(B)(ii): the reserve held, the deficit it covers, the surplus released."""
    on = max(fy.start, act272_first_month())
    account = param(f"{_A}.convention_center_reserve_account", on)
    release = param(f"{_A}.convention_center_reserve_release", on)
    return [
        TraceStep(
            Message(
                "Convention Center reserve held in FY%(label)s (%(gf)s of each month)",
                label=fy.label,
                gf=_pct(gf),
            ),
            money_str(from_cents(held)),
            account.citation,
            account.name,
        ),
        TraceStep(
            Message(
                "Operating deficit %(deficit)s above %(decimal)s, covered by the "
                "reserve as far as it reaches",
                deficit=money_str(from_cents(deficit)),
                decimal=money_str(threshold.decimal),
            ),
            money_str(from_cents(covered)),
            threshold.citation,
            threshold.name,
        ),
        TraceStep(
            Message("Surplus released from the reserve to the Treasury General Fund"),
            money_str(from_cents(released)),
            release.citation,
            release.name,
        ),
    ]


def _act272_seam_warnings(
    fy: FiscalYear, joined: Mapping[int, tuple[tuple[int, int], ...]]
) -> list[str]:
    """§ 31(B) cut off after clause (iii); the Act from its approval (FY2003-04); September
    2003's money joined to October's (RULES.md § 3.2)."""
    first_distributed = act272_first_month()
    warnings: list[str] = [
        Message(
            "What is left after clause (iii) goes to the Tourism Company: the supplied § "
            "31(B) is cut off after clause iii (%(reading)s).",
            reading=readings.note("remainder-to-tourism-company"),
        )
    ]
    if fy.start_year == first_distributed.year:
        warnings.append(
            Message(
                "FY2003-04: Act 272-2003 is taken to apply from its approval, 2003-09-09 (the "
                "supplied text has no effective-date clause); transfers of 1/9 run October to "
                "June."
            )
        )
    if joined:
        first_label = month_label(first_distributed.year, first_distributed.month)
        warnings.append(
            Message(
                "The tax collected from 2003-09-09 in September 2003 (month 2003-09) joins "
                "%(first_label)s's money: § 31 distributes from the month after the Act's "
                "approval, and its first 1/9 transfer is October's. The collections up to "
                "2003-09-08 go by the IRC 1994 rules as a part-year of FY2003-04; the text "
                "leaves the seam open (%(reading)s).",
                reading=readings.note("seam-of-2003"),
                first_label=first_label,
            )
        )
    return warnings


def _act272_joined_months(
    fy: FiscalYear, joined: Mapping[int, tuple[tuple[int, int], ...]]
) -> list[TraceStep]:
    """RULES.md § 3.2: each month distributed together with the months whose money it
    carries."""
    return [
        TraceStep(
            Message(
                "%(value)s: distributed together",
                value=month_label(*month_of_fiscal(fy, m)),
            ),
            " + ".join(
                f"{month_label(*month_of_fiscal(fy, pm))} {money_str(from_cents(c))}"
                for pm, c in parts
            ),
            history(f"{_A}.first_collection_month").values[-1].citation,
            f"{_A}.first_collection_month",
        )
        for m, parts in joined.items()
    ]


def _act272_part_year_warning(
    fy: FiscalYear, waterfall: WaterfallResult, schedule: Sequence[int]
) -> Message | None:
    """A year given only up to a month before June: what is carried after that month is not
    what is outstanding when the year ends (the later months may still pay it, and the Bank's
    transfers still to come are not counted)."""
    if not waterfall.periods or waterfall.periods[-1].fiscal_month == 12:
        return None
    last = waterfall.periods[-1].fiscal_month
    carried = dict(zip(waterfall.keys, waterfall.outstanding, strict=True))
    return Message(
        "The months given end with %(last)s, before the end of FY%(label)s: what is carried "
        "after that month (debt service %(debt)s, Convention Bureau %(bureau)s) is not what "
        "is outstanding when the year ends. The later months may still pay it, and the Bank "
        "transfers still to come (%(to_come)s) are not counted in it.",
        last=month_label(*month_of_fiscal(fy, last)),
        label=fy.label,
        debt=money_str(from_cents(carried["authority_debt_service"])),
        bureau=money_str(from_cents(carried["convention_bureau"])),
        to_come=money_str(from_cents(sum(schedule[last:]))),
    )


def _act272_outstanding(
    fy: FiscalYear, waterfall: WaterfallResult, floor: ParamValue
) -> list[TraceStep]:
    """§ 31(A) and (B)(iii): what the debt service and the Bureau are still owed when the
    fiscal year's last month has been distributed."""
    if not waterfall.periods or waterfall.periods[-1].fiscal_month != 12:
        return []
    out = dict(zip(waterfall.keys, waterfall.outstanding, strict=True))
    return [
        TraceStep(
            Message(
                "Outstanding at the end of FY%(label)s: %(key)s",
                label=fy.label,
                key=key,
            ),
            money_str(from_cents(out[key])),
            "Act 272-2003 § 31(A)" if key == CARRIED_KEYS[0] else floor.citation,
        )
        for key in CARRIED_KEYS
        if out[key]
    ]


# ---------------------------------------------------------------------------------------------
# The calculator document (CALCULATORS.md: room-tax-distribution)


def _irc1994_document(document: Mapping[str, Any], fy: FiscalYear) -> dict[str, Any]:
    check_keys(document, ("fiscal_year", "collections", "bond_fund_amount", "collections_until"))
    raw = document.get("collections")
    if not isinstance(raw, Mapping) or not raw:
        raise InputError("collections", "collections: give the tax collected by lodging type")
    collections: dict[str, Decimal] = {}
    for kind, amount in raw.items():
        if kind not in IRC1994_TYPES:
            raise InputError(
                f"collections.{kind}",
                f"collections.{kind}: the IRC 1994 regime covers only these lodging types: "
                + ", ".join(IRC1994_TYPES),
            )
        collections[kind] = json_money(amount, f"collections.{kind}")
    bond = json_money(document.get("bond_fund_amount"), "bond_fund_amount")
    until = None
    if document.get("collections_until") not in (None, ""):
        until = parse_date(document["collections_until"], "collections_until")
    result = distribute_irc1994(fy, collections, bond, until)
    return {
        "regime": "irc-1994",
        "fiscal_year": fy.label,
        **({"collections_until": until.isoformat()} if until else {}),
        "collected": money_str(from_cents(result.collected)),
        "allocations": {k: money_str(from_cents(v)) for k, v in result.allocations.items()},
        "warnings": list(result.warnings),
        "warnings_es": render_all(result.warnings, "es"),
        "trace": [s.as_json() for s in result.trace],
    }


def _act272_out(
    fy: FiscalYear,
    rows: Sequence[tuple[int, str, Mapping[str, Any]]],
    months: Sequence[tuple[int, int]],
    result: Act272Result,
) -> dict[str, Any]:
    """The calculator's answer for a fiscal year under Act 272-2003: each month's allocations
    and carried shortfalls, the totals, the bank's transfers, what is outstanding and the
    Convention Center's reserve."""
    wf = result.waterfall
    keys = list(ACT272_KEYS)
    if RESERVE_KEY in wf.keys:
        keys.insert(keys.index("general_fund") + 1, RESERVE_KEY)
    totals = dict.fromkeys(keys, 0)
    labels = {m: label for m, label, _a in rows}
    out_months = []
    for period in wf.periods:
        paid = dict.fromkeys(keys, 0) | dict(zip(wf.keys, period.paid, strict=True))
        carried = dict(zip(wf.keys, period.carried, strict=True))
        for k in keys:
            totals[k] += paid[k]
        row: dict[str, Any] = {
            "month": month_label(*month_of_fiscal(fy, period.fiscal_month)),
            "collected": money_str(from_cents(period.total)),
            "allocations": {k: money_str(from_cents(paid[k])) for k in keys},
            "carried_shortfall": {k: money_str(from_cents(carried[k])) for k in CARRIED_KEYS},
        }
        if period.fiscal_month in result.joined:
            row["joined_months"] = {
                labels.get(m, month_label(*month_of_fiscal(fy, m))): money_str(from_cents(c))
                for m, c in result.joined[period.fiscal_month]
            }
        out_months.append(row)
    carried = dict(zip(wf.keys, wf.outstanding, strict=True))
    out: dict[str, Any] = {
        "regime": "act-272-2003",
        "fiscal_year": fy.label,
        "months": out_months,
        "totals": {
            "collected": money_str(from_cents(sum(t for _m, t in months))),
            **{k: money_str(from_cents(v)) for k, v in totals.items()},
        },
        "bank_transfers": {
            month_label(*month_of_fiscal(fy, m + 1)): money_str(from_cents(c))
            for m, c in enumerate(result.installments)
            if c
        },
        # What is still owed after the last month given (at the year's end only when June is
        # given; _act272_part_year_warning says so otherwise).
        "carried_after_last_month": {k: money_str(from_cents(carried[k])) for k in CARRIED_KEYS},
        "bureau_floor": result.floor_on,
    }
    reserve = result.reserve
    if reserve is not None:
        out["convention_center_reserve"] = {
            "opened_on": reserve.opened_on.isoformat(),
            "first_fiscal_year": reserve.first_fiscal_year.label,
            "last_fiscal_year": reserve.last_fiscal_year.label,
            "held": money_str(from_cents(reserve.held)),
            "deficit_threshold": money_str(from_cents(reserve.threshold)),
            **(
                {
                    "operating_deficit": money_str(from_cents(reserve.deficit)),
                    "covers_deficit": money_str(from_cents(reserve.covered or 0)),
                    "released_to_general_fund": money_str(from_cents(reserve.released or 0)),
                }
                if reserve.deficit is not None
                else {}
            ),
        }
    return out


def _act272_document(document: Mapping[str, Any], fy: FiscalYear) -> dict[str, Any]:
    check_keys(
        document,
        (
            "fiscal_year",
            "months",
            "bank_certified_amount",
            "bureau_floor_from_fy",
            "convention_center_opened_on",
            "convention_center_operating_deficit",
        ),
    )
    if param_or_none(f"{_A}.bank_installment_count", fy.start) is None:
        raise InputError(
            "fiscal_year",
            f"fiscal_year: FY{fy.label} falls under the IRC 1994 regime: give its collections "
            "by lodging type, not months (Act 272-2003 § 31 distributes from 2003-09)",
        )
    rows = parse_months(document.get("months"), fy, ("collected",))
    first = act272_first_collection_month()
    first_label = month_label(first.year, first.month)
    for i, (_m, label, _a) in enumerate(rows):
        if label < first_label:
            raise InputError(
                f"months[{i}].month",
                f"months[{i}].month: {label} is before {first_label}; what was collected up to "
                "2003-09-08 falls under the IRC 1994 regime: give FY2003-04's collections by "
                "lodging type with collections_until 2003-09-08",
            )
    certified = json_money(document.get("bank_certified_amount"), "bank_certified_amount")
    floor_from = None
    if document.get("bureau_floor_from_fy") is not None:
        floor_from = parse_fiscal_year(document["bureau_floor_from_fy"], "bureau_floor_from_fy")
    opened_on = None
    if document.get("convention_center_opened_on") not in (None, ""):
        opened_on = parse_date(
            document["convention_center_opened_on"], "convention_center_opened_on"
        )
    deficit = None
    if document.get("convention_center_operating_deficit") not in (None, ""):
        deficit = json_money(
            document["convention_center_operating_deficit"], "convention_center_operating_deficit"
        )
    months = [(m, to_cents(a["collected"])) for m, _label, a in rows]
    result = distribute_act272(
        fy,
        months,
        certified,
        floor_from,
        convention_center_opened_on=opened_on,
        convention_center_operating_deficit=deficit,
    )
    out = _act272_out(fy, rows, months, result)
    out["warnings"] = list(result.warnings)
    out["warnings_es"] = render_all(result.warnings, "es")
    out["trace"] = [s.as_json() for s in (*result.trace, *result.waterfall.explain())]
    return out


def distribution_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``room-tax-distribution`` calculator of CALCULATORS.md (both input shapes)."""
    fy = parse_fiscal_year(document.get("fiscal_year"))
    has_collections, has_months = "collections" in document, "months" in document
    if has_collections == has_months:
        raise InputError(
            "months" if has_collections else "collections",
            "give either collections by lodging type (fiscal years up to 2002-03, and FY2003-04 "
            "up to 2003-09-08) or months (from 2003-09), not both and not neither",
        )
    if has_collections:
        return _irc1994_document(document, fy)
    return _act272_document(document, fy)
