"""The 30-day clock and the yearly notices: owners not notified, overdue runs, the yearly
notices scheduled, the daily job claiming its day once.
"""

from __future__ import annotations

from datetime import date

from flask import Flask
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.notice_support import (
    BASE_URL,
    SECRET,
    SENDER,
    issue_notices,
    mail_all,
    make_ordinance,
    make_run,
)
from tid.jobs import scheduled_jobs as jobs
from tid.models import Bill, JobRun
from tid.services import notices


def test_dashboard_counts_owners_not_notified_and_marks_overdue(
    session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    make_run(session, people.district, ordinance, owners=["A", "B", "C"])
    session.commit()
    # Received 2026-01-05 + 30 days = 2026-02-04, a Wednesday: the deadline.
    (row,) = notices.dashboard(
        session=session, district_ids={people.district.id or 0}, today=date(2026, 1, 20)
    )
    assert row.kind == "initial" and row.bills == 3 and row.not_notified == 3
    assert row.deadline is not None and row.deadline.date == date(2026, 2, 4)
    assert row.days_left == 15 and not row.overdue
    (late,) = notices.dashboard(
        session=session, district_ids={people.district.id or 0}, today=date(2026, 2, 6)
    )
    assert late.days_left == -2 and late.overdue
    assert (
        notices.dashboard(
            session=session, district_ids={people.other_district.id or 0}, today=date(2026, 2, 6)
        )
        == []
    )


def test_yearly_notices_are_scheduled_one_year_after_the_last_mailing(
    session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    first = make_run(session, people.district, ordinance, owners=["A", "B"])
    mail_all(session, *issue_notices(session, first))
    props = [session.get(Bill, b.id).property_id for b in first.bills]  # type: ignore[union-attr]
    from tid.models import Property

    second = make_run(
        session,
        people.district,
        ordinance,
        fiscal_year="2026-27",
        owners=["A", "B"],
        properties=[session.get(Property, p) for p in props],  # type: ignore[misc]
        due=date(2027, 3, 31),
    )
    session.commit()
    # Mailed 2026-01-22; one year later is 2027-01-22, a Friday: the yearly deadline.
    (row,) = [
        r
        for r in notices.dashboard(session=session, district_ids=None, today=date(2026, 12, 1))
        if r.run.id == second.run.id
    ]
    assert row.kind == "yearly" and row.deadline is not None
    assert row.deadline.date == date(2027, 1, 22)
    too_early = notices.schedule_yearly_notices(
        session=session, today=date(2026, 12, 1), portal_base_url=BASE_URL, secret=SECRET, workers=1
    )
    assert too_early == []  # 52 days ahead, more than the 30-day lead
    made = notices.schedule_yearly_notices(
        session=session,
        today=date(2026, 12, 28),
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
    )
    session.commit()
    assert len(made) == 1 and made[0].kind == "yearly" and made[0].notice_count == 2
    assert made[0].sender_name == SENDER["sender_name"]
    again = notices.schedule_yearly_notices(
        session=session,
        today=date(2026, 12, 29),
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
    )
    assert again == []  # idempotent: every bill has its notice


def test_the_daily_job_claims_its_day_once(app: Flask, session: Session, people: People) -> None:
    ordinance = make_ordinance(session, people.district)
    first = make_run(session, people.district, ordinance, owners=["A"])
    mail_all(session, *issue_notices(session, first))
    from tid.models import Property

    prop = session.get(Property, first.bills[0].property_id)
    make_run(
        session,
        people.district,
        ordinance,
        fiscal_year="2026-27",
        owners=["A"],
        properties=[prop],  # type: ignore[list-item]
        due=date(2027, 3, 31),
    )
    session.commit()
    engine = app.extensions["tid.engine"]
    config = {**app.config, "BASE_URL": BASE_URL, "SECRET_KEY": SECRET}
    made = jobs.run_yearly_notices(engine, config, date(2027, 1, 4))
    assert len(made) == 1
    assert jobs.run_yearly_notices(engine, config, date(2027, 1, 4)) == []  # claimed
    session.expire_all()
    run = session.exec(select(JobRun).where(JobRun.job == "yearly_notices")).one()
    assert run.status == "ok" and str(made[0]) in run.detail
