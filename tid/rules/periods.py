"""Periods of the law: fiscal years, months and dates, parsed strictly.

Fiscal year (FY) = July 1 to June 30; "2024-25" starts 2024-07-01.
Fiscal months are numbered 1 (July) to 12 (June).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from tid.rules.errors import InputError, field_error
from tid.rules.messages import N_, Message, MonthLabel

_FY = re.compile(r"^(?:FY)?(\d{4})-(\d{2}|\d{4})$", re.ASCII)
_MONTH = re.compile(r"^(\d{4})-(\d{2})$", re.ASCII)


@dataclass(frozen=True, order=True)
class FiscalYear:
    """The fiscal year that starts on July 1 of ``start_year``."""

    start_year: int

    @property
    def start(self) -> date:
        return date(self.start_year, 7, 1)

    @property
    def end(self) -> date:
        return date(self.start_year + 1, 6, 30)

    @property
    def label(self) -> str:
        """``"2024-25"``, the form docs/calculators.md uses."""
        return f"{self.start_year}-{(self.start_year + 1) % 100:02d}"

    def __str__(self) -> str:
        return self.label

    def months(self) -> list[tuple[int, int]]:
        """The (year, month) pairs of the FY in order, July first."""
        return [month_of_fiscal(self, m) for m in range(1, 13)]

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


def fiscal_year_of(day: date) -> FiscalYear:
    """The fiscal year a date falls in."""
    return FiscalYear(day.year if day.month >= 7 else day.year - 1)


def fiscal_month(year: int, month: int) -> int:
    """Fiscal month number: July = 1 … June = 12."""
    return (month - 7) % 12 + 1


def month_of_fiscal(fy: FiscalYear, fiscal_month_number: int) -> tuple[int, int]:
    """The calendar (year, month) of fiscal month ``fiscal_month_number`` of ``fy``."""
    month = (fiscal_month_number + 5) % 12 + 1
    year = fy.start_year if month >= 7 else fy.start_year + 1
    return year, month


def fiscal_year_of_month(year: int, month: int) -> FiscalYear:
    return FiscalYear(year if month >= 7 else year - 1)


def parse_fiscal_year(value: object, field: str = "fiscal_year") -> FiscalYear:
    """Parse ``"2024-25"`` (also ``"FY2024-25"`` and ``"2024-2025"``) strictly."""
    if not isinstance(value, str):
        raise field_error(field, Message('write the fiscal year as text, like "2024-25"'))
    match = _FY.match(value.strip())
    if not match:
        raise field_error(
            field, Message('"%(value)s" is not a fiscal year like "2024-25"', value=value)
        )
    start = int(match.group(1))
    end_text = match.group(2)
    end = int(end_text) if len(end_text) == 4 else (start + 1) % 100
    if (len(end_text) == 4 and end != start + 1) or (
        len(end_text) == 2 and int(end_text) != (start + 1) % 100
    ):
        raise field_error(
            field, Message('"%(value)s" does not name consecutive years', value=value)
        )
    if not 1 <= start < date.max.year:  # July 1 of the first year to June 30 of the second
        raise field_error(
            field, Message('"%(value)s" is outside the calendar (0001 to 9999)', value=value)
        )
    return FiscalYear(start)


def parse_month(value: object, field: str = "month") -> tuple[int, int]:
    """Parse ``"2026-03"`` into (2026, 3) strictly."""
    if not isinstance(value, str):
        raise field_error(field, Message('write the month as text, like "2026-03"'))
    match = _MONTH.match(value.strip())
    if not match or not 1 <= int(match.group(2)) <= 12:
        raise field_error(field, Message('"%(value)s" is not a month like "2026-03"', value=value))
    year, month = int(match.group(1)), int(match.group(2))
    if not 1 <= fiscal_year_of_month(year, month).start_year < date.max.year:
        raise field_error(
            field,
            Message(
                N_('"%(value)s" is outside the calendar (its fiscal year must fit 0001 to 9999)'),
                value=value,
            ),
        )
    return year, month


def beyond_calendar(field: str, day: date, what: str) -> InputError:
    """The error for a date the calendar cannot carry forward (near 9999-12-31)."""
    return field_error(
        field,
        Message(
            N_(
                "%(day)s is too late: %(what)s falls after %(max)s, the last day the calendar"
                " can carry"
            ),
            day=day,
            what=what,
            max=date.max,
        ),
    )


def parse_date(value: object, field: str) -> date:
    """Parse an ISO date (``"2026-03-02"``) strictly."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise field_error(field, Message('write the date as text, like "2026-03-02"'))
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise field_error(
            field, Message('"%(value)s" is not a date like "2026-03-02"', value=value)
        ) from None


def month_label(year: int, month: int) -> MonthLabel:
    """``"2024-07"``: a plain string to the JSON interface and the files, the reader's month
    (``jul 2024``) inside a message rendered for a page or a document."""
    return MonthLabel(f"{year:04d}-{month:02d}")


def fiscal_month_days(fy: FiscalYear, fiscal_month_number: int) -> tuple[date, date, str]:
    """A fiscal month's first and last days and its label (``"2024-08"``)."""
    year, month = month_of_fiscal(fy, fiscal_month_number)
    after = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return date(year, month, 1), after - timedelta(days=1), month_label(year, month)
