"""The processes beside the web app: the scheduler, the worker, and the health check a
container runs (``tid scheduler``, ``tid worker``, ``tid health``)."""

from __future__ import annotations

import json
import sys

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.errors import fail
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message


@click.command("scheduler")
@with_appcontext
@click.option("--once", is_flag=True, help="Run the daily digest once now and exit.")
@click.option("--day", default=None, help="With --once: the day to sweep (YYYY-MM-DD).")
def scheduler_command(once: bool, day: str | None) -> None:
    """Run the scheduled jobs (the daily deadline digest) in this process, until stopped.

    Run it in exactly one process; a second one, or a restart, never sends a day's digest
    twice (each day's run is claimed in the database first).
    """
    from datetime import date

    from tid.jobs import scheduled_jobs as jobs
    from tid.jobs import scheduler

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if not once:
        scheduler.run_blocking(app)
        return
    try:
        sweep_day = date.fromisoformat(day) if day else jobs.today_for(app)
    except ValueError:
        fail(InputError("day", Message(N_('"%(day)s" is not a date like "2026-03-02"'), day=day)))
        return
    if sweep_day > jobs.today_for(app):
        # Claiming a future day would keep that day's real digest from going out.
        fail(InputError("day", Message(N_("%(day)s is in the future."), day=sweep_day)))
        return
    result = jobs.run_daily_digest(app, sweep_day)
    if not result.claimed:
        click.echo(f"The digest of {sweep_day.isoformat()} was already sent; nothing to do.")
        return
    click.echo(
        f"Digest of {sweep_day.isoformat()}: {result.flagged} deadline(s) flagged, "
        f"{result.messages} message(s) to {', '.join(result.recipients) or 'no one'}."
    )


@click.command("worker")
@with_appcontext
@click.option(
    "-w",
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Jobs run at once (default: TID_WORKERS, 2).",
)
@click.option(
    "--kind",
    type=click.Choice(["thread", "process"]),
    default="thread",
    show_default=True,
    help="Run the jobs in threads of this process or in child processes.",
)
@click.option("--once", is_flag=True, help="Run the jobs waiting in the queue now and exit.")
def worker_command(workers: int | None, kind: str, once: bool) -> None:
    """Run the background jobs (Huey's consumer) until stopped: notice runs, mailing,
    billing runs, roll imports. Start as many as you like, on as many machines as share the
    queue; each says it is alive in the database every few seconds."""
    from tid.jobs import tasks

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if once:
        tasks.sweep(app)
        click.echo(f"{tasks.run_pending(app)} job(s) run.")
        return
    tasks.run_worker(app, workers=workers or int(app.config.get("WORKERS") or 2), kind=kind)


@click.command("health")
@with_appcontext
@click.option(
    "--database-only", is_flag=True, help="Only the database and its migrations (no worker)."
)
def health_command(database_only: bool) -> None:
    """Print what /readyz says (database, migrations, queue, a worker's heartbeat) and exit
    0 when ready: a container's health check."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    response = app.test_client().get("/readyz")
    report = response.get_json()
    click.echo(json.dumps(report, sort_keys=True))
    checks = report["checks"]
    ready = (
        checks["database"] and checks["migrations"]
        if database_only
        else response.status_code == 200
    )
    sys.exit(0 if ready else 1)
