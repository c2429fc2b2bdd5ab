"""The ages of a receivable: the buckets a bill falls in by the days it is past due, as the
yearly statement's aging, the delinquency list and the public figures show them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

AGING_BUCKETS = (
    (0, "not yet due"),
    (1, "1–30"),
    (31, "31–90"),
    (91, "91–180"),
    (181, "181–365"),
    (366, "over 365"),
)


def bucket_index(days_past_due: int) -> int:
    """The place in AGING_BUCKETS of a bill this many days past due: the last bucket it
    has reached."""
    return max(i for i, (start, _label) in enumerate(AGING_BUCKETS) if days_past_due >= start)


def days_bucket(days_past_due: int) -> str:
    """The label in AGING_BUCKETS of a bill this many days past due."""
    return AGING_BUCKETS[bucket_index(days_past_due)][1]


@dataclass(frozen=True)
class AgedBill:
    """What the aging shows of a bill."""

    id: int
    fiscal_year: str
    due_date: date
    amount: Decimal
