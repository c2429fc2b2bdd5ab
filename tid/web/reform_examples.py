"""Reforms to start from, shown on the reforms page and brought into the editor where
anyone tries a reform (tid/web/reform_try.py): each its changes, the calculator it is tried on
and an input for it."""

from __future__ import annotations

import json
from typing import Any

from flask_babel import gettext as _

from tid.rules import calculators
from tid.rules.calculators.inputs import N_

_TWELVE_MONTHS = [
    {"month": f"{2025 if m >= 7 else 2026}-{m:02d}", "collected": "900000.00"}
    for m in (7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6)
]


def _tried_on(area: str) -> str:
    """The calculator that reads the parameters of ``tid/rules/params/<area>.toml``."""
    return calculators.reading(area)[0]


# Reforms to start from: each its changes, the calculator it is tried on and an input.
EXAMPLES: dict[str, dict[str, Any]] = {
    "general-fund-share": {
        "title": N_("A lower General Fund share of the room tax"),
        "description": N_(
            "The Treasury General Fund's share of each month's room tax down from five to "
            "three percent; the rest goes on to the Tourism Company."
        ),
        "changes": [
            {
                "parameter": "distribution.act272.general_fund_share",
                "from": "2025-07-01",
                "value": "0.03",
            }
        ],
        "calculator": _tried_on("distribution"),
        "document": {
            "fiscal_year": "2025-26",
            "bank_certified_amount": "1000000.00",
            "months": _TWELVE_MONTHS,
        },
    },
    "prita-cap": {
        "title": N_("A higher cap for the Integrated Transportation Authority"),
        "description": N_(
            "The Integrated Transportation Authority's caps of the cigarette tax up: "
            "$45,000,000.00 a year instead of $36,000,000.00, $3,750,000.00 a month instead of "
            "$3,000,000.00."
        ),
        "changes": [
            {
                "parameter": "excise.cigarette.prita.annual_cap",
                "from": "2025-07-01",
                "value": "45000000.00",
            },
            {
                "parameter": "excise.cigarette.prita.monthly_cap",
                "from": "2025-07-01",
                "value": "3750000.00",
            },
        ],
        "calculator": _tried_on("excise"),
        "document": {
            "fiscal_year": "2025-26",
            "months": [
                {
                    "month": "2025-07",
                    "gasoline_tax": "10000000.00",
                    "diesel_gallons": "5000000",
                    "crude_oil_excise": "1000000.00",
                    "reimbursements": "250000.00",
                    "cigarette_tax": "9000000.00",
                }
            ],
        },
    },
}


def example_values(key: str) -> dict[str, str]:
    """The editor's fields filled with an example (nothing when ``key`` names none)."""
    example = EXAMPLES.get(key)
    if example is None:
        return {}
    values = {
        "title": _(example["title"]),
        "description": _(example["description"]),
        "calculator": example["calculator"],
        "document_json": json.dumps(example["document"], ensure_ascii=False, indent=1),
    }
    for i, change in enumerate(example["changes"]):
        values[f"change-{i}-parameter"] = change["parameter"]
        values[f"change-{i}-from"] = change["from"]
        values[f"change-{i}-value"] = change["value"]
    return values
