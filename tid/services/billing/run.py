"""The billing run: read the roll, compute, compare with the active run, supersede it,
write the bills and book them in the journal, in one transaction."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, insert, select
from sqlmodel import Session
from sqlmodel import select as sm_select

from tid.clock import utcnow
from tid.models import BillingRun, BillingRunStatus, BillStatus, District, Ordinance
from tid.rules import periods
from tid.rules.errors import N_, InputError
from tid.services import ledger
from tid.services.audit_trail import audit
from tid.services.billing.amounts import (
    NO_ROLL,
    _checked_formula,
    _compute,
    _Computed,
    _explanations,
    _has_roll,
    _read_the_roll,
)
from tid.services.billing.bulk_tables import _BILL_ROWS
from tid.services.billing.due_dates import _due_date
from tid.services.billing.ordinance_terms import ordinance_for
from tid.services.billing.parameters import parse_parameters
from tid.services.billing.superseding import _supersede_bills, _supersede_run
from tid.services.roll_check import gate as roll_gate


@dataclass(frozen=True)
class BillingResult:
    """What a billing run did (or found already done)."""

    run: BillingRun
    unchanged: bool  # the same bills were already active: nothing written
    superseded: BillingRun | None  # the run this one replaced
    superseded_bills: int
    mailed_superseded: int  # superseded bills already mailed: owners needing a corrected notice
    total: Decimal
    expected_amount: Decimal
    difference: Decimal  # total − expected amount
    warnings: tuple[str, ...]


def active_run(*, session: Session, district_id: int, fiscal_year: str) -> BillingRun | None:
    return session.exec(
        sm_select(BillingRun).where(
            BillingRun.district_id == district_id,
            BillingRun.fiscal_year == fiscal_year,
            BillingRun.status == BillingRunStatus.ACTIVE.value,
        )
    ).first()


def _unchanged(current: BillingRun) -> BillingResult:
    """The active run, said again: a rerun that changes nothing writes nothing."""
    return BillingResult(
        run=current,
        unchanged=True,
        superseded=None,
        superseded_bills=0,
        mailed_superseded=0,
        total=current.total,
        expected_amount=current.expected_amount,
        difference=current.total - current.expected_amount,
        warnings=tuple(json.loads(current.warnings or "[]")),
    )


def _new_run(
    session: Session,
    actor: audit.Actor,
    ordinance: Ordinance,
    computed: _Computed,
    current: BillingRun | None,
    *,
    district_id: int,
    fy: str,
    run_on: date,
    due_date: date,
    reason: str,
    now: datetime,
) -> BillingRun:
    """The year's next run (its version one past the latest), active, superseding ``current``."""
    table = BillingRun.__table__  # type: ignore[attr-defined]
    latest = session.execute(
        select(func.coalesce(func.max(table.c.version), 0)).where(
            table.c.district_id == district_id,
            table.c.fiscal_year == fy,
        )
    ).scalar_one()
    return BillingRun(
        district_id=district_id,
        ordinance_id=ordinance.id or 0,
        fiscal_year=fy,
        version=int(latest) + 1,
        status=BillingRunStatus.ACTIVE.value,
        formula=computed.formula.text,
        parameters=computed.params_text,
        property_count=len(computed.properties),
        total=computed.result.total,
        expected_amount=ordinance.expected_amount,
        run_on=run_on,
        due_date=due_date,
        fingerprint=computed.fingerprint,
        warnings=json.dumps(list(computed.result.warnings), ensure_ascii=False),
        reason=reason,
        supersedes_id=current.id if current is not None else None,
        actor=actor.label,
        created_at=now,
    )


def _write_bills(session: Session, run: BillingRun, computed: _Computed, now: datetime) -> None:
    """One bill per property of the run, in bulk (integer cents precomputed)."""
    explanations = _explanations(computed.result.properties, computed.keys)
    session.execute(
        insert(_BILL_ROWS),
        [
            {
                "billing_run_id": run.id or 0,
                "district_id": run.district_id,
                "property_id": pid,
                "property_year_id": yid,
                "fiscal_year": run.fiscal_year,
                "amount": cents,
                "explanation": text,
                "explanation_es": text_es,
                "explanation_message": message,
                "due_date": run.due_date,
                "status": BillStatus.ACTIVE.value,
                "created_at": now,
            }
            for (pid, yid), cents, (text, text_es, message) in zip(
                computed.ids, computed.amounts, explanations, strict=True
            )
        ],
    )


