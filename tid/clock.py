"""The clock, kept out of the pure core: Puerto Rico's date and UTC timestamps."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

PUERTO_RICO = ZoneInfo("America/Puerto_Rico")


def utcnow() -> datetime:
    """Now, in UTC (timestamps are stored with their time zone)."""
    return datetime.now(UTC)


def today_in_puerto_rico() -> date:
    return datetime.now(PUERTO_RICO).date()


def today(config: Mapping[str, Any] | None = None) -> date:
    """Today in Puerto Rico, or the fixed ``TODAY`` of the configuration (tests, demos): a
    date or ISO text. The one reading of ``TODAY`` for pages, jobs, the command line and
    the demo."""
    fixed = (config or {}).get("TODAY")
    if not fixed:
        return today_in_puerto_rico()
    return fixed if isinstance(fixed, date) else date.fromisoformat(str(fixed))
