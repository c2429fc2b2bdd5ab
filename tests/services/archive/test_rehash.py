"""The archive checks itself: one corrupted byte in an archived notice is reported by
``tid archive verify``, by the weekly job (recorded, audited and mailed to the
administrators), and the portal refuses to hand out the corrupted bytes."""

from __future__ import annotations

import json
from datetime import date

import pytest
from flask import Flask
from sqlalchemy import update
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.notice_support import (
    issue_notices,
    make_ordinance,
    make_run,
)
from tests.smtp_support import Inbox
from tests.smtp_support import body_of as _body
from tid.jobs import scheduled_jobs as jobs
from tid.jobs import scheduler as tid_scheduler
from tid.models import ArchivedDocument, AuditEvent, JobRun, Notice
from tid.services import archive, notices

SUNDAY = date(2026, 5, 31)


def _issue(session: Session, people: People) -> list[Notice]:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, owners=["Peña Müller", "王小明"])
    return issue_notices(session, billed)[1]


def _corrupt_one_byte(session: Session, sha256: str) -> None:
    """Flip one byte in the middle of the stored document, under the ORM's write-once guard
    (as a failing disk or a hand-edited backup would)."""
    document = session.get(ArchivedDocument, sha256)
    assert document is not None
    data = bytearray(document.content)
    data[len(data) // 2] ^= 0x01
    session.execute(
        update(ArchivedDocument.__table__)  # type: ignore[arg-type]
        .where(ArchivedDocument.__table__.c.sha256 == sha256)  # type: ignore[attr-defined]
        .values(content=bytes(data))
    )
    session.commit()
    session.expire_all()


def test_an_intact_archive_verifies(session: Session, people: People) -> None:
    found = _issue(session, people)
    report = archive.verify(session=session)
    # Two notices and the print file.
    assert report.ok and report.checked == 3 and report.total_bytes > 0
    assert "every one matches" in report.summary_en()
    assert {n.pdf_sha256 for n in found} <= {
        d.sha256 for d in session.exec(select(ArchivedDocument))
    }


def test_one_corrupted_byte_is_reported_with_the_notice_it_belongs_to(
    app: Flask, session: Session, people: People
) -> None:
    found = _issue(session, people)
    target = found[1]
    _corrupt_one_byte(session, target.pdf_sha256)
    report = archive.verify(session=session)
    assert report.checked == 3
    assert [m.sha256 for m in report.mismatches] == [target.pdf_sha256]
    mismatch = report.mismatches[0]
    assert mismatch.used_by == (f"notice {target.number}",)
    assert mismatch.actual_sha256 != target.pdf_sha256
    assert mismatch.actual_size == mismatch.recorded_size
    assert target.number in report.summary_en() and target.number in report.summary_es()
    assert f"used by: notice {target.number}" in report.summary_en()
    assert f"usado por: aviso {target.number}" in report.summary_es()
    assert "NO coinciden con su SHA-256" in report.summary_es()

    runner = app.test_cli_runner()
    result = runner.invoke(args=["archive", "verify", "--lang", "en"])
    assert result.exit_code == 1
    assert target.pdf_sha256 in result.output and f"notice {target.number}" in result.output

    # Nothing hands out the corrupted bytes as if they were the notice.
    with pytest.raises(RuntimeError, match=target.pdf_sha256):
        notices.notice_pdf_bytes(session=session, notice=target)


# No language asked of the environment: the command speaks the installation's, Spanish.
NO_LANGUAGE: dict[str, str | None] = {"LC_ALL": None, "LC_MESSAGES": None, "LANG": None}


def test_the_command_says_so_when_all_is_well(app: Flask, session: Session, people: People) -> None:
    _issue(session, people)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["archive", "verify"], env=NO_LANGUAGE)
    assert result.exit_code == 0, result.output
    assert "3 documento(s) archivado(s)" in result.output and "todos coinciden" in result.output
    english = runner.invoke(args=["archive", "verify"], env={**NO_LANGUAGE, "LANG": "en_US.UTF-8"})
    assert "3 archived document(s)" in english.output and "every one matches" in english.output


def test_a_tampered_lien_certificate_is_named_by_its_kind_and_number(
    app: Flask, session: Session, people: People
) -> None:
    """A lien certificate whose archived PDF changed is named as such, with its reference,
    in the installation's language: not "not referenced"."""
    from tests.services.aboard.support import district_with_rolls, example_files, load
    from tid.app_reader import reader
    from tid.documents import closing
    from tid.models import IssuedDocument, Property

    app.config["TODAY"] = "2026-02-15"
    district_id = district_with_rolls(session, people)
    load(session, district_id, example_files("es"))
    session.commit()
    prop = session.exec(select(Property).where(Property.cadastral_number == "040-010-001-02")).one()
    with app.app_context():
        closing.lien_certificate(
            session, district=district_id, property=prop.id or 0, reader=reader("es")
        )
        session.commit()
    certificate = session.exec(select(IssuedDocument)).one()
    assert certificate.kind == "lien_certificate"
    _corrupt_one_byte(session, certificate.sha256)
    result = app.test_cli_runner().invoke(args=["archive", "verify"], env=NO_LANGUAGE)
    assert result.exit_code == 1
    line = next(line for line in result.output.splitlines() if certificate.sha256 in line)
    assert f"usado por: Certificación del gravamen de la imposición {certificate.reference}" in line
    assert "sin referencias" not in result.output
    english = app.test_cli_runner().invoke(args=["archive", "verify", "--lang", "en"])
    assert f"used by: Certificate of the impost lien {certificate.reference}" in english.output


def test_the_weekly_job_mails_the_result_to_the_administrators_once(
    app: Flask,
    session: Session,
    people: People,
    smtp: tuple[Inbox, int],
) -> None:
    inbox, port = smtp
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=port, MAIL_FROM="tid@example.pr")
    found = _issue(session, people)
    _corrupt_one_byte(session, found[0].pdf_sha256)

    result = jobs.run_archive_verify(app, SUNDAY)
    assert result.claimed and result.checked == 3
    assert result.mismatches == (found[0].pdf_sha256,)
    assert result.recipients == (people.admin.email,)
    assert len(inbox.messages) == 1
    to, message = inbox.messages[0]
    assert to == [people.admin.email]
    body = _body(message)
    assert body.index("NO coinciden") < body.index("do NOT match")  # Spanish first
    assert found[0].pdf_sha256 in body and f"notice {found[0].number}" in body

    run = session.exec(select(JobRun).where(JobRun.job == jobs.ARCHIVE_VERIFY)).one()
    assert run.scheduled_day == SUNDAY and run.status == "mismatch"
    assert json.loads(run.detail)["mismatches"] == [found[0].pdf_sha256]
    events = session.exec(select(AuditEvent).where(AuditEvent.action == "archive.verify")).all()
    assert len(events) == 1

    # The same week's run again (a restart, a second scheduler): nothing more.
    assert not jobs.run_archive_verify(app, SUNDAY).claimed
    assert len(inbox.messages) == 1


def test_the_scheduler_checks_the_archive_every_sunday(app: Flask) -> None:
    from apscheduler.schedulers.background import BackgroundScheduler

    scheduler = tid_scheduler.configure(BackgroundScheduler(), app)
    weekly = scheduler.get_job(jobs.ARCHIVE_VERIFY)
    assert weekly is not None
    trigger = str(weekly.trigger)
    assert "day_of_week='sun'" in trigger and "hour='4'" in trigger
