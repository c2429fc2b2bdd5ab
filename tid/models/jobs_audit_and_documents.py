"""What was done and what was issued: the audit trail, the runs of the scheduled jobs, the
archive of issued documents, the background jobs started from the web and the task
queue's own tables."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import BigInteger, Column, LargeBinary, String, Text, UniqueConstraint, event
from sqlmodel import Field, SQLModel

from tid.clock import utcnow


class AuditEvent(SQLModel, table=True):
    """Who did what to which record, when, with the values before and after (JSON)."""

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, index=True)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    actor: str = Field(max_length=254)
    action: str = Field(max_length=80)
    entity_type: str = Field(max_length=60)
    entity_id: str = Field(max_length=60)
    before: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    after: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class JobRun(SQLModel, table=True):
    """One run of a scheduled job for one scheduled day; unique, so a second scheduler or a
    restart never does the same day's work twice."""

    __table_args__ = (UniqueConstraint("job", "scheduled_day"),)

    id: int | None = Field(default=None, primary_key=True)
    job: str = Field(max_length=80)
    scheduled_day: date
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    status: str = Field(default="running", max_length=20)
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class ArchivedDocument(SQLModel, table=True):
    """The bytes of a document as it was issued (a notice, a print file, a manifest), keyed
    by their SHA-256: written once, never changed. Kept in the database so that every worker
    and every backup has the same archive."""

    __tablename__ = "archived_document"

    sha256: str = Field(sa_column=Column(String(64), primary_key=True))
    content: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    size: int
    media_type: str = Field(default="application/pdf", max_length=60)
    created_at: datetime = Field(default_factory=utcnow)


@event.listens_for(ArchivedDocument, "before_update")
def _archive_is_write_once(_mapper: Any, _connection: Any, target: ArchivedDocument) -> None:
    """An archived document is what was issued: it is never rewritten."""
    raise ValueError(f"archived document {target.sha256} cannot be changed")


class JobState(StrEnum):
    """queued → running → done | failed (a running job whose worker died goes back to queued)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Job(SQLModel, table=True):
    """One piece of long work a user started from the web (a notice run, a billing run…),
    run by ``tid worker``. ``token`` is the form's own token, so a second click or a reload
    finds this row instead of starting the work again. The work and ``state = done`` are
    committed in one transaction: a job is either wholly done or has left nothing."""

    __table_args__ = (UniqueConstraint("token"),)

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(max_length=64)
    kind: str = Field(max_length=40)
    target: str = Field(default="", max_length=80, index=True)  # what it works on: "run:12"
    district_id: int | None = Field(default=None, foreign_key="district.id", index=True)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    actor: str = Field(max_length=254)
    locale: str = Field(default="es", max_length=5)
    params: str = Field(default="{}", sa_column=Column(Text, nullable=False, server_default="{}"))
    state: str = Field(default=JobState.QUEUED.value, max_length=10, index=True)
    done: int = 0
    total: int = 0
    attempts: int = 0
    worker: str = Field(default="", max_length=120)  # host:pid of the worker running it
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # When the work should be done, by the pace so far: never later than said before unless
    # work was added (the time left a page shows never grows).
    finish_by: datetime | None = None
    result_url: str = Field(default="", max_length=300)
    result_label: str = Field(default="", max_length=120)  # a msgid
    result_sha256: str = Field(default="", max_length=64)  # an archived document, if any
    error: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    error_params: str = Field(
        default="{}", sa_column=Column(Text, nullable=False, server_default="{}")
    )


class WorkerHeartbeat(SQLModel, table=True):
    """A ``tid worker`` says it is alive every few seconds (``/readyz`` wants one seen in the
    last minute; a running job whose worker fell silent is queued again)."""

    __tablename__ = "worker_heartbeat"

    worker: str = Field(sa_column=Column(String(120), primary_key=True))
    host: str = Field(max_length=100)
    pid: int
    started_at: datetime = Field(default_factory=utcnow)
    seen_at: datetime = Field(default_factory=utcnow, index=True)


class SchedulerHeartbeat(SQLModel, table=True):
    """``tid scheduler`` says it is alive every half minute (the installation's page and
    ``tid setup`` want one heard from lately)."""

    __tablename__ = "scheduler_heartbeat"

    scheduler: str = Field(sa_column=Column(String(120), primary_key=True))
    host: str = Field(max_length=100)
    pid: int
    started_at: datetime = Field(default_factory=utcnow)
    seen_at: datetime = Field(default_factory=utcnow, index=True)


class InstallationCheck(SQLModel, table=True):
    """The last verdict of a check of the installation that takes time (a test message
    through the mail server, a backup restored into a scratch database): what it found and
    what to fix, each a msgid with its parameters (JSON)."""

    __tablename__ = "installation_check"

    key: str = Field(sa_column=Column(String(40), primary_key=True))
    ok: bool = False
    checked_at: datetime = Field(default_factory=utcnow)
    said: str = Field(default="{}", sa_column=Column(Text, nullable=False, server_default="{}"))
    fix: str = Field(default="{}", sa_column=Column(Text, nullable=False, server_default="{}"))


# The task queue's own tables when the database is PostgreSQL and no Redis is configured
# (tid/jobs/queue.py: Huey's storage on the application's database, SELECT … FOR UPDATE SKIP
# LOCKED). On SQLite the queue is a SqliteHuey file in the instance folder instead.


class QueueTask(SQLModel, table=True):
    __tablename__ = "queue_task"

    id: int | None = Field(default=None, primary_key=True)
    queue: str = Field(max_length=60, index=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    priority: int = 0


class QueueSchedule(SQLModel, table=True):
    __tablename__ = "queue_schedule"

    id: int | None = Field(default=None, primary_key=True)
    queue: str = Field(max_length=60, index=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    run_at_us: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))  # epoch µs


class QueueResult(SQLModel, table=True):
    __tablename__ = "queue_result"
    __table_args__ = (UniqueConstraint("queue", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    queue: str = Field(max_length=60)
    key: str = Field(max_length=200)
    value: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
