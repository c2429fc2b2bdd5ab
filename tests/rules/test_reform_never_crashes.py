"""A reform never crashes a calculator (the project's reading ``reform-periods``): a reform
drawn within and outside every parameter's declared values is refused before any computation
naming ``reform.changes[i].value`` (or the change's other field), or is computed; no
calculator raises anything but the project's input error."""

from __future__ import annotations

import contextlib
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.calc_documents import DOCUMENTS
from tests.conftest import examples
from tid.rules import calculators, params
from tid.rules.errors import InputError
from tid.rules.reform import parse_reform
from tid.rules.reform_compare import compare

NAMES = sorted(p["name"] for p in params.all_parameters())

# Each calculator's documents across the regimes and years the law gives (the worked ones
# of tests/calc_documents.py, and those of the other regimes).
_IRC = {"collections": {"hotel": "1000000.00", "casino_hotel": "500000.00"}}
_ACT272_MONTHS = [
    {"month": "2024-07", "collected": "900000.00"},
    {"month": "2024-08", "collected": "1000000.00"},
    {"month": "2025-01", "collected": "1200000.00"},
    {"month": "2025-06", "collected": "300000.00"},
]
_EXCISE_MONTH = {
    "gasoline_tax": "10000000.00",
    "diesel_gallons": "5000000",
    "crude_oil_excise": "1000000.00",
    "reimbursements": "250000.00",
    "cigarette_tax": "5000000.00",
    "cigarette_reimbursements": "1000.00",
}
CASES: dict[str, list[dict[str, Any]]] = {
    "room-tax": [
        DOCUMENTS["room-tax"],
        {**DOCUMENTS["room-tax"], "date": "1998-03-02"},
        {**DOCUMENTS["room-tax"], "date": "2003-09-05", "lodging_type": "motel"},
        {**DOCUMENTS["room-tax"], "date": "2024-12-20", "lodging_type": "motel"},
    ],
    "room-tax-distribution": [
        {
            **DOCUMENTS["room-tax-distribution"],
            "months": _ACT272_MONTHS,
            "bureau_floor_from_fy": "2020-21",
            "convention_center_opened_on": "2016-05-01",
            "convention_center_operating_deficit": "3000000.00",
        },
        {**DOCUMENTS["room-tax-distribution"], "months": _ACT272_MONTHS},
        {
            "fiscal_year": "2003-04",
            "bank_certified_amount": "900000.00",
            "bureau_floor_from_fy": "2003-04",
            "months": [
                {"month": "2003-09", "collected": "100000.00"},
                {"month": "2003-10", "collected": "800000.00"},
                {"month": "2004-02", "collected": "800000.00"},
            ],
        },
        {"fiscal_year": "1995-96", **_IRC, "bond_fund_amount": "100000.00"},
        {"fiscal_year": "1998-99", **_IRC, "bond_fund_amount": "100000.00"},
        {"fiscal_year": "2001-02", **_IRC, "bond_fund_amount": "10000000.00"},
        {
            "fiscal_year": "2003-04",
            **_IRC,
            "bond_fund_amount": "100000.00",
            "collections_until": "2003-09-08",
        },
    ],
    "excise-allocation": [
        {
            "fiscal_year": "2024-25",
            "months": [
                {"month": m, **_EXCISE_MONTH} for m in ("2024-07", "2024-08", "2025-01", "2025-06")
            ],
        },
        {"fiscal_year": "2010-11", "months": [{"month": "2011-01", **_EXCISE_MONTH}]},
        {"fiscal_year": "2015-16", "months": [{"month": "2015-07", **_EXCISE_MONTH}]},
    ],
    "equalization": [
        DOCUMENTS["equalization"],
        {**DOCUMENTS["equalization"], "fiscal_year": "2005-06"},
        {**DOCUMENTS["equalization"], "fiscal_year": "1995-96", "municipalities": []},
    ],
    "liens": [DOCUMENTS["liens"]],
    "deadlines": [
        DOCUMENTS["deadlines"],
        {"petition_received": "2024-10-01", "mayor_approved": "2024-10-04"},
    ],
    "impost": [DOCUMENTS["impost"]],
}

