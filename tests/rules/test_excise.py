"""13 LPRA § 31751 (/readings#excise-from-2011): fuel to HTA, the cigarette waterfall, reachable
maxima."""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
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
        ({"fiscal_year": "2010-11", "months": [month("2010-12", "1")]}, "months[0].month",
         "before 13 LPRA § 31751 applies"),
        ({"fiscal_year": "2009-10", "months": [month("2010-01", "1")]}, "fiscal_year",
         "before 13 LPRA § 31751 applies"),
        ({"months": [month("2020-07", "1", cigarette_reimbursements="2")]},
         "months[0].cigarette_reimbursements", "cannot exceed"),
        ({"months": [month("2020-07", "1", cigarette_reimbursements=1)]},
         "months[0].cigarette_reimbursements", "not as a number"),
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


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=2010, max_value=2030),
    st.lists(
        st.tuples(cents, cents, st.integers(0, 10**8), st.integers(0, 100)), min_size=1, max_size=12
    ),
)
def test_excise_properties(fy: int, rows: list[tuple[int, int, int, int]]) -> None:
    # FY2010-11 starts in January 2011 (/readings#excise-from-2011): its months are counted from
    # January.
    first = 7 if fy == 2010 else 1
    rows = rows[: 13 - first]
    labels = [f"{fy + (m > 6)}-{(m + 5) % 12 + 1:02d}" for m in range(1, 13)]
    months = [
        month(
            labels[first - 1 + i],
            str(Decimal(c) / 100),
            gasoline_tax=str(Decimal(g) / 100),
            diesel_gallons=str(gal),
            # Reimbursed under 13 LPRA § 31668: a share (0–100 %) of the collections.
            cigarette_reimbursements=str(Decimal(c * pct // 100) / 100),
        )
        for i, (c, g, gal, pct) in enumerate(rows)
    ]
    out = excise_document({"fiscal_year": f"{fy}-{(fy + 1) % 100:02d}", "months": months})
    caps = {"hta_cigarette": (2_500_000, 20_000_000), "mba": (800_000, 10_000_000)}
    if fy >= 2015:
        caps["prita"] = (3_000_000, 36_000_000)
    paid = dict.fromkeys(caps, Decimal(0))
    for m, (row, (c, g, gal, pct)) in enumerate(zip(out["months"], rows, strict=True), 1):
        alloc = {k: Decimal(v) for k, v in row["allocations"].items()}
        assert all(v >= 0 for v in alloc.values())
        # Pays out exactly its input: fuel (with 4¢ × gallons) + cigarette less § 31668.
        assert alloc["hta_fuel"] == Decimal(g) / 100 + Decimal(gal) * Decimal("0.04")
        allocated = Decimal(c - c * pct // 100) / 100
        assert Decimal(row["cigarette_allocated"]) == allocated
        assert sum(alloc.values()) - alloc["hta_fuel"] == allocated
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
    # The stricter reading is named whenever a lower authority is paid before HTA has $20M.
    hta = Decimal(0)
    early = False
    for row in out["months"]:
        hta += Decimal(row["allocations"]["hta_cigarette"])
        lower = Decimal(row["allocations"]["mba"]) + Decimal(row["allocations"]["prita"])
        early = early or (lower > 0 and hta < 20_000_000)
    assert early == any("stricter reading" in w for w in out["warnings"])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=2011, max_value=2030),
    st.dictionaries(st.integers(min_value=1, max_value=12), cents, min_size=1),
)
def test_a_month_not_given_is_a_month_that_collected_nothing(
    fy: int, by_month: dict[int, int]
) -> None:
    labels = [f"{fy + (m > 6)}-{(m + 5) % 12 + 1:02d}" for m in range(1, 13)]
    fy_label = f"{fy}-{(fy + 1) % 100:02d}"
    given_only = excise_document(
        {
            "fiscal_year": fy_label,
            "months": [
                month(labels[m - 1], str(Decimal(c) / 100)) for m, c in sorted(by_month.items())
            ],
        }
    )
    full = excise_document(
        {
            "fiscal_year": fy_label,
            "months": [
                month(labels[m - 1], str(Decimal(by_month.get(m, 0)) / 100))
                for m in range(1, max(by_month) + 1)
            ],
        }
    )
    rows = {r["month"]: r for r in full["months"]}
    for row in given_only["months"]:
        assert row["allocations"] == rows[row["month"]]["allocations"]
    assert given_only["totals"] == full["totals"]


def test_fy2010_11_from_january_2011() -> None:
    out = excise_document({"fiscal_year": "2010-11", "months": [month("2011-03", "12000000.00")]})
    # January is month 1 of the section: March is month 3 (January and February not given
    # still count). HTA: min(20M, 2.5M × 3) = 7,500,000; MBA: min(10M, 800,000 × 3) =
    # 2,400,000; no PRITA before FY2015-16; General Fund 12M − 9.9M = 2,100,000.
    assert out["months"][0]["allocations"] == {
        "hta_fuel": "0.00",
        "hta_cigarette": "7500000.00",
        "mba": "2400000.00",
        "prita": "0.00",
        "general_fund": "2100000.00",
    }
    # The most a part-year can reach: 6 × 2,500,000 = 15,000,000; 6 × 800,000 = 4,800,000.
    assert out["reachable_annual_max"]["hta_cigarette"] == "15000000.00"
    assert out["reachable_annual_max"]["mba"] == "4800000.00"
    assert any("retroactive to Jan. 1, 2011" in w and "6 months" in w for w in out["warnings"])
    assert any("6 meses" in w for w in out["warnings_es"])
    assert any("2011-01, 2011-02" in w for w in out["warnings"])


def test_cigarette_reimbursements_come_off_before_the_allocations() -> None:
    out = excise_document(
        {
            "fiscal_year": "2020-21",
            "months": [month("2020-07", "5000000.00", cigarette_reimbursements="1500000.00")],
        }
    )
    # 5,000,000 − 1,500,000 reimbursed under § 31668 = 3,500,000 allocated: HTA 2,500,000,
    # MBA 800,000, PRITA 3,500,000 − 3,300,000 = 200,000 (owed 3,000,000: 2,800,000 short).
    alloc = out["months"][0]["allocations"]
    assert (alloc["hta_cigarette"], alloc["mba"], alloc["prita"], alloc["general_fund"]) == (
        "2500000.00",
        "800000.00",
        "200000.00",
        "0.00",
    )
    assert out["months"][0]["cigarette_allocated"] == "3500000.00"
    assert any("13 LPRA § 31668" in w for w in out["warnings"])
    assert any("13 LPRA § 31668" in w and "reintegrado" in w for w in out["warnings_es"])
    # MBA and PRITA were paid while HTA has 2,500,000 of its 20,000,000: the stricter reading.
    assert any("stricter reading" in w for w in out["warnings"])
    assert any("lectura más estricta" in w for w in out["warnings_es"])
    steps = [s for s in out["trace"] if "§ 31668" in s["step"]]
    assert steps and steps[0]["value"] == "5000000.00 − 1500000.00 = 3500000.00"


# ---------------------------------------------------------------------------------------------
# Worked cases in tests/rules/cases/excise.toml

CASES = load_cases("excise")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_worked_case(case: dict[str, Any]) -> None:
    assert_subset(excise_document(case["input"]), case["expect"])
