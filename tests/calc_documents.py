"""One worked document per calculator (docs/calculators.md), and the same input as form fields.

The interface tests (web form, JSON API, ``tid calc``) run these through each way in and
check that all three give the same numbers. The hand-worked figures are in comments.
"""

from __future__ import annotations

from typing import Any

DOCUMENTS: dict[str, dict[str, Any]] = {
    # 90 days from 2026-03-02 is 2026-05-31, a Sunday → 2026-06-01 (21 LPRA § 6653(2)).
    # Publication: the week after 2026-03-05 = 2026-03-06 … 2026-03-12 (§ 6653(7)).
    "deadlines": {
        "petition_received": "2026-03-02",
        "mayor_approved": "2026-03-05",
        "skip_saturday": True,
    },
    # Group 1 (property tax P1) first, then the impost T1 (2,500.00 secured; the 300.00 of
    # charges unsecured), then the mortgage: 62,500.00 − 4,000.00 − 2,500.00 = 56,000.00 to
    # the mortgage M1 (owed 100,000.00), nothing to the owner.
    "liens": {
        "liens": [
            {"id": "M1", "kind": "mortgage", "constituted_on": "2015-06-01", "amount": "100000.00"},
            {
                "id": "T1",
                "kind": "tid_impost",
                "constituted_on": "2020-01-01",
                "amount": "2500.00",
                "unsecured_charges": "300.00",
            },
            {
                "id": "P1",
                "kind": "municipal_property_tax",
                "constituted_on": "2021-01-01",
                "amount": "4000.00",
            },
        ],
        "sale_proceeds": "62500.00",
    },
    # 9% × 200.00 × 3 nights = 54.00, remitted by the 10th of the next month (2026-04-10).
    "room-tax": {
        "lodging_type": "hotel",
        "date": "2026-03-02",
        "nightly_rate": "200.00",
        "nights": 3,
    },
    # July: 1/10 × 1,000,000.00 = 100,000.00 to the Authority; of 900,000.00: 2% = 18,000.00,
    # 5% = 45,000.00, 9% = 81,000.00; remainder 900,000 − 100,000 − 144,000 = 656,000.00.
    # August: 50,000.00 covers half its 100,000.00 transfer; 50,000.00 carried.
    "room-tax-distribution": {
        "fiscal_year": "2024-25",
        "bank_certified_amount": "1000000.00",
        "months": [
            {"month": "2024-07", "collected": "900000.00"},
            {"month": "2024-08", "collected": "50000.00"},
        ],
    },
    # Cigarettes 5,000,000.00: HTA 2,500,000.00 (monthly cap), MBA 800,000.00, PRITA
    # 1,700,000.00 of its 3,000,000.00, nothing left for the General Fund.
    "excise-allocation": {
        "fiscal_year": "2024-25",
        "months": [
            {
                "month": "2024-07",
                "gasoline_tax": "10000000.00",
                "diesel_gallons": "5000000",
                "crude_oil_excise": "1000000.00",
                "reimbursements": "250000.00",
                "cigarette_tax": "5000000.00",
            }
        ],
    },
    # San Juan: allocation 30,000 ≥ 50% of income 50,000 → protected; its base 25,000.00
    # needs a 5,000.00 top-up, taken from Ponce and Mayagüez inversely to allocation/income.
    "equalization": {
        "fiscal_year": "2024-25",
        "lottery_net_income": "100000000.00",
        "gf_net_revenues": "1000000.00",
        "municipalities": [
            {
                "name": "San Juan",
                "base": "25000.00",
                "allocation_2007_08": "30000.00",
                "income_2007_08": "50000.00",
            },
            {
                "name": "Ponce",
                "base": "10000.00",
                "allocation_2007_08": "1000.00",
                "income_2007_08": "100000.00",
            },
            {
                "name": "Mayagüez",
                "base": "5000.00",
                "allocation_2007_08": "2000.00",
                "income_2007_08": "100000.00",
            },
        ],
    },
    # A: 0.0125 × 412,000.00 + 1.50 × 120 = 5,330.00; B: 0.01 × 80,000.00 + 1.50 × 4 = 806.00.
    "impost": {
        "formula": 'if(kind = "hotel", 0.0125, 0.01) * assessed_value + fee * rooms',
        "properties": [
            {"id": "A", "kind": "hotel", "assessed_value": "412000.00", "rooms": "120"},
            {"id": "B", "kind": "inn", "assessed_value": "80000.00", "rooms": "4"},
        ],
        "parameters": {"fee": "1.50"},
    },
}