# Days a change may take effect on: the first days of periods, days inside them, and the
# days the law's values change.
_DAYS = sorted(
    {
        *(v.start for name in NAMES for v in params.history(name).values),
        *(
            date(y, m, d)
            for y in (1995, 1998, 2001, 2003, 2011, 2015, 2024, 2025, 2026)
            for m in (1, 7, 8, 9, 10)
            for d in (1, 15)
        ),
    }
)


def _days(name: str) -> st.SearchStrategy[date]:
    parameter = params.history(name)
    last = parameter.values[-1].end or date(2030, 12, 31)
    inside = [d for d in _DAYS if parameter.values[0].start <= d <= last]
    return st.sampled_from(inside)


_JUNK = st.sampled_from([None, True, [], {}, [1], {"a": 1}, 0.5, "abc", "", -1, 10**30])


def _number(value: Decimal | Fraction | int, unit: str) -> object:
    if params.UNITS[unit] == "fraction":
        fraction = Fraction(value)
        return f"{fraction.numerator}/{fraction.denominator}"
    if params.UNITS[unit] == "integer":
        return int(value)
    return (
        str(Decimal(value.numerator) / Decimal(value.denominator))[:20]
        if isinstance(value, Fraction)
        else str(value)
    )


@st.composite
def _value(draw: st.DrawFn, name: str) -> object:
    """A value within the parameter's declared values, at their edges, just outside them, or
    of the wrong kind."""
    parameter = params.history(name)
    unit, kind = parameter.unit, params.UNITS[parameter.unit]
    if draw(st.integers(0, 5)) == 0:
        return draw(_JUNK)
    if kind == "text":
        return draw(st.sampled_from([c[0] for c in parameter.choices]))
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "date":
        day = draw(st.dates(date(1990, 1, 1), date(2031, 12, 31)))
        return day.isoformat()
    if kind == "fiscal_year":
        year = draw(st.integers(1990, 2030))
        return f"{year}-{(year + 1) % 100:02d}"
    bounds = parameter.bounds
    assert bounds is not None
    low, high = bounds
    top = high if high is not None else low + 10**6
    law = [v.value for v in parameter.values]
    picked = draw(st.sampled_from([low, top, *law, "inside", "below", "above"]))
    if picked == "inside":
        step = Fraction(draw(st.integers(0, 1000)), 1000)
        value = Fraction(low) + (Fraction(top) - Fraction(low)) * step
        if kind == "integer":
            return int(value)
        if kind == "money":
            return f"{Decimal(value.numerator) / Decimal(value.denominator):.2f}"
        return _number(value, unit)
    if picked == "below":
        return _number(low - 1, unit)
    if picked == "above":
        return _number(top + 1, unit)
    assert not isinstance(picked, str)
    return _number(picked, unit)


@st.composite
def _reform(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3))
    changes = []
    for name in names:
        day = draw(_days(name))
        if draw(st.integers(0, 9)) == 0:
            day += timedelta(days=draw(st.integers(-400, 400)))
        changes.append({"parameter": name, "from": day.isoformat(), "value": draw(_value(name))})
    return {"title": "Drawn", "changes": changes}


@settings(max_examples=examples(60), deadline=None)
@given(reform=_reform())
def test_no_reform_crashes_a_calculator(reform: dict[str, Any]) -> None:
    try:
        parsed = parse_reform(reform)
    except InputError as exc:
        assert exc.field.startswith("reform.changes["), exc.field
        return
    for name in calculators.CALCULATORS:
        for document in CASES[name]:
            # A document the reform's values refuse is named: never a crash.
            with contextlib.suppress(InputError):
                compare(name, document, parsed)
