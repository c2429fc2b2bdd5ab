"""Background jobs as the user sees them: one ``job`` row per piece of long work (a notice
run, a billing run, a roll import…), its progress, its result or why it failed.

A job is started once per form: the form carries a token, and a second submission of the
same form (a double click, a reload) finds the job that token already started. The worker
claims a queued job (``queued → running``), runs it, and writes ``done`` in the same
transaction as the work itself; a failure rolls the work back and records why, as a msgid
rendered later in the reader's language. A running job whose worker died (``kill -9``, a
lost machine) is queued again by the next worker that notices (:func:`orphaned`).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from tid.clock import utcnow
from tid.models import Job, JobState, SchedulerHeartbeat, WorkerHeartbeat
from tid.services.audit_trail import audit

HEARTBEAT_SECONDS = 10
SCHEDULER_HEARTBEAT_SECONDS = 30  # the scheduler's: it wakes for little else
STALE_AFTER = timedelta(seconds=60)  # a worker silent this long is taken for dead
LOST_AFTER = timedelta(minutes=10)  # a job queued this long with an empty queue lost its message
FINISHED = frozenset({JobState.DONE.value, JobState.FAILED.value})


def new_token() -> str:
    """A fresh token for a form that starts a job."""
    return secrets.token_urlsafe(18)


def clean_token(value: str | None) -> str:
    """The token a form sent back; a missing or odd one gets a fresh token (one job)."""
    text = (value or "").strip()
    if 16 <= len(text) <= 64 and all(c.isalnum() or c in "-_" for c in text):
        return text
    return new_token()


def start(
    *,
    session: Session,
    token: str,
    kind: str,
    actor: audit.Actor,
    params: Mapping[str, Any],
    district_id: int | None,
    target: str = "",
    locale: str = "es",
    total: int = 0,
) -> tuple[Job, bool]:
    """The job of this form's ``token``: the one it already started, or a new queued one
    (committed). Returns (job, created); enqueue it only when created. ``total``: how many
    things it will do, when the form knows (its page counts them from the first second)."""
    found = session.exec(select(Job).where(Job.token == token)).first()
    if found is not None:
        return found, False
    job = Job(
        token=token,
        kind=kind,
        target=target,
        district_id=district_id,
        user_id=actor.user_id,
        actor=actor.label,
        locale=locale if locale in ("es", "en") else "es",
        params=json.dumps(dict(params), sort_keys=True, default=str),
        total=max(0, total),
    )
    session.add(job)
    try:
        session.commit()
    except IntegrityError:  # the same form, submitted twice at the same moment
        session.rollback()
        existing = session.exec(select(Job).where(Job.token == token)).one()
        return existing, False
    audit.record(
        session=session,
        actor=actor,
        action="job.start",
        entity=("job", job.id),
        after={"kind": kind},
    )
    session.commit()
    return job, True


def params_of(job: Job) -> dict[str, Any]:
    value = json.loads(job.params or "{}")
    return value if isinstance(value, dict) else {}


def error_params(job: Job) -> dict[str, Any]:
    value = json.loads(job.error_params or "{}")
    return value if isinstance(value, dict) else {}


def worker_name() -> str:
    """This process as a worker: host, pid and a random tag (pids repeat in containers)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


def claim(engine: Engine, job_id: int, worker: str) -> bool:
    """Take a queued job for ``worker`` (its own transaction); False if it is not queued."""
    with Session(engine) as session:
        result = session.execute(
            update(Job)
            .where(col(Job.id) == job_id, col(Job.state) == JobState.QUEUED.value)
            .values(
                state=JobState.RUNNING.value,
                worker=worker,
                started_at=utcnow(),
                finished_at=None,
                done=0,
                attempts=col(Job.attempts) + 1,
            )
        )
        session.commit()
        return bool(getattr(result, "rowcount", 0) == 1)


def progress(
    engine: Engine, job_id: int, done: int, total: int, *, now: datetime | None = None
) -> None:
    """Record how far a running job is, and when it should be done, in a short transaction
    of its own. The estimated end only moves earlier (:func:`finish_by`), unless work was
    added."""
    moment = now or utcnow()
    with Session(engine) as session:
        job = session.get(Job, job_id)
        if job is None or job.state != JobState.RUNNING.value:
            return
        per_item = seconds_per_item(session=session, kind=job.kind) if done <= 0 else None
        end = finish_by(job, done=done, total=total, now=moment, per_item=per_item)
        session.execute(
            update(Job)
            .where(col(Job.id) == job_id, col(Job.state) == JobState.RUNNING.value)
            .values(done=done, total=total, finish_by=end)
        )
        session.commit()


