"""A budget against the year's actual spending, from the journal's running sums (a reversed
expenditure is no longer spent): per line, spent month by month and to date, committed (money
promised against the line and not yet spent), left; the administrative cap's headroom now and
projected to the year's end on the expected collections; and the warning an expenditure gets
when it would exceed its line (the cap still refuses as it always has)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session, col, func, select

from tid.models import Budget, BudgetCommitment, BudgetLine, LedgerDay
from tid.rules import admin_cap
from tid.rules.errors import N_, Finding, InputError
from tid.rules.messages import Amount, Message
from tid.rules.money import CENT, ZERO
from tid.rules.periods import FiscalYear, fiscal_month, fiscal_year_of
from tid.services.audit_trail import audit
from tid.services.budget import planning
from tid.services.district_lock import lock_district
from tid.services.ledger import ADMIN_EXPENSE, CapFigures, cap_figures, purpose_account


@dataclass(frozen=True)
class LineActual:
    key: str  # planning.ADMIN or a purpose's id
    name: str
    budget: Decimal
    months: tuple[Decimal, ...]  # spent in each fiscal month, July first
    spent: Decimal
    committed: Decimal

    @property
    def left(self) -> Decimal:
        return self.budget - self.spent - self.committed

    @property
    def over(self) -> bool:
        return self.left < 0


@dataclass(frozen=True)
class Actuals:
    budget: Budget
    as_of: date
    lines: list[LineActual]
    cap_now: CapFigures
    cap_projected: Decimal  # the cap rate × the expected collections
    admin_planned: Decimal

    @property
    def totals(self) -> dict[str, Decimal]:
        return {
            "budget": sum((line.budget for line in self.lines), ZERO),
            "spent": sum((line.spent for line in self.lines), ZERO),
            "committed": sum((line.committed for line in self.lines), ZERO),
            "left": sum((line.left for line in self.lines), ZERO),
        }

    @property
    def headroom_projected(self) -> Decimal:
        """What the cap would still allow at the year's end if the collections come in as
        expected and administration spends its whole line (or what it already spent)."""
        return self.cap_projected - max(self.admin_planned, self.cap_now.admin)


def _account(line: BudgetLine) -> str:
    return ADMIN_EXPENSE if line.administrative else purpose_account(line.purpose_id or 0)


def _month_sums(
    session: Session, district_id: int, accounts: list[str], fy: FiscalYear, as_of: date
) -> dict[str, list[Decimal]]:
    """Each account's lines booked in each month of ``fy`` up to ``as_of``."""
    sums = {account: [ZERO] * 12 for account in accounts}
    rows = session.exec(
        select(col(LedgerDay.account), col(LedgerDay.day), col(LedgerDay.amount)).where(
            LedgerDay.district_id == district_id,
            col(LedgerDay.account).in_(accounts),
            LedgerDay.day >= fy.start,
            LedgerDay.day <= min(fy.end, as_of),
        )
    )
    for account, day, amount in rows:
        sums[account][fiscal_month(day.year, day.month) - 1] += amount
    return sums


def _committed(session: Session, line_ids: list[int]) -> dict[int, Decimal]:
    if not line_ids:
        return {}
    rows = session.exec(
        select(BudgetCommitment.budget_line_id, func.sum(BudgetCommitment.amount))
        .where(
            col(BudgetCommitment.budget_line_id).in_(line_ids),
            col(BudgetCommitment.settled_on).is_(None),
        )
        .group_by(col(BudgetCommitment.budget_line_id))
    )
    return {line_id: total for line_id, total in rows}


def line_name(line: BudgetLine, names: dict[int, str]) -> str:
    return N_("Administration") if line.administrative else names.get(line.purpose_id or 0, "")


def actuals(*, session: Session, budget: Budget, as_of: date) -> Actuals:
    """The budget against what was spent and committed up to ``as_of``."""
    fy = FiscalYear(int(budget.fiscal_year[:4]))
    lines = planning.lines_of(session=session, budget_id=budget.id or 0)
    names = {
        pid: p.name
        for pid, p in planning.purposes_of(session=session, district_id=budget.district_id).items()
    }
    months = _month_sums(session, budget.district_id, [_account(line) for line in lines], fy, as_of)
    committed = _committed(session, [line.id or 0 for line in lines])
    rows = [
        LineActual(
            key=planning.ADMIN if line.administrative else str(line.purpose_id),
            name=line_name(line, names),
            budget=line.amount,
            months=tuple(months[_account(line)]),
            spent=sum(months[_account(line)], ZERO),
            committed=committed.get(line.id or 0, ZERO),
        )
        for line in sorted(lines, key=lambda line: (line.administrative, line_name(line, names)))
    ]
    rate, _citation = admin_cap.admin_cap_rate(fy.end)
    admin = next((line.amount for line in lines if line.administrative), ZERO)
    return Actuals(
        budget=budget,
        as_of=as_of,
        lines=rows,
        cap_now=cap_figures(session=session, district_id=budget.district_id, fy=fy),
        cap_projected=(rate * budget.expected_collections).quantize(CENT),
        admin_planned=admin,
    )


