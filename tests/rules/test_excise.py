"""13 LPRA § 31751 (RULES.md § 4): fuel to HTA, the cigarette waterfall, reachable maxima."""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.rules.cases import assert_subset, load_cases
from tid.rules.calculators import run
from tid.rules.errors import InputError
from tid.rules.excise import excise_document


def month(label: str, cigarette: str, **fuel: str) -> dict[str, str]:
    row = {
        "month": label,
        "gasoline_tax": "0",
        "diesel_gallons": "0",
        "crude_oil_excise": "0",
        "reimbursements": "0",
        "cigarette_tax": cigarette,
    }
    row.update(fuel)
    return row


def test_fuel_to_hta_less_reimbursements() -> None:
    doc = {
        "fiscal_year": "2016-17",
        "months": [
            month(
                "2016-07",
                "0",
                gasoline_tax="10,000.00",
                diesel_gallons="1234.5",
                crude_oil_excise="500.00",
                reimbursements="100.25",
            )
        ],
    }
    out = excise_document(doc)
    # 10,000.00 + 1,234.5 gal × $0.04 = 49.38 + 500.00 − 100.25 = 10,449.13
    assert out["months"][0]["allocations"]["hta_fuel"] == "10449.13"
    assert out["totals"]["hta_fuel"] == "10449.13"
    assert any(s.get("parameter") == "excise.fuel.diesel_cents_to_hta" for s in out["trace"])


def test_diesel_cents_round_half_up() -> None:
    # 0.125 gal × 4¢ = 0.5¢ -> 1¢ (half-up); 0.1 gal × 4¢ = 0.4¢ -> 0¢.
    rows = [
        month("2016-07", "0", diesel_gallons="0.125"),
        month("2016-08", "0", diesel_gallons="0.1"),
    ]
    out = excise_document({"fiscal_year": "2016-17", "months": rows})
    assert [m["allocations"]["hta_fuel"] for m in out["months"]] == ["0.01", "0.00"]


def test_cigarette_shortfall_made_up_in_a_later_month() -> None:
    doc = {
        "fiscal_year": "2016-17",
        "months": [month("2016-07", "1000000.00"), month("2016-08", "12000000.00")],
    }
    out = excise_document(doc)
    july, august = out["months"]
    # July: HTA owed 2.5M, 1M there -> 1M, shortfall 1.5M; MBA (0.8M) and PRITA (3M) get 0.
    assert july["allocations"] == {
        "hta_fuel": "0.00",
        "hta_cigarette": "1000000.00",
        "mba": "0.00",
        "prita": "0.00",
        "general_fund": "0.00",
    }
    assert july["carried_shortfall"] == {
        "hta_cigarette": "1500000.00",
        "mba": "800000.00",
        "prita": "3000000.00",
    }
    # August: HTA 2×2.5M − 1M = 4M; MBA 2×0.8M = 1.6M; PRITA 2×3M = 6M; GF 12 − 11.6 = 0.4M.
    assert august["allocations"]["hta_cigarette"] == "4000000.00"
    assert august["allocations"]["mba"] == "1600000.00"
    assert august["allocations"]["prita"] == "6000000.00"
    assert august["allocations"]["general_fund"] == "400000.00"
    assert set(august["carried_shortfall"].values()) == {"0.00"}
    assert any("not taken back" in w for w in out["warnings"])


def test_a_full_year_of_five_million_a_month() -> None:
    rows = [month(f"{2016 + (m > 6)}-{(m + 5) % 12 + 1:02d}", "5000000.00") for m in range(1, 13)]
    out = excise_document({"fiscal_year": "2016-17", "months": rows})
    hta = [Decimal(m["allocations"]["hta_cigarette"]) for m in out["months"]]
    prita = [Decimal(m["allocations"]["prita"]) for m in out["months"]]
    # HTA: 2.5M a month for 8 months reaches its 20M cap, then nothing.
    assert hta == [Decimal(2_500_000)] * 8 + [Decimal(0)] * 4
    # MBA: 0.8M every month: 9.6M, never its 10M.
    assert out["totals"]["mba"] == "9600000.00"
    # PRITA: 5 − 2.5 − 0.8 = 1.7M for 8 months (13.6M), then 5 − 0.8 = 4.2M for 4 (16.8M):
    # 30.4M of the 36M it is entitled to by June -> 5.6M outstanding; the GF gets nothing.
    assert prita == [Decimal(1_700_000)] * 8 + [Decimal(4_200_000)] * 4
    assert out["totals"]["prita"] == "30400000.00"
    assert out["outstanding"]["prita"] == "5600000.00"
    assert out["totals"]["general_fund"] == "0.00"


def test_prita_before_and_from_fy2015_16() -> None:
    # FY2014-15: HTA 2.5M, MBA 0.8M, PRITA nothing, GF 5 − 3.3 = 1.7M.
    before = excise_document({"fiscal_year": "2014-15", "months": [month("2014-07", "5000000")]})
    assert before["months"][0]["allocations"]["prita"] == "0.00"
    assert before["months"][0]["allocations"]["general_fund"] == "1700000.00"
    assert before["reachable_annual_max"]["prita"] == "0.00"
    assert before["months"][0]["carried_shortfall"]["prita"] == "0.00"
    # FY2015-16: PRITA 3M, GF 5 − 2.5 − 0.8 − 3 = −1.3 -> PRITA gets the 1.7M left, GF 0.
    after = excise_document({"fiscal_year": "2015-16", "months": [month("2015-07", "5000000")]})
    assert after["months"][0]["allocations"]["prita"] == "1700000.00"
    assert after["months"][0]["allocations"]["general_fund"] == "0.00"
    assert after["reachable_annual_max"]["prita"] == "36000000.00"


