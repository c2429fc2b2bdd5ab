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

from tid.rules.calendar import (
    FiscalYear,
    fiscal_month,
    month_label,
    month_of_fiscal,
    parse_fiscal_year,
)
from tid.rules.errors import Bilingual, InputError, spanish_all
from tid.rules.money import from_cents, json_money, money_str, to_cents
from tid.rules.params import ParamValue, history, param, param_or_none
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
    "bond_redemption_fund",
    "recreational_development_fund",
    "unnamed_one_sixth",
)
UNNAMED_LABEL = "1/6 of 6% — recipient not named in the supplied text"
UNNAMED_WARNING = Bilingual(
    "1/6 of 6% — recipient not named in the supplied text: the last sixth of the first six "
    "points of IRC 1994 § 2051 ¶ (5) is reported apart (RULES.md § 3.1).",
    "1/6 del 6% — receptor no nombrado en el texto disponible: la última sexta parte de los "
    "primeros seis puntos del IRC 1994 § 2051 ¶ (5) se informa aparte (RULES.md § 3.1).",
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


def distribute_irc1994(
    fy: FiscalYear, collections: Mapping[str, Decimal], bond_fund_amount: Decimal
) -> Irc1994Result:
    """Distribute a fiscal year's room tax under IRC 1994 § 2051 ¶ (5) (RULES.md § 3.1).

    ¶ (5): points 6–7 (9 for casinos) → General Fund; above → Special Accounts I/II
    (FY1997-98 to FY1999-2000) or the convention center account (from FY2000-01); the first
    6 points: 30 % of 5/6 → General Fund, 70 % of 5/6 → Bond Redemption Fund up to the
    Secretary's amount, the rest → Recreational Development Fund (topped up to $3,000,000
    from the General Fund's 30 %); 1/6 → not named.
    """
    on = fy.start
    above = param_or_none(f"{_P}.above_general_fund", on)
    if above is None:
        raise InputError(
            "fiscal_year",
            f"fiscal_year: FY{fy.label} is outside the supplied IRC 1994 text's distribution "
            "(FY1997-98 to FY2002-03); from FY2003-04 give months under Act 272-2003",
        )
    pool_pts = param(f"{_P}.pool_points", on)
    named = param(f"{_P}.pool_named_part", on)
    gf_share = param(f"{_P}.pool_general_fund_share", on)
    bond_share = param(f"{_P}.pool_bond_fund_share", on)
    minimum = param(f"{_P}.recreational_minimum", on)
    special = above.value == "special_accounts"
    trace: list[TraceStep] = [
        TraceStep(
            "Points above the General Fund's go to", str(above.value), above.citation, above.name
        )
    ]
    six = _frac(pool_pts)
    funds = dict.fromkeys(IRC1994_KEYS, Fraction(0))
    pool = Fraction(0)
    total = 0
    for kind in IRC1994_TYPES:
        if kind not in collections:
            continue
        tax_cents = to_cents(collections[kind])
        total += tax_cents
        if tax_cents == 0:
            continue
        rate_pv = param(f"room_tax.irc1994.rate.{kind}", on)
        rate = _frac(rate_pv)
        group = "casino" if kind in CASINO_TYPES else "non_casino"
        gf_top_pv = param(f"{_P}.general_fund_up_to.{group}", on)
        gf_top = min(rate, _frac(gf_top_pv))
        base = Fraction(tax_cents) / rate
        trace.append(
            _step(
                f"{kind}: taxed base = tax {collections[kind]} ÷ rate {rate_pv.value}",
                base,
                rate_pv,
            )
        )
        pool += base * min(rate, six)
        funds["general_fund"] += base * max(Fraction(0), gf_top - six)
        rest = rate - gf_top
        if rest > 0:
            if special:
                sa1_pv = param(f"{_P}.special_account_i_up_to.{group}", on)
                sa1_top = min(rate, _frac(sa1_pv))
                funds["special_account_i"] += base * (sa1_top - gf_top)
                funds["special_account_ii"] += base * (rate - sa1_top)
                trace.append(
                    _step(
                        f"{kind}: Special Account I (points {_points(gf_top)}–{_points(sa1_top)})",
                        base * (sa1_top - gf_top),
                        sa1_pv,
                    )
                )
                trace.append(
                    _step(
                        f"{kind}: Special Account II (points {_points(sa1_top)}–{_points(rate)})",
                        base * (rate - sa1_top),
                        sa1_pv,
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
            "Bond Redemption Fund: up to the Secretary's amount (input)",
            money_str(bond_fund_amount),
            "IRC 1994 § 2051 ¶ (5), 3rd paragraph",
        ),
        _step("Bond Redemption Fund receives", bond, bond_share),
        _step(
            f"Recreational Development Fund: the rest of the {_pct(bond_share)}",
            recreational,
            bond_share,
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
    cents = split_exact(total, [funds[k] for k in IRC1994_KEYS])
    allocations = dict(zip(IRC1994_KEYS, cents, strict=True))
    trace.append(
        TraceStep(
            "Rounded to cents (largest remainder, ties to the earlier fund)",
            money_str(from_cents(total)),
            "RULES.md, preamble",
        )
    )
    warnings = [UNNAMED_WARNING]
    if top_up:
        warnings.append(
            Bilingual(
                f"The {_pct(bond_share)} share ({_dollars(bond70)}) is under "
                f"${minimum.decimal:,.2f}: {_dollars(top_up)} moves from the General Fund's "
                f"{_pct(gf_share)} share to the Recreational Development Fund, toward receipts "
                f"of ${minimum.decimal:,.2f} and at most the whole {_pct(gf_share)} share "
                "(IRC 1994 § 2051 ¶ (5); RULES.md § 3.1).",
                f"La parte del {_pct(bond_share)} ({_dollars(bond70)}) es menor de "
                f"${minimum.decimal:,.2f}: {_dollars(top_up)} pasa de la parte del "
                f"{_pct(gf_share)} del Fondo General al Fondo de Desarrollo Recreativo, hasta "
                f"recibir ${minimum.decimal:,.2f} y como máximo toda la parte del "
                f"{_pct(gf_share)} (IRC 1994 § 2051 ¶ (5); RULES.md § 3.1).",
            )
        )
    return Irc1994Result(fy, total, allocations, tuple(warnings), tuple(trace))


# ---------------------------------------------------------------------------------------------
# Act 272-2003 regime, month by month (RULES.md § 3.2)

ACT272_KEYS = (
    "authority_debt_service",
    "tourism_company_admin",
    "general_fund",
    "convention_bureau",
    "tourism_company_remainder",
)
CARRIED_KEYS = ("authority_debt_service", "convention_bureau")
_A = "distribution.act272"
REMAINDER_LABEL = "Tourism Company — remainder (the supplied § 31(B) is cut off after clause iii)"


@dataclass(frozen=True, slots=True)
class Act272Result:
    """A fiscal year's months under Act 272-2003 § 31, in cents."""

    fiscal_year: FiscalYear
    installments: tuple[int, ...]
    floor_on: bool
    waterfall: WaterfallResult
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def act272_first_month() -> date:
    """The first month § 31 distributes: the month after enactment (October 2003)."""
    value = history(f"{_A}.first_month").values[-1].value
    assert isinstance(value, date)
    return value


def act272_recipients(
    fy: FiscalYear, bank_certified_amount: Decimal, *, floor_on: bool
) -> tuple[list[Recipient], tuple[int, ...], list[ParamValue]]:
    """The § 31(A)–(B) waterfall of fiscal year ``fy`` as data."""
    count = param(f"{_A}.bank_installment_count", fy.start)
    first = param(f"{_A}.bank_first_fiscal_month", fy.start)
    on = max(fy.start, act272_first_month())  # the shares are Act 272's, from 2003-09-09
    admin = param(f"{_A}.tourism_company_admin_share", on)
    gf = param(f"{_A}.general_fund_share", on)
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
            "general_fund",
            f"Treasury General Fund ({_pct(gf)} of the month's total)",
            gf.citation,
            share=gf.decimal,
            parameter=gf.name,
        ),
        Recipient(
            "convention_bureau",
            f"Tourism Company for the Convention Bureau ({_pct(bureau)} of the month's total"
            + (f", floor ${floor.decimal:,.2f} a month)" if floor_on else ")"),
            bureau.citation + (f"; {floor.citation}" if floor_on else ""),
            share=bureau.decimal,
            floor=floor.cents if floor_on else None,
            parameter=floor.name if floor_on else bureau.name,
        ),
        Recipient(
            "tourism_company_remainder",
            REMAINDER_LABEL,
            "Act 272-2003 § 31(B) (cut off after clause iii; RULES.md § 3.2)",
            remainder=True,
        ),
    ]
    return recipients, schedule, [count, first, admin, gf, bureau, floor]


def distribute_act272(
    fy: FiscalYear,
    months: Sequence[tuple[int, int]],
    bank_certified_amount: Decimal,
    bureau_floor_from_fy: FiscalYear | None = None,
) -> Act272Result:
    """Distribute the months of ``fy`` under Act 272-2003 § 31(A)–(B) (RULES.md § 3.2).

    § 31(A): the Bank's certified amount in monthly transfers, a month's shortfall carried to
    later months of the FY. § 31(B): of what is left, 2 % of the total → Tourism Company;
    5 % → General Fund; 9 % → Convention Bureau (floor $375,000 + floor shortfall when on);
    the rest → Tourism Company. ``months``: (fiscal month, cents collected).
    """
    if param_or_none(f"{_A}.bank_installment_count", fy.start) is None:
        raise InputError(
            "fiscal_year",
            f"fiscal_year: FY{fy.label} falls under the IRC 1994 regime: give its collections "
            "by lodging type (Act 272-2003 § 31 distributes from October 2003)",
        )
    floor_on = bureau_floor_from_fy is not None and fy >= bureau_floor_from_fy
    recipients, schedule, used = act272_recipients(fy, bank_certified_amount, floor_on=floor_on)
    waterfall = run_waterfall(recipients, months, fiscal_year=fy.start_year)
    trace: list[TraceStep] = []
    count, first = used[0], used[1]
    trace.append(
        TraceStep(
            f"Bank certified amount in {count.integer} monthly transfers from "
            f"{month_label(*month_of_fiscal(fy, first.integer))}",
            ", ".join(money_str(from_cents(c)) for c in schedule if c),
            f"{count.citation}; {first.citation}",
            count.name,
        )
    )
    for pv in used[2:5]:
        trace.append(TraceStep(f"Share {pv.name}", str(pv.value), pv.citation, pv.name))
    warnings: list[str] = []
    floor = used[5]
    if bureau_floor_from_fy is None:
        warnings.append(
            Bilingual(
                f"The Convention Bureau's floor of ${floor.decimal:,.2f} a month is off: the "
                "supplied § 31(B)(iii) leaves blank the fiscal year it applies from and "
                "bureau_floor_from_fy was not given (RULES.md § 3.2).",
                f"El mínimo de ${floor.decimal:,.2f} al mes del Negociado de Convenciones no "
                "aplica: el § 31(B)(iii) disponible deja en blanco el año fiscal desde el cual "
                "aplica y no se dio bureau_floor_from_fy (RULES.md § 3.2).",
            )
        )
    elif floor_on:
        warnings.append(
            Bilingual(
                f"The Convention Bureau's floor of ${floor.decimal:,.2f} a month applies from "
                f"FY{bureau_floor_from_fy.label} as set by bureau_floor_from_fy (the supplied "
                "§ 31(B)(iii) leaves the fiscal year blank; RULES.md § 3.2).",
                f"El mínimo de ${floor.decimal:,.2f} al mes del Negociado de Convenciones aplica "
                f"desde el año fiscal {bureau_floor_from_fy.label} según bureau_floor_from_fy "
                "(el § 31(B)(iii) disponible deja en blanco el año fiscal; RULES.md § 3.2).",
            )
        )
    else:
        warnings.append(
            Bilingual(
                f"The Convention Bureau's floor is off in FY{fy.label}: bureau_floor_from_fy is "
                f"FY{bureau_floor_from_fy.label} (the supplied § 31(B)(iii) leaves the year "
                "blank).",
                f"El mínimo del Negociado de Convenciones no aplica en el año fiscal {fy.label}: "
                f"bureau_floor_from_fy es el año fiscal {bureau_floor_from_fy.label} (el "
                "§ 31(B)(iii) disponible deja el año en blanco).",
            )
        )
    warnings.append(
        Bilingual(
            "What is left after clause (iii) goes to the Tourism Company: the supplied § 31(B) "
            "is cut off after clause iii (RULES.md § 3.2).",
            "Lo que queda después de la cláusula (iii) va a la Compañía de Turismo: el § 31(B) "
            "disponible se interrumpe después de la cláusula iii (RULES.md § 3.2).",
        )
    )
    if fy.start_year == 2003:
        warnings.append(
            Bilingual(
                "FY2003-04: Act 272-2003 is taken to apply from its approval, 2003-09-09 (the "
                "supplied text has no effective-date clause); transfers of 1/9 run October to "
                "June.",
                "Año fiscal 2003-04: se entiende que la Ley 272-2003 aplica desde su aprobación, "
                "el 2003-09-09 (el texto disponible no tiene cláusula de vigencia); las "
                "transferencias de 1/9 van de octubre a junio.",
            )
        )
    first_month = fiscal_month(act272_first_month().year, act272_first_month().month)
    gaps = missing_months_warning(
        fy, [m for m, _ in months], first_month if fy.start_year == 2003 else 1
    )
    if gaps:
        warnings.append(gaps)
    if waterfall.periods and waterfall.periods[-1].fiscal_month == 12:
        out = dict(zip(waterfall.keys, waterfall.outstanding, strict=True))
        for key in CARRIED_KEYS:
            if out[key]:
                trace.append(
                    TraceStep(
                        f"Outstanding at the end of FY{fy.label}: {key}",
                        money_str(from_cents(out[key])),
                        "Act 272-2003 § 31(A)" if key == CARRIED_KEYS[0] else floor.citation,
                    )
                )
    return Act272Result(fy, schedule, floor_on, waterfall, tuple(warnings), tuple(trace))


# ---------------------------------------------------------------------------------------------
# The calculator document (CALCULATORS.md: room-tax-distribution)


def _irc1994_document(document: Mapping[str, Any], fy: FiscalYear) -> dict[str, Any]:
    check_keys(document, ("fiscal_year", "collections", "bond_fund_amount"))
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
    result = distribute_irc1994(fy, collections, bond)
    return {
        "regime": "irc-1994",
        "fiscal_year": fy.label,
        "collected": money_str(from_cents(result.collected)),
        "allocations": {k: money_str(from_cents(v)) for k, v in result.allocations.items()},
        "warnings": list(result.warnings),
        "warnings_es": spanish_all(result.warnings),
        "trace": [s.as_json() for s in result.trace],
    }


def _act272_document(document: Mapping[str, Any], fy: FiscalYear) -> dict[str, Any]:
    check_keys(document, ("fiscal_year", "months", "bank_certified_amount", "bureau_floor_from_fy"))
    if param_or_none(f"{_A}.bank_installment_count", fy.start) is None:
        raise InputError(
            "fiscal_year",
            f"fiscal_year: FY{fy.label} falls under the IRC 1994 regime: give its collections "
            "by lodging type, not months (Act 272-2003 § 31 distributes from 2003-10)",
        )
    rows = parse_months(document.get("months"), fy, ("collected",))
    first = act272_first_month()
    first_label = month_label(first.year, first.month)
    for i, (_m, label, _a) in enumerate(rows):
        if label < first_label:
            raise InputError(
                f"months[{i}].month",
                f"months[{i}].month: {label} is before {first_label}; earlier months fall under "
                "the IRC 1994 regime, computed per whole fiscal year up to FY2002-03",
            )
    certified = json_money(document.get("bank_certified_amount"), "bank_certified_amount")
    floor_from = None
    if document.get("bureau_floor_from_fy") is not None:
        floor_from = parse_fiscal_year(document["bureau_floor_from_fy"], "bureau_floor_from_fy")
    months = [(m, to_cents(a["collected"])) for m, _label, a in rows]
    result = distribute_act272(fy, months, certified, floor_from)
    wf = result.waterfall
    totals = dict.fromkeys(ACT272_KEYS, 0)
    out_months = []
    for (_m, label, a), period in zip(rows, wf.periods, strict=True):
        paid = dict(zip(wf.keys, period.paid, strict=True))
        carried = dict(zip(wf.keys, period.carried, strict=True))
        for k in ACT272_KEYS:
            totals[k] += paid[k]
        out_months.append(
            {
                "month": label,
                "collected": money_str(a["collected"]),
                "allocations": {k: money_str(from_cents(paid[k])) for k in ACT272_KEYS},
                "carried_shortfall": {k: money_str(from_cents(carried[k])) for k in CARRIED_KEYS},
            }
        )
    outstanding = dict(zip(wf.keys, wf.outstanding, strict=True))
    return {
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
        "outstanding": {k: money_str(from_cents(outstanding[k])) for k in CARRIED_KEYS},
        "bureau_floor": result.floor_on,
        "warnings": list(result.warnings),
        "warnings_es": spanish_all(result.warnings),
        "trace": [s.as_json() for s in (*result.trace, *wf.explain())],
    }


def distribution_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``room-tax-distribution`` calculator of CALCULATORS.md (both input shapes)."""
    fy = parse_fiscal_year(document.get("fiscal_year"))
    has_collections, has_months = "collections" in document, "months" in document
    if has_collections == has_months:
        raise InputError(
            "months" if has_collections else "collections",
            "give either collections by lodging type (fiscal years up to 2002-03) or months "
            "(from 2003-10), not both and not neither",
        )
    if has_collections:
        return _irc1994_document(document, fy)
    return _act272_document(document, fy)