def _naive(moment: datetime) -> datetime:
    """A moment in UTC without its zone (stored moments may come back without it)."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def finish_by(
    job: Job, *, done: int, total: int, now: datetime, per_item: float | None
) -> datetime | None:
    """When the job should be done once it has done ``done`` of ``total``: by its own pace
    once it has done something, by ``per_item`` (an earlier job's pace) before. Never later
    than the end said before (the time left never grows), unless work was added (``total``
    grew): then the new estimate stands."""
    added = total > job.total
    earlier = None if added else job.finish_by
    left = total - done
    if total <= 0 or left <= 0:
        return earlier
    estimate: float | None = None
    if done > 0 and job.started_at is not None:
        elapsed = max(0.0, (_naive(now) - _naive(job.started_at)).total_seconds())
        estimate = elapsed / done * left
    elif per_item is not None:
        estimate = per_item * left
    if estimate is None:
        return earlier
    new = _naive(now) + timedelta(seconds=estimate)
    end = new if earlier is None else min(_naive(earlier), new)
    return end.replace(tzinfo=UTC)


def finish(
    *,
    session: Session,
    job_id: int,
    result_url: str = "",
    result_label: str = "",
    result_sha256: str = "",
) -> None:
    """Mark the job done inside the work's own transaction (the caller commits both)."""
    job = session.get(Job, job_id)
    if job is None:  # pragma: no cover - the row is never deleted
        return
    job.state = JobState.DONE.value
    job.finished_at = utcnow()
    job.done = max(job.done, job.total)
    job.result_url = result_url
    job.result_label = result_label
    job.result_sha256 = result_sha256
    job.error = ""
    job.error_params = "{}"
    session.add(job)


def fail(engine: Engine, job_id: int, message: str, params: Mapping[str, Any]) -> None:
    """Record why the job failed (a msgid and its parameters), after its work rolled back."""
    with Session(engine) as session:
        job = session.get(Job, job_id)
        if job is None:  # pragma: no cover
            return
        job.state = JobState.FAILED.value
        job.finished_at = utcnow()
        job.error = message
        job.error_params = json.dumps(dict(params), sort_keys=True, default=str)
        session.add(job)
        session.commit()


def requeue(*, session: Session, job: Job) -> bool:
    """Put a failed job (or one whose worker died) back in the queue: True if it was."""
    result = session.execute(
        update(Job)
        .where(
            col(Job.id) == job.id,
            col(Job.state).in_([JobState.FAILED.value, JobState.RUNNING.value]),
            col(Job.worker) == job.worker,
        )
        .values(state=JobState.QUEUED.value, worker="", error="", error_params="{}")
    )
    session.commit()
    return bool(getattr(result, "rowcount", 0) == 1)


def _beat(engine: Engine, model: Any, key: str, name: str) -> None:
    """Say that the process ``name`` (``host:pid:tag``) is alive in ``model``'s table, whose
    key column is ``key``, and forget those silent for a day."""
    now = utcnow()
    with Session(engine) as session:
        row = session.get(model, name)
        if row is None:
            host, pid, _tag = name.split(":")
            row = model(**{key: name}, host=host, pid=int(pid), started_at=now)
        row.seen_at = now
        session.add(row)
        session.execute(
            model.__table__.delete().where(col(model.seen_at) < now - timedelta(days=1))
        )
        session.commit()


def _last(session: Session, model: Any) -> Any:
    row = session.exec(select(model).order_by(col(model.seen_at).desc())).first()
    return row.seen_at if row is not None else None


def beat(engine: Engine, worker: str) -> None:
    """Say that ``worker`` is alive (and forget workers silent for a day)."""
    _beat(engine, WorkerHeartbeat, "worker", worker)


def last_heartbeat(*, session: Session) -> Any:
    """When a worker last said it was alive (None: never)."""
    return _last(session, WorkerHeartbeat)


def scheduler_beat(engine: Engine, scheduler: str) -> None:
    """Say that the scheduler ``scheduler`` (named like a worker) is alive, and forget
    schedulers silent for a day."""
    _beat(engine, SchedulerHeartbeat, "scheduler", scheduler)


def last_scheduler_heartbeat(*, session: Session) -> Any:
    """When a scheduler last said it was alive (None: never)."""
    return _last(session, SchedulerHeartbeat)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def orphaned(*, session: Session, me: str) -> list[Job]:
    """Running jobs whose worker is gone: on this host a process that no longer exists (or
    this very pid under another tag: a restarted container), elsewhere a worker whose
    heartbeat is older than ``STALE_AFTER``."""
    host, pid, _tag = me.split(":")
    seen = {
        w.worker: w.seen_at for w in session.exec(select(WorkerHeartbeat)) if w.seen_at is not None
    }
    now = utcnow()
    found = []
    for job in session.exec(select(Job).where(Job.state == JobState.RUNNING.value)):
        if not job.worker or job.worker == me:
            continue
        its_host, its_pid, _its_tag = ([*job.worker.split(":"), "", "", ""])[:3]
        if its_host == host:
            gone = its_pid == pid or not its_pid.isdigit() or not _pid_alive(int(its_pid))
        else:
            last = seen.get(job.worker)
            gone = last is None or now - last > STALE_AFTER
        if gone:
            found.append(job)
    return found


def waiting_since(*, session: Session, before: datetime) -> list[int]:
    """Jobs queued before ``before`` that no worker has taken."""
    stmt = select(Job.id).where(Job.state == JobState.QUEUED.value, col(Job.created_at) < before)
    return [int(i) for i in session.exec(stmt) if i is not None]


@dataclass(frozen=True)
class Scope:
    """Which jobs a user may see: all (None), or those of these districts plus their own."""

    district_ids: Collection[int] | None
    user_id: int


def visible(*, session: Session, scope: Scope, limit: int = 100) -> list[Job]:
    stmt = select(Job).order_by(col(Job.id).desc()).limit(limit)
    if scope.district_ids is not None:
        stmt = stmt.where(
            col(Job.district_id).in_(list(scope.district_ids)) | (col(Job.user_id) == scope.user_id)
        )
    return list(session.exec(stmt))


def latest_of(*, session: Session, targets: Sequence[str], kind: str) -> dict[str, Job]:
    """The most recent job of ``kind`` on each of ``targets`` that has one (a page with
    several documents to prepare asks once)."""
    latest = (
        select(func.max(Job.id))
        .where(col(Job.target).in_(targets), Job.kind == kind)
        .group_by(col(Job.target))
    )
    return {job.target: job for job in session.exec(select(Job).where(col(Job.id).in_(latest)))}


def latest_for(*, session: Session, target: str, kind: str) -> Job | None:
    """The most recent job of ``kind`` on ``target`` (to show on the page that starts it)."""
    return session.exec(
        select(Job)
        .where(Job.target == target, Job.kind == kind)
        .order_by(col(Job.id).desc())
        .limit(1)
    ).first()


def seconds_per_item(*, session: Session, kind: str) -> float | None:
    """How long one thing (a notice, a property…) took in the latest finished job of
    ``kind`` that counted them: what a new job's time left is told by before it has done
    any. None without such a job."""
    job = session.exec(
        select(Job)
        .where(
            Job.kind == kind,
            Job.state == JobState.DONE.value,
            col(Job.total) > 0,
            col(Job.started_at).is_not(None),
            col(Job.finished_at).is_not(None),
        )
        .order_by(col(Job.id).desc())
        .limit(1)
    ).first()
    if job is None or job.started_at is None or job.finished_at is None:
        return None
    taken = job.finished_at.replace(tzinfo=None) - job.started_at.replace(tzinfo=None)
    return max(0.0, taken.total_seconds()) / job.total


def seconds_left(job: Job, *, now: datetime, per_item: float | None) -> float | None:
    """The time a running job still needs: until the end its progress last set
    (:func:`finish_by`), which only moves earlier; None once that moment has passed (the
    count alone then). A job that never said when it ends is told by its own pace once it
    has done something, by ``per_item`` (an earlier job's pace) before; None when neither
    is known."""
    if not job.total or job.done >= job.total:
        return None
    if job.finish_by is not None:
        remaining = (_naive(job.finish_by) - _naive(now)).total_seconds()
        return remaining if remaining > 0 else None
    left = job.total - job.done
    if job.done > 0 and job.started_at is not None:
        elapsed = max(0.0, (_naive(now) - _naive(job.started_at)).total_seconds())
        return elapsed / job.done * left
    if per_item is None:
        return None
    return per_item * left
