"""The clock, kept out of the pure core: Puerto Rico's date and UTC timestamps."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

PUERTO_RICO = ZoneInfo("America/Puerto_Rico")


def utcnow() -> datetime:
    """Now, in UTC (timestamps are stored with their time zone)."""
    return datetime.now(UTC)


def today_in_puerto_rico() -> date:
    return datetime.now(PUERTO_RICO).date()
