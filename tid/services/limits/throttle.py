"""Limits on failed attempts (sign-in, password reset requests, the owners' portal), kept in
the database so that they hold across every worker.

Each key ("login-account:ana@example.pr", "portal-address:192.0.2.7", …) has one row. An
attempt is *reserved* before it is evaluated: the rows of its keys are locked (an upsert
that takes PostgreSQL's row lock or SQLite's write lock), checked, and counted as a failure
in the same transaction. Parallel attempts therefore queue on the row and each sees the
ones before it: the check and the count cannot race. A successful attempt then gives its
reservation back (:func:`release`).

After ``free`` failures every further failure makes the key wait ``base_delay``, doubling
each time (up to ``max_delay``); at ``lockout_after`` failures the key is locked for
``lockout`` (doubling with each failure beyond, up to a day). An administrator can lift a
lock-out at any time (:func:`lift`). Failures older than ``window`` are forgotten once no
lock is in force.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, delete, select

from tid.clock import utcnow
from tid.models import Throttle
from tid.services.audit_trail import audit

MAX_LOCKOUT = timedelta(days=1)


def key_part(text: str, limit: int = 180) -> str:
    """A typed value as part of a key: lower case, printable characters only (PostgreSQL
    refuses NUL), bounded."""
    return "".join(ch for ch in text.strip().lower() if ch.isprintable())[:limit]


@dataclass(frozen=True)
class Policy:
    free: int  # failures with no delay
    lockout_after: int  # failures that lock the key
    lockout: timedelta
    window: timedelta
    base_delay: timedelta = timedelta(0)
    max_delay: timedelta = timedelta(minutes=5)

    def wait_after(self, failures: int) -> timedelta | None:
        """How long the key must wait after its ``failures``-th failure (None: no wait)."""
        if failures >= self.lockout_after:
            extra = min(failures - self.lockout_after, 16)
            return min(self.lockout * (1 << extra), max(MAX_LOCKOUT, self.lockout))
        if failures > self.free and self.base_delay:
            doublings = min(failures - self.free - 1, 30)
            return min(self.base_delay * (1 << doublings), self.max_delay)
        return None


@dataclass(frozen=True)
class Refused:
    """The attempt was not evaluated: ``key`` must wait until ``until``."""

    key: str
    until: datetime
    locked: bool  # a lock-out (an administrator can lift it), not a short delay

    def seconds(self, now: datetime | None = None) -> int:
        return max(1, int(-(-(self.until - (now or utcnow())).total_seconds() // 1)))

    def minutes(self, now: datetime | None = None) -> int:
        return max(1, -(-self.seconds(now) // 60))


@dataclass
class Reservation:
    """An attempt counted as a failure until :func:`release` gives it back."""

    rules: dict[str, Policy] = field(default_factory=dict)
    at: datetime = field(default_factory=utcnow)


def _lock(session: Session, keys: Sequence[str], now: datetime) -> dict[str, Throttle]:
    """Make sure each key has its row and lock the rows (sorted: no deadlock between two
    attempts that share keys)."""
    dialect = session.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    for key in sorted(set(keys)):
        insert = module.insert(Throttle).values(key=key, failures=0, window_start=now)
        session.execute(
            insert.on_conflict_do_update(index_elements=["key"], set_={"key": insert.excluded.key})
        )
    rows = session.exec(
        select(Throttle)
        .where(col(Throttle.key).in_(list(keys)))
        .execution_options(populate_existing=True)
    )
    return {row.key: row for row in rows}


def _normalize(row: Throttle, policy: Policy, now: datetime) -> None:
    if row.blocked_until is not None and row.blocked_until <= now:
        row.blocked_until = None
    if row.blocked_until is None and now - row.window_start > policy.window:
        row.failures = 0
        row.window_start = now


def reserve(
    *,
    session: Session,
    rules: Sequence[tuple[str, Policy]],
    now: datetime | None = None,
    fresh_key: str | None = None,
) -> Reservation | Refused:
    """Check every key and, if none is waiting, count this attempt as a failure of each.
    The caller commits at once (before the slow part: the password hash).

    With ``fresh_key``, an attempt whose ``fresh_key`` has no failure is checked against
    that key alone: the other keys count it but do not refuse it (a waiting one keeps its
    wait as it is)."""
    now = now or utcnow()
    policies = dict(rules)
    rows = _lock(session, list(policies), now)
    for key, policy in policies.items():
        _normalize(rows[key], policy, now)
    checked = list(policies)
    if fresh_key is not None and rows[fresh_key].failures == 0:
        checked = [fresh_key]
    refusal: Refused | None = None
    for key in checked:
        row, policy = rows[key], policies[key]
        if row.blocked_until is not None and (refusal is None or row.blocked_until > refusal.until):
            refusal = Refused(key, row.blocked_until, row.failures >= policy.lockout_after)
    if refusal is not None:
        for row in rows.values():
            session.add(row)
        return refusal
    for key, policy in policies.items():
        row = rows[key]
        row.failures += 1
        row.last_failure_at = now
        if row.blocked_until is None or key in checked:
            wait = policy.wait_after(row.failures)
            row.blocked_until = now + wait if wait else None
        session.add(row)
    return Reservation(policies, now)


def release(*, session: Session, reservation: Reservation, clear: Collection[str] = ()) -> None:
    """The attempt succeeded: keys in ``clear`` start afresh; the others get the reserved
    failure back (their wait is recomputed from the failures before it)."""
    now = utcnow()
    rows = _lock(session, list(reservation.rules), now)
    for key, policy in reservation.rules.items():
        row = rows[key]
        if key in clear:
            row.failures = 0
            row.blocked_until = None
            row.window_start = now
        else:
            row.failures = max(0, row.failures - 1)
            wait = policy.wait_after(row.failures) if row.failures else None
            last = row.last_failure_at or now
            row.blocked_until = last + wait if wait and last + wait > now else None
        session.add(row)


def record(
    *, session: Session, rules: Sequence[tuple[str, Policy]], now: datetime | None = None
) -> None:
    """Count one failure under each key without checking (e.g. a request that always
    counts, like asking for a password reset)."""
    result = reserve(session=session, rules=rules, now=now)
    del result


def active(*, session: Session, prefix: str = "", now: datetime | None = None) -> list[Throttle]:
    """Keys that must wait now (lock-outs and delays), latest first."""
    now = now or utcnow()
    stmt = select(Throttle).where(col(Throttle.blocked_until) > now)
    if prefix:
        stmt = stmt.where(col(Throttle.key).startswith(prefix))
    return list(session.exec(stmt.order_by(col(Throttle.blocked_until).desc())))


def tries_left(
    *, session: Session, rules: Sequence[tuple[str, Policy]], now: datetime | None = None
) -> int:
    """How many more failures the keys allow before a lock-out (0: the next try waits)."""
    now = now or utcnow()
    left = []
    for key, policy in rules:
        row = state(session=session, key=key)
        if row is None:
            left.append(policy.lockout_after)
        elif row.blocked_until is not None and row.blocked_until > now:
            left.append(0)
        elif now - row.window_start > policy.window:
            left.append(policy.lockout_after)
        else:
            left.append(max(0, policy.lockout_after - row.failures))
    return min(left) if left else 0


def state(*, session: Session, key: str) -> Throttle | None:
    return session.exec(select(Throttle).where(Throttle.key == key)).first()


def prune(*, session: Session, before: datetime) -> None:
    """Forget keys with no failure since ``before`` and no wait in force."""
    session.exec(
        delete(Throttle).where(
            (col(Throttle.blocked_until).is_(None)) | (col(Throttle.blocked_until) < before),
            (col(Throttle.last_failure_at).is_(None)) | (col(Throttle.last_failure_at) < before),
        )
    )


def forgive(*, session: Session, keys: Collection[str]) -> None:
    """These keys start afresh (the person proved who they are another way)."""
    now = utcnow()
    for row in session.exec(select(Throttle).where(col(Throttle.key).in_(list(keys)))):
        row.failures = 0
        row.blocked_until = None
        row.window_start = now
        session.add(row)


def lift(*, session: Session, actor: audit.Actor, key: str) -> bool:
    """An administrator lifts a lock-out (or a delay): the key starts afresh."""
    row = session.exec(select(Throttle).where(Throttle.key == key)).first()
    if row is None:
        return False
    before = {"failures": row.failures, "blocked_until": str(row.blocked_until)}
    row.failures = 0
    row.blocked_until = None
    row.window_start = utcnow()
    session.add(row)
    audit.record(
        session=session,
        actor=actor,
        action="throttle.lift",
        entity=("throttle", row.id),
        before=before,
        after={"key": key},
    )
    return True
