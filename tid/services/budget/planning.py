"""A fiscal year's budget (21 LPRA § 6653(6)): what the association expects to collect — the
impost billed times the district's own collection rate of past years, which it may change
with a reason — other income and the carry-over, and its spending by each purpose the
ordinance authorizes plus administration, checked against the law before the board votes
(/readings#budget-admin-cap-planned): administration within the cap rate of the expected
collections, and the spending within the money expected. A draft is revised freely; the
board's approval is recorded with its minutes; an approved budget changes only by a recorded
amendment with its reason. Every step is kept in the budget's history."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from sqlmodel import Session, col, select

from tid.clock import utcnow
from tid.models import (
    AuthorizedPurpose,
    BillingRun,
    BillingRunStatus,
    Budget,
    BudgetChange,
    BudgetCommitment,
    BudgetLine,
)
from tid.rules import admin_cap
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.messages import Amount, Message
from tid.rules.money import CENT, ZERO
from tid.rules.periods import FiscalYear
from tid.services.account import year_locks
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district
from tid.services.ledger import REVENUE
from tid.services.ledger.balances import day_sums_of

ADMIN = "admin"  # the key of the administration line (a purpose's line: its id)
PAST_YEARS = 3  # the collection rate proposed: of the (at most) three years before
DRAFT, APPROVED = "draft", "approved"


@dataclass(frozen=True)
class Plan:
    """What a budget says: the money expected and the spending by line (``ADMIN`` or a
    purpose's id as text)."""

    billed: Decimal
    collection_rate: Decimal
    other_income: Decimal = ZERO
    carry_over: Decimal = ZERO
    rate_reason: str = ""
    lines: dict[str, Decimal] = field(default_factory=dict)

    @property
    def expected_collections(self) -> Decimal:
        return (self.billed * self.collection_rate).quantize(CENT, rounding=ROUND_HALF_UP)

    @property
    def money_expected(self) -> Decimal:
        return self.expected_collections + self.other_income + self.carry_over

    @property
    def spending(self) -> Decimal:
        return sum(self.lines.values(), ZERO)


@dataclass(frozen=True)
class YearRate:
    fiscal_year: str
    billed: Decimal
    collected: Decimal

    @property
    def rate(self) -> Decimal:
        return (self.collected / self.billed).quantize(Decimal("0.0001"), ROUND_HALF_UP)


@dataclass(frozen=True)
class Proposal:
    """What a new budget starts from: the year's billing (or the last year's, before the
    year's run), the past years' collection rate (each year shown) and last year's."""

    billed: Decimal
    billed_from: str  # the fiscal year whose billing it is ("" when nothing was billed)
    years: list[YearRate]
    rate: Decimal
    last_rate: Decimal | None


def _active_billed(session: Session, district_id: int, label: str) -> Decimal | None:
    run = session.exec(
        select(BillingRun)
        .where(
            BillingRun.district_id == district_id,
            BillingRun.fiscal_year == label,
            BillingRun.status == BillingRunStatus.ACTIVE.value,
        )
        .order_by(col(BillingRun.version).desc())
    ).first()
    return None if run is None else run.total


def past_rates(*, session: Session, district_id: int, fy: FiscalYear) -> list[YearRate]:
    """The district's own collection rate of the (at most three) billed years before ``fy``:
    the impost collected in each year against what it billed, latest first."""
    found: list[YearRate] = []
    for back in range(1, 11):
        year = FiscalYear(fy.start_year - back)
        billed = _active_billed(session, district_id, year.label)
        if billed is None or billed <= 0:
            continue
        sums = day_sums_of(
            session=session,
            district_id=district_id,
            accounts=(REVENUE,),
            since=year.start,
            until=year.end,
        )
        found.append(YearRate(year.label, billed, -sums.get(REVENUE, ZERO)))
        if len(found) == PAST_YEARS:
            break
    return found


def proposal(*, session: Session, district_id: int, fy: FiscalYear) -> Proposal:
    """The expected collections proposed for ``fy``: billed × the past years' rate (all
    their collections over all their billing; 100% without a past year)."""
    years = past_rates(session=session, district_id=district_id, fy=fy)
    billed = _active_billed(session, district_id, fy.label)
    billed_from = fy.label
    if billed is None:
        billed, billed_from = (years[0].billed, years[0].fiscal_year) if years else (ZERO, "")
    total_billed = sum((y.billed for y in years), ZERO)
    rate = (
        (sum((y.collected for y in years), ZERO) / total_billed).quantize(
            Decimal("0.0001"), ROUND_HALF_UP
        )
        if total_billed > 0
        else Decimal("1")
    )
    return Proposal(
        billed, billed_from, years, min(rate, Decimal("1")), years[0].rate if years else None
    )


def purposes_of(*, session: Session, district_id: int) -> dict[int, AuthorizedPurpose]:
    stmt = select(AuthorizedPurpose).where(AuthorizedPurpose.district_id == district_id)
    return {p.id or 0: p for p in session.exec(stmt.order_by(col(AuthorizedPurpose.name)))}


def _line_problems(session: Session, district_id: int, plan: Plan) -> list[Finding]:
    problems: list[Finding] = []
    known = purposes_of(session=session, district_id=district_id)
    for key, amount in plan.lines.items():
        name = f"line_{key}"
        if amount < 0:
            problems.append(Finding(name, N_("A budget line cannot be negative.")))
        if key == ADMIN:
            continue
        purpose = known.get(int(key)) if key.isdigit() else None
        if purpose is None:
            problems.append(Finding(name, N_("This is not a purpose the ordinance authorizes.")))
        elif not purpose.active:
            problems.append(Finding(name, N_("This purpose is no longer authorized.")))
    return problems


def plan_problems(
    *, session: Session, district_id: int, fy: FiscalYear, plan: Plan, proposed_rate: Decimal
) -> list[Finding]:
    """Every problem of a plan at its field, all at once: a line outside the ordinance's
    purposes, administration above the cap rate of the expected collections, spending above
    the money expected, a rate changed without its reason."""
    problems = _line_problems(session, district_id, plan)
    for name in ("billed", "other_income"):
        if getattr(plan, name) < 0:
            problems.append(Finding(name, N_("The amount cannot be negative.")))
    if not ZERO < plan.collection_rate <= 1:
        problems.append(
            Finding(
                "collection_rate",
                N_("The collection rate is a percentage above 0 and at most 100."),
            )
        )
    elif plan.collection_rate != proposed_rate and not plan.rate_reason.strip():
        problems.append(
            Finding(
                "rate_reason",
                N_("Say why the rate differs from the district's own rate of past years."),
            )
        )
    rate, _citation = admin_cap.admin_cap_rate(fy.end)
    admin = plan.lines.get(ADMIN, ZERO)
    cap = (rate * plan.expected_collections).quantize(CENT)
    if admin > cap:
        problems.append(
            Finding(
                f"line_{ADMIN}",
                Message(
                    "Administration of %(admin)s is above the cap: %(rate)s of the "
                    "%(expected)s expected collections is %(cap)s (21 LPRA § 6653(6)).",
                    admin=Amount(admin),
                    rate=admin_cap.rate_words(rate),
                    expected=Amount(plan.expected_collections),
                    cap=Amount(cap),
                ),
            )
        )
    if plan.spending > plan.money_expected:
        problems.append(
            Finding(
                "total",
                Message(
                    "The spending of %(spending)s is above the %(money)s expected "
                    "(collections, other income and the carry-over).",
                    spending=Amount(plan.spending),
                    money=Amount(plan.money_expected),
                ),
            )
        )
    return problems


NO_BUDGET = N_("The district has no budget of this fiscal year.")
CLOSED = N_(
    "This fiscal year is closed (locked after its statement): its budget no longer changes."
)


def _refuse_a_closed_year(session: Session, district_id: int, fy: FiscalYear) -> None:
    if year_locks.lock_of(session=session, district_id=district_id, fy=fy) is not None:
        raise InputError("fy", CLOSED)


def raise_problems(problems: list[Finding]) -> None:
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)


