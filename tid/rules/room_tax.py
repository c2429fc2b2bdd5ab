"""Room occupancy tax: the rates (Act 272-2003 § 24; IRC 1994 § 2051).

- Stays until 2003-09-08: IRC 1994 § 2051(a) (``room-tax-irc1994-s2051-es.txt``): 9 % hotels,
  apartment hotels, guest houses; 11 % hotels with a casino; 7 % motels and paradores; taxed
  only when the daily rate exceeds $5.00.
- Stays from 2003-09-09: Act 272-2003 § 24 (``act-272-2003-room-occupancy-tax.txt``): rates by
  lodging type (§ 24(B)), exemptions for film crews (§ 24F) and timeshares (§ 24G), the base of
  a complimentary casino room (§ 24D) or a rate grouped with meals (§ 24C), the base including
  every fee charged for the stay (§ 2(8)); remitted by the 10th of the following month (§ 28).

Tax = rate × room occupancy rate × nights, rounded to cents half-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from tid.rules import readings
from tid.rules.errors import field_error, field_names, required
from tid.rules.messages import N_, Amount, Message, render_all
from tid.rules.money import ZERO, json_money, money_str, round_cents
from tid.rules.params import ParamValue, history, param, param_or_none
from tid.rules.periods import beyond_calendar, fiscal_year_of, parse_date
from tid.rules.trace import TraceStep
from tid.rules.vocab.lodging_types import EXEMPTIONS as EXEMPTION_TERMS
from tid.rules.vocab.lodging_types import act272_types, irc1994_types, lodging_label

IRC_1994 = "irc-1994"
ACT_272 = "act-272-2003"
# The lodging types and exemptions, their labels and order are the vocabulary's
# (tid/rules/vocab/lodging_types.py).
IRC1994_TYPES = irc1994_types()
ACT272_TYPES = act272_types()
EXEMPTIONS = {exemption.code: exemption.citation for exemption in EXEMPTION_TERMS}
GREATEST_OF = ("average_daily_rate", "room_cost", "industry_cost")
_REGIME = "room_tax.regime"
_REMIT = "room_tax.act272.remittance_day"


@dataclass(frozen=True, slots=True)
class RoomTaxResult:
    """The tax of one stay, with the regime, rate, base and the way they were found."""

    regime: str
    lodging_type: str
    rate: Decimal
    base: Decimal
    taxable: bool
    tax: Decimal
    remit_by: date
    citation: str
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def regime_on(day: date) -> ParamValue:
    """The regime in force on ``day`` (IRC 1994 until 2003-09-08, Act 272-2003 after)."""
    regime = param_or_none(_REGIME, day)
    if regime is None:
        first = history(_REGIME).values[0]
        raise field_error(
            "date",
            Message(
                "%(day)s is before %(first)s, the first day the supplied texts cover "
                "(%(citation)s)",
                day=day,
                first=first.start,
                citation=first.citation,
            ),
        )
    return regime


def remittance_due(day: date) -> tuple[date, ParamValue]:
    """Act 272-2003 § 28(A): a month's tax is remitted by the 10th of the following month."""
    remit = param_or_none(_REMIT, day) or param(_REMIT, history(_REMIT).values[0].start)
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    if year > date.max.year:
        raise beyond_calendar("date", day, "the remittance, the 10th of the following month,")
    return date(year, month, remit.integer), remit


def _regime_on_the_day(day: date, nights: int, warnings: list[str], trace: list[TraceStep]) -> str:
    """Act 272-2003 § 24, IRC 1994 § 2051: the regime in force on the day of the stay (IRC 1994 or
    Act 272-2003)."""
    regime_pv = regime_on(day)
    regime = str(regime_pv.value)
    trace.append(
        TraceStep(Message("Regime on the day of the stay"), regime, regime_pv.citation, _REGIME)
    )
    if nights < 1:
        raise field_error("nights", Message("give a whole number of nights, at least 1"))
    irc1994_from = history(_REGIME).values[0].start
    if fiscal_year_of(day) == fiscal_year_of(irc1994_from):
        warnings.append(
            Message(
                "The IRC 1994 rules are taken to apply to stays from %(irc1994_from)s, the "
                "Code's approval date: the supplied text has no effective-date clause "
                "(%(reading)s).",
                reading=readings.note("in-force-from-approval"),
                irc1994_from=irc1994_from,
            )
        )
    act272_from = history(_REGIME).values[-1].start
    if fiscal_year_of(day) == fiscal_year_of(act272_from):
        warnings.append(
            Message(
                "Act 272-2003 is taken to apply to stays from its approval, %(act272_from)s: "
                "the supplied text has no effective-date clause (%(reading)s).",
                reading=readings.note("in-force-from-approval"),
                act272_from=act272_from,
            )
        )
    return regime


