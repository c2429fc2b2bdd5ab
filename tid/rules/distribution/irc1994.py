"""The IRC 1994 regime, per fiscal year: IRC 1994 § 2051 ¶ (5) up to
FY2002-03, and FY2003-04 up to 2003-09-08 as a part-year."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction

from tid.rules import readings
from tid.rules.distribution.trace_figures import _frac, _pct, _points, _step
from tid.rules.errors import InputError, field_error
from tid.rules.messages import N_, Amount, Message
from tid.rules.money import from_cents, money_str, to_cents
from tid.rules.params import ParamValue, history, note_period, param, param_or_none
from tid.rules.periods import FiscalYear
from tid.rules.trace import TraceStep
from tid.rules.vocab.lodging_types import irc1994_types
from tid.rules.waterfall import split_exact

IRC1994_TYPES = irc1994_types()  # the vocabulary's (tid/rules/vocab/lodging_types.py)
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
# What the 1994 rules read for a fiscal year, on its first day: their points and shares, and
# the rates of the lodgings (prefixes).
YEARLY = (f"{_P}.", "room_tax.irc1994.")


@dataclass(frozen=True, slots=True)
class Irc1994Result:
    """A fiscal year's distribution under IRC 1994 § 2051 ¶ (5), in cents."""

    fiscal_year: FiscalYear
    collected: int
    allocations: dict[str, int]
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def _rate(kind: str, collected: Decimal, on: date) -> tuple[ParamValue, Fraction]:
    """A lodging kind's rate on ``on``; tax collected at a rate of 0 (a reform's) has no
    taxed base, refused naming the kind's collections."""
    rate_pv = param(f"room_tax.irc1994.rate.{kind}", on)
    rate = _frac(rate_pv)
    if rate == 0:
        raise InputError(
            f"collections.{kind}",
            Message(
                "collections.%(kind)s: %(collected)s of tax cannot have been collected at a "
                "rate of 0 (%(citation)s): its taxed base is unknown",
                kind=kind,
                collected=money_str(collected),
                citation=rate_pv.citation,
            ),
        )
    return rate_pv, rate


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
    rate_pv, rate = _rate(kind, collected, on)
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
        raise field_error(
            "fiscal_year",
            Message(
                N_(
                    "FY%(fy_label)s is outside the supplied IRC 1994 text's distribution "
                    "(from %(irc1994_first_day)s, in FY1994-95, to FY2002-03, and FY2003-04 "
                    "up to 2003-09-08 with collections_until); from 2003-09 give months under"
                    " Act 272-2003"
                ),
                fy_label=fy.label,
                irc1994_first_day=irc1994_first_day(),
            ),
        )
    if part_year is not None and collections_until is None:
        raise field_error(
            "collections_until",
            Message(
                N_(
                    "FY%(fy_label)s is distributed by the IRC 1994 rules only up to "
                    "%(part_year_value)s, as a part-year; give collections_until "
                    "%(part_year_value)s (what was collected from 2003-09-09 goes under Act "
                    "272-2003 as month 2003-09)"
                ),
                fy_label=fy.label,
                part_year_value=part_year.value,
            ),
        )
    if collections_until is not None:
        if part_year is None:
            raise field_error(
                "collections_until",
                Message(
                    N_("only FY2003-04 is a part-year; FY%(fy_label)s is distributed whole"),
                    fy_label=fy.label,
                ),
            )
        last = part_year.value
        assert isinstance(last, date)
        if not fy.start <= collections_until <= last:
            raise field_error(
                "collections_until",
                Message(
                    N_(
                        "%(collections_until)s is not in the part of FY%(fy_label)s under the"
                        " IRC 1994 rules (%(start)s to %(last)s)"
                    ),
                    collections_until=collections_until,
                    fy_label=fy.label,
                    start=fy.start,
                    last=last,
                ),
            )
    return above, part_year


def distribute_irc1994(
    fy: FiscalYear,
    collections: Mapping[str, Decimal],
    bond_fund_amount: Decimal,
    collections_until: date | None = None,
) -> Irc1994Result:
    """Distribute a fiscal year's room tax under IRC 1994 § 2051 ¶ (5).

    ¶ (5): points 6–7 (9 for casinos) → General Fund; above → Special Accounts I/II
    (FY1997-98 to FY1999-2000) or the convention center account (from FY2000-01); the first
    6 points: 30 % of 5/6 → General Fund, 70 % of 5/6 → Bond Redemption Fund up to the
    Secretary's amount, the rest → Recreational Development Fund (topped up to $3,000,000
    from the General Fund's 30 %); 1/6 → not named.

    The seam of 2003 (/readings#seam-of-2003): FY2003-04's collections up to ``collections_until``
    (2003-09-08, the day before Act 272-2003's approval) are distributed by these rules as a
    part-year; the Special Accounts do not apply (they ended with FY1999-2000).
    """
    above, part_year = _irc1994_regime(fy, collections_until)
    # The 1994 rules work by fiscal year, on the year's first day (reading reform-periods).
    note_period(
        YEARLY, _irc1994_on(fy), collections_until or fy.end, Message("FY%(label)s", label=fy.label)
    )
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
        bond70=Amount.of_cents(bond70),
        decimal=format(minimum.decimal, ",.2f"),
        top_up=Amount.of_cents(top_up),
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
                first_day=first_day,
                end=fy.end,
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
    """/readings#seam-of-2003: FY2003-04 up to ``collections_until`` is a part-year under ¶ (5)."""
    minimum = param(f"{_P}.recreational_minimum", fy.start)
    return Message(
        "FY%(label)s is a part-year: the collections from %(start)s to "
        "%(collections_until)s are distributed by the IRC 1994 rules, and what was "
        "collected from %(act_day)s goes under Act 272-2003 as month 2003-09. The text "
        "leaves the seam open; this part-year reading is ours, and the Secretary's "
        "amount and the $%(decimal)s of the Recreational Development Fund are applied "
        "to the part-year as given (%(reading)s).",
        reading=readings.note("seam-of-2003"),
        label=fy.label,
        start=fy.start,
        collections_until=collections_until,
        act_day=date(2003, 9, 9),
        decimal=format(minimum.decimal, ",.2f"),
    )
