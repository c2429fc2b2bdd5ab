"""The task queue (Huey 3): where long work waits for ``tid worker``.

Which storage follows the deployment, so that nothing more has to be installed:

- ``TID_REDIS_URL`` set: :class:`huey.RedisHuey` — several web and worker machines share it;
- PostgreSQL: :class:`PostgresStorage`, three tables on the application's own database
  (``queue_task``, ``queue_schedule``, ``queue_result``), dequeued with
  ``SELECT … FOR UPDATE SKIP LOCKED`` so that workers never wait on each other;
- SQLite: :class:`huey.SqliteHuey`, a file in the instance folder (``instance/queue.sqlite``).

Huey also ships ``huey.contrib.sql_huey.SqlHuey``, but on peewee and psycopg2 (a second ORM
and a second PostgreSQL driver) with plain ``FOR UPDATE``; the storage here is ~100 lines on
the engine the app already has, and its tables come with the migrations.

The queue carries one task, :func:`tid.jobs.tasks.run_job`, with a job's id; everything a user
sees about the job is in the ``job`` table (tid/jobs/background_jobs.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from huey import Huey, RedisHuey, SqliteHuey
from huey.constants import EmptyData
from huey.storage import BaseStorage
from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from tid.models import QueueResult, QueueSchedule, QueueTask

QUEUE_NAME = "tid"
SQLITE_BUSY_SECONDS = 30

_task = QueueTask.__table__  # type: ignore[attr-defined]
_schedule = QueueSchedule.__table__  # type: ignore[attr-defined]
_result = QueueResult.__table__  # type: ignore[attr-defined]
_COUNTER = "counter\x1f"  # a unit separator: no key Huey writes has one


def _micros(ts: datetime) -> int:
    return int(ts.timestamp() * 1_000_000)


class PostgresStorage(BaseStorage):  # type: ignore[misc]
    """Huey's storage on the application's PostgreSQL database (also works on any database
    SQLAlchemy speaks that has ``SKIP LOCKED``)."""

    blocking = False
    priority = True

    def __init__(self, name: str = QUEUE_NAME, engine: Engine | None = None, **_: Any) -> None:
        super().__init__(name)
        if engine is None:
            raise ValueError("PostgresStorage needs the application's engine")
        self.engine = engine

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    # -- the queue
    def enqueue(self, data: bytes, priority: float | None = None) -> None:
        with self._tx() as conn:
            conn.execute(
                insert(_task).values(queue=self.name, data=bytes(data), priority=priority or 0)
            )

    def dequeue(self) -> bytes | None:
        with self._tx() as conn:
            row = conn.execute(
                select(_task.c.id, _task.c.data)
                .where(_task.c.queue == self.name)
                .order_by(_task.c.priority.desc(), _task.c.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if row is None:
                return None
            conn.execute(delete(_task).where(_task.c.id == row.id))
            return bytes(row.data)

    def queue_size(self) -> int:
        with self._tx() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(_task).where(_task.c.queue == self.name)
                ).scalar_one()
            )

    def enqueued_items(self, limit: int | None = None) -> list[bytes]:
        stmt = (
            select(_task.c.data)
            .where(_task.c.queue == self.name)
            .order_by(_task.c.priority.desc(), _task.c.id)
            .limit(limit)
        )
        with self._tx() as conn:
            return [bytes(d) for (d,) in conn.execute(stmt)]

    def flush_queue(self) -> None:
        with self._tx() as conn:
            conn.execute(delete(_task).where(_task.c.queue == self.name))

    # -- the schedule (delayed tasks and retries)
    def add_to_schedule(self, data: bytes, ts: datetime) -> None:
        with self._tx() as conn:
            conn.execute(
                insert(_schedule).values(queue=self.name, data=bytes(data), run_at_us=_micros(ts))
            )

    def read_schedule(self, ts: datetime) -> list[bytes]:
        with self._tx() as conn:
            rows = conn.execute(
                select(_schedule.c.id, _schedule.c.data)
                .where(_schedule.c.queue == self.name, _schedule.c.run_at_us <= _micros(ts))
                .order_by(_schedule.c.run_at_us, _schedule.c.id)
                .with_for_update(skip_locked=True)
            ).all()
            if rows:
                conn.execute(delete(_schedule).where(_schedule.c.id.in_([r.id for r in rows])))
            return [bytes(r.data) for r in rows]

    def schedule_size(self) -> int:
        with self._tx() as conn:
            return int(
                conn.execute(
                    select(func.count())
                    .select_from(_schedule)
                    .where(_schedule.c.queue == self.name)
                ).scalar_one()
            )

    def scheduled_items(self, limit: int | None = None) -> list[bytes]:
        stmt = (
            select(_schedule.c.data)
            .where(_schedule.c.queue == self.name)
            .order_by(_schedule.c.run_at_us, _schedule.c.id)
            .limit(limit)
        )
        with self._tx() as conn:
            return [bytes(d) for (d,) in conn.execute(stmt)]

    def flush_schedule(self) -> None:
        with self._tx() as conn:
            conn.execute(delete(_schedule).where(_schedule.c.queue == self.name))

    # -- results and other keys
    def _where(self, key: str) -> Any:
        return (_result.c.queue == self.name) & (_result.c.key == key)

    def put_data(self, key: str, value: bytes, is_result: bool = False) -> None:
        with self._tx() as conn:
            conn.execute(delete(_result).where(self._where(key)))
            conn.execute(insert(_result).values(queue=self.name, key=key, value=bytes(value)))

    def peek_data(self, key: str) -> Any:
        with self._tx() as conn:
            value = conn.execute(select(_result.c.value).where(self._where(key))).scalar()
        return EmptyData if value is None else bytes(value)

    def pop_data(self, key: str) -> Any:
        with self._tx() as conn:
            value = conn.execute(
                delete(_result).where(self._where(key)).returning(_result.c.value)
            ).scalar()
        return EmptyData if value is None else bytes(value)

    def has_data_for_key(self, key: str) -> bool:
        return self.peek_data(key) is not EmptyData

    def put_if_empty(self, key: str, value: bytes, ttl: int | None = None) -> bool:
        if ttl is not None:
            raise NotImplementedError("ttl is not supported by this storage.")
        try:
            with self._tx() as conn:
                conn.execute(insert(_result).values(queue=self.name, key=key, value=bytes(value)))
        except IntegrityError:
            return False
        return True

    def incr(self, key: str, amount: int = 1) -> int:
        counter = _COUNTER + key
        with self._tx() as conn:
            # Serialise increments of one counter on a transaction-scoped advisory lock.
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": counter})
            current = conn.execute(select(_result.c.value).where(self._where(counter))).scalar()
            value = (int(bytes(current)) if current is not None else 0) + amount
            if current is None:
                conn.execute(
                    insert(_result).values(queue=self.name, key=counter, value=b"%d" % value)
                )
            else:
                conn.execute(
                    update(_result).where(self._where(counter)).values(value=b"%d" % value)
                )
        return value

    def delete_counter(self, key: str) -> None:
        with self._tx() as conn:
            conn.execute(delete(_result).where(self._where(_COUNTER + key)))

    def _results(self) -> Any:
        return (_result.c.queue == self.name) & ~_result.c.key.startswith(_COUNTER)

    def result_store_size(self) -> int:
        with self._tx() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(_result).where(self._results())
                ).scalar_one()
            )

    def result_items(self) -> dict[str, bytes]:
        with self._tx() as conn:
            rows = conn.execute(select(_result.c.key, _result.c.value).where(self._results()))
            return {k: bytes(v) for k, v in rows}

    def flush_results(self) -> None:
        with self._tx() as conn:
            conn.execute(delete(_result).where(self._results()))

    def flush_counters(self) -> None:
        with self._tx() as conn:
            conn.execute(
                delete(_result).where(
                    (_result.c.queue == self.name) & _result.c.key.startswith(_COUNTER)
                )
            )


def describe(config: dict[str, Any]) -> str:
    """Which queue this configuration uses: ``redis``, ``postgresql`` or ``sqlite``."""
    if config.get("REDIS_URL"):
        return "redis"
    if str(config["DATABASE_URL"]).startswith("postgresql"):
        return "postgresql"
    return "sqlite"


def make_huey(config: dict[str, Any], instance: Path, engine: Engine) -> Huey:
    """The Huey of this configuration (see the module's docstring)."""
    kind = describe(config)
    # results=False: what a job produced is in the job table; Huey keeps no results.
    if kind == "redis":
        return RedisHuey(QUEUE_NAME, url=str(config["REDIS_URL"]), results=False)
    if kind == "postgresql":
        return Huey(QUEUE_NAME, results=False, storage_class=PostgresStorage, engine=engine)
    # The file (and its journal and WAL, which take its mode) for the app's user alone; a
    # writer waits up to SQLITE_BUSY_SECONDS for another's lock before it gives up.
    from tid.files import create_private

    create_private(instance / "queue.sqlite")
    return SqliteHuey(
        QUEUE_NAME,
        filename=str(instance / "queue.sqlite"),
        results=False,
        timeout=SQLITE_BUSY_SECONDS,
    )
