"""The scheduled jobs' bodies, run by a worker's task (tid/jobs/tasks.py) that the scheduler
queues (tid/jobs/scheduler.py), or by ``tid digest --once``.

The daily sweep (:func:`run_daily_digest`) flags the petitions' running clocks that are
overdue or due within ten days (21 LPRA § 6653(2), (7)) and mails a digest to each
municipality's clerks, Spanish first, then English. A run first claims its day in ``JobRun``
(unique job + day) in a transaction of its own: a second scheduler, a restart or a catch-up
run that finds the day taken sends nothing. The claim is kept even when sending fails (the
failure is recorded in the row), so a digest goes out at most once a day.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from flask import Flask
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tid import mail
from tid.clock import today, utcnow
from tid.db import session_scope
from tid.models import JobRun, Municipality, PetitionState, Role, User
from tid.rules.messages import Message, day_text, render
from tid.services import petitions as svc
from tid.services.audit_trail import audit

log = logging.getLogger(__name__)

DAILY_DIGEST = "daily_digest"
DIGEST_HOUR = 6  # 06:00 in Puerto Rico, before the legislature's office opens


@dataclass(frozen=True)
class DigestResult:
    """What one call of the sweep did."""

    day: date
    claimed: bool  # False: another run already had this day; nothing was sent
    flagged: int = 0  # running clocks overdue or due within the window
    messages: int = 0
    recipients: tuple[str, ...] = ()
    skipped_municipalities: tuple[str, ...] = field(default=())  # flagged, but no clerk


def _engine_and_config(app_or_engine: Flask | Engine) -> tuple[Engine, dict[str, Any]]:
    if isinstance(app_or_engine, Flask):
        engine: Engine = app_or_engine.extensions["tid.engine"]
        return engine, dict(app_or_engine.config)
    from tid import config as tid_config

    return app_or_engine, tid_config.defaults(tid_config.instance_path())


def _claim(engine: Engine, job: str, day: date) -> int | None:
    """Insert the job's row for ``day`` in its own transaction; None if someone has it."""
    try:
        with session_scope(engine) as session:
            run = JobRun(job=job, scheduled_day=day)
            session.add(run)
            session.flush()
            return run.id
    except IntegrityError:
        return None


def _finish(engine: Engine, run_id: int, status: str, detail: dict[str, Any]) -> None:
    with session_scope(engine) as session:
        run = session.get(JobRun, run_id)
        if run is not None:
            run.status = status
            run.finished_at = utcnow()
            run.detail = json.dumps(detail, ensure_ascii=False, sort_keys=True, default=str)
            session.add(run)


def _clerks(session: Session, municipality_id: int) -> list[str]:
    stmt = (
        select(User)
        .where(
            User.role == Role.CLERK.value,
            User.municipality_id == municipality_id,
            User.active == True,  # noqa: E712
        )
        .order_by(col(User.email))
    )
    return [u.email for u in session.exec(stmt)]


def _line(row: svc.DashboardRow, base_url: str, lang: str) -> str:
    clock = row.clock
    assert clock is not None
    p = row.petition
    if clock.days_left < 0:
        status = Message("OVERDUE by %(days)s days", days=-clock.days_left)
    elif clock.days_left == 0:
        status = Message("due TODAY")
    else:
        status = Message("%(days)s days left", days=clock.days_left)
    state = svc.STATE_LABELS.get(PetitionState(p.state))
    line = Message(
        "- %(district)s (%(state)s): %(clock)s %(due)s, %(status)s.",
        district=p.district_name,
        state=Message(state) if state else p.state,
        clock=Message(svc.CLOCK_LABELS[clock.kind]),
        due=clock.due,
        status=status,
    )
    why = Message(
        "%(explanation)s. %(citation)s.", explanation=clock.explanation, citation=clock.citation
    )
    return f"{render(line, lang)}\n  {render(why, lang)}\n  {base_url}/petitions/{p.id}"


def compose_digest(
    municipality: str, rows: list[svc.DashboardRow], day: date, base_url: str
) -> tuple[str, str]:
    """The digest's subject and body: Spanish first, then English (one set of messages)."""
    base = base_url.rstrip("/")
    heading = Message(
        "TID petition deadlines — %(municipality)s — %(day)s",
        municipality=municipality,
        day=day,
    )
    subject = f"{render(heading, 'es')} / {render(Message('TID petition deadlines'), 'en')}"
    overdue = sum(1 for r in rows if r.clock is not None and r.clock.days_left < 0)
    intro = Message(
        "Tourism improvement district petitions of %(municipality)s, as of %(day)s. Deadlines "
        "overdue or due within %(soon)s days: %(count)s (overdue: %(overdue)s).",
        municipality=municipality,
        day=day,
        count=len(rows),
        soon=svc.SOON_DAYS,
        overdue=overdue,
    )
    es = [render(intro, "es"), "", *(_line(r, base, "es") for r in rows)]
    en = [render(intro, "en"), "", *(_line(r, base, "en") for r in rows)]
    body = "\n".join(
        [
            *es,
            "",
            "— English —",
            "",
            *en,
            "",
            "21 LPRA § 6653(2), (7); 1 LPRA § 72.",
        ]
    )
    return subject, body + "\n"


