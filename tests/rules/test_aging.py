"""The ages of a receivable: every day past due falls in exactly one bucket, the one whose
start it has reached last, and the buckets follow each other in days."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tid.rules.aging import AGING_BUCKETS, bucket_index, days_bucket


def test_the_buckets_start_at_zero_and_follow_each_other() -> None:
    starts = [start for start, _label in AGING_BUCKETS]
    assert starts[0] == 0
    assert starts == sorted(set(starts))


@given(st.integers(min_value=0, max_value=10_000))
def test_a_day_falls_in_the_last_bucket_it_has_reached(days: int) -> None:
    i = bucket_index(days)
    start, label = AGING_BUCKETS[i]
    assert start <= days
    if i + 1 < len(AGING_BUCKETS):
        assert days < AGING_BUCKETS[i + 1][0]
    assert days_bucket(days) == label


def test_the_edges_of_the_buckets() -> None:
    assert days_bucket(0) == "not yet due"
    assert days_bucket(1) == "1–30"
    assert days_bucket(30) == "1–30"
    assert days_bucket(31) == "31–90"
    assert days_bucket(365) == "181–365"
    assert days_bucket(366) == "over 365"
