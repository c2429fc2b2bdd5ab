"""The room-tax-distribution calculator: its registry, both input shapes, the fields its
refusals name, and the worked cases of tests/rules/cases/distribution.toml."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.cases import assert_subset, load_cases
from tid.rules.calculators import run
from tid.rules.distribution import distribution_document
from tid.rules.errors import InputError


def test_registry_and_both_shapes() -> None:
    out = run("room-tax-distribution", {"fiscal_year": "2002-03", "collections": {"hotel": "9"},
                                        "bond_fund_amount": "0"})  # fmt: skip
    assert out["regime"] == "irc-1994"


@pytest.mark.parametrize(
    ("doc", "field", "message"),
    [
        ({"fiscal_year": "1993-94", "collections": {"hotel": "1"}, "bond_fund_amount": "0"},
         "fiscal_year", "outside the supplied IRC 1994"),
        ({"fiscal_year": "2003-04", "collections": {"hotel": "1"}, "bond_fund_amount": "0"},
         "collections_until", "part-year; give collections_until 2003-09-08"),
        ({"fiscal_year": "2003-04", "collections": {"hotel": "1"}, "bond_fund_amount": "0",
          "collections_until": "2003-09-09"}, "collections_until", "not in the part"),
        ({"fiscal_year": "2002-03", "collections": {"hotel": "1"}, "bond_fund_amount": "0",
          "collections_until": "2003-06-30"}, "collections_until", "only FY2003-04"),
        ({"fiscal_year": "2004-05", "collections": {"hotel": "1"}, "bond_fund_amount": "0"},
         "fiscal_year", "outside the supplied IRC 1994"),
        ({"fiscal_year": "2001-02", "collections": {"condohotel": "1"}, "bond_fund_amount": "0"},
         "collections.condohotel", "hotel, apartment_hotel, guest_house"),
        ({"fiscal_year": "2001-02", "collections": {"hotel": 1}, "bond_fund_amount": "0"},
         "collections.hotel", "not as a number"),
        ({"fiscal_year": "2001-02", "collections": {"hotel": "1"}}, "bond_fund_amount",
         "Required: "),
        ({"fiscal_year": "2003-04", "months": [{"month": "2003-08", "collected": "1"}],
          "bank_certified_amount": "0"}, "months[0].month", "before 2003-09"),
        ({"fiscal_year": "2010-11", "months": [{"month": "2010-07", "collected": "5"}],
          "bank_certified_amount": "0", "convention_center_operating_deficit": "5"},
         "convention_center_opened_on", "opened"),
        ({"fiscal_year": "2010-11", "months": [{"month": "2010-07", "collected": "5"}],
          "bank_certified_amount": "0", "convention_center_opened_on": "2005-13-01"},
         "convention_center_opened_on", "2005-13-01"),
        ({"fiscal_year": "2010-11", "months": [{"month": "2010-07", "collected": "5"}],
          "bank_certified_amount": "0", "convention_center_opened_on": "2005-11-17",
          "convention_center_operating_deficit": 5}, "convention_center_operating_deficit",
         "not as a number"),
        ({"fiscal_year": "2002-03", "months": [{"month": "2002-09", "collected": "1"}],
          "bank_certified_amount": "0"}, "fiscal_year", "IRC 1994 regime"),
        ({"fiscal_year": "2010-11", "months": [{"month": "2010-07", "collected": "1"},
          {"month": "2011-07", "collected": "1"}], "bank_certified_amount": "0"},
         "months[1].month", "not in fiscal year"),
        ({"fiscal_year": "2010-11", "months": [{"month": "2010-07", "collected": "-5"}],
          "bank_certified_amount": "0"}, "months[0].collected", "negative"),
        ({"fiscal_year": "2010-11", "months": [{"month": "2010-07", "collected": "5"}],
          "bank_certified_amount": "0", "bureau_floor_from_fy": "soon"},
         "bureau_floor_from_fy", "not a fiscal year"),
        ({"fiscal_year": "2010-11"}, "collections", "either"),
        ({"fiscal_year": "2010-11", "months": [], "collections": {}}, "months", "either"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field(doc: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        distribution_document(doc)
    assert info.value.field == field


# ---------------------------------------------------------------------------------------------
# Worked cases in tests/rules/cases/distribution.toml

CASES = load_cases("distribution")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_worked_case(case: dict[str, Any]) -> None:
    assert_subset(distribution_document(case["input"]), case["expect"])
