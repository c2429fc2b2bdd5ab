"""Act 272-2003 § 31, month by month (/readings#act-272-distribution-year)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.rules.distribution.helpers import (
    ZERO7,
    act,
    alloc,
    cents,
    dollars,
    fy_label,
    month_of,
    to_cents_str,
)
from tid.rules.distribution import distribution_document


def test_fy2003_04_ninths_from_october_and_a_shortfall_made_up() -> None:
    out = act("2003-04", "9000000.00", [("2003-10", "800000.00"), ("2003-11", "2000000.00")])
    # 9,000,000 ÷ 9 = 1,000,000 a month, October to June.
    assert list(out["bank_transfers"]) == [
        "2003-10", "2003-11", "2003-12", "2004-01", "2004-02", "2004-03", "2004-04", "2004-05",
        "2004-06",
    ]  # fmt: skip
    assert set(out["bank_transfers"].values()) == {"1000000.00"}
    # October: 800,000 all to the Bank, 200,000 short; nothing for the rest.
    assert alloc(out, 0) == ["800000.00", "0.00", "0.00", "0.00", "0.00"]
    assert out["months"][0]["carried_shortfall"]["authority_debt_service"] == "200000.00"
    # November: Bank 1,000,000 + 200,000 = 1,200,000; 800,000 left: 2 % of 2M = 40,000;
    # 5 % = 100,000; 9 % = 180,000; remainder 800,000 − 320,000 = 480,000.
    assert alloc(out, 1) == ["1200000.00", "40000.00", "100000.00", "180000.00", "480000.00"]
    assert out["months"][1]["carried_shortfall"]["authority_debt_service"] == "0.00"
    assert any("floor" in w and "off" in w for w in out["warnings"])
    assert any("cut off after clause iii" in w for w in out["warnings"])
    assert any("2003-09-09" in w for w in out["warnings"])


def test_tenths_july_to_april_with_the_odd_cent_first() -> None:
    out = act("2004-05", "100000.01", [("2004-07", "1000000.00")])
    # 10,000,001 cents ÷ 10 = 1,000,000 r 1: July 10,000.01, then nine of 10,000.00, to April.
    transfers = out["bank_transfers"]
    keys = list(transfers)
    assert (keys[0], keys[-1], len(keys)) == ("2004-07", "2005-04", 10)
    assert list(transfers.values()) == ["10000.01"] + ["10000.00"] * 9
    assert out["months"][0]["allocations"]["authority_debt_service"] == "10000.01"


def test_shortfall_carried_and_outstanding_at_year_end() -> None:
    months = [(f"{2005 + (m > 6)}-{(m + 5) % 12 + 1:02d}", "1000000.00") for m in range(1, 11)]
    months += [("2006-05", "500000.00"), ("2006-06", "500000.00")]
    out = act("2005-06", "12000000.00", months)
    # 1,200,000 a month July–April; 1,000,000 collected: 200,000 short each month -> 2,000,000
    # after April; May pays 500,000 (1,500,000 left), June 500,000 -> 1,000,000 outstanding.
    assert out["months"][9]["carried_shortfall"]["authority_debt_service"] == "2000000.00"
    assert out["months"][10]["carried_shortfall"]["authority_debt_service"] == "1500000.00"
    assert out["carried_after_last_month"]["authority_debt_service"] == "1000000.00"
    assert "outstanding" not in out
    # June given: the year is complete, and no warning says otherwise.
    assert not any(w.startswith("The months given end with") for w in out["warnings"])
    assert out["totals"]["authority_debt_service"] == "11000000.00"
    assert out["totals"]["tourism_company_remainder"] == "0.00"
    assert any("Outstanding" in s["step"] for s in out["trace"])


def test_a_part_year_names_what_is_carried_after_its_last_month_and_says_the_year_is_open() -> None:
    # July only: the 1/10 transfer (120,000) is paid in full, nothing is carried, but nine
    # transfers (1,080,000) are still to come: 0.00 is not what is outstanding at year end.
    out = act("2005-06", "1200000.00", [("2005-07", "1000000.00")])
    assert out["carried_after_last_month"] == {
        "authority_debt_service": "0.00",
        "convention_bureau": "0.00",
    }
    assert "outstanding" not in out
    (en,) = [w for w in out["warnings"] if w.startswith("The months given end with")]
    assert "end with 2005-07, before the end of FY2005-06" in en
    assert "not what is outstanding when the year ends" in en
    assert "Bank transfers still to come ($1,080,000.00)" in en
    (es,) = [w for w in out["warnings_es"] if w.startswith("Los meses dados terminan")]
    assert "2005-07" in es and "$1,080,000.00" in es
    # 1,200,000 due each month July–April; 1,000,000 collected in July, August and March, the
    # months between collected nothing: after March 9 × 1,200,000 − 3,000,000 = 7,800,000 is
    # carried, and April's 1,200,000 is still to come.
    spring = act(
        "2005-06",
        "12000000.00",
        [("2005-07", "1000000.00"), ("2005-08", "1000000.00"), ("2006-03", "1000000.00")],
    )
    assert spring["carried_after_last_month"]["authority_debt_service"] == "7800000.00"
    (en,) = [w for w in spring["warnings"] if w.startswith("The months given end with")]
    assert "debt service $7,800,000.00" in en and "still to come ($1,200,000.00)" in en


def test_bureau_floor_on_cumulative_in_the_year_with_a_missing_month() -> None:
    months = [("2010-07", "3000000.00"), ("2010-09", "300000.00"), ("2010-10", "5000000.00")]
    on = act("2010-11", "0", months, bureau_floor_from_fy="2005-06")
    # /readings#bureau-floor-to-date: owed to date after month m = max(9 % of the tax to date,
    # 375,000 × m).
    # July (m 1): 2 % 60,000; 5 % 150,000; max(270,000, 375,000) = 375,000; rest 2,415,000.
    assert alloc(on, 0) == ["0.00", "60000.00", "150000.00", "375000.00", "2415000.00"]
    # September (m 3: August was not given and still counts): 6,000; 15,000; owed to date
    # max(9 % of 3,300,000 = 297,000, 1,125,000) = 1,125,000 − 375,000 paid = 750,000;
    # 279,000 left -> all of it, 471,000 carried.
    assert alloc(on, 1) == ["0.00", "6000.00", "15000.00", "279000.00", "0.00"]
    assert on["months"][1]["carried_shortfall"]["convention_bureau"] == "471000.00"
    # October (m 4): 100,000; 250,000; max(9 % of 8,300,000 = 747,000, 1,500,000) = 1,500,000
    # − 654,000 paid = 846,000; the rest 5,000,000 − 1,196,000 = 3,804,000; nothing carried.
    assert alloc(on, 2) == ["0.00", "100000.00", "250000.00", "846000.00", "3804000.00"]
    assert on["months"][2]["carried_shortfall"]["convention_bureau"] == "0.00"
    assert on["bureau_floor"] is True
    assert any("applies from FY2005-06" in w and "cumulative" in w for w in on["warnings"])
    assert any("acumulativo" in w for w in on["warnings_es"])
    assert any("2010-08" in w and "still count" in w for w in on["warnings"])
    # Floor off: September's Bureau gets 9 % of 300,000 = 27,000 and nothing is carried.
    off = act("2010-11", "0", months)
    assert alloc(off, 1) == ["0.00", "6000.00", "15000.00", "27000.00", "252000.00"]
    assert off["months"][1]["carried_shortfall"]["convention_bureau"] == "0.00"
    # A floor set from a later FY is off in this one, and the result says so.
    later = act("2010-11", "0", months, bureau_floor_from_fy="2011-12")
    assert later["bureau_floor"] is False
    assert any("FY2011-12" in w for w in later["warnings"])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=2003, max_value=2030),
    st.lists(cents, min_size=1, max_size=12),
    cents,
    st.none() | st.integers(min_value=2003, max_value=2030),
)
def test_act272_pays_out_exactly(
    fy: int, collected: list[int], certified: int, floor_from: int | None
) -> None:
    first = 3 if fy == 2003 else 1  # September 2003 joins October (/readings#seam-of-2003)
    months = [
        (f"{fy + (m > 6)}-{(m + 5) % 12 + 1:02d}", dollars(c))
        for m, c in enumerate(collected[: 13 - first], first)
    ]
    extra = (
        {"bureau_floor_from_fy": f"{floor_from}-{(floor_from + 1) % 100:02d}"} if floor_from else {}
    )
    out = act(f"{fy}-{(fy + 1) % 100:02d}", dollars(certified), months, **extra)
    schedule = [Decimal(v) for v in out["bank_transfers"].values()]
    assert sum(schedule) == Decimal(certified) / 100
    bank_paid = Decimal(0)
    for i, row in enumerate(out["months"]):
        paid = [Decimal(v) for v in row["allocations"].values()]
        assert sum(paid) == Decimal(row["collected"])
        assert all(v >= 0 for v in paid)
        bank_paid += paid[0]
        assert bank_paid <= sum(schedule[: i + 1])
        # The remainder is paid only when the Bank and the Bureau's floor are not short.
        if paid[-1] > 0:
            assert set(row["carried_shortfall"].values()) == {"0.00"}


# ---------------------------------------------------------------------------------------------
# The second reading (/readings#seam-of-2003 and those after it): the floor, the missing month, the
# reserve, the seam


def test_bureau_floor_is_annual_a_year_whose_nine_percent_comes_early() -> None:
    months = [("2012-07", "33000000.00")]
    months += [(f"{2012 + (m > 6)}-{(m + 5) % 12 + 1:02d}", "1000000.00") for m in range(2, 13)]
    out = act("2012-13", "0", months, bureau_floor_from_fy="2012-13")
    bureau = [Decimal(r["allocations"]["convention_bureau"]) for r in out["months"]]
    # July: 9 % of 33,000,000 = 2,970,000 > 375,000 × 1: paid 2,970,000.
    assert bureau[0] == Decimal("2970000.00")
    # August–April (m 2–10): 9 % to date = 2,970,000 + 90,000 × (m − 1) stays above
    # 375,000 × m (m 10: 3,780,000 > 3,750,000): each month pays its own 90,000.
    assert bureau[1:10] == [Decimal("90000.00")] * 9
    # May (m 11): max(3,870,000, 4,125,000) = 4,125,000 − 3,780,000 = 345,000.
    # June (m 12): max(3,960,000, 4,500,000) = 4,500,000 − 4,125,000 = 375,000.
    assert bureau[10:] == [Decimal("345000.00"), Decimal("375000.00")]
    # The year pays the Bureau $4,500,000 = max(9 % of 44,000,000 = 3,960,000, 4,500,000),
    # not the 2,970,000 + 11 × 375,000 = 7,095,000 of a monthly floor.
    assert out["totals"]["convention_bureau"] == "4500000.00"


def test_bureau_floor_counts_from_october_in_fy2003_04() -> None:
    out = act(
        "2003-04", "0", [("2003-10", "1000000.00"), ("2003-11", "1000000.00")],
        bureau_floor_from_fy="2003-04",
    )  # fmt: skip
    # October is month 1 of the floor (the first distributed): max(90,000, 375,000) = 375,000;
    # November: max(180,000, 750,000) = 750,000 − 375,000 = 375,000.
    assert [r["allocations"]["convention_bureau"] for r in out["months"]] == [
        "375000.00",
        "375000.00",
    ]


def test_convention_center_reserve_covers_the_deficit_and_releases_the_surplus() -> None:
    base = {"convention_center_opened_on": "2005-11-17"}
    months = [("2010-07", "10000000.00")]
    out = act("2010-11", "0", months, **base, convention_center_operating_deficit="2800000.00")
    # Opened in FY2005-06: the reserve runs FY2005-06 and the ten after it, to FY2015-16.
    # July: 2 % 200,000; the 5 % = 500,000 held in reserve; 9 % 900,000; rest 8,400,000.
    assert out["months"][0]["allocations"] == {
        "authority_debt_service": "0.00",
        "tourism_company_admin": "200000.00",
        "general_fund": "0.00",
        "convention_center_reserve": "500000.00",
        "convention_bureau": "900000.00",
        "tourism_company_remainder": "8400000.00",
    }
    # Deficit 2,800,000 − 2,500,000 = 300,000 covered; the surplus 200,000 to the Treasury.
    reserve = out["convention_center_reserve"]
    assert (reserve["first_fiscal_year"], reserve["last_fiscal_year"]) == ("2005-06", "2015-16")
    assert reserve["held"] == "500000.00"
    assert reserve["covers_deficit"] == "300000.00"
    assert reserve["released_to_general_fund"] == "200000.00"
    assert any("surplus, $200,000.00" in w for w in out["warnings"])
    assert any("sobrante, $200,000.00" in w for w in out["warnings_es"])
    # A deficit of 4,000,000: 1,500,000 above the threshold, the reserve covers all 500,000.
    big = act("2010-11", "0", months, **base, convention_center_operating_deficit="4000000.00")
    assert big["convention_center_reserve"]["covers_deficit"] == "500000.00"
    assert big["convention_center_reserve"]["released_to_general_fund"] == "0.00"
    # Without the deficit: kept as the reserve, and the result says so in both languages.
    unknown = act("2010-11", "0", months, **base)
    assert "released_to_general_fund" not in unknown["convention_center_reserve"]
    assert any("reserve (General Fund after the deficit is known)" in w
               for w in unknown["warnings"])  # fmt: skip
    assert any("Fondo General cuando se conozca el déficit" in w for w in unknown["warnings_es"])
    # FY2016-17 is after the ten years: the 5 % goes to the General Fund again.
    after = act("2016-17", "0", [("2016-07", "10000000.00")], **base)
    assert after["months"][0]["allocations"]["general_fund"] == "500000.00"
    assert "convention_center_reserve" not in after
    # Without the opening date the result names the reserve it could not apply.
    plain = act("2010-11", "0", months)
    assert any("Not given: convention_center_opened_on." in w for w in plain["warnings"])


def test_the_reserve_years_are_eleven_in_all_and_the_result_says_it_is_the_reading() -> None:
    base = {"convention_center_opened_on": "2005-11-17"}
    # Opened in FY2005-06: that year and the ten subsequent ones, FY2005-06 to FY2015-16.
    for fy, month, inside in (
        ("2005-06", "2005-12", True),
        ("2015-16", "2015-07", True),
        ("2016-17", "2016-07", False),
    ):
        out = act(fy, "0", [(month, "1000.00")], **base)
        assert ("convention_center_reserve" in out) is inside, fy
        if not inside:
            continue
        assert out["convention_center_reserve"]["last_fiscal_year"] == "2015-16"
        (en,) = [w for w in out["warnings"] if "inside the years" in w]
        assert "the fiscal year of the Convention Center's opening and the 10 subsequent" in en
        assert "11 in all: Act 272-2003 § 31(B)(ii)" in en
        assert "(Project reading: The years of the Convention Center reserve)" in en
        assert "ten years" not in en
        (es,) = [w for w in out["warnings_es"] if "dentro de los años de la reserva" in w]
        assert "11 en total: la Ley 272-2003, art. 31(B)(ii)" in es and "diez años" not in es
        assert "(Lectura del proyecto: Los años de la reserva del Centro de Convenciones)" in es
        (step,) = [s for s in out["trace"] if s["step"].startswith("Convention Center reserve:")]
        assert "the 10 fiscal years after it, 11 in all, to FY2015-16" in step["step"]
    # Without the opening day the result still says how many years the reserve runs.
    plain = act("2010-11", "0", [("2010-07", "1000.00")])
    (en,) = [w for w in plain["warnings"] if "Not given: convention_center_opened_on." in w]
    assert "11 in all" in en and "ten years" not in en
    assert any("11 en total" in w for w in plain["warnings_es"])


def test_the_seam_of_2003_part_year_and_september() -> None:
    part = distribution_document(
        {"fiscal_year": "2003-04", "collections": {"hotel": "900000.00"},
         "bond_fund_amount": "100000.00", "collections_until": "2003-09-08"}
    )  # fmt: skip
    # As FY2000-01's rules (the Special Accounts do not apply): base 10M; GF points 6–7 =
    # 100,000; 7–9 -> convention center account 200,000; first 6 points 600,000: 1/6 =
    # 100,000; 5/6 = 500,000: 30 % 150,000, 70 % 350,000 = bond 100,000 + RDF 250,000, topped
    # up by min(150,000, 2,750,000) = 150,000 -> RDF 400,000, GF 100,000.
    assert part["allocations"] == {
        **ZERO7,
        "general_fund": "100000.00",
        "convention_center_account": "200000.00",
        "bond_redemption_fund": "100000.00",
        "recreational_development_fund": "400000.00",
        "unnamed_one_sixth": "100000.00",
    }
    assert part["collections_until"] == "2003-09-08"
    assert any("part-year reading is ours" in w for w in part["warnings"])
    assert any("año parcial" in w for w in part["warnings_es"])
    # From 2003-09-09: September's 500,000 joins October's 2,500,000 = 3,000,000: Bank 1/9 of
    # 9,000,000 = 1,000,000; 2 % 60,000; 5 % 150,000; 9 % 270,000; rest 1,520,000.
    out = act("2003-04", "9000000.00", [("2003-09", "500000.00"), ("2003-10", "2500000.00")])
    assert len(out["months"]) == 1
    row = out["months"][0]
    assert row["month"] == "2003-10"
    assert row["collected"] == "3000000.00"
    assert row["joined_months"] == {"2003-09": "500000.00", "2003-10": "2500000.00"}
    assert alloc(out, 0) == ["1000000.00", "60000.00", "150000.00", "270000.00", "1520000.00"]
    assert any("joins 2003-10's money" in w for w in out["warnings"])
    # September alone still has somewhere to go: October, with nothing of its own.
    alone = act("2003-04", "0", [("2003-09", "100.00")])
    assert alone["months"][0]["month"] == "2003-10"
    assert alone["totals"]["collected"] == "100.00"
    # …also when the next month given is November: September is October's, not November's.
    skip = act("2003-04", "0", [("2003-09", "100.00"), ("2003-11", "50.00")])
    assert [(r["month"], r["collected"]) for r in skip["months"]] == [
        ("2003-10", "100.00"),
        ("2003-11", "50.00"),
    ]


def test_act272_says_its_opening_year_is_blank() -> None:
    out = act("2012-13", "0", [("2012-07", "1.00")])
    assert any("[blank]" in w for w in out["warnings"])
    assert any("[en blanco]" in w for w in out["warnings_es"])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=2004, max_value=2030),
    st.dictionaries(st.integers(min_value=1, max_value=12), cents, min_size=1),
    st.integers(min_value=0, max_value=10**10),
)
def test_bureau_yearly_total_is_the_greater_of_its_nine_percent_and_the_floor(
    fy: int, by_month: dict[int, int], certified: int
) -> None:
    months = [(month_of(fy, m), dollars(c)) for m, c in sorted(by_month.items())]
    out = act(fy_label(fy), dollars(certified), months, bureau_floor_from_fy=fy_label(fy))
    last = max(by_month)
    total = sum(by_month.values())
    # Owed for the year to date = max(9 % of the tax to date, $4.5M × months elapsed ÷ 12):
    # paid + still owed is exactly that, whatever months are missing.
    owed = max((9 * total + 50) // 100, 450_000_000 * last // 12)
    paid = to_cents_str(out["totals"]["convention_bureau"])
    short = to_cents_str(out["carried_after_last_month"]["convention_bureau"])
    assert paid + short == owed
    # As far as funds allow: while the Bureau is still owed, nothing goes to the remainder in
    # the last month.
    if short:
        assert out["months"][-1]["allocations"]["tourism_company_remainder"] == "0.00"


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=2004, max_value=2030),
    st.dictionaries(st.integers(min_value=1, max_value=12), cents, min_size=1),
    cents,
    st.booleans(),
)
def test_a_month_not_given_is_a_month_that_collected_nothing(
    fy: int, by_month: dict[int, int], certified: int, floor: bool
) -> None:
    extra = {"bureau_floor_from_fy": fy_label(fy)} if floor else {}
    given_only = act(
        fy_label(fy),
        dollars(certified),
        [(month_of(fy, m), dollars(c)) for m, c in sorted(by_month.items())],
        **extra,
    )
    full = act(
        fy_label(fy),
        dollars(certified),
        [(month_of(fy, m), dollars(by_month.get(m, 0))) for m in range(1, max(by_month) + 1)],
        **extra,
    )
    rows = {r["month"]: r for r in full["months"]}
    for row in given_only["months"]:
        assert row["allocations"] == rows[row["month"]]["allocations"]
        assert row["carried_shortfall"] == rows[row["month"]]["carried_shortfall"]
    assert given_only["totals"] == full["totals"]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=2004, max_value=2030),
    st.lists(cents, min_size=1, max_size=12),
    cents,
    st.integers(min_value=2003, max_value=2025),
    st.none() | cents,
)
def test_money_is_conserved_with_the_reserve(
    fy: int, collected: list[int], certified: int, opened: int, deficit: int | None
) -> None:
    extra = {"convention_center_opened_on": f"{opened}-11-17"}
    if deficit is not None:
        extra["convention_center_operating_deficit"] = dollars(deficit)
    months = [(month_of(fy, m), dollars(c)) for m, c in enumerate(collected, 1)]
    out = act(fy_label(fy), dollars(certified), months, **extra)
    for row in out["months"]:
        assert sum(Decimal(v) for v in row["allocations"].values()) == Decimal(row["collected"])
    # Opened in November: its fiscal year starts that year; the reserve runs ten FYs after.
    inside = opened <= fy <= opened + 10
    reserve = out.get("convention_center_reserve")
    assert (reserve is not None) == inside
    if reserve is not None:
        held = to_cents_str(reserve["held"])
        assert held == to_cents_str(out["totals"]["convention_center_reserve"])
        assert to_cents_str(out["totals"]["general_fund"]) == 0
        if deficit is not None:
            covered = to_cents_str(reserve["covers_deficit"])
            released = to_cents_str(reserve["released_to_general_fund"])
            assert covered + released == held
            assert covered == min(held, max(0, deficit - 250_000_000))
