"""The daily deadline digest: a real SMTP server on loopback receives it; a second run for
the same day sends nothing; the scheduler wiring and the command."""

from __future__ import annotations

import email
import re
import time
from datetime import date

import pytest
from flask import Flask
from sqlmodel import Session, select

from tests.conftest import People
from tests.smtp_support import Inbox, body_of, free_port
from tid import mail
from tid.jobs import scheduled_jobs as jobs
from tid.jobs import scheduler as tid_scheduler
from tid.models import AuditEvent, JobRun
from tid.services import petitions as svc
from tid.services.audit_trail import audit

ACTOR = audit.Actor("tests")
DAY = date(2026, 5, 28)


def _configure(app: Flask, port: int) -> None:
    app.config.update(
        SMTP_HOST="127.0.0.1",
        SMTP_PORT=port,
        MAIL_FROM="legislatura@tid.example.pr",
        BASE_URL="https://tid.example.pr",
    )


def _seed(session: Session, people: People) -> None:
    for name, received, municipality in (
        # 2026-01-02 + 90 = 2026-04-02 (Thursday): on 2026-05-28, 56 days overdue.
        ("DMT Tarde", "2026-01-02", people.municipality.id),
        # 2026-03-05 + 90 = 2026-06-03 (Wednesday): 6 days left.
        ("DMT Pronto", "2026-03-05", people.municipality.id),
        # 2026-05-01 + 90 = 2026-07-30 (Thursday): 63 days left, not in the digest.
        ("DMT Lejos", "2026-05-01", people.municipality.id),
        # 2026-03-01 + 90 = 2026-05-30, a Saturday → 05-31 Sunday → Monday 2026-06-01: 4 days.
        ("DMT Ponce", "2026-03-01", people.other_municipality.id),
    ):
        svc.record_petition(
            session=session,
            actor=ACTOR,
            municipality_id=municipality,
            district_name=name,
            petitioner="Alcalde",
            received_on=received,
            documents="",
            today=DAY,
        )
    session.commit()


def test_the_digest_goes_to_each_municipalitys_clerks_once(
    app: Flask, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    _configure(app, port)
    _seed(session, people)
    result = jobs.run_daily_digest(app, DAY)
    assert result.claimed and result.flagged == 3 and result.messages == 2
    assert sorted(result.recipients) == ["clerk@example.pr", "clerk@ponce.example.pr"]
    assert len(inbox.messages) == 2
    by_recipient = {tuple(to): message for to, message in inbox.messages}
    san_juan = by_recipient[("clerk@example.pr",)]
    assert san_juan["From"] == "legislatura@tid.example.pr"
    assert "San Juan" in str(
        email.header.make_header(email.header.decode_header(san_juan["Subject"]))
    )
    body = body_of(san_juan)
    # Spanish first, then English; the overdue one before the one due soon; not DMT Lejos.
    spanish = body.index("Vence la ordenanza el 2 abr 2026, VENCIDO hace 56 días")
    soon = body.index("Vence la ordenanza el 3 jun 2026, quedan 6 días")
    english = body.index("Ordinance due Apr 2, 2026, OVERDUE by 56 days")
    assert spanish < soon < english
    assert "Ordinance due Jun 3, 2026, 6 days left" in body
    assert not re.search(r"\d{4}-\d{2}-\d{2}", body)  # every day as its language writes it
    assert "DMT Lejos" not in body and "DMT Ponce" not in body
    assert "https://tid.example.pr/petitions/" in body
    ponce = body_of(by_recipient[("clerk@ponce.example.pr",)])
    assert "30 may 2026, sábado" in ponce and "se traslada al 1 jun 2026" in ponce
    assert "DMT Tarde" not in ponce

    # The same day again (a second scheduler, a restart): nothing is sent.
    again = jobs.run_daily_digest(app, DAY)
    assert not again.claimed and again.messages == 0
    time.sleep(0.2)
    assert len(inbox.messages) == 2
    runs = session.exec(select(JobRun)).all()
    assert [(r.job, r.scheduled_day, r.status) for r in runs] == [("daily_digest", DAY, "done")]
    sends = session.exec(select(AuditEvent).where(AuditEvent.action == "digest.send")).all()
    assert len(sends) == 2 and all(e.actor == "system" for e in sends)


def test_a_day_with_nothing_due_sends_nothing(
    app: Flask, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    _configure(app, port)
    _seed(session, people)
    result = jobs.run_daily_digest(app, date(2026, 1, 5))  # every clock has 80+ days left
    assert result.claimed and result.flagged == 0 and result.messages == 0
    assert inbox.messages == []


def test_the_sweep_takes_an_engine_too(
    app: Flask, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    _seed(session, people)
    settings = mail.MailSettings(host="127.0.0.1", port=port, sender="tid@example.pr")
    result = jobs.run_daily_digest(app.extensions["tid.engine"], DAY, settings=settings)
    assert result.messages == 2 and len(inbox.messages) == 2


def test_a_failed_send_is_recorded_and_not_repeated(
    app: Flask, session: Session, people: People
) -> None:
    _configure(app, free_port())  # nobody listens there
    _seed(session, people)
    with pytest.raises(OSError):
        jobs.run_daily_digest(app, DAY)
    run = session.exec(select(JobRun)).one()
    assert run.status == "failed" and "error" in run.detail
    assert not jobs.run_daily_digest(app, DAY).claimed


def test_the_scheduler_runs_the_digest_daily_and_once_at_start(app: Flask) -> None:
    from apscheduler.schedulers.background import BackgroundScheduler

    scheduler = tid_scheduler.configure(BackgroundScheduler(), app)
    ids = sorted(job.id for job in scheduler.get_jobs())
    assert ids == [
        "account_statements",
        "account_statements_at_start",
        "archive_verify",
        "daily_digest",
        "daily_digest_at_start",
        "owner_mail",
        "scheduler_heartbeat",
        "yearly_notices",
    ]
    # The day's round of the yearly statements as each day begins in Puerto Rico.
    statements = scheduler.get_job("account_statements")
    assert "hour='0'" in str(statements.trigger) and "minute='1'" in str(statements.trigger)
    daily = scheduler.get_job("daily_digest")
    assert "hour='6'" in str(daily.trigger) and "minute='0'" in str(daily.trigger)
    yearly = scheduler.get_job("yearly_notices")
    assert "hour='5'" in str(yearly.trigger) and "minute='30'" in str(yearly.trigger)


def test_the_command_runs_the_sweep_once(
    app: Flask, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    _configure(app, port)
    _seed(session, people)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["scheduler", "--once", "--day", DAY.isoformat()])
    assert result.exit_code == 0, result.output
    assert "3 deadline(s) flagged, 2 message(s)" in result.output
    result = runner.invoke(args=["scheduler", "--once", "--day", DAY.isoformat()])
    assert "already sent" in result.output
    assert len(inbox.messages) == 2
    bad = runner.invoke(args=["scheduler", "--once", "--day", "ayer"])
    assert bad.exit_code == 2
    app.config["TODAY"] = DAY
    future = runner.invoke(args=["scheduler", "--once", "--day", "2026-05-29"])
    assert future.exit_code == 2 and "future" in future.output
