"""The Municipal Equalization Fund (Municipal Equalization Fund, (a)–(d)).

- (a) the basic property tax passes through (an input);
- (b) 25 % (FY1991-92), 30 % (FY1992-93), 35 % (FY1993-94 on) of the Additional Lottery
  System's annual net income;
- (c) 2.02 % … 2.5 % of the General Fund's net internal revenues, without the revenues of the
  fiscal-emergency law (Act 7-2009) for fiscal years begun after 2009-06-30; and, from
  FY2009-10, the hold-harmless of (c)(2): a municipality whose FY2007-08 allocation was at
  least 50 % of its FY2007-08 income receives no less than that allocation, the top-ups taken
  from the others inversely proportional to allocation ÷ income;
- (d) 2 % of the traffic-fine collections (FY2005-06 on) → Municipal Public Works Fund.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any

from tid.rules import readings
from tid.rules.errors import field_error
from tid.rules.messages import N_, Amount, FieldRef, Figure, Message, render_all
from tid.rules.money import ZERO, allocate, from_cents, json_money, money_str, to_cents
from tid.rules.params import ParamValue, history, note_period, param, param_or_none
from tid.rules.periods import FiscalYear, fiscal_year_of, parse_fiscal_year
from tid.rules.trace import TraceStep
from tid.rules.waterfall import check_keys

_LOTTERY = "equalization.lottery_share_rate"
_GF = "equalization.gf_share_rate"
_ACT7 = "equalization.act7_exclusion"
_THRESHOLD = "equalization.hold_harmless.threshold"
_REFERENCE = "equalization.hold_harmless.reference_fiscal_year"
_SPREAD = "equalization.hold_harmless.spread"
_GUARANTEE = "equalization.hold_harmless.guarantee"
YEARLY = (
    _LOTTERY,
    _GF,
    _ACT7,
    _THRESHOLD,
    _REFERENCE,
    _SPREAD,
    _GUARANTEE,
    "equalization.public_works_rate",
)
_PUBLIC_WORKS = "equalization.public_works_rate"
RATIO_PLACES = Decimal("0.000001")


@dataclass(frozen=True, slots=True)
class Municipality:
    """A municipality's base allocation of (c) and its FY2007-08 allocation and income."""

    name: str
    base: Decimal
    allocation_2007_08: Decimal
    income_2007_08: Decimal


@dataclass(frozen=True, slots=True)
class MunicipalityResult:
    name: str
    base: Decimal
    ratio_2007_08: Decimal | None
    protected: bool
    adjustment: Decimal
    final: Decimal


@dataclass(frozen=True, slots=True)
class HoldHarmlessResult:
    """The (c)(2) adjustment of the base allocations, to the cent."""

    applied: bool
    municipalities: tuple[MunicipalityResult, ...]
    top_ups: Decimal
    zeroed: tuple[str, ...]
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


@dataclass(frozen=True, slots=True)
class FundShares:
    """The fund's sources for one fiscal year (Municipal Equalization Fund, (a)–(d))."""

    fiscal_year: FiscalYear
    lottery_rate: Decimal
    lottery_share: Decimal
    gf_rate: Decimal
    gf_base: Decimal
    gf_share: Decimal
    public_works_fund: Decimal
    basic_property_tax: Decimal
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]

    @property
    def fund_total(self) -> Decimal:
        """(a) + (b) + (c): what the fund receives (the public works 2 % is a separate fund)."""
        return self.basic_property_tax + self.lottery_share + self.gf_share


