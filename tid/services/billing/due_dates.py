"""A run's due date: the one the association sets, by default ``DEFAULT_DUE_DAYS`` after the
run, and never before the end of the certified-mail notice's 30 days (§ 6653(5))."""

from __future__ import annotations

from datetime import date, timedelta

from tid.models import BillingRun, Ordinance
from tid.rules import calendar
from tid.rules.errors import N_, InputError

DEFAULT_DUE_DAYS = 60  # the project's default; the association may set another due date


def earliest_due_date(run_on: date, ordinance: Ordinance) -> calendar.Deadline:
    """The earliest due date a bill of a run on ``run_on`` may have: the end of the 30-day
    certified-mail period from the run (§ 6653(5)), and not before the end of the first
    notice period of the ordinance's receipt by the association, when recorded."""
    deadline = calendar.initial_notice_due(run_on)
    if ordinance.received_by_association_on is not None:
        first = calendar.initial_notice_due(ordinance.received_by_association_on)
        if first.date > deadline.date:
            return first
    return deadline


def default_due_date(run_on: date, ordinance: Ordinance) -> date:
    """``DEFAULT_DUE_DAYS`` after the run date, or the earliest due date if later."""
    return max(run_on + timedelta(days=DEFAULT_DUE_DAYS), earliest_due_date(run_on, ordinance).date)


def _due_date(
    run_on: date, ordinance: Ordinance, current: BillingRun | None, due_date: date | None
) -> date:
    """The run's due date: the one given, else the active run's (when still lawful), else the
    default; never before the 30 days of the certified-mail notice (§ 6653(5))."""
    earliest = earliest_due_date(run_on, ordinance)
    if due_date is None:
        if current is not None and current.due_date >= earliest.date:
            due_date = current.due_date
        else:
            due_date = default_due_date(run_on, ordinance)
    if due_date < earliest.date:
        raise InputError(
            "due_date",
            N_(
                "The due date is too early: it must leave the 30 days of the certified-mail "
                "notice (21 LPRA § 6653(5))."
            ),
        )
    if due_date > run_on + timedelta(days=3 * 366):
        raise InputError("due_date", N_("The due date is too far away."))
    return due_date