def budget_of(*, session: Session, district_id: int, fy: FiscalYear) -> Budget | None:
    return session.exec(
        select(Budget).where(Budget.district_id == district_id, Budget.fiscal_year == fy.label)
    ).first()


def lines_of(*, session: Session, budget_id: int) -> list[BudgetLine]:
    return list(
        session.exec(
            select(BudgetLine).where(BudgetLine.budget_id == budget_id).order_by(col(BudgetLine.id))
        )
    )


def plan_of(*, session: Session, budget: Budget) -> Plan:
    """The plan a stored budget says."""
    return Plan(
        billed=budget.billed,
        collection_rate=Decimal(budget.collection_rate),
        other_income=budget.other_income,
        carry_over=budget.carry_over,
        rate_reason=budget.rate_reason,
        lines={
            ADMIN if line.administrative else str(line.purpose_id): line.amount
            for line in lines_of(session=session, budget_id=budget.id or 0)
        },
    )


def history(*, session: Session, budget_id: int) -> list[BudgetChange]:
    return list(
        session.exec(
            select(BudgetChange)
            .where(BudgetChange.budget_id == budget_id)
            .order_by(col(BudgetChange.id))
        )
    )


def _figures_json(budget: Budget, plan: Plan) -> str:
    return json.dumps(
        {
            "status": budget.status,
            "billed": str(plan.billed),
            "collection_rate": str(plan.collection_rate),
            "expected_collections": str(plan.expected_collections),
            "other_income": str(plan.other_income),
            "carry_over": str(plan.carry_over),
            "lines": {key: str(amount) for key, amount in plan.lines.items()},
        },
        sort_keys=True,
    )


