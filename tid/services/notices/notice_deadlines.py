"""The notices' clock (§ 6653(5)): each active billing run's deadline and the
owners not yet notified (``dashboard``), and the daily job that renders the yearly notices
before they are due (``schedule_yearly_notices``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from tid.models import (
    Bill,
    BillingRun,
    BillingRunStatus,
    BillStatus,
    District,
    Notice,
    NoticeBatch,
    NoticeKind,
    Ordinance,
)
from tid.rules import calendar
from tid.rules.errors import N_
from tid.services.audit_trail import audit
from tid.services.notices.contents import kind_for_run
from tid.services.notices.creation import bills_to_notify, create_batch


@dataclass(frozen=True)
class DashboardRow:
    """Where one billing run's notices stand against their deadline."""

    district: District
    run: BillingRun
    ordinance: Ordinance
    kind: str
    bills: int
    notified: int  # active bills with a mailed notice
    rendered: int  # active bills with a notice not yet mailed
    deadline: calendar.Deadline | None
    days_left: int | None
    note: str  # why there is no deadline, if there is none

    @property
    def not_notified(self) -> int:
        return self.bills - self.notified

    @property
    def overdue(self) -> bool:
        return self.days_left is not None and self.days_left < 0 and self.not_notified > 0


def _previous_mailing(session: Session, run: BillingRun) -> date | None:
    """The latest mailing date of the notices of earlier fiscal years of the ordinance."""
    value = session.exec(
        select(func.max(Notice.mailed_on))
        .select_from(Notice)
        .join(NoticeBatch, col(NoticeBatch.id) == col(Notice.batch_id))
        .join(BillingRun, col(BillingRun.id) == col(NoticeBatch.billing_run_id))
        .where(
            BillingRun.ordinance_id == run.ordinance_id,
            col(BillingRun.fiscal_year) < run.fiscal_year,
            col(Notice.mailed_on).is_not(None),
        )
    ).one()
    return value if isinstance(value, date) else None


def notice_deadline(
    *, session: Session, ordinance: Ordinance, run: BillingRun
) -> tuple[calendar.Deadline | None, str]:
    """The certified-mail deadline of a run's notices (§ 6653(5)): 30 days
    after the association received the ordinance for its first fiscal year; for a later
    year, one year after the previous year's notices went out (the calendar's reading)."""
    if kind_for_run(ordinance, run) == NoticeKind.INITIAL.value:
        if ordinance.received_by_association_on is None:
            return None, N_("The date the association received the ordinance is not recorded.")
        return calendar.initial_notice_due(ordinance.received_by_association_on), ""
    previous = _previous_mailing(session, run)
    if previous is None:
        if ordinance.received_by_association_on is None:
            return None, N_("The previous year's notices have not been mailed.")
        previous = calendar.initial_notice_due(ordinance.received_by_association_on).date
    return calendar.yearly_notice_due(previous), ""


def dashboard(
    *, session: Session, district_ids: Collection[int] | None, today: date
) -> list[DashboardRow]:
    """Every active billing run (of the districts given; None: all) with its owners not yet
    notified, the deadline and the days left (negative: overdue)."""
    stmt = select(BillingRun).where(
        BillingRun.status == BillingRunStatus.ACTIVE.value,
        # A run brought from a district's earlier books when it moved in (tid/services/aboard)
        # has no formula: its bills were billed, and mailed, by those books.
        BillingRun.formula != "",
    )
    if district_ids is not None:
        stmt = stmt.where(col(BillingRun.district_id).in_(list(district_ids)))
    runs = list(session.exec(stmt.order_by(col(BillingRun.fiscal_year).desc())))
    rows = []
    for run in runs:
        district = session.get(District, run.district_id)
        ordinance = session.get(Ordinance, run.ordinance_id)
        if district is None or ordinance is None:  # pragma: no cover
            continue
        bills = int(
            session.exec(
                select(func.count())
                .select_from(Bill)
                .where(Bill.billing_run_id == run.id, Bill.status == BillStatus.ACTIVE.value)
            ).one()
        )
        mailed = col(Notice.mailed_on).is_not(None)
        counts = dict(
            session.exec(
                select(
                    col(Notice.mailed_on).is_not(None), func.count(func.distinct(Notice.bill_id))
                )
                .join(Bill, col(Bill.id) == col(Notice.bill_id))
                .where(Bill.billing_run_id == run.id, Bill.status == BillStatus.ACTIVE.value)
                .group_by(mailed)
            ).all()
        )
        notified = int(counts.get(True, 0))
        rendered = int(counts.get(False, 0))
        deadline, note = notice_deadline(session=session, ordinance=ordinance, run=run)
        rows.append(
            DashboardRow(
                district=district,
                run=run,
                ordinance=ordinance,
                kind=kind_for_run(ordinance, run),
                bills=bills,
                notified=notified,
                rendered=rendered,
                deadline=deadline,
                days_left=calendar.days_left(deadline, today) if deadline else None,
                note=note,
            )
        )
    return rows


def schedule_yearly_notices(
    *,
    session: Session,
    today: date,
    portal_base_url: str,
    secret: str,
    actor: audit.Actor = audit.SYSTEM,
    lead_days: int = 30,
    workers: int | None = None,
) -> list[NoticeBatch]:
    """Daily job: for every later year of an ordinance's term whose yearly notice is due
    within ``lead_days`` (§ 6653(5)), render the notices of the year's active bills that have
    none, with the sender and payment text of the district's latest run. Mailing stays a
    person's act (article numbers, the post office). The caller commits."""
    made = []
    for row in dashboard(session=session, district_ids=None, today=today):
        if row.kind != NoticeKind.YEARLY.value or row.deadline is None:
            continue
        if row.deadline.date - timedelta(days=lead_days) > today:
            continue
        if not bills_to_notify(session=session, run=row.run, bill_ids=None):
            continue
        previous = session.exec(
            select(NoticeBatch)
            .where(NoticeBatch.district_id == row.district.id)
            .order_by(col(NoticeBatch.created_at).desc(), col(NoticeBatch.id).desc())
        ).first()
        if previous is None:
            continue  # the first notices are a person's: sender and payment text unknown
        made.append(
            create_batch(
                session=session,
                actor=actor,
                billing_run_id=row.run.id or 0,
                issued_on=today,
                sender_name=previous.sender_name,
                sender_address=previous.sender_address,
                how_to_pay=previous.how_to_pay,
                how_to_pay_en=previous.how_to_pay_en or None,
                portal_base_url=portal_base_url,
                secret=secret,
                workers=workers,
            )
        )
    return made