def line_warning(
    *,
    session: Session,
    district_id: int,
    spent_on: date,
    amount: Decimal,
    administrative: bool,
    purpose_id: int | None,
) -> Message | None:
    """The warning an expenditure gets when, booked, its line of the year's approved budget
    would be exceeded (spent and committed), or the budget has no line for it."""
    fy = fiscal_year_of(spent_on)
    budget = planning.budget_of(session=session, district_id=district_id, fy=fy)
    if budget is None or budget.status != planning.APPROVED:
        return None
    found = actuals(session=session, budget=budget, as_of=fy.end)
    key = planning.ADMIN if administrative else str(purpose_id)
    line = next((row for row in found.lines if row.key == key), None)
    if line is None:
        return Message(
            "The approved budget of FY %(fy)s has no line for this expenditure.", fy=fy.label
        )
    if line.left - amount >= 0:
        return None
    return Message(
        "This expenditure takes the line “%(line)s” of the FY %(fy)s budget over: "
        "%(budget)s budgeted, %(spent)s spent and %(committed)s committed before it.",
        line=line.name,
        fy=fy.label,
        budget=Amount(line.budget),
        spent=Amount(line.spent),
        committed=Amount(line.committed),
    )


def record_commitment(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fy: FiscalYear,
    key: str,
    committed_on: date,
    payee: str,
    amount: Decimal,
    today: date,
    description: str = "",
) -> BudgetCommitment:
    """Record money promised against a line of the year's approved budget."""
    lock_district(session=session, district_id=district_id)
    budget = planning.budget_of(session=session, district_id=district_id, fy=fy)
    if budget is None or budget.status != planning.APPROVED:
        raise InputError("line", N_("Commitments are made against an approved budget."))
    line = next(
        (
            row
            for row in planning.lines_of(session=session, budget_id=budget.id or 0)
            if (planning.ADMIN if row.administrative else str(row.purpose_id)) == key
        ),
        None,
    )
    problems: list[Finding] = []
    if line is None:
        problems.append(Finding("line", N_("The budget has no such line.")))
    if amount <= 0:
        problems.append(Finding("amount", N_("A commitment must be more than zero.")))
    if not payee.strip():
        problems.append(Finding("payee", N_("Name who was promised the money.")))
    if committed_on > today or not fy.contains(committed_on):
        problems.append(
            Finding(
                "committed_on", N_("The date must be in the fiscal year and not later than today.")
            )
        )
    planning.raise_problems(problems)
    assert line is not None
    commitment = BudgetCommitment(
        budget_line_id=line.id or 0,
        committed_on=committed_on,
        payee=payee.strip()[:200],
        amount=amount,
        description=description.strip()[:500],
        actor=actor.label,
    )
    session.add(commitment)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="budget.commit",
        entity=commitment,
        after=audit.snapshot(commitment),
    )
    return commitment


def settle(
    *, session: Session, actor: audit.Actor, district_id: int, commitment_id: int, today: date
) -> BudgetCommitment:
    """A commitment paid (its expenditure booked) or dropped: no longer counted."""
    lock_district(session=session, district_id=district_id)
    commitment = session.get(BudgetCommitment, commitment_id)
    line = session.get(BudgetLine, commitment.budget_line_id) if commitment else None
    budget = session.get(Budget, line.budget_id) if line else None
    if commitment is None or budget is None or budget.district_id != district_id:
        raise InputError("commitment", N_("There is no such commitment."))
    if commitment.settled_on is None:
        before = audit.snapshot(commitment)
        commitment.settled_on = today
        session.add(commitment)
        audit.record(
            session=session,
            actor=actor,
            action="budget.settle",
            entity=commitment,
            before=before,
            after=audit.snapshot(commitment),
        )
    return commitment


def open_commitments(*, session: Session, budget_id: int) -> list[BudgetCommitment]:
    return list(
        session.exec(
            select(BudgetCommitment)
            .join(BudgetLine, col(BudgetLine.id) == col(BudgetCommitment.budget_line_id))
            .where(BudgetLine.budget_id == budget_id, col(BudgetCommitment.settled_on).is_(None))
            .order_by(col(BudgetCommitment.committed_on), col(BudgetCommitment.id))
        )
    )
