"""What billing asks of the roll's yearly check (21 LPRA § 6653(3)(d);
/readings#roll-yearly-check): whether the district checks its roll, how many of a year's
changes are unanswered, and which cadastral numbers its sent-back changes keep out of
billing or bill at last year's figures."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from sqlmodel import Session, col, func, select

from tid.models import RollChange, RollCheckSetting
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message
from tid.rules.roll_changes import DEFAULT_THRESHOLD

OPEN = "open"
ACCEPTED = "accepted"
SENT_BACK = "sent_back"
CORRECTED = "corrected"
WITHDRAWN = "withdrawn"
EXCLUDE = "exclude"
LAST_YEAR = "last_year"


@dataclass(frozen=True)
class Setting:
    enabled: bool
    threshold: Decimal  # a fraction: 0.25

    @property
    def percent(self) -> int:
        return int(self.threshold * 100)


def setting(*, session: Session, district_id: int) -> Setting:
    """The district's check: on, at 25%, unless the district set otherwise."""
    found = session.get(RollCheckSetting, district_id)
    if found is None:
        return Setting(True, DEFAULT_THRESHOLD)
    return Setting(found.enabled, Decimal(found.threshold_percent) / 100)


def open_count(*, session: Session, district_id: int, fiscal_year: str) -> int:
    """How many of the year's changes wait for an answer."""
    stmt = select(func.count(col(RollChange.id))).where(
        RollChange.district_id == district_id,
        RollChange.fiscal_year == fiscal_year,
        RollChange.status == OPEN,
    )
    return int(session.exec(stmt).one() or 0)


UNANSWERED = N_(
    "The roll of %(fiscal_year)s has %(count)s changes without an answer: answer each on the "
    "roll's check page (%(url)s) before billing."
)


def require_answered(*, session: Session, district_id: int, fiscal_year: str) -> None:
    """Refuse, with the count and the check page, to bill a year whose roll has unanswered
    changes (unless the district turned its check off)."""
    if not setting(session=session, district_id=district_id).enabled:
        return
    count = open_count(session=session, district_id=district_id, fiscal_year=fiscal_year)
    if count:
        raise InputError(
            "fiscal_year",
            Message(
                UNANSWERED,
                fiscal_year=fiscal_year,
                count=count,
                url=f"/roll/{district_id}/check/{fiscal_year}",
            ),
        )


@dataclass(frozen=True)
class SentBack:
    """The numbers kept out of this year's billing, and those billed at last year's
    figures (last year's row)."""

    excluded: frozenset[str]
    last_year: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.excluded or self.last_year)


def sent_back(*, session: Session, district_id: int, fiscal_year: str) -> SentBack:
    """The year's sent-back changes as billing applies them: each takes this year's numbers
    out; one billed at last year's figures brings last year's numbers back at last year's
    row, unless another change keeps that number out."""
    stmt = select(RollChange.treatment, RollChange.numbers_before, RollChange.numbers_after).where(
        RollChange.district_id == district_id,
        RollChange.fiscal_year == fiscal_year,
        RollChange.status == SENT_BACK,
    )
    out: set[str] = set()
    back: set[str] = set()
    exclude_only: set[str] = set()
    for treatment, before, after in session.exec(stmt):
        numbers_after = json.loads(after)
        out.update(numbers_after)
        if treatment == LAST_YEAR:
            back.update(json.loads(before))
        else:
            exclude_only.update(numbers_after)
    return SentBack(frozenset(out), frozenset(back - exclude_only))
