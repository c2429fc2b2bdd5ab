"""The one waterfall engine: worked examples by hand, then properties over random waterfalls."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear
from tid.rules.waterfall import (
    Recipient,
    check_recipients,
    installment_schedule,
    missing_months_warning,
    parse_months,
    reachable_annual_max,
    run_waterfall,
    split_exact,
)

M = 100  # cents in a dollar
REST = Recipient("rest", "Rest", "c", remainder=True)


def test_fixed_monthly_caps_with_shortfall_made_up_later() -> None:
    # A gets $2.5M a month up to $20M a year, B $0.8M a month up to $10M a year.
    a = Recipient(
        "a", "A", "c", monthly_cap=2_500_000 * M, annual_cap=20_000_000 * M, carry_forward=True
    )
    b = Recipient(
        "b", "B", "c", monthly_cap=800_000 * M, annual_cap=10_000_000 * M, carry_forward=True
    )
    run = run_waterfall([a, b, REST], [(1, 1_000_000 * M), (2, 12_000_000 * M)], fiscal_year=2020)
    july, august = run.periods
    # July: A owed 2.5M, only 1M there -> A 1M, shortfall 1.5M; B owed 0.8M, gets 0.
    assert july.paid == (1_000_000 * M, 0, 0)
    assert july.carried == (1_500_000 * M, 800_000 * M, 0)
    # August: A owed min(20M, 2×2.5M) − 1M = 4M; B owed 2×0.8M = 1.6M; rest 12 − 4 − 1.6 = 6.4M.
    assert august.owed[:2] == (4_000_000 * M, 1_600_000 * M)
    assert august.paid == (4_000_000 * M, 1_600_000 * M, 6_400_000 * M)
    assert run.outstanding == (0, 0, 0)
    assert run.totals == (5_000_000 * M, 1_600_000 * M, 6_400_000 * M)


def test_annual_cap_stops_a_fixed_recipient() -> None:
    # $3 a month up to $10 a year: after 4 months entitled min(10, 12) = 10.
    a = Recipient("a", "A", "c", monthly_cap=3 * M, annual_cap=10 * M, carry_forward=True)
    run = run_waterfall([a, REST], [(m, 100 * M) for m in range(1, 6)], fiscal_year=2020)
    assert [p.paid[0] for p in run.periods] == [3 * M, 3 * M, 3 * M, 1 * M, 0]
    assert reachable_annual_max(a, 2020) == 10 * M


def test_installments_shortfall_carried_and_outstanding_at_year_end() -> None:
    # $10,000 certified in 10 transfers of $1,000 (July–April).
    schedule = installment_schedule(10_000 * M, 10, 1)
    bank = Recipient("bank", "Bank", "c", installments=schedule, carry_forward=True)
    totals = [600, 2_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 100, 200, 300]
    run = run_waterfall(
        [bank, REST], [(m, t * M) for m, t in enumerate(totals, 1)], fiscal_year=2020
    )
    paid = [p.paid[0] // M for p in run.periods]
    # July: owed 1,000, paid 600, carried 400. August: owed 1,000 + 400 = 1,400, paid 1,400.
    assert paid[:2] == [600, 1_400]
    assert run.periods[0].carried[0] == 400 * M
    # April: owed 1,000, only 100 -> 900 carried; May (no installment): pays 200, 700 carried;
    # June: pays 300, 400 carried: outstanding when the FY ends.
    assert paid[9:] == [100, 200, 300]
    assert [p.carried[0] // M for p in run.periods[9:]] == [900, 700, 400]
    assert run.outstanding[0] == 400 * M
    # Nothing left for the rest while the Bank is owed.
    assert all(p.paid[1] == 0 for p in run.periods[9:])


def test_shares_without_carry_and_a_cumulative_floor() -> None:
    # 2 % then 9 % with a floor of $375 a month, cumulative inside the FY
    # (/readings#bureau-floor-to-date).
    two = Recipient("two", "2%", "c", share=Decimal("0.02"))
    nine = Recipient("nine", "9%", "c", share=Decimal("0.09"), floor=375 * M)
    run = run_waterfall(
        [two, nine, REST], [(1, 300 * M), (2, 10_000 * M), (4, 100 * M)], fiscal_year=2020
    )
    july, august, october = run.periods
    # July: 2 % of 300 = 6; owed to date max(9 % of 300 = 27, 375 × 1) = 375; 294 left ->
    # paid 294, carried 375 − 294 = 81; the 2 % carries nothing.
    assert july.paid == (6 * M, 294 * M, 0)
    assert july.carried == (0, 81 * M, 0)
    # August: 2 % of 10,000 = 200; owed to date max(9 % of 10,300 = 927, 375 × 2 = 750) = 927,
    # less 294 paid = 633; the rest 10,000 − 200 − 633 = 9,167.
    assert august.owed[1] == 633 * M
    assert august.paid == (200 * M, 633 * M, 9_167 * M)
    assert august.carried == (0, 0, 0)
    # October (September not given, it still counts): 2 % of 100 = 2; owed to date
    # max(9 % of 10,400 = 936, 375 × 4 = 1,500) = 1,500, less 927 paid = 573; 98 left.
    assert october.owed[1] == 573 * M
    assert october.paid == (2 * M, 98 * M, 0)
    assert october.carried[1] == 475 * M


def test_a_floor_counted_from_a_later_first_month() -> None:
    nine = Recipient("nine", "9%", "c", share=Decimal("0.09"), floor=375 * M, first_month=4)
    run = run_waterfall([nine, REST], [(4, 1_000 * M), (5, 1_000 * M)], fiscal_year=2003)
    # October is the first month counted: max(90, 375 × 1) = 375; November: max(180, 750) =
    # 750, less 375 paid = 375.
    assert [p.paid[0] for p in run.periods] == [375 * M, 375 * M]


def test_share_rounding_is_half_up_in_cents() -> None:
    # 2 % of $0.25 = 0.5 cent -> 1 cent (half-up); 2 % of $0.24 = 0.48 cent -> 0.
    two = Recipient("two", "2%", "c", share=Decimal("0.02"))
    run = run_waterfall([two, REST], [(1, 25), (2, 24)], fiscal_year=2020)
    assert [p.paid[0] for p in run.periods] == [1, 0]


def test_recipient_not_yet_started_receives_nothing() -> None:
    late = Recipient("late", "Late", "c", monthly_cap=5 * M, start_fiscal_year=2015)
    early = run_waterfall([late, REST], [(1, 100 * M)], fiscal_year=2014)
    assert early.periods[0].paid == (0, 100 * M)
    assert reachable_annual_max(late, 2014) == 0
    later = run_waterfall([late, REST], [(1, 100 * M)], fiscal_year=2015)
    assert later.periods[0].paid == (5 * M, 95 * M)


def test_months_not_given_still_accrue_fixed_amounts() -> None:
    a = Recipient("a", "A", "c", monthly_cap=10 * M, annual_cap=1_000 * M, carry_forward=True)
    run = run_waterfall([a, REST], [(3, 100 * M)], fiscal_year=2020)
    # Fiscal month 3: entitled to date 3 × 10 = 30.
    assert run.periods[0].paid == (30 * M, 70 * M)
    assert missing_months_warning(FiscalYear(2020), [3]) is not None
    assert "2020-07, 2020-08" in (missing_months_warning(FiscalYear(2020), [3]) or "")
    assert missing_months_warning(FiscalYear(2020), [1, 2]) is None


def test_installment_schedule_and_exact_split() -> None:
    # $100.00 in 3: 3,333.33… cents -> 3,334 + 3,333 + 3,333 (the extra cent to the earliest).
    s = installment_schedule(10_000, 3, 4)
    assert s[3:6] == (3_334, 3_333, 3_333) and sum(s) == 10_000 and s[:3] == (0, 0, 0)
    # 1/3, 1/3, 1/3 of 100 cents: 33 each, the leftover cent to the first (tie).
    assert split_exact(100, [Fraction(100, 3)] * 3) == [34, 33, 33]
    # A whole-cent share is never raised: 50, 25.5, 24.5 -> 50, 26, 24 (tie to the earlier).
    assert split_exact(100, [Fraction(50), Fraction(51, 2), Fraction(49, 2)]) == [50, 26, 24]
    with pytest.raises(ValueError, match="add up"):
        split_exact(100, [Fraction(1)])
    with pytest.raises(ValueError, match="inside the fiscal year"):
        installment_schedule(100, 10, 4)


@pytest.mark.parametrize(
    ("recipients", "message"),
    [
        ([Recipient("a", "A", "c", share=Decimal("0.1"))], "remainder"),
        ([REST, REST], "unique"),
        ([Recipient("a", "A", "c"), REST], "share, installments or a monthly cap"),
        (
            [Recipient("a", "A", "c", monthly_cap=1, floor=1, carry_forward=True), REST],
            "floor",
        ),
        ([Recipient("a", "A", "c", installments=(1, 2)), REST], "12 fiscal months"),
        ([Recipient("r", "R", "c", remainder=True, monthly_cap=5)], "nothing else"),
    ],
)
def test_malformed_waterfalls_are_refused(recipients: list[Recipient], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_recipients(recipients)


def test_parse_months_is_strict() -> None:
    fy = FiscalYear(2020)
    ok = parse_months(
        [{"month": "2020-07", "x": "1.00"}, {"month": "2021-06", "x": "2"}], fy, ["x"]
    )
    assert [(m, label) for m, label, _ in ok] == [(1, "2020-07"), (12, "2021-06")]
    cases = [
        ([{"month": "2020-06", "x": "1"}], "months[0].month", "not in fiscal year 2020-21"),
        (
            [{"month": "2020-07", "x": "1"}, {"month": "2020-07", "x": "1"}],
            "months[1].month",
            "twice",
        ),
        (
            [{"month": "2020-08", "x": "1"}, {"month": "2020-07", "x": "1"}],
            "months[1].month",
            "in order",
        ),
        ([{"month": "2020-07", "x": 1.5}], "months[0].x", "not as a number"),
        ([{"month": "2020-07", "x": "-1"}], "months[0].x", "negative"),
        ([{"month": "2020-07", "x": "1", "y": "2"}], "months[0].y", "unknown field"),
        ([{"month": "2020-07"}], "months[0].x", "Required: "),
        ([], "months", "at least one"),
    ]
    for value, field, message in cases:
        with pytest.raises(InputError, match=message) as info:
            parse_months(value, fy, ["x"])
        assert info.value.field == field


# ---------------------------------------------------------------------------------------------
# Properties over random waterfalls

money = st.integers(min_value=0, max_value=5_000_000)


@st.composite
def recipients(draw: st.DrawFn) -> list[Recipient]:
    out: list[Recipient] = []
    for i in range(draw(st.integers(min_value=0, max_value=4))):
        kind = draw(st.sampled_from(["share", "installments", "fixed"]))
        share = installments = monthly_cap = None
        if kind == "share":
            share = Decimal(draw(st.integers(min_value=0, max_value=40))) / 100
        elif kind == "installments":
            amount = draw(money)
            count = draw(st.integers(min_value=1, max_value=12))
            first = draw(st.integers(min_value=1, max_value=13 - count))
            installments = installment_schedule(amount, count, first)
        else:
            monthly_cap = draw(st.integers(min_value=0, max_value=1_000_000))
        if kind != "fixed" and draw(st.booleans()):
            monthly_cap = draw(st.integers(min_value=0, max_value=1_000_000))
        annual_cap = draw(st.none() | st.integers(min_value=0, max_value=8_000_000))
        floor = None
        if kind == "share" and monthly_cap is None and annual_cap is None:
            floor = draw(st.none() | st.integers(min_value=0, max_value=500_000))
        carry = floor is None and draw(st.booleans())
        first_month = draw(st.integers(min_value=1, max_value=12))
        start = draw(st.none() | st.integers(min_value=2018, max_value=2022))
        out.append(
            Recipient(
                f"r{i}",
                f"R{i}",
                "c",
                share=share,
                installments=installments,
                monthly_cap=monthly_cap,
                annual_cap=annual_cap,
                carry_forward=carry,
                floor=floor,
                start_fiscal_year=start,
                first_month=first_month,
            )
        )
    out.append(REST)
    return out


periods = st.lists(
    st.tuples(st.integers(min_value=1, max_value=12), money), min_size=1, max_size=12
).map(lambda rows: sorted({m: t for m, t in rows}.items()))


@settings(max_examples=examples(300), deadline=None)
@given(recipients(), periods, st.integers(min_value=2018, max_value=2022))
def test_waterfall_properties(rs: list[Recipient], ps: list[tuple[int, int]], fy: int) -> None:
    run = run_waterfall(rs, ps, fiscal_year=fy)
    cumulative = [0] * len(rs)
    counted = [0] * len(rs)  # the total to date, from each recipient's first month
    for (month, total), period in zip(ps, run.periods, strict=True):
        counted = [
            c + (total if month >= r.first_month else 0) for c, r in zip(counted, rs, strict=True)
        ]
        # Pays out exactly its total; nothing negative.
        assert sum(period.paid) == total
        assert all(p >= 0 for p in period.paid)
        assert all(c >= 0 for c in period.carried)
        # A lower priority receives nothing while a higher one is still owed this month.
        short = [i for i, r in enumerate(rs[:-1]) if period.paid[i] < period.owed[i]]
        if short:
            assert all(p == 0 for p in period.paid[short[0] + 1 :])
        for i, r in enumerate(rs):
            cumulative[i] += period.paid[i]
            if not r.active_in(fy):
                assert period.paid[i] == 0
                continue
            if r.remainder:
                continue
            # Never more than owed (no floor: owed ≤ the month's entitlement); caps hold.
            assert period.paid[i] <= period.owed[i]
            if r.annual_cap is not None and r.floor is None:
                assert cumulative[i] <= r.annual_cap
            if r.carry_forward and r.share is None and r.installments is None:
                assert r.monthly_cap is not None
                assert cumulative[i] <= r.monthly_cap * r.elapsed(month)
            if r.carry_forward and r.installments is not None:
                assert cumulative[i] <= sum(r.installments[r.first_month - 1 : month])
            if r.share is not None and month < r.first_month:
                assert period.paid[i] == 0
            if r.floor is not None and r.share is not None:
                # /readings#bureau-floor-to-date: owed to date = max(share of the total to date,
                # floor × months
                # elapsed) — missing months count; paid + carried = owed to date, exactly.
                n, d = r.share.as_integer_ratio()
                share_to_date = (2 * n * counted[i] + d) // (2 * d)
                owed_to_date = max(share_to_date, r.floor * r.elapsed(month))
                assert cumulative[i] + period.carried[i] == owed_to_date
    assert list(run.totals) == cumulative