def _rate_of_the_lodging(
    regime: str,
    lodging_type: str,
    day: date,
    act272_rules: Mapping[str, bool],
    warnings: list[str],
    trace: list[TraceStep],
) -> tuple[ParamValue, ParamValue | None]:
    """IRC 1994 § 2051(a) / Act 272-2003 § 24(B): the rate of the lodging type and, where the
    regime sets one, the daily rate a stay must exceed to be taxed."""
    if regime == IRC_1994:
        if lodging_type not in IRC1994_TYPES:
            raise field_error(
                "lodging_type",
                Message(
                    '"%(type)s" is not a lodging type of the IRC 1994 regime (stays until '
                    "2003-09-08), which covers: %(types)s",
                    type=lodging_type,
                    types=field_names(IRC1994_TYPES),
                ),
            )
        for name, present in act272_rules.items():
            if present:
                raise field_error(
                    name,
                    Message(
                        "this rule is Act 272-2003 § 24's and applies to stays from "
                        "2003-09-09; the IRC 1994 regime has no such rule"
                    ),
                )
        rate_pv = param(f"room_tax.irc1994.rate.{lodging_type}", day)
        minimum: ParamValue | None = param("room_tax.irc1994.minimum_daily_rate", day)
    else:
        if lodging_type not in ACT272_TYPES:
            raise field_error(
                "lodging_type",
                Message(
                    '"%(type)s" is not a lodging type of Act 272-2003 § 24; the types are: '
                    "%(types)s",
                    type=lodging_type,
                    types=field_names(ACT272_TYPES),
                ),
            )
        rate_pv = param(f"room_tax.act272.rate.{lodging_type}", day)
        minimum = (
            param("room_tax.act272.motel_minimum_daily_rate", day)
            if lodging_type == "motel"
            else None
        )
    rate = rate_pv.decimal
    trace.append(
        TraceStep(
            Message(
                "Rate for %(lodging_type)s",
                lodging_type=lodging_label(lodging_type),
            ),
            str(rate),
            rate_pv.citation,
            rate_pv.name,
        )
    )
    if lodging_type == "hostelry":
        parador = param("room_tax.act272.rate.parador", day)
        warnings.append(
            Message(
                "hostelry is a hostelry or inn NOT authorized by the Tourism Company, taxed at "
                "the general rate %(rate)s; an inn the Company authorizes is a parador, taxed "
                "at %(decimal)s (Act 272-2003 § 24(B)).",
                rate=rate,
                decimal=parador.decimal,
            )
        )
    return rate_pv, minimum


def _greatest_of_base(
    lodging_type: str,
    nights: int,
    complimentary: bool,
    figures: Mapping[str, Decimal | None],
    warnings: list[str],
    trace: list[TraceStep],
) -> Decimal:
    """Act 272-2003 § 24(C)–(D): the nightly base of a complimentary casino room or a rate
    grouped with meals is the greatest of the figures given, times the nights."""
    rule = "§ 24(D)" if complimentary else "§ 24(C)"
    given = {k: v for k, v in figures.items() if v is not None}
    if not given:
        raise field_error(
            "average_daily_rate",
            Message(
                "give at least one of %(fields)s (per night) for the base of %(rule)s",
                fields=field_names(("average_daily_rate", "room_cost", "industry_cost")),
                rule=rule,
            ),
        )
    name, nightly = max(given.items(), key=lambda kv: kv[1])
    trace.append(
        TraceStep(
            Message(
                "Nightly base: the greatest of %(value)s",
                value=", ".join((f"{k} {v}" for k, v in given.items())),
            ),
            f"{name} {money_str(nightly)}",
            N_("Act 272-2003 § 24(D)") if complimentary else N_("Act 272-2003 § 24(C)"),
        )
    )
    warnings.append(
        Message(
            "Act 272-2003 %(rule)s lets the Company use the greatest of the average rate, "
            "the room cost and the industry cost; the base is the greatest of the figures "
            "given (the rate charged is not among them) times the nights (%(reading)s).",
            reading=readings.note("greatest-of-the-figures"),
            rule=rule,
        )
    )
    if complimentary and lodging_type != "casino_hotel":
        warnings.append(
            Message(
                "§ 24(D) speaks of rooms given free to casino players and visitors; the "
                "lodging type given is not a lodging with a casino."
            )
        )
    return nightly * nights


