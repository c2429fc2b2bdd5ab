"""An installation's health, in one place for ``tid setup`` (tid/cli/setup.py) and the
administrator's installation page (``/admin/installation``):

- ``checks``: what answers at once — the database at the migrations' head, the base URL,
  the secret key, two-factor sign-in for administrators, the instance folder's permissions,
  the worker's and the scheduler's heartbeats;
- ``round_trips``: what takes time — a test message through the mail server, a backup
  written and restored into a scratch database — run by the command and by a background
  job, their last verdicts kept;
- ``facts``: the page's figures (the last backup's age, the queue, the disk, the versions);
- ``first_run``: the first administrator, the municipality and its first district, from a
  setup file or the command's questions.

Every verdict says what it found and, when it fails, what to fix, as messages said in the
reader's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from tid.clock import utcnow
from tid.services.installation import checks, round_trips
from tid.services.installation.checks import TITLES, Check

__all__ = ["TITLES", "Check", "current", "slow"]


def current(
    *, session: Session, engine: Engine, config: Mapping[str, Any], instance: Path
) -> list[Check]:
    """The page's checks: those that answer at once, now, and the slow ones' last verdicts."""
    found = checks.immediate(
        session=session, engine=engine, config=config, instance=instance, now=utcnow()
    )
    try:
        kept = {check.key: check for check in round_trips.kept(session=session)}
    except SQLAlchemyError:
        session.rollback()
        kept = {}
    return found + [kept.get(key) or checks.unanswered(key) for key in round_trips.SLOW]


def slow(
    *, session: Session, engine: Engine, config: Mapping[str, Any], mail_to: str, lang: str
) -> list[Check]:
    """Run the slow checks now and keep their verdicts (the caller commits)."""
    return round_trips.run(
        session=session, engine=engine, config=config, mail_to=mail_to, lang=lang
    )