# The same inputs typed into the web forms (field names of tid/web/calc.py).
FORM_DATA: dict[str, dict[str, str]] = {
    "deadlines": {
        "petition_received": "2026-03-02",
        "mayor_approved": "2026-03-05",
        "skip_saturday": "true",
    },
    "liens": {
        "liens-0-id": "M1",
        "liens-0-kind": "mortgage",
        "liens-0-constituted_on": "2015-06-01",
        "liens-0-amount": "100000.00",
        "liens-1-id": "T1",
        "liens-1-kind": "tid_impost",
        "liens-1-constituted_on": "2020-01-01",
        "liens-1-amount": "2500.00",
        "liens-1-unsecured_charges": "300.00",
        # a blank row between two filled ones is skipped
        "liens-3-id": "P1",
        "liens-3-kind": "municipal_property_tax",
        "liens-3-constituted_on": "2021-01-01",
        "liens-3-amount": "4000.00",
        "sale_proceeds": "62500.00",
    },
    "room-tax": {
        "lodging_type": "hotel",
        "date": "2026-03-02",
        "nightly_rate": "200.00",
        "nights": "3",
    },
    "room-tax-distribution": {
        "fiscal_year": "2024-25",
        "bank_certified_amount": "1000000.00",
        "months-0-month": "2024-07",
        "months-0-collected": "900000.00",
        "months-1-month": "2024-08",
        "months-1-collected": "50000.00",
    },
    "excise-allocation": {
        "fiscal_year": "2024-25",
        "months-0-month": "2024-07",
        "months-0-gasoline_tax": "10000000.00",
        "months-0-diesel_gallons": "5000000",
        "months-0-crude_oil_excise": "1000000.00",
        "months-0-reimbursements": "250000.00",
        "months-0-cigarette_tax": "5000000.00",
    },
    "equalization": {
        "fiscal_year": "2024-25",
        "lottery_net_income": "100000000.00",
        "gf_net_revenues": "1000000.00",
        "municipalities-0-name": "San Juan",
        "municipalities-0-base": "25000.00",
        "municipalities-0-allocation_2007_08": "30000.00",
        "municipalities-0-income_2007_08": "50000.00",
        "municipalities-1-name": "Ponce",
        "municipalities-1-base": "10000.00",
        "municipalities-1-allocation_2007_08": "1000.00",
        "municipalities-1-income_2007_08": "100000.00",
        "municipalities-2-name": "Mayagüez",
        "municipalities-2-base": "5000.00",
        "municipalities-2-allocation_2007_08": "2000.00",
        "municipalities-2-income_2007_08": "100000.00",
    },
    "impost": {
        "formula": 'if(kind = "hotel", 0.0125, 0.01) * assessed_value + fee * rooms',
        "properties_paste": (
            "id,kind,assessed_value,rooms\nA,hotel,412000.00,120\nB,inn,80000.00,4\n"
        ),
        "parameters-0-name": "fee",
        "parameters-0-value": "1.50",
    },
}

# For each calculator, a document with one bad field and the path the error must name.
INVALID: dict[str, tuple[dict[str, Any], str]] = {
    "deadlines": ({"petition_received": "2026-02-30"}, "petition_received"),
    "liens": (
        {"liens": [{"id": "x", "kind": "lease", "constituted_on": "2020-01-01", "amount": "1"}]},
        "liens[0].kind",
    ),
    "room-tax": (
        {"lodging_type": "hotel", "date": "2026-03-02", "nightly_rate": "12abc", "nights": 3},
        "nightly_rate",
    ),
    "room-tax-distribution": (
        {
            "fiscal_year": "2024-25",
            "bank_certified_amount": "1000000.00",
            "months": [{"month": "2023-07", "collected": "1.00"}],
        },
        "months[0].month",
    ),
    "excise-allocation": (
        {
            "fiscal_year": "2024-25",
            "months": [
                {
                    "month": "2024-07",
                    "gasoline_tax": "-1.00",
                    "diesel_gallons": "0",
                    "crude_oil_excise": "0",
                    "reimbursements": "0",
                    "cigarette_tax": "0",
                }
            ],
        },
        "months[0].gasoline_tax",
    ),
    "equalization": (
        {"fiscal_year": "2024-25", "lottery_net_income": "1.001", "gf_net_revenues": "1.00"},
        "lottery_net_income",
    ),
    "impost": ({"formula": "x +", "properties": [{"id": "A", "x": "1"}]}, "formula"),
}

# For each calculator, a document with an amount written as a JSON number (refused).
NUMBER_AMOUNT: dict[str, tuple[dict[str, Any], str]] = {
    "liens": (
        {"liens": [{"id": "x", "kind": "mortgage", "constituted_on": "2020-01-01", "amount": 5.5}]},
        "liens[0].amount",
    ),
    "room-tax": (
        {"lodging_type": "hotel", "date": "2026-03-02", "nightly_rate": 200.5, "nights": 3},
        "nightly_rate",
    ),
    "room-tax-distribution": (
        {
            "fiscal_year": "2024-25",
            "bank_certified_amount": "1000000.00",
            "months": [{"month": "2024-07", "collected": 900000.25}],
        },
        "months[0].collected",
    ),
    "excise-allocation": (
        {
            "fiscal_year": "2024-25",
            "months": [
                {
                    "month": "2024-07",
                    "gasoline_tax": 10.5,
                    "diesel_gallons": "0",
                    "crude_oil_excise": "0",
                    "reimbursements": "0",
                    "cigarette_tax": "0",
                }
            ],
        },
        "months[0].gasoline_tax",
    ),
    "equalization": (
        {"fiscal_year": "2024-25", "lottery_net_income": 100.25, "gf_net_revenues": "1.00"},
        "lottery_net_income",
    ),
    "impost": ({"formula": "x", "properties": [{"id": "A", "x": 1.5}]}, "properties[0].x"),
}
