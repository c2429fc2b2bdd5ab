"""Municipal Equalization Fund (/readings#no-municipality-below-zero): shares by FY and the
hold-harmless."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.rules.cases import assert_subset, load_cases
from tid.rules.calculators import run
from tid.rules.equalization import Municipality, equalization_document, hold_harmless
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear


def fund(fy: str, **extra: Any) -> dict[str, Any]:
    doc = {
        "fiscal_year": fy,
        "lottery_net_income": "1000000.00",
        "gf_net_revenues": "10000000.00",
        **extra,
    }
    return equalization_document(doc)


@pytest.mark.parametrize(
    ("fy", "lottery_rate", "lottery_share", "gf_rate", "gf_share"),
    [
        # lottery 1,000,000 × rate; General Fund 10,000,000 × rate
        ("1991-92", "0.25", "250000.00", "0.0202", "202000.00"),
        ("1992-93", "0.30", "300000.00", "0.0202", "202000.00"),
        ("1993-94", "0.35", "350000.00", "0.0202", "202000.00"),
        ("1999-00", "0.35", "350000.00", "0.0202", "202000.00"),
        ("2000-01", "0.35", "350000.00", "0.021", "210000.00"),
        ("2001-02", "0.35", "350000.00", "0.022", "220000.00"),
        ("2002-03", "0.35", "350000.00", "0.023", "230000.00"),
        ("2003-04", "0.35", "350000.00", "0.024", "240000.00"),
        ("2004-05", "0.35", "350000.00", "0.025", "250000.00"),
        ("2024-25", "0.35", "350000.00", "0.025", "250000.00"),
    ],
)
def test_shares_by_fiscal_year(
    fy: str, lottery_rate: str, lottery_share: str, gf_rate: str, gf_share: str
) -> None:
    out = fund(fy)
    assert (out["lottery_rate"], out["lottery_share"]) == (lottery_rate, lottery_share)
    assert (out["gf_rate"], out["gf_share"]) == (gf_rate, gf_share)
    assert any(s.get("parameter") == "equalization.gf_share_rate" for s in out["trace"])


def test_act7_exclusion_for_fiscal_years_begun_after_june_2009() -> None:
    out = fund("2009-10", excluded_revenues="2000000.00")
    # base 10,000,000 − 2,000,000 = 8,000,000; 2.5 % = 200,000.
    assert (out["gf_base"], out["gf_share"]) == ("8000000.00", "200000.00")
    before = fund("2008-09", excluded_revenues="2000000.00")
    # FY2008-09 began 2008-07-01: no exclusion; 2.5 % × 10,000,000 = 250,000, with a warning.
    assert (before["gf_base"], before["gf_share"]) == ("10000000.00", "250000.00")
    assert any("excluded_revenues ignored" in w for w in before["warnings"])


def test_public_works_two_percent_of_traffic_fines_from_fy2005_06() -> None:
    # 2 % × 1,234,567.89 = 24,691.3578 -> 24,691.36
    assert fund("2005-06", traffic_fines="1234567.89")["public_works_fund"] == "24691.36"
    early = fund("2004-05", traffic_fines="1234567.89")
    assert early["public_works_fund"] == "0.00"
    assert any("traffic_fines ignored" in w for w in early["warnings"])


def test_basic_property_tax_passes_through() -> None:
    out = fund("2015-16", basic_property_tax="5000.00")
    # fund = 5,000 + 350,000 + 250,000 = 605,000
    assert (out["basic_property_tax"], out["fund_total"]) == ("5000.00", "605000.00")


def towns(*rows: tuple[str, str, str, str]) -> list[dict[str, str]]:
    keys = ("name", "base", "allocation_2007_08", "income_2007_08")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def test_hold_harmless_inversely_proportional() -> None:
    out = fund(
        "2010-11",
        municipalities=towns(
            ("Adjuntas", "100.00", "300.00", "500.00"),
            ("Bayamón", "1000.00", "100.00", "1000.00"),
            ("Cidra", "500.00", "100.00", "400.00"),
        ),
    )
    a, b, c = out["municipalities"]
    # Adjuntas: 300 ÷ 500 = 0.6 ≥ 0.5 -> protected, brought to 300: top-up 200.
    assert (a["ratio_2007_08"], a["protected"], a["adjustment"], a["final"]) == (
        "0.600000",
        True,
        "200.00",
        "300.00",
    )
    # Weights income ÷ allocation: Bayamón 10, Cidra 4; 200 × 10/14 = 142.857… -> 142.86,
    # 200 × 4/14 = 57.142… -> 57.14 (together 200.00).
    assert (b["protected"], b["adjustment"], b["final"]) == (False, "-142.86", "857.14")
    assert (c["protected"], c["adjustment"], c["final"]) == (False, "-57.14", "442.86")
    assert any("§ 5817" in w for w in out["warnings"])  # 1,600 ≠ the gf_share


def test_hold_harmless_one_zeroed_and_the_rest_respread() -> None:
    out = fund(
        "2010-11",
        municipalities=towns(
            ("Adjuntas", "100.00", "300.00", "500.00"),
            ("Bayamón", "1000.00", "100.00", "1000.00"),
            ("Cidra", "50.00", "100.00", "400.00"),
        ),
    )
    _a, b, c = out["municipalities"]
    # Cidra would give 57.14 but holds 50.00: set to zero; the 150.00 left -> all from Bayamón.
    assert (c["adjustment"], c["final"]) == ("-50.00", "0.00")
    assert (b["adjustment"], b["final"]) == ("-150.00", "850.00")
    assert any("Cidra" in w and "zero" in w for w in out["warnings"])


def test_protected_with_a_base_already_above_its_allocation_gets_no_top_up() -> None:
    out = fund(
        "2010-11",
        municipalities=towns(
            ("Adjuntas", "400.00", "300.00", "500.00"), ("Bayamón", "1000.00", "100.00", "1000.00")
        ),
    )
    assert [m["adjustment"] for m in out["municipalities"]] == ["0.00", "0.00"]
    # Exactly 50 % is protected (≥): 250 ÷ 500.
    out = fund(
        "2010-11",
        municipalities=towns(
            ("Adjuntas", "1.00", "250.00", "500.00"), ("Bayamón", "1000.00", "1.00", "10.00")
        ),
    )
    assert out["municipalities"][0]["protected"] is True
    assert out["municipalities"][0]["final"] == "250.00"


def test_bases_adding_to_the_share_bring_no_warning_and_before_fy2009_10_no_adjustment() -> None:
    out = fund(
        "2008-09",
        municipalities=towns(
            ("Adjuntas", "100000.00", "300.00", "500.00"),
            ("Bayamón", "150000.00", "100.00", "1000.00"),
        ),
    )
    # 100,000 + 150,000 = 250,000 = 2.5 % × 10,000,000: no § 5817 warning.
    assert not any("§ 5817" in w for w in out["warnings"])
    assert out["hold_harmless_applied"] is False
    assert [m["final"] for m in out["municipalities"]] == ["100000.00", "150000.00"]
    assert any("from FY2009-10" in w for w in out["warnings"])


def test_registry_reaches_it() -> None:
    doc = {"fiscal_year": "2020-21", "lottery_net_income": "1", "gf_net_revenues": "1"}
    assert run("equalization", doc)["gf_share"] == "0.03"  # 2.5 % × 1.00 = 0.025 -> 0.03


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"fiscal_year": "1990-91"}, "fiscal_year", "before FY1991-92"),
        ({"lottery_net_income": 1000}, "lottery_net_income", "not as a number"),
        ({"gf_net_revenues": "-1"}, "gf_net_revenues", "negative"),
        ({"excluded_revenues": "20000000.00"}, "excluded_revenues", "more than"),
        ({"municipalities": towns(("A", "1", "0", "10"), ("B", "1", "1", "1"))},
         "municipalities[0].allocation_2007_08", "zero"),
        ({"municipalities": towns(("A", "1", "1", "10"), ("B", "1", "1", "0"))},
         "municipalities[1].income_2007_08", "zero"),
        ({"municipalities": towns(("A", "1", "1", "10"), ("A", "1", "1", "10"))},
         "municipalities[1].name", "twice"),
        ({"municipalities": towns(("A", "0", "900", "1000"), ("B", "100", "1", "10"))},
         "municipalities", "cannot be met"),
        ({"municipalities": [{"name": "A", "base": "1", "allocation_2007_08": "1",
                              "income_2007_08": "1", "pop": "3"}]},
         "municipalities[0].pop", "unknown field"),
        ({"bonus": "1"}, "bonus", "unknown field"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field(change: dict[str, Any], field: str, message: str) -> None:
    doc = {
        "fiscal_year": "2010-11",
        "lottery_net_income": "1000000.00",
        "gf_net_revenues": "10000000.00",
        **change,
    }
    with pytest.raises(InputError, match=message) as info:
        equalization_document(doc)
    assert info.value.field == field


# ---------------------------------------------------------------------------------------------
# Properties of the hold-harmless

positive = st.integers(min_value=1, max_value=10**9)


@st.composite
def municipalities(draw: st.DrawFn) -> list[Municipality]:
    n = draw(st.integers(min_value=1, max_value=78))
    out = []
    for i in range(n):
        income = draw(positive)
        alloc = draw(st.integers(min_value=1, max_value=income * 2))
        base = draw(st.integers(min_value=0, max_value=2 * 10**9))
        out.append(
            Municipality(f"M{i}", Decimal(base) / 100, Decimal(alloc) / 100, Decimal(income) / 100)
        )
    return out


@settings(max_examples=examples(300), deadline=None)
@given(municipalities())
def test_hold_harmless_properties(ms: list[Municipality]) -> None:
    protected = [2 * m.allocation_2007_08 >= m.income_2007_08 for m in ms]
    needed = sum(
        (
            max(Decimal(0), m.allocation_2007_08 - m.base)
            for m, p in zip(ms, protected, strict=True)
            if p
        ),
        Decimal(0),
    )
    available = sum((m.base for m, p in zip(ms, protected, strict=True) if not p), Decimal(0))
    if available < needed:
        with pytest.raises(InputError, match="cannot be met"):
            hold_harmless(FiscalYear(2010), ms)
        return
    result = hold_harmless(FiscalYear(2010), ms)
    finals = [r.final for r in result.municipalities]
    # Keeps the total; nobody below zero; the protected get at least their FY2007-08 amount.
    assert sum(finals) == sum(m.base for m in ms)
    assert all(f >= 0 for f in finals)
    for m, r, p in zip(ms, result.municipalities, protected, strict=True):
        assert r.protected == p
        if p:
            assert r.final == max(m.base, m.allocation_2007_08)
        else:
            assert r.final <= m.base
    # Taken from the others inversely proportional to allocation ÷ income, within a cent.
    zeroed = set(result.zeroed)
    rest = [
        (m, r) for m, r, p in zip(ms, result.municipalities, protected, strict=True)
        if not p and m.name not in zeroed
    ]  # fmt: skip
    spread = Fraction(needed) - sum(
        (Fraction(m.base) for m, p in zip(ms, protected, strict=True) if m.name in zeroed),
        Fraction(0),
    )
    if rest and needed:
        weight = {
            m.name: Fraction(m.income_2007_08) / Fraction(m.allocation_2007_08) for m, _ in rest
        }
        total_weight = sum(weight.values())
        for m, r in rest:
            expected = spread * weight[m.name] / total_weight
            assert abs(Fraction(-r.adjustment) - expected) < Fraction(1, 100)
        for m in ms:
            if m.name in zeroed:
                # It would have given at least its whole base (within a cent).
                share = spread * (Fraction(m.income_2007_08) / Fraction(m.allocation_2007_08))
                assert share / total_weight >= Fraction(m.base) - Fraction(1, 100)


# ---------------------------------------------------------------------------------------------
# Worked cases in tests/rules/cases/equalization.toml

CASES = load_cases("equalization")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_worked_case(case: dict[str, Any]) -> None:
    assert_subset(equalization_document(case["input"]), case["expect"])


def test_a_ratio_just_under_the_threshold_shows_the_digits_that_decide_it() -> None:
    doc = {
        "fiscal_year": "2024-25",
        "lottery_net_income": "0.00",
        "gf_net_revenues": "0.00",
        "municipalities": [
            {"name": "A", "base": "10.00", "allocation_2007_08": "49999999.00",
             "income_2007_08": "100000000.00"},
            {"name": "B", "base": "50000000.00", "allocation_2007_08": "50000000.00",
             "income_2007_08": "100000000.00"},
            {"name": "C", "base": "10.00", "allocation_2007_08": "1234.00",
             "income_2007_08": "9999.00"},
        ],
    }  # fmt: skip
    shown = {m["name"]: (m["ratio_2007_08"], m["protected"]) for m in run("equalization", doc)[
        "municipalities"]}  # fmt: skip
    # 0.49999999 rounded to 6 places would be 0.500000 beside "not protected".
    assert shown["A"] == ("0.49999999", False)
    assert shown["B"] == ("0.500000", True)
    assert shown["C"] == ("0.123412", False)  # far from the threshold: 6 places, half-up


@settings(max_examples=examples(300), deadline=None)
@given(
    income=st.integers(min_value=1, max_value=10**13),
    data=st.data(),
)
def test_the_ratio_shown_and_the_verdict_never_disagree(income: int, data: st.DataObject) -> None:
    # Allocations near half the income, where 6 places could round across 50 %.
    half = income // 2
    alloc = data.draw(st.integers(min_value=max(1, half - 50), max_value=half + 50))
    # The base is the FY2007-08 allocation: no top-up is needed, whatever the verdict.
    m = Municipality("M", Decimal(alloc) / 100, Decimal(alloc) / 100, Decimal(income) / 100)
    (r,) = hold_harmless(FiscalYear(2010), [m]).municipalities
    assert r.ratio_2007_08 is not None
    assert (r.ratio_2007_08 >= Decimal("0.5")) == r.protected
    assert r.protected == (Fraction(alloc, income) >= Fraction(1, 2))
    # At least 6 places, and the figure is the ratio rounded half-up to its places.
    places = -int(r.ratio_2007_08.as_tuple().exponent)
    assert places >= 6
    assert abs(Fraction(r.ratio_2007_08) - Fraction(alloc, income)) <= Fraction(1, 2 * 10**places)
