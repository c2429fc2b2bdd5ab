"""The scheduler (APScheduler 3): it runs in exactly one process, ``tid scheduler``, or
inside the demo's development server (``SCHEDULER_IN_PROCESS``), and only queues: the daily
digest, the yearly notices and the owners' mail go to a worker as tasks (tid/jobs/tasks.py),
whose handlers run the jobs' bodies (tid/jobs/scheduled_jobs.py); the weekly archive check runs
here.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from flask import Flask

from tid.clock import PUERTO_RICO
from tid.jobs import tasks
from tid.jobs.scheduled_jobs import (
    ARCHIVE_VERIFY,
    DAILY_DIGEST,
    DIGEST_HOUR,
    OWNER_MAIL,
    OWNER_MAIL_HOUR,
    YEARLY_NOTICES,
    run_archive_verify,
    today_for,
)

log = logging.getLogger(__name__)
STATEMENTS = "account_statements"  # the day's round of the yearly statements


def digest_job(app: Flask) -> None:
    """The scheduled call: queue today's digest for a worker (tid/jobs/tasks.py); the day's
    job token makes a second scheduler's call a no-op, and the day's claim in ``JobRun``
    keeps the digest from going out twice even then."""
    try:
        tasks.schedule(app, tasks.DAILY_DIGEST, today_for(app))
    except Exception:
        log.exception("daily digest could not be queued")


def archive_verify_job(app: Flask) -> None:
    """The scheduled call: this week's check of the archive."""
    try:
        result = run_archive_verify(app, today_for(app))
    except Exception:
        log.exception("archive check failed")
        return
    if result.mismatches:
        log.error("archive check: %d document(s) do not match", len(result.mismatches))


def yearly_notices_job(app: Flask) -> None:
    """The scheduled call: queue the yearly notices due (21 LPRA § 6653(5)) for a worker;
    a day already queued or taken is a quiet no-op."""
    try:
        tasks.schedule(app, tasks.YEARLY_NOTICES, today_for(app))
    except Exception:
        log.exception("yearly notices could not be queued")


def owner_mail_job(app: Flask) -> None:
    """The scheduled call: queue today's copies and reminders to the owners' confirmed
    email addresses for a worker; each message is sent once whatever runs."""
    try:
        tasks.schedule(app, tasks.OWNER_MAIL, today_for(app))
    except Exception:
        log.exception("owners' mail could not be queued")


def statements_job(app: Flask) -> None:
    """The scheduled call: queue the day's round of the yearly statements readers open first
    (tid/web/account/prepared.py) for a worker; a day already queued is a quiet no-op."""
    try:
        tasks.schedule(app, tasks.ACCOUNT_STATEMENTS, today_for(app))
    except Exception:
        log.exception("the yearly statements could not be queued")


def heartbeat_job(app: Flask, name: str) -> None:
    """The scheduler says it is alive (the installation's checks look for it)."""
    from tid.jobs import background_jobs

    try:
        background_jobs.scheduler_beat(app.extensions["tid.engine"], name)
    except Exception:
        log.exception("scheduler heartbeat failed")


def configure(scheduler: Any, app: Flask, *, catch_up: bool = True, delay: float = 0) -> Any:
    """Add the jobs to ``scheduler``: the digest every day at 06:00 in Puerto Rico, and once
    ``delay`` seconds after start so that a scheduler started after 06:00 does not skip the
    day (the day's claim in ``JobRun`` makes the extra run harmless)."""
    from apscheduler.triggers.cron import CronTrigger

    job: Callable[[Flask], None] = digest_job
    # Each job, when it runs, and how late a missed run may still start.
    timetable: list[tuple[Callable[[Flask], None], str, dict[str, Any], int]] = [
        (job, DAILY_DIGEST, {"hour": DIGEST_HOUR, "minute": 0}, 6),
        (yearly_notices_job, YEARLY_NOTICES, {"hour": DIGEST_HOUR - 1, "minute": 30}, 6),
        (owner_mail_job, OWNER_MAIL, {"hour": OWNER_MAIL_HOUR, "minute": 0}, 12),
        (archive_verify_job, ARCHIVE_VERIFY, {"day_of_week": "sun", "hour": 4, "minute": 0}, 24),
        (statements_job, STATEMENTS, {"hour": 0, "minute": 1}, 24),
    ]
    for function, job_id, when, grace_hours in timetable:
        scheduler.add_job(
            function,
            CronTrigger(**when, timezone=PUERTO_RICO),
            args=[app],
            id=job_id,
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=grace_hours * 3600,
        )
    from apscheduler.triggers.interval import IntervalTrigger

    from tid.jobs import background_jobs

    scheduler.add_job(
        heartbeat_job,
        IntervalTrigger(seconds=background_jobs.SCHEDULER_HEARTBEAT_SECONDS),
        args=[app, background_jobs.worker_name()],
        id="scheduler_heartbeat",
        replace_existing=True,
        coalesce=True,
        max_instances=1,
        next_run_time=datetime.now(PUERTO_RICO),
    )
    if catch_up:
        for at_start, name in ((job, DAILY_DIGEST), (statements_job, STATEMENTS)):
            scheduler.add_job(
                at_start,
                args=[app],
                id=f"{name}_at_start",
                replace_existing=True,
                next_run_time=datetime.now(PUERTO_RICO) + timedelta(seconds=delay),
            )
    return scheduler


def run_blocking(app: Flask) -> None:
    """``tid scheduler``: the jobs in this process, until interrupted."""
    from apscheduler.schedulers.blocking import BlockingScheduler

    scheduler = configure(BlockingScheduler(timezone=PUERTO_RICO), app)
    app.logger.info("scheduler started (daily digest at %02d:00 Puerto Rico)", DIGEST_HOUR)
    try:
        scheduler.start()
    except (KeyboardInterrupt, SystemExit):
        scheduler.shutdown(wait=False)


START_DELAY = 20.0  # seconds
_started = threading.Lock()
_in_process: list[Any] = []


def start_in_process(app: Flask) -> None:
    """Start the scheduler inside this process (development server only), once."""
    from apscheduler.schedulers.background import BackgroundScheduler

    if app.testing:
        return
    with _started:
        if _in_process:
            return
        # The start-up run waits a little: a short command (``tid demo``, ``tid db upgrade``)
        # that builds the app with the scheduler on has exited by then.
        scheduler = configure(
            BackgroundScheduler(timezone=PUERTO_RICO, daemon=True), app, delay=START_DELAY
        )
        scheduler.start()
        _in_process.append(scheduler)
        atexit.register(lambda: scheduler.shutdown(wait=False))
    app.logger.info("in-process scheduler started (daily digest at %02d:00)", DIGEST_HOUR)