@dataclass(frozen=True, slots=True)
class _Stay:
    """What the base of a stay is computed from."""

    nights: int
    nightly_rate: Decimal | None
    additional_charges: Decimal
    complimentary: bool
    grouped_meals: bool
    figures: Mapping[str, Decimal | None]


def _taxed_base(
    regime: str,
    lodging_type: str,
    stay: _Stay,
    warnings: list[str],
    trace: list[TraceStep],
) -> tuple[Decimal, Decimal]:
    """Act 272-2003 § 24(A), § 24(C)–(D) and § 2(8): the room occupancy rate times the nights
    (or the greatest-of base), plus every other charge for the stay. The room's part (what
    the daily-rate test reads) and the taxed base."""
    if stay.complimentary and stay.grouped_meals:
        raise field_error(
            "grouped_meals", Message("a stay is either complimentary or grouped, not both")
        )
    if stay.grouped_meals and lodging_type == "all_inclusive_hotel":
        raise field_error(
            "grouped_meals",
            Message("an all-inclusive hotel pays on its global grouped charge; § 24(C) excepts it"),
        )
    nights = stay.nights
    if stay.complimentary or stay.grouped_meals:
        room_part = _greatest_of_base(
            lodging_type, nights, stay.complimentary, stay.figures, warnings, trace
        )
    else:
        for k, v in stay.figures.items():
            if v is not None:
                raise field_error(
                    k, Message("used only for a complimentary room or a rate grouped with meals")
                )
        if stay.nightly_rate is None:
            raise required("nightly_rate")
        room_part = stay.nightly_rate * nights
        trace.append(
            TraceStep(
                Message(
                    "Room occupancy rate: %(nightly_rate)s × %(nights)s nights",
                    nightly_rate=money_str(stay.nightly_rate),
                    nights=nights,
                ),
                money_str(room_part),
                N_("Act 272-2003 § 24(A)") if regime == ACT_272 else N_("IRC 1994 § 2051(a)"),
            )
        )
    additional_charges = stay.additional_charges
    base = room_part + additional_charges
    if additional_charges:
        trace.append(
            TraceStep(
                Message("Additional charges for the stay (fees, penalties, paid-but-unused rooms)"),
                money_str(additional_charges),
                N_("Act 272-2003 § 2(8)"),
            )
        )
        if regime == IRC_1994:
            warnings.append(
                Message(
                    "Additional charges are in the base as Act 272-2003 § 2(8) defines the room "
                    "occupancy rate; the supplied IRC 1994 text does not define it "
                    "(%(reading)s).",
                    reading=readings.note("additional-charges-in-base"),
                )
            )
    # The base is the room occupancy rate of Act 272-2003 § 2(8), under either regime.
    base_citation = (
        N_("Act 272-2003 § 2(8)")
        if regime == ACT_272
        else f"{N_('IRC 1994 § 2051(a)')}; {readings.cite('additional-charges-in-base')}"
    )
    trace.append(TraceStep(Message("Taxed base"), money_str(base), base_citation))
    return room_part, base


