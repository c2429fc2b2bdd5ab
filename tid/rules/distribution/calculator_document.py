"""The ``room-tax-distribution`` calculator of docs/calculators.md: either regime's input
document, checked, and its answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from tid.rules.distribution.act272 import (
    _A,
    ACT272_KEYS,
    CARRIED_KEYS,
    RESERVE_KEY,
    Act272Result,
    act272_first_collection_month,
    distribute_act272,
)
from tid.rules.distribution.irc1994 import IRC1994_TYPES, distribute_irc1994
from tid.rules.errors import InputError, field_error, field_names
from tid.rules.messages import FieldRef, Message, render_all
from tid.rules.money import from_cents, json_money, money_str, to_cents
from tid.rules.params import param_or_none
from tid.rules.periods import (
    FiscalYear,
    month_label,
    month_of_fiscal,
    parse_date,
    parse_fiscal_year,
)
from tid.rules.waterfall import check_keys, parse_months


def _irc1994_document(document: Mapping[str, Any], fy: FiscalYear) -> dict[str, Any]:
    check_keys(document, ("fiscal_year", "collections", "bond_fund_amount", "collections_until"))
    raw = document.get("collections")
    if not isinstance(raw, Mapping) or not raw:
        raise field_error("collections", Message("give the tax collected by lodging type"))
    collections: dict[str, Decimal] = {}
    for kind, amount in raw.items():
        if kind not in IRC1994_TYPES:
            raise field_error(
                f"collections.{kind}",
                Message(
                    "the IRC 1994 regime covers only these lodging types: %(types)s",
                    types=field_names(IRC1994_TYPES),
                ),
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
        raise field_error(
            "fiscal_year",
            Message(
                "FY%(fy)s falls under the IRC 1994 regime: give its collections by lodging "
                "type, not months (Act 272-2003 § 31 distributes from 2003-09)",
                fy=fy.label,
            ),
        )
    rows = parse_months(document.get("months"), fy, ("collected",))
    first = act272_first_collection_month()
    first_label = month_label(first.year, first.month)
    for i, (_m, label, _a) in enumerate(rows):
        if label < first_label:
            raise field_error(
                f"months[{i}].month",
                Message(
                    "%(month)s is before %(first)s; what was collected up to 2003-09-08 falls "
                    "under the IRC 1994 regime: give FY2003-04's collections by lodging type "
                    "with %(until)s 2003-09-08",
                    month=label,
                    first=first_label,
                    until=FieldRef("collections_until"),
                ),
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
    """The ``room-tax-distribution`` calculator of docs/calculators.md (both input shapes)."""
    fy = parse_fiscal_year(document.get("fiscal_year"))
    has_collections, has_months = "collections" in document, "months" in document
    if has_collections == has_months:
        raise InputError(
            "months" if has_collections else "collections",
            Message(
                "give either %(collections)s by lodging type (fiscal years up to 2002-03, and "
                "FY2003-04 up to 2003-09-08) or %(months)s (from 2003-09), not both and not "
                "neither",
                collections=FieldRef("collections"),
                months=FieldRef("months"),
            ),
        )
    if has_collections:
        return _irc1994_document(document, fy)
    return _act272_document(document, fy)
