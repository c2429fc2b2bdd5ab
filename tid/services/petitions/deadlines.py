"""The clocks of a petition in each state (the legislature's 90 days, the mayor's 30 days, the
publication week, the association's 30 days), read from tid/rules/calendar.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from tid.models import Ordinance, Petition
from tid.rules import calendar
from tid.rules.errors import N_
from tid.services.petitions.states import S


@dataclass(frozen=True)
class Clock:
    """One statutory clock of a petition: when it is due, how many days are left (negative:
    overdue), whether it still runs, and the explanation in both languages."""

    kind: str  # "ordinance", "mayor", "publication", "notice"
    label: str  # msgid
    due: date
    start: date | None  # first day of a window (publication), else None
    days_left: int
    running: bool
    stopped_on: date | None
    explanation: str
    explanation_es: str
    citation: str
    warnings: tuple[str, ...] = field(default=())

    @property
    def overdue(self) -> bool:
        return self.running and self.days_left < 0

    @property
    def soon(self) -> bool:
        return self.running and 0 <= self.days_left <= SOON_DAYS

    @property
    def met(self) -> bool | None:
        """Whether the act came in time (``None`` while the clock runs)."""
        if self.stopped_on is None:
            return None
        return self.stopped_on <= self.due and (self.start is None or self.stopped_on >= self.start)


SOON_DAYS = 10  # the daily digest flags what is due within this many days

CLOCK_LABELS = {
    "ordinance": N_("Ordinance due"),
    "mayor": N_("Mayor's decision due"),
    "publication": N_("Publication week ends"),
    "notice": N_("Owners' notice due"),
}


def _deadline_clock(
    kind: str, deadline: calendar.Deadline, today: date, stopped_on: date | None
) -> Clock:
    return Clock(
        kind=kind,
        label=CLOCK_LABELS[kind],
        due=deadline.date,
        start=None,
        days_left=calendar.days_left(deadline, today),
        running=stopped_on is None,
        stopped_on=stopped_on,
        explanation=deadline.explanation,
        explanation_es=deadline.explanation_es,
        citation=deadline.citation,
        warnings=deadline.warnings,
    )


def clocks(
    petition: Petition,
    ordinance: Ordinance | None,
    *,
    today: date,
) -> list[Clock]:
    """Every clock the petition has started, in lifecycle order; the one that runs in the
    current state has ``running`` set."""
    result = []
    issued_or_denied = ordinance.issued_on if ordinance else petition.denied_on
    result.append(
        _deadline_clock(
            "ordinance",
            calendar.ordinance_due(petition.received_on),
            today,
            issued_or_denied if issued_or_denied else None,
        )
    )
    if petition.sent_to_mayor_on is not None:
        result.append(
            _deadline_clock(
                "mayor",
                calendar.mayor_decision_due(petition.sent_to_mayor_on),
                today,
                petition.approved_on or petition.vetoed_on,
            )
        )
    if petition.approved_on is not None:
        window = calendar.publication_window(petition.approved_on)
        result.append(
            Clock(
                kind="publication",
                label=CLOCK_LABELS["publication"],
                due=window.end,
                start=window.start,
                days_left=calendar.days_left(window, today),
                running=petition.published_on is None,
                stopped_on=petition.published_on,
                explanation=window.explanation,
                explanation_es=window.explanation_es,
                citation=window.citation,
                warnings=window.warnings,
            )
        )
    if ordinance is not None and ordinance.received_by_association_on is not None:
        # The association's clock: shown with the petition, it never blocks the lifecycle.
        notice = calendar.initial_notice_due(ordinance.received_by_association_on)
        clock = _deadline_clock("notice", notice, today, None)
        result.append(clock)
    return result


def running_clock(
    petition: Petition,
    ordinance: Ordinance | None,
    *,
    today: date,
) -> Clock | None:
    """The legislature's or the mayor's clock that runs in the petition's current state:
    the 90 days while received or under study, the 30 days while with the mayor, the
    publication week once approved; none otherwise."""
    kind = {
        S.RECEIVED: "ordinance",
        S.UNDER_STUDY: "ordinance",
        S.WITH_MAYOR: "mayor",
        S.APPROVED: "publication",
    }.get(S(petition.state))
    if kind is None:
        return None
    for clock in clocks(petition, ordinance, today=today):
        if clock.kind == kind and clock.running:
            return clock
    return None