def _exemptions(
    room_part: Decimal,
    nights: int,
    minimum: ParamValue | None,
    exemption: str | None,
    warnings: list[str],
    trace: list[TraceStep],
) -> bool:
    """IRC 1994 § 2051(a) / Act 272-2003 § 24(B): a daily rate at or under the threshold is not
    taxed — the nightly room rate alone, the additional charges joining the base only once
    the stay is taxed; § 24(F)–(G): film-production crews and timeshares are exempt. Whether
    it is taxed."""
    taxable = True
    if minimum is not None:
        daily = room_part / nights
        if daily <= minimum.decimal:
            taxable = False
        warnings.append(
            Message(
                "The daily-rate test of %(provision)s reads the nightly room rate alone "
                "(%(daily)s a night, against $%(minimum)s); the additional charges for the stay "
                "join the base only once the stay is taxed (%(reading)s).",
                reading=readings.note("five-dollar-test-nightly-rate"),
                provision=Message(minimum.citation),
                daily=Amount(daily),
                minimum=money_str(minimum.decimal),
            )
        )
        trace.append(
            TraceStep(
                Message(
                    "Nightly room rate %(daily)s must exceed %(decimal)s",
                    daily=round_cents(daily),
                    decimal=minimum.decimal,
                ),
                Message("taxed") if taxable else Message("not taxed"),
                minimum.citation,
                minimum.name,
            )
        )
    if exemption is not None:
        if exemption not in EXEMPTIONS:
            raise field_error(
                "exemption",
                Message(
                    '"%(exemption)s" is not an exemption; the exemptions are: %(known)s',
                    exemption=exemption,
                    known=field_names(EXEMPTIONS),
                ),
            )
        trace.append(
            TraceStep(Message("Exempt stay"), lodging_label(exemption), EXEMPTIONS[exemption])
        )
        return False
    return taxable


def _the_tax(
    rate_pv: ParamValue,
    base: Decimal,
    room_part: Decimal,
    nights: int,
    minimum: ParamValue | None,
    exemption: str | None,
    taxable: bool,
    trace: list[TraceStep],
) -> tuple[Decimal, str]:
    """IRC 1994 § 2051(a) / Act 272-2003 § 24(A): tax = rate × base, rounded to cents, and the
    trace of why it is that or nothing. The tax and the provision it rests on."""
    rate = rate_pv.decimal
    citation = EXEMPTIONS[exemption] if exemption is not None else rate_pv.citation
    tax = round_cents(rate * base) if taxable else round_cents(ZERO)
    if taxable:
        trace.append(
            TraceStep(
                Message(
                    "Tax = %(rate)s × %(base)s",
                    rate=rate,
                    base=money_str(base),
                ),
                money_str(tax),
                citation,
                rate_pv.name,
            )
        )
    elif exemption is not None:
        trace.append(
            TraceStep(
                Message(
                    "No tax: the stay is exempt (%(exemption)s), so the rate %(rate)s is not "
                    "applied",
                    exemption=lodging_label(exemption),
                    rate=rate,
                ),
                money_str(tax),
                citation,
            )
        )
    else:
        assert minimum is not None
        trace.append(
            TraceStep(
                Message(
                    "No tax: the nightly room rate %(value)s does not exceed the threshold of "
                    "%(decimal)s, so the rate %(rate)s is not applied",
                    value=round_cents(room_part / nights),
                    decimal=minimum.decimal,
                    rate=rate,
                ),
                money_str(tax),
                minimum.citation,
                minimum.name,
            )
        )
    return tax, citation


def _remittance_trace(regime: str, day: date, warnings: list[str], trace: list[TraceStep]) -> date:
    """Act 272-2003 § 28(A): the tax is remitted by the 10th of the following month."""
    remit_by, remit_pv = remittance_due(day)
    trace.append(
        TraceStep(
            Message("Remit by (10th of the following month)"),
            remit_by.isoformat(),
            remit_pv.citation,
        )
    )
    if regime == IRC_1994:
        warnings.append(
            Message(
                "The remittance date follows Act 272-2003 § 28(A) (the 10th of the following "
                "month); the supplied IRC 1994 text does not set one."
            )
        )
    return remit_by