def _store_lines(session: Session, budget_id: int, amounts: dict[str, Decimal]) -> None:
    """The budget's lines set to ``amounts``: each kept line changed in place (the
    commitments made against it stay with it), a new one added, one left out deleted — or,
    with commitments against it, kept at zero."""
    for line in lines_of(session=session, budget_id=budget_id):
        key = ADMIN if line.administrative else str(line.purpose_id)
        if key in amounts:
            line.amount = amounts[key]
            session.add(line)
        elif session.exec(
            select(BudgetCommitment.id).where(BudgetCommitment.budget_line_id == line.id)
        ).first():
            line.amount = ZERO
            session.add(line)
        else:
            session.delete(line)
    session.flush()
    kept = {
        ADMIN if line.administrative else str(line.purpose_id)
        for line in lines_of(session=session, budget_id=budget_id)
    }
    for key, amount in sorted(amounts.items()):
        if key not in kept:
            session.add(
                BudgetLine(
                    budget_id=budget_id,
                    purpose_id=None if key == ADMIN else int(key),
                    administrative=key == ADMIN,
                    amount=amount,
                )
            )
    session.flush()


def _unchanged(session: Session, budget: Budget, plan: Plan) -> bool:
    """Whether ``plan`` is the budget as its history last recorded it (a form sent again, from
    another tab, changes nothing)."""
    if budget.id is None or budget.rate_reason != plan.rate_reason.strip()[:500]:
        return False
    last = session.exec(
        select(BudgetChange)
        .where(BudgetChange.budget_id == budget.id)
        .order_by(col(BudgetChange.id).desc())
    ).first()
    return last is not None and last.figures == _figures_json(budget, plan)