def _book_the_run(
    session: Session,
    actor: audit.Actor,
    run: BillingRun,
    current: BillingRun | None,
    computed: _Computed,
) -> BillingResult:
    """After the run's bills are written: the superseded run's bills point to their
    replacements, the journal books the bills, the audit trail records the run."""
    superseded_bills = mailed = 0
    if current is not None:
        superseded_bills, mailed = _supersede_bills(session, current.id or 0, run.id or 0)
    # The special account's receivables: the run's bills are booked with it (in bulk).
    ledger.sync_bills(session=session, actor=actor, district_id=run.district_id)
    audit.record(
        session=session,
        actor=actor,
        action="billing_run.run",
        entity=run,
        after={
            **(audit.snapshot(run) or {}),
            "superseded_bills": superseded_bills,
            "mailed_superseded": mailed,
        },
    )
    total, expected = computed.result.total, run.expected_amount
    return BillingResult(
        run=run,
        unchanged=False,
        superseded=current,
        superseded_bills=superseded_bills,
        mailed_superseded=mailed,
        total=total,
        expected_amount=expected,
        difference=total - expected,
        warnings=tuple(computed.result.warnings),
    )


def check_run(
    *,
    session: Session,
    district_id: int,
    fiscal_year: str,
    parameters: Mapping[str, Any] | str | None = None,
    formula: bool = True,
) -> Ordinance:
    """What can be known before a run starts, each refusal naming its field: the fiscal
    year has an ordinance in force and a roll, the parameters are written well and (unless
    ``formula`` is False, when they are not) the formula uses each of them and reads only
    the roll's columns. The year's ordinance."""
    fy = periods.parse_fiscal_year(fiscal_year).label
    ordinance = ordinance_for(session=session, district_id=district_id, fiscal_year=fy)
    roll_gate.require_answered(session=session, district_id=district_id, fiscal_year=fy)
    if formula:
        _checked_formula(session, district_id, fy, ordinance, parse_parameters(parameters))
    elif not _has_roll(session, district_id, fy):
        raise InputError("fiscal_year", NO_ROLL)
    return ordinance


def run_billing(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fiscal_year: str,
    run_on: date,
    due_date: date | None = None,
    parameters: Mapping[str, Any] | str | None = None,
    ordinance_id: int | None = None,
    reason: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> BillingResult:
    """Bill every property of the district's roll for the fiscal year by the ordinance's
    formula (§ 6653(3)(d)); supersede the year's active run when the bills differ. One
    transaction: read the roll, compute, compare with the active run, supersede it, write the
    bills, book them in the journal. The caller commits; on ``InputError`` nothing has been
    written. ``progress(done, total)`` hears how many properties the run bills."""
    if session.get(District, district_id) is None:
        raise InputError("district", N_("There is no such district."))
    # The district's postings wait for the run: the journal books its bills in order.
    ledger.lock_district(session=session, district_id=district_id)
    fy = periods.parse_fiscal_year(fiscal_year).label
    ordinance = ordinance_for(
        session=session, district_id=district_id, fiscal_year=fy, ordinance_id=ordinance_id
    )
    roll_gate.require_answered(session=session, district_id=district_id, fiscal_year=fy)
    params = parse_parameters(parameters)
    reason = " ".join(reason.split())[:1000]
    formula, properties, ids = _read_the_roll(session, district_id, fy, ordinance, params)
    if progress is not None:  # the count, as soon as it is known
        progress(0, len(properties))
    computed = _compute(formula, properties, ids, params)
    current = active_run(session=session, district_id=district_id, fiscal_year=fy)
    if (
        current is not None
        and current.fingerprint == computed.fingerprint
        and (due_date is None or due_date == current.due_date)
    ):
        return _unchanged(current)
    due_date = _due_date(run_on, ordinance, current, due_date)
    now = utcnow()
    run = _new_run(
        session,
        actor,
        ordinance,
        computed,
        current,
        district_id=district_id,
        fy=fy,
        run_on=run_on,
        due_date=due_date,
        reason=reason,
        now=now,
    )
    if current is not None:
        _supersede_run(session, actor, current, now)
    session.add(run)
    session.flush()
    _write_bills(session, run, computed, now)
    return _book_the_run(session, actor, run, current, computed)