def _share(rate: ParamValue, amount: Decimal) -> Decimal:
    """rate × amount to the cent, half-up (integer arithmetic)."""
    n, d = rate.ratio
    cents = to_cents(amount)
    return from_cents((2 * n * cents + d) // (2 * d))


def _general_fund_base(
    fy: FiscalYear,
    gf_net_revenues: Decimal,
    excluded_revenues: Decimal | None,
    warnings: list[str],
    trace: list[TraceStep],
) -> Decimal:
    """(c)(1): the General Fund's net internal revenues the (c) rate applies to, less the
    Act 7-2009 revenues for fiscal years begun after 2009-06-30."""
    act7 = param_or_none(_ACT7, fy.start)
    base = gf_net_revenues
    if act7 is not None and act7.value is True:
        excluded = excluded_revenues if excluded_revenues is not None else ZERO
        if excluded > gf_net_revenues:
            raise field_error(
                "excluded_revenues",
                Message(
                    "%(amount)s is more than the General Fund's net revenues (%(revenues)s)",
                    amount=Amount(excluded),
                    revenues=Amount(gf_net_revenues),
                ),
            )
        base = gf_net_revenues - excluded
        trace.append(
            TraceStep(
                Message(
                    "(c)(1) Base: %(gf_net_revenues)s − Act 7-2009 revenues %(excluded)s",
                    gf_net_revenues=Figure(gf_net_revenues),
                    excluded=Figure(excluded),
                ),
                Figure(base),
                act7.citation,
                _ACT7,
            )
        )
        if excluded_revenues is None:
            warnings.append(
                Message(
                    "Not given: %(field)s. The Act 7-2009 revenues left out of the General "
                    "Fund base for fiscal years begun after %(day)s are taken as zero.",
                    field=FieldRef("excluded_revenues"),
                    day=date(2009, 6, 30),
                )
            )
    elif excluded_revenues:
        warnings.append(
            Message(
                "%(field)s ignored: the Act 7-2009 exclusion applies to fiscal years "
                "begun after %(day)s, not to FY%(label)s.",
                field=FieldRef("excluded_revenues"),
                day=date(2009, 6, 30),
                label=fy.label,
            )
        )
    return base


def _public_works(
    fy: FiscalYear, traffic_fines: Decimal | None, warnings: list[str], trace: list[TraceStep]
) -> Decimal:
    """(d): the Municipal Public Works Fund's share of the traffic fines, from its first FY."""
    works_pv = param_or_none(_PUBLIC_WORKS, fy.start)
    works = ZERO
    if works_pv is not None:
        works = _share(works_pv, traffic_fines or ZERO)
        trace.append(
            TraceStep(
                Message(
                    "(d) Municipal Public Works Fund: %(value)s × %(value2)s",
                    value=works_pv.value,
                    value2=Figure(traffic_fines or ZERO),
                ),
                Figure(works),
                works_pv.citation,
                _PUBLIC_WORKS,
            )
        )
    elif traffic_fines:
        first = history(_PUBLIC_WORKS).values[0]
        percent = f"{(Decimal(first.text) * 100).normalize():f}%"
        starts = fiscal_year_of(first.start).label
        warnings.append(
            Message(
                "%(field)s ignored: the %(percent)s share for the Municipal Public Works "
                "Fund starts in FY%(starts)s, after FY%(label)s.",
                field=FieldRef("traffic_fines"),
                percent=percent,
                starts=starts,
                label=fy.label,
            )
        )
    return works


def fund_shares(
    fy: FiscalYear,
    lottery_net_income: Decimal,
    gf_net_revenues: Decimal,
    *,
    excluded_revenues: Decimal | None = None,
    traffic_fines: Decimal | None = None,
    basic_property_tax: Decimal | None = None,
) -> FundShares:
    """The fund's sources for ``fy`` (Municipal Equalization Fund (a)–(d)).

    (b): lottery rate of the FY × net income; (c): GF rate of the FY × net internal revenues,
    less the Act 7-2009 revenues for FYs begun after 2009-06-30 ((c)(1)); (d): 2 % of the
    traffic fines from FY2005-06; (a): the basic property tax as given.
    """
    lottery_pv = param_or_none(_LOTTERY, fy.start)
    gf_pv = param_or_none(_GF, fy.start)
    if lottery_pv is None or gf_pv is None:
        first = history(_LOTTERY).values[0]
        raise field_error(
            "fiscal_year",
            Message(
                "FY%(fy)s is before FY1991-92, the first fiscal year of the fund's text "
                "(%(citation)s)",
                fy=fy.label,
                citation=first.citation,
            ),
        )
    warnings: list[str] = []
    trace: list[TraceStep] = []
    lottery = _share(lottery_pv, lottery_net_income)
    trace.append(
        TraceStep(
            Message(
                "(b) Lottery share: %(value)s × %(lottery_net_income)s",
                value=lottery_pv.value,
                lottery_net_income=Figure(lottery_net_income),
            ),
            Figure(lottery),
            lottery_pv.citation,
            _LOTTERY,
        )
    )
    base = _general_fund_base(fy, gf_net_revenues, excluded_revenues, warnings, trace)
    gf = _share(gf_pv, base)
    trace.append(
        TraceStep(
            Message(
                "(c) General Fund share: %(value)s × %(base)s",
                value=gf_pv.value,
                base=Figure(base),
            ),
            Figure(gf),
            gf_pv.citation,
            _GF,
        )
    )
    works = _public_works(fy, traffic_fines, warnings, trace)
    basic = basic_property_tax if basic_property_tax is not None else ZERO
    trace.append(
        TraceStep(
            Message("(a) Basic property tax (passes through as given)"),
            money_str(basic),
            N_("Municipal Equalization Fund, (a)"),
        )
    )
    return FundShares(
        fy,
        lottery_pv.decimal,
        lottery,
        gf_pv.decimal,
        base,
        gf,
        works,
        basic,
        tuple(warnings),
        tuple(trace),
    )


def hold_harmless(fy: FiscalYear, municipalities: Sequence[Municipality]) -> HoldHarmlessResult:
    """Adjust the (c) base allocations of ``fy`` by the hold-harmless of (c)(2).

    Protected: FY2007-08 allocation ≥ 50 % of FY2007-08 income → no less than that
    allocation. The top-ups are taken from the others inversely proportional to the share
    their allocation was of their income (weight = income ÷ allocation), to the cent by
    largest remainder; one taken below zero is set to zero and the rest spread again over
    the others (/readings#no-municipality-below-zero). Infeasible (the others hold too little): an
    InputError."""
    threshold = param_or_none(_THRESHOLD, fy.start)
    if threshold is None:
        return _before_hold_harmless(fy, municipalities)
    reference = param_or_none(_REFERENCE, fy.start)
    ref_label = (
        reference.value.label if reference and isinstance(reference.value, FiscalYear) else ""
    )
    base = [to_cents(m.base) for m in municipalities]
    alloc, income = _reference_year(municipalities, ref_label)
    t_num, t_den = threshold.ratio
    protected = [a * t_den >= t_num * inc for a, inc in zip(alloc, income, strict=True)]
    top_up = [max(0, a - b) if p else 0 for a, b, p in zip(alloc, base, protected, strict=True)]
    needed = sum(top_up)
    protected_names = [m.name for m, p in zip(municipalities, protected, strict=True) if p]
    trace = _protection_steps(threshold, ref_label, protected_names, needed)
    others = [i for i, p in enumerate(protected) if not p]
    take = [0] * len(municipalities)
    zeroed: list[int] = []
    if needed:
        zeroed = _take_from_the_others(needed, others, base, alloc, income, take)
        spread = param(_SPREAD, fy.start)
        trace.append(
            TraceStep(
                Message(
                    "Taken from the others, inversely proportional to allocation ÷ income (weight "
                    "= income ÷ allocation)"
                ),
                money_str(from_cents(needed)),
                spread.citation,
                _SPREAD,
            )
        )
    results = [
        MunicipalityResult(
            m.name,
            m.base,
            _ratio(m, (t_num, t_den)),
            protected[i],
            from_cents(top_up[i] - take[i]),
            from_cents(base[i] + top_up[i] - take[i]),
        )
        for i, m in enumerate(municipalities)
    ]
    warnings: list[str] = []
    if zeroed:
        warnings.append(
            Message(
                "Taken to zero and the rest spread again over the others with the same "
                "weights: %(names)s (%(reading)s).",
                reading=readings.note("no-municipality-below-zero"),
                names=", ".join(municipalities[i].name for i in zeroed),
            )
        )
    return HoldHarmlessResult(
        True,
        tuple(results),
        from_cents(needed),
        tuple(municipalities[i].name for i in zeroed),
        tuple(warnings),
        tuple(trace),
    )


def _protection_steps(
    threshold: ParamValue, ref_label: str, protected: list[str], needed: int
) -> list[TraceStep]:
    """(c)(2): who is protected (FY2007-08 allocation ≥ the threshold × FY2007-08 income),
    and the top-ups they are owed (no less than their FY2007-08 allocation)."""
    guarantee = param(_GUARANTEE, threshold.start)
    return [
        TraceStep(
            Message(
                "Protected: FY%(ref_label)s allocation ≥ %(value)s × FY%(ref_label)s income",
                ref_label=ref_label,
                value=threshold.value,
            ),
            ", ".join(protected) or Message("none"),
            threshold.citation,
            _THRESHOLD,
        ),
        TraceStep(
            Message("Top-ups to the FY2007-08 allocation of the protected"),
            money_str(from_cents(needed)),
            guarantee.citation,
            guarantee.name,
        ),
    ]


def _before_hold_harmless(
    fy: FiscalYear, municipalities: Sequence[Municipality]
) -> HoldHarmlessResult:
    """Before the hold-harmless of (c)(2) is in force: the bases pass unchanged."""
    first_fy = fiscal_year_of(history(_THRESHOLD).values[0].start).label
    return HoldHarmlessResult(
        False,
        tuple(
            MunicipalityResult(m.name, m.base, _ratio(m), False, ZERO, m.base)
            for m in municipalities
        ),
        ZERO,
        (),
        (
            Message(
                "The hold-harmless of (c)(2) applies from FY%(first_fy)s: the bases of "
                "FY%(label)s pass unchanged.",
                first_fy=first_fy,
                label=fy.label,
            ),
        )
        if municipalities
        else (),
        (),
    )


def _reference_year(
    municipalities: Sequence[Municipality], ref_label: str
) -> tuple[list[int], list[int]]:
    """(c)(2): each municipality's allocation and income of the reference year (FY2007-08),
    in cents; a zero one is refused (the weight income ÷ allocation would not be finite)."""
    alloc = [to_cents(m.allocation_2007_08) for m in municipalities]
    income = [to_cents(m.income_2007_08) for m in municipalities]
    for i, m in enumerate(municipalities):
        if alloc[i] == 0:
            raise field_error(
                f"municipalities[{i}].allocation_2007_08",
                Message(
                    "%(name)s has a zero FY%(fy)s allocation, so its weight (income ÷ "
                    "allocation) is not finite; give its FY2007-08 allocation",
                    name=m.name,
                    fy=ref_label,
                ),
            )
        if income[i] == 0:
            raise field_error(
                f"municipalities[{i}].income_2007_08",
                Message(
                    "%(name)s has a zero FY%(fy)s income; the share its allocation was of it "
                    "is not defined",
                    name=m.name,
                    fy=ref_label,
                ),
            )
    return alloc, income


def _take_from_the_others(
    needed: int,
    others: list[int],
    base: list[int],
    alloc: list[int],
    income: list[int],
    take: list[int],
) -> list[int]:
    """(c)(2): the top-ups (``needed`` cents) taken from the unprotected municipalities
    (``others``), inversely proportional to the share their allocation was of their income
    (weight = income ÷ allocation), to the cent; one taken below zero is taken to zero and
    the rest spread again over the others (/readings#no-municipality-below-zero). Fills ``take``;
    returns the municipalities taken to zero, in order. Infeasible: an InputError."""
    available = sum(base[i] for i in others)
    if available < needed:
        raise field_error(
            "municipalities",
            Message(
                "the protected municipalities need top-ups of %(needed)s but the others hold "
                "only %(available)s; the hold-harmless cannot be met (check the bases and "
                "FY2007-08 figures)",
                needed=Amount.of_cents(needed),
                available=Amount.of_cents(available),
            ),
        )
    weights = {i: Decimal(income[i]) / Decimal(alloc[i]) for i in others}
    active = list(others)
    remaining = needed
    zeroed: list[int] = []
    while remaining:
        shares = allocate(from_cents(remaining), [weights[i] for i in active])
        cents = [to_cents(s) for s in shares]
        over = [i for i, c in zip(active, cents, strict=True) if c > base[i]]
        if not over:
            for i, c in zip(active, cents, strict=True):
                take[i] = c
            break
        for i in over:
            take[i] = base[i]
            remaining -= base[i]
            zeroed.append(i)
        active = [i for i in active if i not in set(over)]
    return zeroed


def _ratio(m: Municipality, threshold: tuple[int, int] | None = None) -> Decimal | None:
    """The FY2007-08 allocation ÷ income as shown: 6 decimals (half-up), and more where 6
    would round it across the ``threshold`` (numerator, denominator) — 0.49999999 is shown
    so, never as 0.500000 beside "not protected"."""
    alloc, income = to_cents(m.allocation_2007_08), to_cents(m.income_2007_08)
    if not income:
        return None
    exact = Fraction(alloc, income)
    places = RATIO_PLACES
    while True:
        with localcontext() as exact_enough:
            exact_enough.prec = 60  # cents up to 10**30 leave the figure's digits exact
            shown = (Decimal(alloc) / Decimal(income)).quantize(places, ROUND_HALF_UP)
        if threshold is None or (Fraction(shown) >= Fraction(*threshold)) == (
            exact >= Fraction(*threshold)
        ):
            return shown
        places = places / 10


_FIELDS = (
    "fiscal_year",
    "lottery_net_income",
    "gf_net_revenues",
    "excluded_revenues",
    "traffic_fines",
    "basic_property_tax",
    "municipalities",
)
_MUNICIPALITY_FIELDS = ("name", "base", "allocation_2007_08", "income_2007_08")


def _optional_money(document: Mapping[str, Any], name: str) -> Decimal | None:
    value = document.get(name)
    return None if value is None else json_money(value, name)


def parse_municipalities(value: object) -> list[Municipality]:
    """Parse ``municipalities`` [{name, base, allocation_2007_08, income_2007_08}] strictly."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise field_error("municipalities", Message("give a list of municipalities"))
    out: list[Municipality] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(value):
        where = f"municipalities[{i}]"
        if not isinstance(entry, Mapping):
            raise field_error(where, Message("each municipality is an object"))
        check_keys(entry, _MUNICIPALITY_FIELDS, where)
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise field_error(f"{where}.name", Message("give the municipality's name"))
        name = name.strip()
        if name in seen:
            raise field_error(
                f"{where}.name",
                Message(
                    "%(name)s is given twice (also %(other)s)",
                    name=name,
                    other=FieldRef(f"municipalities[{seen[name]}]"),
                ),
            )
        seen[name] = i
        out.append(
            Municipality(
                name,
                json_money(entry.get("base"), f"{where}.base"),
                json_money(entry.get("allocation_2007_08"), f"{where}.allocation_2007_08"),
                json_money(entry.get("income_2007_08"), f"{where}.income_2007_08"),
            )
        )
    return out


def equalization_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``equalization`` calculator of docs/calculators.md (Municipal Equalization Fund)."""
    check_keys(document, _FIELDS)
    fy = parse_fiscal_year(document.get("fiscal_year"))
    lottery = json_money(document.get("lottery_net_income"), "lottery_net_income")
    gf_net = json_money(document.get("gf_net_revenues"), "gf_net_revenues")
    municipalities = parse_municipalities(document.get("municipalities"))
    # The fund works by fiscal year, on the year's first day (the reading reform-periods).
    note_period(YEARLY, fy.start, fy.end, Message("FY%(label)s", label=fy.label))
    shares = fund_shares(
        fy,
        lottery,
        gf_net,
        excluded_revenues=_optional_money(document, "excluded_revenues"),
        traffic_fines=_optional_money(document, "traffic_fines"),
        basic_property_tax=_optional_money(document, "basic_property_tax"),
    )
    warnings = list(shares.warnings)
    if municipalities:
        total_base = sum((m.base for m in municipalities), ZERO)
        if total_base != shares.gf_share:
            warnings.append(
                Message(
                    "The municipalities' bases add up to %(total_base)s, not the %(field)s "
                    "%(gf_share)s: each base is used as given (the § 5817 formula is not in the "
                    "supplied text).",
                    field=FieldRef("gf_share"),
                    total_base=Amount(total_base),
                    gf_share=Amount(shares.gf_share),
                )
            )
    adjusted = hold_harmless(fy, municipalities)
    warnings += adjusted.warnings
    return {
        "fiscal_year": fy.label,
        "lottery_rate": str(shares.lottery_rate),
        "lottery_share": money_str(shares.lottery_share),
        "gf_rate": str(shares.gf_rate),
        "gf_base": money_str(shares.gf_base),
        "gf_share": money_str(shares.gf_share),
        "public_works_fund": money_str(shares.public_works_fund),
        "basic_property_tax": money_str(shares.basic_property_tax),
        "fund_total": money_str(shares.fund_total),
        "hold_harmless_applied": adjusted.applied,
        "municipalities": [
            {
                "name": r.name,
                "base": money_str(r.base),
                "ratio_2007_08": None if r.ratio_2007_08 is None else str(r.ratio_2007_08),
                "protected": r.protected,
                "adjustment": money_str(r.adjustment),
                "final": money_str(r.final),
            }
            for r in adjusted.municipalities
        ],
        "warnings": warnings,
        "warnings_es": render_all(warnings, "es"),
        "trace": [s.as_json() for s in (*shares.trace, *adjusted.trace)],
    }