def _store(
    session: Session,
    budget: Budget,
    plan: Plan,
    *,
    actor: audit.Actor,
    kind: str,
    on: date,
    reason: str = "",
) -> None:
    """Write the plan into the budget (its lines replaced) and its step into the history."""
    before = audit.snapshot(budget)
    budget.billed = plan.billed
    budget.collection_rate = str(plan.collection_rate)
    budget.rate_reason = plan.rate_reason.strip()[:500]
    budget.expected_collections = plan.expected_collections
    budget.other_income = plan.other_income
    budget.carry_over = plan.carry_over
    budget.updated_at = utcnow()
    session.add(budget)
    session.flush()
    _store_lines(session, budget.id or 0, plan.lines)
    session.add(
        BudgetChange(
            budget_id=budget.id or 0,
            kind=kind,
            changed_on=on,
            reason=reason.strip()[:500],
            figures=_figures_json(budget, plan),
            actor=actor.label,
        )
    )
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action=f"budget.{kind}",
        entity=budget,
        before=before,
        after=audit.snapshot(budget),
    )


def draft_budget(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fy: FiscalYear,
    plan: Plan,
    today: date,
) -> Budget:
    """Draft ``fy``'s budget, or revise its draft; an approved one is refused (it changes
    only by an amendment)."""
    lock_district(session=session, district_id=district_id)
    _refuse_a_closed_year(session, district_id, fy)
    proposed = proposal(session=session, district_id=district_id, fy=fy)
    raise_problems(
        plan_problems(
            session=session, district_id=district_id, fy=fy, plan=plan, proposed_rate=proposed.rate
        )
    )
    budget = budget_of(session=session, district_id=district_id, fy=fy)
    if budget is not None and budget.status != DRAFT:
        raise InputError(
            "status", N_("This budget is approved: it changes only by a recorded amendment.")
        )
    if budget is not None and _unchanged(session, budget, plan):
        return budget  # the same draft again: nothing to revise
    kind = "revised"
    if budget is None:
        kind = "drafted"
        budget = Budget(
            district_id=district_id,
            fiscal_year=fy.label,
            billed=ZERO,
            expected_collections=ZERO,
            other_income=ZERO,
            carry_over=ZERO,
            actor=actor.label,
        )
    _store(session, budget, plan, actor=actor, kind=kind, on=today)
    return budget


def approve_budget(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fy: FiscalYear,
    approved_on: date,
    minutes: str,
    today: date,
) -> Budget:
    """Record the board's approval of the draft: the day and its minutes."""
    lock_district(session=session, district_id=district_id)
    _refuse_a_closed_year(session, district_id, fy)
    budget = budget_of(session=session, district_id=district_id, fy=fy)
    if budget is None:
        raise InputError("status", N_("There is no draft budget of this fiscal year."))
    if budget.status != DRAFT:
        raise InputError("status", N_("This budget is already approved."))
    problems: list[Finding] = []
    if approved_on > today:
        problems.append(Finding("approved_on", N_("The date cannot be in the future.")))
    if not minutes.strip():
        problems.append(
            Finding("minutes", N_("Name the board's minutes that record the approval."))
        )
    plan = plan_of(session=session, budget=budget)
    problems += plan_problems(
        session=session,
        district_id=district_id,
        fy=fy,
        plan=plan,
        proposed_rate=plan.collection_rate,
    )
    raise_problems(problems)
    budget.status = APPROVED
    budget.approved_on = approved_on
    budget.minutes = minutes.strip()[:300]
    _store(session, budget, plan, actor=actor, kind="approved", on=approved_on, reason=minutes)
    return budget