def run_daily_digest(
    app_or_engine: Flask | Engine,
    day: date,
    *,
    settings: mail.MailSettings | None = None,
) -> DigestResult:
    """The daily sweep for ``day``: claim the day, find the running clocks that are overdue
    or due within ``SOON_DAYS``, and mail each municipality's clerks their digest."""
    engine, config = _engine_and_config(app_or_engine)
    settings = settings or mail.MailSettings.from_config(config)
    base_url = str(config.get("BASE_URL") or "")
    run_id = _claim(engine, DAILY_DIGEST, day)
    if run_id is None:
        log.info("daily digest for %s already taken by another run", day)
        return DigestResult(day=day, claimed=False)
    sent: list[dict[str, Any]] = []
    recipients: list[str] = []
    skipped: list[str] = []
    flagged_count = 0
    try:
        with Session(engine, expire_on_commit=False) as session:
            rows = svc.due_soon(svc.dashboard(session=session, today=day))
            flagged_count = len(rows)
            grouped: dict[int, list[svc.DashboardRow]] = defaultdict(list)
            for row in rows:
                grouped[row.petition.municipality_id].append(row)
            for municipality_id, its_rows in sorted(grouped.items()):
                municipality = session.get(Municipality, municipality_id)
                name = municipality.name if municipality else str(municipality_id)
                to = _clerks(session, municipality_id)
                if not to:
                    skipped.append(name)
                    continue
                subject, body = compose_digest(name, its_rows, day, base_url)
                mail.send(settings, to, subject, body)
                petitions_sent = [r.petition.id for r in its_rows]
                sent.append({"municipality": name, "to": to, "petitions": petitions_sent})
                recipients += to
                audit.record(
                    session=session,
                    actor=audit.SYSTEM,
                    action="digest.send",
                    entity=("job_run", run_id),
                    after={
                        "day": day.isoformat(),
                        "municipality": name,
                        "to": to,
                        "petitions": petitions_sent,
                    },
                )
                session.commit()
    except Exception as exc:
        _finish(engine, run_id, "failed", {"error": repr(exc), "sent": sent})
        raise
    _finish(
        engine,
        run_id,
        "done",
        {"flagged": flagged_count, "sent": sent, "no_clerk": skipped},
    )
    return DigestResult(
        day=day,
        claimed=True,
        flagged=flagged_count,
        messages=len(sent),
        recipients=tuple(recipients),
        skipped_municipalities=tuple(skipped),
    )


# --------------------------------------------------------------------------- the scheduler


def today_for(app: Flask) -> date:
    return today(app.config)


# --------------------------------------------------------------------------- the archive

ARCHIVE_VERIFY = "archive_verify"


@dataclass(frozen=True)
class ArchiveCheckResult:
    """What one weekly check of the archive did."""

    day: date
    claimed: bool
    checked: int = 0
    mismatches: tuple[str, ...] = ()  # the SHA-256 keys whose bytes no longer match
    recipients: tuple[str, ...] = ()


def _admins(session: Session) -> list[str]:
    stmt = (
        select(User)
        .where(User.role == Role.ADMIN.value, User.active == True)  # noqa: E712
        .order_by(col(User.email))
    )
    return [u.email for u in session.exec(stmt)]


def compose_archive_message(report: Any, day: date) -> tuple[str, str]:
    """The administrators' message about the archive: Spanish first, then English."""
    state = "OK" if report.ok else f"{len(report.mismatches)} ≠"
    es_day, en_day = day_text(day, "es"), day_text(day, "en")
    subject = f"Archivo de documentos / Document archive — {es_day} — {state}"
    body = "\n".join(
        [
            f"Verificación semanal del archivo de documentos ({es_day}).",
            report.summary_es(),
            "",
            "— English —",
            "",
            f"Weekly check of the document archive ({en_day}).",
            report.summary_en(),
            "",
            "tid archive verify",
        ]
    )
    return subject, body + "\n"


def run_archive_verify(
    app_or_engine: Flask | Engine, day: date, *, settings: mail.MailSettings | None = None
) -> ArchiveCheckResult:
    """The weekly check for ``day``: claim it, re-hash every archived document
    (tid/services/archive/rehash.py), record the result on the claim and mail it to the
    administrators (when there are any)."""
    from tid.config import archive_dir
    from tid.services import archive

    engine, config = _engine_and_config(app_or_engine)
    settings = settings or mail.MailSettings.from_config(config)
    run_id = _claim(engine, ARCHIVE_VERIFY, day)
    if run_id is None:
        return ArchiveCheckResult(day=day, claimed=False)
    try:
        with Session(engine, expire_on_commit=False) as session:
            report = archive.verify(session=session, folder=archive_dir(config))
            to = _admins(session)
            if to:
                subject, body = compose_archive_message(report, day)
                mail.send(settings, to, subject, body)
            bad = [m.sha256 for m in report.mismatches]
            audit.record(
                session=session,
                actor=audit.SYSTEM,
                action="archive.verify",
                entity=("job_run", run_id),
                after={"day": day.isoformat(), "checked": report.checked, "mismatches": bad},
            )
            session.commit()
    except Exception as exc:
        _finish(engine, run_id, "failed", {"error": repr(exc)})
        raise
    detail = {"checked": report.checked, "bytes": report.total_bytes, "mismatches": bad, "to": to}
    _finish(engine, run_id, "done" if report.ok else "mismatch", detail)
    return ArchiveCheckResult(day, True, report.checked, tuple(bad), tuple(to))