def room_tax(
    *,
    lodging_type: str,
    day: date,
    nightly_rate: Decimal | None,
    nights: int,
    additional_charges: Decimal = ZERO,
    exemption: str | None = None,
    complimentary: bool = False,
    grouped_meals: bool = False,
    average_daily_rate: Decimal | None = None,
    room_cost: Decimal | None = None,
    industry_cost: Decimal | None = None,
) -> RoomTaxResult:
    """The room occupancy tax of one stay (Act 272-2003 § 24; IRC 1994 § 2051), in its order: the
    regime on the day of the stay, the rate, the base, the exemptions, the tax and its trace.

    IRC 1994 § 2051(a) / Act 272-2003 § 24(A)–(B): tax = rate of the lodging type × room
    occupancy rate (fees included, § 2(8)) × nights; § 24(C)–(D): base = greatest of the
    average daily rate, room cost and industry cost × nights; § 24(F)–(G): exempt stays.
    """
    warnings: list[str] = []
    trace: list[TraceStep] = []
    regime = _regime_on_the_day(day, nights, warnings, trace)
    act272_rules = {
        "exemption": exemption is not None,
        "complimentary": complimentary,
        "grouped_meals": grouped_meals,
    }
    rate_pv, minimum = _rate_of_the_lodging(
        regime, lodging_type, day, act272_rules, warnings, trace
    )
    stay = _Stay(
        nights,
        nightly_rate,
        additional_charges,
        complimentary,
        grouped_meals,
        {
            "average_daily_rate": average_daily_rate,
            "room_cost": room_cost,
            "industry_cost": industry_cost,
        },
    )
    room_part, base = _taxed_base(regime, lodging_type, stay, warnings, trace)
    taxable = _exemptions(room_part, nights, minimum, exemption, warnings, trace)
    tax, citation = _the_tax(rate_pv, base, room_part, nights, minimum, exemption, taxable, trace)
    remit_by = _remittance_trace(regime, day, warnings, trace)
    return RoomTaxResult(
        regime,
        lodging_type,
        rate_pv.decimal,
        round_cents(base),
        taxable,
        tax,
        remit_by,
        citation,
        tuple(warnings),
        tuple(trace),
    )


_FIELDS = (
    "lodging_type",
    "date",
    "nightly_rate",
    "nights",
    "additional_charges",
    "exemption",
    "complimentary",
    "grouped_meals",
    *GREATEST_OF,
)


def _flag(document: Mapping[str, Any], name: str) -> bool:
    value = document.get(name, False)
    if not isinstance(value, bool):
        raise field_error(name, Message("true or false"))
    return value


def room_tax_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The ``room-tax`` calculator of docs/calculators.md (Act 272-2003 § 24; IRC 1994 § 2051)."""
    for key in document:
        if key not in _FIELDS:
            raise field_error(
                key,
                Message("unknown field; the fields are %(fields)s", fields=field_names(_FIELDS)),
            )
    lodging_type = document.get("lodging_type")
    if not isinstance(lodging_type, str) or not lodging_type.strip():
        raise field_error("lodging_type", Message("give the type of lodging as text"))
    day = parse_date(document.get("date"), "date")
    nights = document.get("nights")
    if isinstance(nights, bool) or not isinstance(nights, int):
        raise field_error("nights", Message("give a whole number of nights, like 3"))
    complimentary = _flag(document, "complimentary")
    grouped = _flag(document, "grouped_meals")
    nightly = document.get("nightly_rate")
    nightly_rate = (
        json_money(nightly, "nightly_rate")
        if nightly is not None or not (complimentary or grouped)
        else None
    )
    extra = document.get("additional_charges")
    additional = ZERO if extra is None else json_money(extra, "additional_charges")
    exemption = document.get("exemption")
    if exemption is not None and not isinstance(exemption, str):
        raise field_error(
            "exemption",
            Message(
                "one of the exemptions: %(choices)s",
                choices=field_names(("film_production", "timeshare")),
            ),
        )
    figures = {
        k: json_money(document[k], k) if document.get(k) is not None else None for k in GREATEST_OF
    }
    result = room_tax(
        lodging_type=lodging_type.strip(),
        day=day,
        nightly_rate=nightly_rate,
        nights=nights,
        additional_charges=additional,
        exemption=exemption,
        complimentary=complimentary,
        grouped_meals=grouped,
        **figures,
    )
    return {
        "regime": result.regime,
        "lodging_type": result.lodging_type,
        "rate": str(result.rate),
        "base": money_str(result.base),
        "taxable": result.taxable,
        "tax": money_str(result.tax),
        "remit_by": result.remit_by.isoformat(),
        "citation": result.citation,
        "warnings": list(result.warnings),
        "warnings_es": render_all(result.warnings, "es"),
        "trace": [s.as_json() for s in result.trace],
    }
