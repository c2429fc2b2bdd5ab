"""IRC 1994 § 2051 ¶ (5), per fiscal year (/readings#unnamed-recipients)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.rules.distribution.helpers import ZERO7, cents, dollars, irc
from tid.rules.distribution import IRC1994_TYPES

# ---------------------------------------------------------------------------------------------
# IRC 1994 § 2051 ¶ (5), per fiscal year


def test_special_accounts_year_with_top_up() -> None:
    out = irc("1998-99", "500000.00", hotel="900000.00", casino_hotel="1100000.00", motel="70000")
    # Bases: hotel 900,000 ÷ 9 % = 10M; casino 1.1M ÷ 11 % = 10M; motel 70,000 ÷ 7 % = 1M.
    # Points 6–7 (hotel, motel) / 6–9 (casino) -> GF: 100,000 + 300,000 + 10,000 = 410,000.
    # SA I: hotel 7–8.5 = 150,000, casino 9–10.5 = 150,000; SA II: the last 0.5 = 50,000 each.
    # First 6 points: 600,000 + 600,000 + 60,000 = 1,260,000; 5/6 = 1,050,000; 1/6 = 210,000.
    # 30 % = 315,000 -> GF; 70 % = 735,000: bond 500,000 (the Secretary's amount), rest 235,000.
    # 735,000 < 3M: top-up = min(315,000, 3M − 235,000) = 315,000 from the GF's 30 %.
    # GF = 410,000 + 315,000 − 315,000 = 410,000; RDF = 235,000 + 315,000 = 550,000.
    assert out["regime"] == "irc-1994"
    assert out["allocations"] == {
        "general_fund": "410000.00",
        "special_account_i": "300000.00",
        "special_account_ii": "100000.00",
        "convention_center_account": "0.00",
        "bond_redemption_fund": "500000.00",
        "recreational_development_fund": "550000.00",
        "unnamed_one_sixth": "210000.00",
    }
    assert any("recipient not named in the supplied text" in w for w in out["warnings"])
    assert any("moves from the General Fund's 30% share" in w for w in out["warnings"])


@pytest.mark.parametrize("fy", ["1997-98", "1998-99", "1999-00"])
def test_the_three_special_years_use_the_special_accounts(fy: str) -> None:
    out = irc(fy, "0", hotel="90.00")
    # base 1,000; SA I = 1.5 points = 15.00; SA II = 0.5 point = 5.00; no convention account.
    assert out["allocations"]["special_account_i"] == "15.00"
    assert out["allocations"]["special_account_ii"] == "5.00"
    assert out["allocations"]["convention_center_account"] == "0.00"


@pytest.mark.parametrize("fy", ["1994-95", "1995-96", "1996-97"])
def test_the_years_before_fy1997_98_are_computed_with_the_points_above_apart(fy: str) -> None:
    # hotel 90.00 at 9 % and casino 110.00 at 11 %: each a base of 1,000.00. Points 6–7 of
    # the hotel (10.00) and 6–9 of the casino (30.00) → General Fund 40.00; the points above
    # 7 / 9 (20.00 + 20.00) → not named; the first 6 points, 120.00: 1/6 = 20.00 not named,
    # 5/6 = 100.00 → 30 % 30.00 and 70 % 70.00, the 70 % under $3,000,000 so the 30.00 moves
    # to the Recreational Development Fund (100.00).
    out = irc(fy, "0", hotel="90.00", casino_hotel="110.00")
    assert out["allocations"] == {
        **ZERO7,
        "general_fund": "40.00",
        "unnamed_above_general_fund": "40.00",
        "recreational_development_fund": "100.00",
        "unnamed_one_sixth": "20.00",
    }
    (en,) = [w for w in out["warnings"] if w.startswith("Points above 7/9 before FY1997-98")]
    assert "recipient not named in the supplied text" in en and f"FY{fy}" in en
    assert "(Project reading: Recipients the 1994 text does not name)" in en
    (es,) = [w for w in out["warnings_es"] if w.startswith("Puntos por encima de 7/9")]
    assert "destinatario no nombrado" in es
    assert "(Lectura del proyecto: Destinatarios que el texto de 1994 no nombra)" in es
    steps = [s for s in out["trace"] if "points above 7/9 before FY1997-98" in s["step"]]
    assert [s["value"] for s in steps] == ["20.0000", "20.0000"]
    assert all("30 de junio de 1997" in s["citation"] for s in steps)
    # Only the first of them starts with the Code's approval, 1994-10-31.
    first = [w for w in out["warnings"] if "Code's approval date" in w]
    if fy == "1994-95":
        (w,) = first
        assert "from 1994-10-31" in w and "to 1995-06-30" in w
        assert w.endswith("(Project reading: In force from approval).")
        assert any("desde el 1994-10-31" in w for w in out["warnings_es"])
    else:
        assert first == []
    # From FY1997-98 the key is not shown: the text names the recipients.
    assert "unnamed_above_general_fund" not in irc("1997-98", "0", hotel="90.00")["allocations"]


def test_from_fy2000_01_the_convention_center_account() -> None:
    out = irc("2000-01", "100000.00", hotel="900000.00")
    # base 10M: GF points 6–7 = 100,000; 7–9 -> convention center account 200,000.
    # First 6 points 600,000: 5/6 = 500,000 (30 % = 150,000; 70 % = 350,000); 1/6 = 100,000.
    # Bond 100,000, RDF 250,000; 350,000 < 3M: top-up min(150,000, 2,750,000) = 150,000.
    # GF = 100,000 + 150,000 − 150,000 = 100,000; RDF = 400,000.
    assert out["allocations"] == {
        **ZERO7,
        "general_fund": "100000.00",
        "convention_center_account": "200000.00",
        "bond_redemption_fund": "100000.00",
        "recreational_development_fund": "400000.00",
        "unnamed_one_sixth": "100000.00",
    }


def test_top_up_only_what_brings_the_fund_to_three_million() -> None:
    out = irc("2001-02", "0", hotel="7200000.00")
    # base 80M: GF 6–7 = 800,000; CC 7–9 = 1,600,000; 6 points = 4.8M: 5/6 = 4M, 1/6 = 800,000.
    # 30 % = 1.2M; 70 % = 2.8M, bond amount 0 -> RDF 2.8M; top-up = min(1.2M, 3M − 2.8M) = 0.2M.
    # GF = 800,000 + 1,200,000 − 200,000 = 1,800,000; RDF = 3,000,000.
    assert out["allocations"]["general_fund"] == "1800000.00"
    assert out["allocations"]["recreational_development_fund"] == "3000000.00"
    assert out["allocations"]["convention_center_account"] == "1600000.00"
    assert out["allocations"]["unnamed_one_sixth"] == "800000.00"


def test_no_top_up_when_the_seventy_percent_reaches_three_million() -> None:
    out = irc("2001-02", "20000000.00", hotel="90000000.00")
    # base 1,000M: GF 6–7 = 10M; CC 20M; 6 points 60M: 5/6 = 50M (30 % = 15M, 70 % = 35M).
    # 35M ≥ 3M: no top-up. Bond 20M; RDF 15M; 1/6 = 10M; GF = 10M + 15M = 25M.
    assert out["allocations"] == {
        **ZERO7,
        "general_fund": "25000000.00",
        "convention_center_account": "20000000.00",
        "bond_redemption_fund": "20000000.00",
        "recreational_development_fund": "15000000.00",
        "unnamed_one_sixth": "10000000.00",
    }
    assert not any("moves from the General Fund" in w for w in out["warnings"])


def test_cents_that_do_not_divide_go_by_largest_remainder() -> None:
    out = irc("2001-02", "0", motel="1.00")
    # base 1.00 ÷ 7 % = 14.2857…; GF points 6–7 = 0.142857…; 6 points = 0.857142…:
    # 5/6 = 0.714285… (30 % = 0.214285…, 70 % = 0.5)… the seven funds add up to 1.00 exactly.
    total = sum(Decimal(v) for v in out["allocations"].values())
    assert total == Decimal("1.00")


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=1997, max_value=2002),
    st.dictionaries(st.sampled_from(IRC1994_TYPES), cents, min_size=1),
    cents,
)
def test_irc1994_pays_out_exactly(fy: int, collections: dict[str, int], bond: int) -> None:
    out = irc(
        f"{fy}-{(fy + 1) % 100:02d}",
        dollars(bond),
        **{k: dollars(v) for k, v in collections.items()},
    )
    paid = {k: Decimal(v) for k, v in out["allocations"].items()}
    assert sum(paid.values()) == Decimal(sum(collections.values())) / 100
    assert all(v >= 0 for v in paid.values())
    assert paid["bond_redemption_fund"] <= Decimal(bond) / 100
    if fy >= 2000:
        assert paid["special_account_i"] == paid["special_account_ii"] == 0
    else:
        assert paid["convention_center_account"] == 0
