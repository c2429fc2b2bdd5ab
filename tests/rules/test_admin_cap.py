"""The 5% cap on administrative expenditures — 21 LPRA § 6653(6),
/readings#admin-cap-per-fiscal-year."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.rules.admin_cap import admin_cap_rate, check_admin_expenditure, measure
from tid.rules.errors import InputError

D = Decimal


def test_worked_example_cap_with_fractions_of_a_cent() -> None:
    # cap = 5% × 1,234.57 = 61.7285; headroom = 61.7285 − 50.00 = 11.7285;
    # the most that fits in whole cents is 11.72.
    fits = check_admin_expenditure(
        revenue_to_date=D("1234.57"), admin_to_date=D("50.00"), proposed=D("11.72")
    )
    assert fits.allowed  # 50.00 + 11.72 = 61.72 <= 61.7285
    assert fits.cap == D("61.7285")
    assert fits.headroom == D("11.7285")
    assert fits.max_allowed == D("11.72")
    refused = check_admin_expenditure(
        revenue_to_date=D("1234.57"), admin_to_date=D("50.00"), proposed=D("11.73")
    )
    assert not refused.allowed  # 50.00 + 11.73 = 61.73 > 61.7285
    assert refused.message.startswith(
        "Refused: $11.73 would bring administrative spending to $61.73"
    )
    assert "$1,234.57" in refused.message and "$61.7285" in refused.message
    assert "headroom $11.7285" in refused.message and "at most $11.72" in refused.message
    assert refused.warnings and "per fiscal year" in refused.warnings[0]
    assert [t.step for t in refused.trace][-1] == "decision"


def test_exactly_at_the_cap_is_allowed() -> None:
    # cap = 5% × 1,000.00 = 50.00; 40.00 + 10.00 = 50.00 <= 50.00; 40.00 + 10.01 > 50.00.
    at = check_admin_expenditure(
        revenue_to_date=D("1000.00"), admin_to_date=D("40.00"), proposed=D("10.00")
    )
    assert at.allowed and at.headroom == D("10.00")
    over = check_admin_expenditure(
        revenue_to_date=D("1000.00"), admin_to_date=D("40.00"), proposed=D("10.01")
    )
    assert not over.allowed


def test_already_over_the_cap() -> None:
    # cap = 5% × 100.00 = 5.00; spent 6.00: headroom −1.00, nothing more fits.
    d = check_admin_expenditure(
        revenue_to_date=D("100.00"), admin_to_date=D("6.00"), proposed=D("0.01")
    )
    assert not d.allowed
    assert d.headroom == D("-1.00")
    assert d.max_allowed == D("0.00")


def test_no_revenue_yet() -> None:
    # cap = 5% × 0 = 0: a zero expenditure fits, one cent does not.
    assert check_admin_expenditure(revenue_to_date=D(0), admin_to_date=D(0), proposed=D(0)).allowed
    assert not check_admin_expenditure(
        revenue_to_date=D(0), admin_to_date=D(0), proposed=D("0.01")
    ).allowed


def test_rate_is_a_dated_setting_and_can_be_given() -> None:
    rate, citation = admin_cap_rate(date(2026, 3, 2))
    assert rate == D("0.05") and "6653(6)" in citation
    # cap = 10% × 1,000.00 = 100.00
    d = check_admin_expenditure(
        revenue_to_date=D("1000.00"),
        admin_to_date=D("0"),
        proposed=D("100.00"),
        cap_rate=D("0.10"),
    )
    assert d.allowed and d.cap == D("100.00")
    dated = check_admin_expenditure(
        revenue_to_date=D("1000.00"),
        admin_to_date=D("0"),
        proposed=D("1.00"),
        on=date(2026, 3, 2),
    )
    assert "FY2025-26" in dated.message
    with pytest.raises(InputError):
        admin_cap_rate(date(1990, 1, 1))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"revenue_to_date": D("-1")}, "revenue_to_date"),
        ({"admin_to_date": D("-0.01")}, "admin_to_date"),
        ({"proposed": D("-5")}, "proposed"),
        ({"proposed": D("NaN")}, "proposed"),
        ({"cap_rate": D("1.5")}, "cap_rate"),
    ],
)
def test_bad_figures_name_the_field(kwargs: dict[str, Decimal], field: str) -> None:
    base = {"revenue_to_date": D("1"), "admin_to_date": D("0"), "proposed": D("0")}
    with pytest.raises(InputError) as err:
        check_admin_expenditure(**{**base, **kwargs})  # type: ignore[arg-type]
    assert err.value.field == field


cents = st.integers(min_value=0, max_value=10**10).map(lambda c: D(c) / 100)


@settings(max_examples=examples(300), deadline=None)
@given(revenue=cents, admin=cents, proposed=cents)
def test_decision_is_exact(revenue: Decimal, admin: Decimal, proposed: Decimal) -> None:
    d = check_admin_expenditure(revenue_to_date=revenue, admin_to_date=admin, proposed=proposed)
    assert d.allowed == (admin + proposed <= D("0.05") * revenue)
    assert d.cap == D("0.05") * revenue and d.headroom == d.cap - admin
    # max_allowed is the largest whole-cent expenditure that fits.
    assert d.max_allowed >= 0
    if d.headroom >= 0:
        assert check_admin_expenditure(
            revenue_to_date=revenue, admin_to_date=admin, proposed=d.max_allowed
        ).allowed
        assert not check_admin_expenditure(
            revenue_to_date=revenue, admin_to_date=admin, proposed=d.max_allowed + D("0.01")
        ).allowed


# --------------------------------------------------------------------------- the arithmetic


def test_measure_keeps_the_cap_exact_and_cuts_what_may_be_spent_to_the_cent() -> None:
    m = measure(rate=D("0.25"), revenue=D("1234.57"), admin=D("300.00"))
    assert m.cap == D("308.6425") and m.cap_cents == D("308.64")
    assert m.headroom == D("8.6425") and m.max_allowed == D("8.64")
    assert m.ratio == D("300.00") / D("1234.57") and m.ratio_percent == D("24.30")


def test_measure_of_a_year_with_refunds_or_without_revenue() -> None:
    # A refund of an earlier year's spending makes the FY's spending negative: no more room.
    refunded = measure(rate=D("0.25"), revenue=D("100.00"), admin=D("-40.00"))
    assert refunded.headroom == D("25.0000") and refunded.max_allowed == D("25.00")
    assert refunded.ratio == D("-0.4")
    nothing = measure(rate=D("0.25"), revenue=D("0.00"), admin=D("10.00"))
    assert nothing.cap == 0 and nothing.max_allowed == 0 and nothing.headroom == D("-10.00")
    assert nothing.ratio is None and nothing.ratio_percent is None


@settings(max_examples=examples(300), deadline=None)
@given(revenue=cents, admin=cents)
def test_the_decision_reads_the_one_measure(revenue: Decimal, admin: Decimal) -> None:
    rate, _citation = admin_cap_rate()
    m = measure(rate=rate, revenue=revenue, admin=admin)
    d = check_admin_expenditure(revenue_to_date=revenue, admin_to_date=admin, proposed=D(0))
    assert (d.cap, d.headroom, d.max_allowed) == (m.cap, m.headroom, m.max_allowed)
    assert m.max_allowed <= max(m.headroom, D(0)) < m.max_allowed + D("0.01")