YEARLY_NOTICES = "yearly_notices"


def run_yearly_notices(
    app_or_engine: Flask | Engine, config: Mapping[str, Any] | None = None, day: date | None = None
) -> list[int]:
    """The yearly notices' daily run: claim the day in ``JobRun`` (a second scheduler or a
    restart does nothing), render the yearly notices due (21 LPRA § 6653(5);
    ``notices.schedule_yearly_notices``) and forget failed portal look-ups older than a day.
    Returns the new batches' ids (none when the day was already taken)."""
    from tid.config import portal_code_secret
    from tid.services import notices
    from tid.services.owners import portal

    engine, app_config = _engine_and_config(app_or_engine)
    config = config if config is not None else app_config
    day = day or today(config)
    run_id = _claim(engine, YEARLY_NOTICES, day)
    if run_id is None:
        log.info("yearly notices for %s already taken by another run", day)
        return []
    try:
        with session_scope(engine) as session:
            made = notices.schedule_yearly_notices(
                session=session,
                today=day,
                portal_base_url=str(config.get("BASE_URL") or ""),
                secret=portal_code_secret(config),
            )
            session.flush()
            ids = [b.id or 0 for b in made]
            portal.prune_attempts(session=session, before=utcnow() - timedelta(days=1))
    except Exception as exc:  # recorded on the claim, then raised for the worker's log
        _finish(engine, run_id, "failed", {"error": str(exc)[:500]})
        raise
    _finish(engine, run_id, "ok", {"batches": ids})
    return ids


# --------------------------------------------------------------------------- owners' mail

OWNER_MAIL = "owner_mail"
OWNER_MAIL_HOUR = 7  # 07:00 in Puerto Rico


@dataclass(frozen=True)
class OwnerMailResult:
    """What one run of the owners' mail did: messages sent and refused by the mail server,
    by kind, and the addresses deleted (expired unconfirmed, or of a former owner)."""

    day: date
    copies: int = 0
    reminders: int = 0
    failed: int = 0
    pruned: int = 0


def run_owner_mail(
    app_or_engine: Flask | Engine, day: date, *, settings: mail.MailSettings | None = None
) -> OwnerMailResult:
    """Send what is due to the owners' confirmed addresses on ``day``: the digital copy of
    each notice mailed since they confirmed, and the reminder ``OWNER_REMINDER_DAYS`` days
    before a bill's due date while it is owed. Each message is claimed in a transaction of
    its own before it is sent (tid/services/owners/owner_mail.py), so any number of runs send it
    once; the run is safe to repeat (after a notice run is mailed, and daily)."""
    from tid.config import portal_code_secret
    from tid.services.owners import owner_email, owner_mail

    engine, config = _engine_and_config(app_or_engine)
    settings = settings or mail.MailSettings.from_config(config)
    links = owner_email.Links(str(config.get("BASE_URL") or ""))
    secret = portal_code_secret(config)
    days = int(config.get("OWNER_REMINDER_DAYS") or owner_mail.DEFAULT_REMINDER_DAYS)
    with session_scope(engine) as session:
        pruned = owner_email.prune(session=session)
    with Session(engine, expire_on_commit=False) as session:
        items = owner_mail.due(session=session, today=day, reminder_days=days)
    sent = {owner_mail.COPY: 0, owner_mail.REMINDER: 0}
    failed = 0
    for item in items:
        with Session(engine, expire_on_commit=False) as session:
            message_id = owner_mail.claim(session=session, item=item)
            session.commit()
            if message_id is None:  # another run has it
                continue
            made = owner_mail.compose(session=session, item=item, links=links, secret=secret)
            error = "" if made is not None else "the address was removed"
            if made is not None:
                try:
                    mail.send(
                        settings,
                        [made.to],
                        made.subject,
                        made.body,
                        headers=made.headers,
                        attachments=made.attachments,
                    )
                except Exception as exc:  # tried again by the next run
                    error = type(exc).__name__
                    log.warning("owner message %s not sent: %s", item.key, exc)
            owner_mail.finish(session=session, message_id=message_id, error=error)
            session.commit()
        if error:
            failed += made is not None
        else:
            sent[item.kind] += 1
    return OwnerMailResult(day, sent[owner_mail.COPY], sent[owner_mail.REMINDER], failed, pruned)