def test_reachable_annual_max_explains_the_bus_authority() -> None:
    out = excise_document({"fiscal_year": "2020-21", "months": [month("2020-07", "0")]})
    # min(20M, 12 × 2.5M = 30M) = 20M; min(10M, 12 × 0.8M = 9.6M) = 9.6M; min(36M, 36M).
    assert out["reachable_annual_max"] == {
        "hta_cigarette": "20000000.00",
        "mba": "9600000.00",
        "prita": "36000000.00",
    }
    (warning,) = [w for w in out["warnings"] if "Metropolitan Bus Authority" in w]
    assert "$9,600,000.00" in warning and "$10,000,000.00" in warning


def test_calculator_registry_reaches_it() -> None:
    out = run("excise-allocation", {"fiscal_year": "2020-21", "months": [month("2020-07", "1")]})
    assert out["totals"]["hta_cigarette"] == "1.00"


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"fiscal_year": "2010-11", "months": [month("2010-07", "1")]}, "fiscal_year",
         "before the first fiscal year"),
        ({"fiscal_year": 2020}, "fiscal_year", "as text"),
        ({"months": [month("2020-06", "1")]}, "months[0].month", "not in fiscal year"),
        ({"months": [month("2020-07", "1"), month("2020-07", "1")]}, "months[1].month", "twice"),
        ({"months": [month("2020-07", "-1")]}, "months[0].cigarette_tax", "negative"),
        ({"months": [{**month("2020-07", "1"), "cigarette_tax": 1}]}, "months[0].cigarette_tax",
         "not as a number"),
        ({"months": [month("2020-07", "1", gasoline_tax="1", reimbursements="2")]},
         "months[0].reimbursements", "more than"),
        ({"months": [month("2020-07", "1.001")]}, "months[0].cigarette_tax", "two decimals"),
        ({"extra": "1"}, "extra", "unknown field"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field(change: dict[str, Any], field: str, message: str) -> None:
    doc: dict[str, Any] = {"fiscal_year": "2020-21", "months": [month("2020-07", "1")], **change}
    with pytest.raises(InputError, match=message) as info:
        excise_document(doc)
    assert info.value.field == field


cents = st.integers(min_value=0, max_value=1_200_000_000)


@settings(max_examples=1000, deadline=None)
@given(
    st.integers(min_value=2011, max_value=2030),
    st.lists(st.tuples(cents, cents, st.integers(0, 10**8)), min_size=1, max_size=12),
)
def test_excise_properties(fy: int, rows: list[tuple[int, int, int]]) -> None:
    labels = [f"{fy + (m > 6)}-{(m + 5) % 12 + 1:02d}" for m in range(1, 13)]
    months = [
        month(
            labels[i],
            str(Decimal(c) / 100),
            gasoline_tax=str(Decimal(g) / 100),
            diesel_gallons=str(gal),
        )
        for i, (c, g, gal) in enumerate(rows)
    ]
    out = excise_document({"fiscal_year": f"{fy}-{(fy + 1) % 100:02d}", "months": months})
    caps = {"hta_cigarette": (2_500_000, 20_000_000), "mba": (800_000, 10_000_000)}
    if fy >= 2015:
        caps["prita"] = (3_000_000, 36_000_000)
    paid = dict.fromkeys(caps, Decimal(0))
    for m, (row, (c, g, gal)) in enumerate(zip(out["months"], rows, strict=True), 1):
        alloc = {k: Decimal(v) for k, v in row["allocations"].items()}
        assert all(v >= 0 for v in alloc.values())
        # Pays out exactly its input: fuel (with 4¢ × gallons) + cigarette.
        assert alloc["hta_fuel"] == Decimal(g) / 100 + Decimal(gal) * Decimal("0.04")
        assert sum(alloc.values()) - alloc["hta_fuel"] == Decimal(c) / 100
        for key, (monthly, annual) in caps.items():
            paid[key] += alloc[key]
            assert paid[key] <= min(annual, monthly * m)  # caps never exceeded
        if fy < 2015:
            assert alloc["prita"] == 0
        # The General Fund gets money only when every authority is paid what it is owed to date.
        if alloc["general_fund"] > 0:
            assert all(Decimal(v) == 0 for v in row["carried_shortfall"].values())
        # A lower authority is paid only when the higher ones have nothing outstanding.
        order = list(caps)
        for hi, lo in itertools.pairwise(order):
            if alloc[lo] > 0:
                assert Decimal(row["carried_shortfall"][hi]) == 0


# ---------------------------------------------------------------------------------------------
# Worked cases in tests/rules/cases/excise.toml

CASES = load_cases("excise")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_worked_case(case: dict[str, Any]) -> None:
    assert_subset(excise_document(case["input"]), case["expect"])
