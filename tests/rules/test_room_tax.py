"""Room occupancy tax rates (IRC 1994 § 2051(a), Act 272-2003 § 24): both regimes, thresholds,
exemptions, §§ 24C–D."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from tests.rules.cases import assert_subset, load_cases
from tid.rules.calculators import run
from tid.rules.errors import InputError
from tid.rules.room_tax import room_tax_document


def tax(**doc: Any) -> dict[str, Any]:
    return room_tax_document(doc)


def test_act272_hotel_with_fees_in_the_base() -> None:
    out = tax(
        lodging_type="hotel",
        date="2026-03-02",
        nightly_rate="150.00",
        nights=3,
        additional_charges="30.00",
    )
    # base = 150.00 × 3 + 30.00 resort fee = 480.00; tax = 9 % × 480.00 = 43.20
    assert (out["regime"], out["rate"], out["base"], out["tax"]) == (
        "act-272-2003",
        "0.09",
        "480.00",
        "43.20",
    )
    # § 28: the tax of March is due by April 10.
    assert out["remit_by"] == "2026-04-10"
    assert "§ 24(B)" in out["citation"]
    assert out["warnings"] == []
    assert any(s.get("parameter") == "room_tax.act272.rate.hotel" for s in out["trace"])


@pytest.mark.parametrize(
    ("lodging_type", "rate", "expected"),
    [
        # nightly 100.00 × 2 nights = 200.00 × rate
        ("casino_hotel", "0.11", "22.00"),
        ("parador", "0.07", "14.00"),
        ("all_inclusive_hotel", "0.05", "10.00"),
        ("short_term_rental", "0.07", "14.00"),
        ("government_recreational", "0.05", "10.00"),
        ("condohotel", "0.09", "18.00"),
        ("hostelry", "0.09", "18.00"),
        ("motel", "0.09", "18.00"),
    ],
)
def test_act272_rates_by_type(lodging_type: str, rate: str, expected: str) -> None:
    out = tax(lodging_type=lodging_type, date="2010-01-15", nightly_rate="100.00", nights=2)
    assert (out["rate"], out["tax"]) == (rate, expected)


def test_irc1994_regime_until_2003_09_08() -> None:
    out = tax(lodging_type="motel", date="2003-09-08", nightly_rate="40.00", nights=2)
    # 1994: motels 7 %; base 40.00 × 2 = 80.00; tax 5.60. Due the 10th of October.
    assert (out["regime"], out["rate"], out["tax"], out["remit_by"]) == (
        "irc-1994",
        "0.07",
        "5.60",
        "2003-10-10",
    )
    assert any("§ 28" in w for w in out["warnings"])
    # The day after, the same motel pays Act 272's 9 %: 80.00 × 9 % = 7.20.
    out = tax(lodging_type="motel", date="2003-09-09", nightly_rate="40.00", nights=2)
    assert (out["regime"], out["tax"]) == ("act-272-2003", "7.20")
    # Near the boundary the result says the approval date was used.
    assert any("no effective-date clause" in w for w in out["warnings"])


def test_irc1994_casino_and_rounding_half_up() -> None:
    out = tax(lodging_type="casino_hotel", date="1999-12-31", nightly_rate="99.95", nights=1)
    # 11 % × 99.95 = 10.9945 -> 10.99; remitted by 2000-01-10 (December -> January).
    assert (out["tax"], out["remit_by"]) == ("10.99", "2000-01-10")
    out = tax(lodging_type="hotel", date="1999-12-31", nightly_rate="0.50", nights=1)
    # …and 9 % × 0.50 = 0.045 -> 0.05 (half-up) — but 0.50 a day is under $5: not taxed.
    assert (out["taxable"], out["tax"]) == (False, "0.00")


def test_the_five_dollar_threshold() -> None:
    # 1994: every type; exactly 5.00 does not exceed 5.00 -> no tax; 5.01 -> 9 % × 5.01 = 0.45.
    assert tax(lodging_type="hotel", date="2000-01-01", nightly_rate="5.00", nights=1)["tax"] == (
        "0.00"
    )
    assert tax(lodging_type="hotel", date="2000-01-01", nightly_rate="5.01", nights=1)["tax"] == (
        "0.45"
    )
    # Act 272: motels only; a $4 hotel night is taxed 9 % × 4.00 = 0.36, a $4 motel night is not.
    assert tax(lodging_type="hotel", date="2020-01-01", nightly_rate="4.00", nights=1)["tax"] == (
        "0.36"
    )
    motel = tax(lodging_type="motel", date="2020-01-01", nightly_rate="4.00", nights=1)
    assert (motel["taxable"], motel["tax"]) == (False, "0.00")


@pytest.mark.parametrize(
    ("lodging_type", "day", "provision"),
    [
        ("hotel", "2001-01-10", "IRC 1994 § 2051(a)"),
        ("motel", "2020-01-01", "Act 272-2003 § 24(B)"),
    ],
)
def test_the_five_dollar_test_reads_the_nightly_room_rate_alone(
    lodging_type: str, day: str, provision: str
) -> None:
    # A 4.00 room and a 3.00 fee over 2 nights: (8.00 + 3.00) ÷ 2 = 5.50 would pass the test,
    # but the room's 4.00 a night does not exceed 5.00: not taxed (the fee joins the base only
    # once the stay is taxed).
    cheap = tax(
        lodging_type=lodging_type,
        date=day,
        nightly_rate="4.00",
        nights=2,
        additional_charges="3.00",
    )
    assert (cheap["taxable"], cheap["tax"]) == (False, "0.00")
    (said,) = [w for w in cheap["warnings"] if w.startswith("The daily-rate test of")]
    assert provision in said and "reads the nightly room rate alone ($4.00 a night" in said
    assert "(Project reading: The $5.00 test reads the nightly rate)" in said
    (dicho,) = [w for w in cheap["warnings_es"] if w.startswith("La prueba de la tarifa diaria")]
    assert "4.00 por noche" in dicho
    assert "(Lectura del proyecto: La prueba de los $5.00 lee la tarifa por noche)" in dicho
    # A 5.01 room with the same fee is taxed on the room and the fee: 10.02 + 3.00 = 13.02.
    taxed = tax(
        lodging_type=lodging_type,
        date=day,
        nightly_rate="5.01",
        nights=2,
        additional_charges="3.00",
    )
    rate = Decimal(taxed["rate"])
    assert taxed["base"] == "13.02"
    assert taxed["tax"] == str((rate * Decimal("13.02")).quantize(Decimal("0.01"), ROUND_HALF_UP))
    assert any(w.startswith("The daily-rate test of") for w in taxed["warnings"])
    # A hotel under Act 272 has no such test, and no such warning.
    hotel = tax(lodging_type="hotel", date="2020-01-01", nightly_rate="4.00", nights=2)
    assert not any(w.startswith("The daily-rate test") for w in hotel["warnings"])


def test_the_1994_regime_says_it_starts_with_the_codes_approval() -> None:
    first = tax(lodging_type="hotel", date="1994-10-31", nightly_rate="100.00", nights=1)
    (said,) = [w for w in first["warnings"] if "Code's approval date" in w]
    assert "from 1994-10-31" in said and "(Project reading: In force from approval)" in said
    assert any("desde el 1994-10-31" in w for w in first["warnings_es"])
    later = tax(lodging_type="hotel", date="1995-07-01", nightly_rate="100.00", nights=1)
    assert not any("Code's approval date" in w for w in later["warnings"])
    june = tax(lodging_type="hotel", date="1995-06-30", nightly_rate="100.00", nights=1)
    assert any("Code's approval date" in w for w in june["warnings"])


@pytest.mark.parametrize(
    ("exemption", "section"), [("film_production", "§ 24(F)"), ("timeshare", "§ 24(G)")]
)
def test_exemptions(exemption: str, section: str) -> None:
    out = tax(
        lodging_type="hotel",
        date="2020-05-01",
        nightly_rate="200.00",
        nights=5,
        exemption=exemption,
    )
    assert (out["base"], out["tax"], out["taxable"]) == ("1000.00", "0.00", False)
    assert section in out["citation"]


def test_complimentary_casino_room_base_is_the_greatest_figure() -> None:
    out = tax(
        lodging_type="casino_hotel",
        date="2020-05-01",
        nights=2,
        complimentary=True,
        average_daily_rate="150.00",
        room_cost="180.50",
        industry_cost="175.00",
    )
    # greatest of 150.00, 180.50, 175.00 = 180.50 × 2 = 361.00; 11 % = 39.71
    assert (out["base"], out["tax"]) == ("361.00", "39.71")
    assert any("§ 24(D)" in w for w in out["warnings"])


def test_grouped_meals_base_ignores_the_rate_charged() -> None:
    out = tax(
        lodging_type="hotel",
        date="2020-05-01",
        nightly_rate="400.00",
        nights=3,
        grouped_meals=True,
        average_daily_rate="210.00",
    )
    # only the average daily rate is given: 210.00 × 3 = 630.00 (not 400 × 3); 9 % = 56.70
    assert (out["base"], out["tax"]) == ("630.00", "56.70")
    assert any("§ 24(C)" in w for w in out["warnings"])


def test_registry_reaches_it() -> None:
    out = run(
        "room-tax",
        {"lodging_type": "hotel", "date": "2020-01-01", "nightly_rate": "1", "nights": 1},
    )
    assert set(out) >= {"regime", "rate", "base", "tax", "remit_by", "citation"}
    assert set(out) >= {"warnings", "trace"}


BASE = {"lodging_type": "hotel", "date": "2020-01-01", "nightly_rate": "100.00", "nights": 1}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"lodging_type": "condohotel", "date": "2001-01-01"}, "lodging_type",
         "hotel, apartment_hotel, guest_house, casino_hotel, motel, parador"),
        ({"lodging_type": "castle"}, "lodging_type", "not a lodging type of Act 272"),
        ({"date": "1990-01-01"}, "date", "before 1994-10-31"),
        ({"date": "2020-13-01"}, "date", "not a date"),
        ({"nightly_rate": 100}, "nightly_rate", "not as a number"),
        ({"nightly_rate": "-1"}, "nightly_rate", "negative"),
        ({"nights": "2"}, "nights", "whole number"),
        ({"nights": 0}, "nights", "at least 1"),
        ({"nights": True}, "nights", "whole number"),
        ({"exemption": "diplomat"}, "exemption", "not an exemption"),
        ({"exemption": "timeshare", "date": "2000-01-01"}, "exemption", "Act 272-2003 § 24"),
        ({"complimentary": True}, "average_daily_rate", "at least one"),
        ({"complimentary": True, "grouped_meals": True, "room_cost": "1"}, "grouped_meals",
         "not both"),
        ({"grouped_meals": True, "lodging_type": "all_inclusive_hotel", "room_cost": "1"},
         "grouped_meals", "excepts"),
        ({"room_cost": "10"}, "room_cost", "only for a complimentary"),
        ({"complimentary": "yes", "room_cost": "1"}, "complimentary", "true or false"),
        ({"surcharge": "1"}, "surcharge", "unknown field"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field(change: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        room_tax_document({**BASE, **change})
    assert info.value.field == field


# ---------------------------------------------------------------------------------------------
# Worked cases in tests/rules/cases/room_tax.toml

CASES = load_cases("room_tax")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_worked_case(case: dict[str, Any]) -> None:
    assert_subset(room_tax_document(case["input"]), case["expect"])


def test_hostelry_is_not_an_authorized_inn() -> None:
    out = run(
        "room-tax",
        {"lodging_type": "hostelry", "date": "2020-01-10", "nightly_rate": "100.00", "nights": 2},
    )
    # The general rate: 0.09 × 200.00 = 18.00; an authorized inn is a parador at 0.07.
    assert out["tax"] == "18.00"
    assert any("NOT authorized" in w and "parador" in w and "0.07" in w for w in out["warnings"])
    assert any("NO autorizada" in w and "0.07" in w for w in out["warnings_es"])
    parador = run(
        "room-tax",
        {"lodging_type": "parador", "date": "2020-01-10", "nightly_rate": "100.00", "nights": 2},
    )
    assert parador["tax"] == "14.00"
    assert not any("NOT authorized" in w for w in parador["warnings"])