def amend_budget(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fy: FiscalYear,
    plan: Plan,
    reason: str,
    today: date,
    kind: str = "amended",
) -> Budget:
    """Amend an approved budget: the new plan, checked as a draft is, with its reason."""
    lock_district(session=session, district_id=district_id)
    _refuse_a_closed_year(session, district_id, fy)
    budget = budget_of(session=session, district_id=district_id, fy=fy)
    if budget is None or budget.status != APPROVED:
        raise InputError("status", N_("Only an approved budget is amended; revise the draft."))
    problems: list[Finding] = []
    if not reason.strip():
        problems.append(Finding("reason", N_("Give the reason for the amendment.")))
    problems += plan_problems(
        session=session,
        district_id=district_id,
        fy=fy,
        plan=plan,
        proposed_rate=Decimal(budget.collection_rate),
    )
    raise_problems(problems)
    if _unchanged(session, budget, plan):
        if kind != "amended":
            return budget  # carried over already, as the figures stand
        raise InputError("status", N_("This amendment changes nothing in the budget."))
    budget.amendments += 1
    _store(session, budget, plan, actor=actor, kind=kind, on=today, reason=reason)
    return budget


def read_plan(values: dict[str, str], *, line_keys: list[str]) -> Plan:
    """A plan from a form's text (amounts in dollars, the rate as a percentage), every
    unreadable field named at once."""
    problems: list[Finding] = []

    def amount(name: str, required: bool = False) -> Decimal:
        text = values.get(name, "").strip().replace(",", "").removeprefix("$")
        if not text:
            if required:
                problems.append(Finding(name, N_("Enter an amount.")))
            return ZERO
        try:
            value = Decimal(text)
        except InvalidOperation:
            value = Decimal("NaN")
        if not value.is_finite() or value != value.quantize(CENT) or abs(value) >= 10**11:
            problems.append(Finding(name, N_("Write an amount in dollars and cents.")))
            return ZERO
        return value

    rate_text = values.get("collection_rate", "").strip().removesuffix("%").strip()
    try:
        rate = (Decimal(rate_text) / 100).quantize(Decimal("0.0001"), ROUND_HALF_UP)
    except (InvalidOperation, ValueError):
        problems.append(Finding("collection_rate", N_("Write the rate as a percentage.")))
        rate = Decimal("1")
    plan = Plan(
        billed=amount("billed", required=True),
        collection_rate=rate,
        other_income=amount("other_income"),
        carry_over=amount("carry_over"),
        rate_reason=values.get("rate_reason", ""),
        lines={key: amount(f"line_{key}") for key in line_keys},
    )
    raise_problems(problems)
    return plan


def checks(*, plan: Plan, fy: FiscalYear, last_rate: Decimal | None) -> list[Message]:
    """The plan against the law, in words with its figures: administration against the cap
    on the expected collections, and on collections at last year's rate; the spending
    against the money expected."""
    rate, _citation = admin_cap.admin_cap_rate(fy.end)
    admin = plan.lines.get(ADMIN, ZERO)
    cap = (rate * plan.expected_collections).quantize(CENT)
    said = [
        Message(
            "Administration: %(admin)s of the %(cap)s the cap allows, %(rate)s of the "
            "%(expected)s expected collections (21 LPRA § 6653(6)).",
            admin=Amount(admin),
            cap=Amount(cap),
            rate=admin_cap.rate_words(rate),
            expected=Amount(plan.expected_collections),
        )
    ]
    if last_rate is not None:
        at_last = (plan.billed * last_rate).quantize(CENT, rounding=ROUND_HALF_UP)
        last_cap = (rate * at_last).quantize(CENT)
        said.append(
            Message(
                "If the collections come in at last year's rate (%(last)s), they are "
                "%(collected)s and the cap %(cap)s: the administration line leaves %(left)s.",
                last=admin_cap.rate_words(last_rate),
                collected=Amount(at_last),
                cap=Amount(last_cap),
                left=Amount(last_cap - admin),
            )
        )
    said.append(
        Message(
            "Spending: %(spending)s of the %(money)s expected (collections, other income and "
            "the carry-over); %(left)s is not budgeted.",
            spending=Amount(plan.spending),
            money=Amount(plan.money_expected),
            left=Amount(plan.money_expected - plan.spending),
        )
    )
    return said
