"""The room-tax distribution's tests: the calculator's documents of either regime, and
the amounts the properties draw."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from tid.rules.distribution import distribution_document

ZERO7 = {
    "general_fund": "0.00",
    "special_account_i": "0.00",
    "special_account_ii": "0.00",
    "convention_center_account": "0.00",
    "bond_redemption_fund": "0.00",
    "recreational_development_fund": "0.00",
    "unnamed_one_sixth": "0.00",
}


def irc(fy: str, bond: str, **collections: str) -> dict[str, Any]:
    return distribution_document(
        {"fiscal_year": fy, "collections": collections, "bond_fund_amount": bond}
    )


def act(fy: str, certified: str, months: list[tuple[str, str]], **extra: str) -> dict[str, Any]:
    return distribution_document(
        {
            "fiscal_year": fy,
            "months": [{"month": m, "collected": c} for m, c in months],
            "bank_certified_amount": certified,
            **extra,
        }
    )


def alloc(out: dict[str, Any], i: int) -> list[str]:
    return list(out["months"][i]["allocations"].values())


cents = st.integers(min_value=0, max_value=10**11)


def dollars(c: int) -> str:
    return str(Decimal(c) / 100)


def fy_label(fy: int) -> str:
    return f"{fy}-{(fy + 1) % 100:02d}"


def month_of(fy: int, m: int) -> str:
    return f"{fy + (m > 6)}-{(m + 5) % 12 + 1:02d}"


def to_cents_str(value: str) -> int:
    return int(Decimal(value) * 100)
