"""What the installation's page shows beside the checks: the last backup's age, the queue's
depth and its oldest waiting job, the disk left, and the versions of what runs."""

from __future__ import annotations

import platform
import shutil
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from tid.models import Job, JobState
from tid.services.installation.round_trips import last_backup


@dataclass(frozen=True)
class Facts:
    last_backup: Path | None
    last_backup_at: datetime | None
    queue_depth: int | None  # None: the queue did not answer
    waiting_jobs: int
    oldest_waiting: Job | None
    disk_free: int | None
    disk_total: int | None
    versions: dict[str, str]


def aware(value: datetime) -> datetime:
    """A stored timestamp in UTC (SQLite gives it back without its zone)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "—"


def database_version(*, engine: Engine) -> str:
    """The database server's name and version."""
    if engine.dialect.name == "sqlite":
        return f"SQLite {sqlite3.sqlite_version}"
    try:
        with engine.connect() as conn:
            value = conn.execute(text("SHOW server_version")).scalar()
    except Exception:  # a database that does not answer: its check says so
        return f"{engine.dialect.name} —"
    return f"PostgreSQL {value}"


def versions(*, engine: Engine) -> dict[str, str]:
    return {
        "tid": _version("tid"),
        "Python": platform.python_version(),
        "database": database_version(engine=engine),
        "WeasyPrint": _version("weasyprint"),
    }


def gather(
    *,
    session: Session,
    engine: Engine,
    config: Mapping[str, Any],
    instance: Path,
    queue_depth: int | None,
) -> Facts:
    """The page's facts; ``queue_depth``: the queue's own count of waiting tasks (its
    storage: SQLite's file, PostgreSQL's table, Redis), None when it did not answer."""
    found = last_backup(config=config)
    queued = Job.state == JobState.QUEUED.value
    waiting = session.exec(select(func.count()).select_from(Job).where(queued)).one()
    oldest = session.exec(
        select(Job).where(queued).order_by(col(Job.created_at), col(Job.id)).limit(1)
    ).first()
    free: int | None = None
    total: int | None = None
    try:
        disk = shutil.disk_usage(instance)
        free, total = disk.free, disk.total
    except OSError:
        pass
    return Facts(
        last_backup=found[0] if found else None,
        last_backup_at=datetime.fromtimestamp(found[1], UTC) if found else None,
        queue_depth=queue_depth,
        waiting_jobs=int(waiting),
        oldest_waiting=oldest,
        disk_free=free,
        disk_total=total,
        versions=versions(engine=engine),
    )
