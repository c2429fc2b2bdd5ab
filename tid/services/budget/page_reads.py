"""What the budget's pages show: the year's budget (or the proposal a new one starts from)
with its lines, the checks in words, the history and the year before's carry-over; the
budget against the actual as a table and a CSV file."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tid import csv_safe
from tid.models import Budget, BudgetChange, BudgetCommitment
from tid.rules import admin_cap
from tid.rules.errors import N_
from tid.rules.messages import Message, render
from tid.rules.money import ZERO, money_str
from tid.rules.periods import FiscalYear
from tid.services.account import year_locks
from tid.services.budget import actuals, carry_over, planning


@dataclass(frozen=True)
class BudgetPage:
    fy: FiscalYear
    budget: Budget | None
    plan: planning.Plan
    proposal: planning.Proposal
    lines: list[tuple[str, str]]  # (key, name): administration, then each purpose
    checks: list[Message]
    history: list[BudgetChange]
    before: carry_over.CarryOver  # the year before, what it carries over
    cap_rate: Decimal
    closed: bool  # the year itself is closed: its report may be issued


def budget_page(*, session: Session, district_id: int, fy: FiscalYear) -> BudgetPage:
    budget = planning.budget_of(session=session, district_id=district_id, fy=fy)
    offer = planning.proposal(session=session, district_id=district_id, fy=fy)
    before = carry_over.carry_over_of(
        session=session, district_id=district_id, fy=FiscalYear(fy.start_year - 1)
    )
    if budget is not None:
        plan = planning.plan_of(session=session, budget=budget)
    else:
        plan = planning.Plan(
            billed=offer.billed,
            collection_rate=offer.rate,
            carry_over=before.closing if before.closed else ZERO,
        )
    purposes = planning.purposes_of(session=session, district_id=district_id)
    lines = [(planning.ADMIN, N_("Administration"))] + [
        (str(pid), p.name) for pid, p in purposes.items() if p.active or str(pid) in plan.lines
    ]
    return BudgetPage(
        fy=fy,
        budget=budget,
        plan=plan,
        proposal=offer,
        lines=lines,
        checks=planning.checks(plan=plan, fy=fy, last_rate=offer.last_rate),
        history=planning.history(session=session, budget_id=budget.id or 0) if budget else [],
        before=before,
        cap_rate=admin_cap.admin_cap_rate(fy.end)[0],
        closed=year_locks.lock_of(session=session, district_id=district_id, fy=fy) is not None,
    )


@dataclass(frozen=True)
class ActualPage:
    fy: FiscalYear
    found: actuals.Actuals | None
    # each open one, whether its line is administration's, and its line's name
    commitments: list[tuple[BudgetCommitment, bool, str]]


def actual_page(*, session: Session, district_id: int, fy: FiscalYear, today: date) -> ActualPage:
    """The approved budget against the actual, to today (or the year's end); a draft is
    not measured."""
    budget = planning.budget_of(session=session, district_id=district_id, fy=fy)
    if budget is None or budget.status != planning.APPROVED:
        return ActualPage(fy, None, [])
    found = actuals.actuals(session=session, budget=budget, as_of=min(today, fy.end))
    purposes = planning.purposes_of(session=session, district_id=district_id)
    names = {
        line.id: actuals.line_name(line, {pid: p.name for pid, p in purposes.items()})
        for line in planning.lines_of(session=session, budget_id=budget.id or 0)
    }
    admin_lines = {
        line.id
        for line in planning.lines_of(session=session, budget_id=budget.id or 0)
        if line.administrative
    }
    commitments = [
        (c, c.budget_line_id in admin_lines, names.get(c.budget_line_id, ""))
        for c in actuals.open_commitments(session=session, budget_id=budget.id or 0)
    ]
    return ActualPage(fy, found, commitments)


def actual_csv(found: actuals.Actuals | None, fy: FiscalYear) -> str:
    """The budget against the actual, a line a row: its twelve months, spent, committed,
    left (headed in the reader's language); a year without an approved budget: no row."""
    months = [f"{year}-{month:02d}" for year, month in fy.months()]
    header = [
        render(Message(N_("Budget line"))),
        render(Message(N_("Budgeted"))),
        *months,
        render(Message(N_("Spent"))),
        render(Message(N_("Committed"))),
        render(Message(N_("Left"))),
    ]
    rows = [
        [
            render(Message(line.name)) if line.key == planning.ADMIN else line.name,
            money_str(line.budget),
            *(money_str(m) for m in line.months),
            money_str(line.spent),
            money_str(line.committed),
            money_str(line.left),
        ]
        for line in (found.lines if found is not None else [])
    ]
    return csv_safe.write(header, rows, numbers=set(header[1:]))
