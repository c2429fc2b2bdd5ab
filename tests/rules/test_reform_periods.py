"""Which value a period uses under a reform (the project's reading ``reform-periods``): a
calculator that works month by month reads each month's values on its first day, one that
works by fiscal year reads the year's on its first day; a change dated inside a period that
does not use it is named in the result's warnings, in both languages."""

from __future__ import annotations

from typing import Any

import pytest

from tests.calc_documents import DOCUMENTS
from tid.rules import readings
from tid.rules.errors import InputError
from tid.rules.reform import parse_reform
from tid.rules.reform_compare import run_request

GF = "distribution.act272.general_fund_share"
ADMIN = "distribution.act272.tourism_company_admin_share"
PRITA = "excise.cigarette.prita.monthly_cap"


def _reform(*changes: tuple[str, str, object]) -> dict[str, Any]:
    return {
        "title": "A reform",
        "changes": [{"parameter": p, "from": d, "value": v} for p, d, v in changes],
    }


# Three months of 1,000,000.00 and no Bank transfers: 5 % is 50,000.00 and 2 % is 20,000.00.
ACT272 = {
    "fiscal_year": "2024-25",
    "bank_certified_amount": "0.00",
    "months": [{"month": m, "collected": "1000000.00"} for m in ("2024-07", "2024-08", "2024-09")],
}


def _paid(out: dict[str, Any], side: str, key: str) -> dict[str, str]:
    return {m["month"]: m["allocations"][key] for m in out[side]["months"]}


def _sources(out: dict[str, Any], month: str) -> set[str]:
    return {
        s["source"]
        for s in out["under_reform"]["trace"]
        if s["step"].startswith(f"{month}: ") and s.get("parameter") in (GF, ADMIN)
    }


def _noted(out: dict[str, Any]) -> list[str]:
    return [w for w in out["under_reform"]["warnings"] if "is not used in" in w]


def test_a_change_from_a_months_first_day_applies_from_that_month() -> None:
    body = {**ACT272, "reform": _reform((GF, "2024-08-01", "0.04"), (ADMIN, "2024-08-01", "0.03"))}
    out = run_request("room-tax-distribution", body)
    assert _paid(out, "under_law", "general_fund") == dict.fromkeys(
        ("2024-07", "2024-08", "2024-09"), "50000.00"
    )
    assert _paid(out, "under_reform", "general_fund") == {
        "2024-07": "50000.00",
        "2024-08": "40000.00",
        "2024-09": "40000.00",
    }
    assert _paid(out, "under_reform", "tourism_company_admin") == {
        "2024-07": "20000.00",
        "2024-08": "30000.00",
        "2024-09": "30000.00",
    }
    # The trace names the reform for the months it applies, the law for the others.
    assert _sources(out, "2024-07") == {"law"}
    assert _sources(out, "2024-08") == {"reform"}
    line = next(d for d in out["differences"] if d["field"] == "months[1].allocations.general_fund")
    assert (line["law"], line["reform"], line["difference"]) == (
        "50000.00",
        "40000.00",
        "-10000.00",
    )
    assert not _noted(out)


def test_a_change_dated_inside_a_month_applies_from_the_next_and_is_named() -> None:
    body = {**ACT272, "reform": _reform((GF, "2024-08-15", "0.04"))}
    out = run_request("room-tax-distribution", body)
    assert _paid(out, "under_reform", "general_fund") == {
        "2024-07": "50000.00",
        "2024-08": "50000.00",
        "2024-09": "40000.00",
    }
    [note] = _noted(out)
    assert GF in note and "2024-08-15" in note and "2024-08" in note and "2024-09-01" in note
    assert readings.reading("reform-periods").title in note
    spanish = out["under_reform"]["warnings_es"][out["under_reform"]["warnings"].index(note)]
    assert "no se usa en" in spanish and "2024-08-15" in spanish
    assert not [w for w in out["under_law"]["warnings"] if "is not used in" in w]


def test_a_change_inside_a_month_not_given_is_not_named() -> None:
    body = {**ACT272, "reform": _reform((GF, "2024-11-15", "0.04"))}
    out = run_request("room-tax-distribution", body)
    assert not _noted(out)
    assert not any(d["changed"] for d in out["differences"])


def test_the_bank_transfers_are_the_years_and_a_change_inside_it_is_named() -> None:
    document = {**ACT272, "bank_certified_amount": "1000000.00"}
    body = {
        **document,
        "reform": _reform(("distribution.act272.bank_installment_count", "2024-08-01", 5)),
    }
    out = run_request("room-tax-distribution", body)
    assert out["under_reform"]["bank_transfers"] == out["under_law"]["bank_transfers"]
    [note] = _noted(out)
    assert "bank_installment_count" in note and "FY2024-25" in note and "2025-07-01" in note


def test_a_lowered_prita_cap_applies_from_its_month() -> None:
    month = {
        "gasoline_tax": "0.00",
        "diesel_gallons": "0",
        "crude_oil_excise": "0.00",
        "reimbursements": "0.00",
        "cigarette_tax": "100000000.00",
    }
    document = {
        "fiscal_year": "2024-25",
        "months": [{"month": m, **month} for m in ("2024-12", "2025-01", "2025-02")],
    }
    out = run_request(
        "excise-allocation", {**document, "reform": _reform((PRITA, "2025-01-01", "1000000.00"))}
    )
    assert _paid(out, "under_law", "prita") == {
        "2024-12": "18000000.00",
        "2025-01": "3000000.00",
        "2025-02": "3000000.00",
    }
    assert _paid(out, "under_reform", "prita") == {
        "2024-12": "18000000.00",
        "2025-01": "1000000.00",
        "2025-02": "1000000.00",
    }
    sources = {
        s["step"].split(":")[0]: s["source"]
        for s in out["under_reform"]["trace"]
        if s["step"].endswith(": Integrated Transportation Authority")
    }
    assert sources == {"2024-12": "law", "2025-01": "reform", "2025-02": "reform"}
    later = run_request(
        "excise-allocation", {**document, "reform": _reform((PRITA, "2025-01-10", "1000000.00"))}
    )
    assert _paid(later, "under_reform", "prita")["2025-01"] == "3000000.00"
    [note] = _noted(later)
    assert PRITA in note and "2025-01-10" in note


def test_a_yearly_calculator_names_a_change_inside_its_year() -> None:
    body = {
        **DOCUMENTS["equalization"],
        "reform": _reform(("equalization.lottery_share_rate", "2024-10-01", "0.40")),
    }
    out = run_request("equalization", body)
    assert out["under_reform"]["lottery_share"] == out["under_law"]["lottery_share"]
    [note] = _noted(out)
    assert "lottery_share_rate" in note and "2024-10-01" in note and "FY2024-25" in note
    spanish = out["under_reform"]["warnings_es"][out["under_reform"]["warnings"].index(note)]
    assert "AF2024-25" in spanish


def test_a_share_group_names_the_changes_value_and_what_is_allowed() -> None:
    with pytest.raises(InputError) as caught:
        parse_reform(_reform((GF, "2024-07-01", "0.95")))
    assert caught.value.field == "reform.changes[0].value"
    assert "general_fund_share may be from 0 to 0.89" in str(caught.value)
    with pytest.raises(InputError) as caught:
        parse_reform(
            _reform(
                (ADMIN, "2024-07-01", "0.02"),
                ("distribution.irc1994.pool_general_fund_share", "2000-07-01", "0.40"),
            )
        )
    assert caught.value.field == "reform.changes[1].value"
    assert "may be 0.3" in str(caught.value)
