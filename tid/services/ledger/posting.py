"""Posting: the one way into the journal. An entry is balanced, booked once per key, under
the district's lock, with its running balances in the same transaction."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import bindparam, insert
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from tid.clock import utcnow
from tid.models import (
    JournalEntry,
    JournalLine,
)
from tid.rules.errors import N_, InputError
from tid.rules.money import CENT, MAX_ACCOUNT_AMOUNT, ZERO
from tid.services.account import year_locks
from tid.services.audit_trail import audit
from tid.services.ledger.accounts import (
    Line,
)
from tid.services.ledger.running import ENTRIES, ENTRY_COLUMNS, LINES, add_to_balances


@dataclass(frozen=True)
class Posted:
    """An entry and its lines; ``booked`` is False when the key was already in the journal
    (the same payment posted again), in which case nothing was written."""

    entry: JournalEntry
    lines: tuple[Line | JournalLine, ...]  # as posted (Line), or as read back (JournalLine)
    booked: bool


# --------------------------------------------------------------------------- posting

AMOUNT_TOO_LARGE = N_("An amount of the special account can be at most 999,999,999.99.")


def _check_lines(lines: Sequence[Line]) -> None:
    """An entry's lines: at least one, each a non-zero amount in whole cents, none above what
    the special account holds, adding up to zero."""
    if not lines:
        raise ValueError("an entry needs lines")
    for line in lines:
        if line.amount == 0 or line.amount != line.amount.quantize(CENT):
            raise ValueError(f"line amounts are non-zero whole cents: {line}")
    if sum((line.amount for line in lines), ZERO) != 0:
        raise ValueError(f"an entry must balance: {lines}")
    if any(abs(line.amount) > MAX_ACCOUNT_AMOUNT for line in lines):
        raise InputError("amount", AMOUNT_TOO_LARGE)


def _line_rows(entry_id: int, lines: Sequence[Line]) -> list[dict[str, object]]:
    """The rows of an entry's lines, to insert."""
    return [
        {
            "entry_id": entry_id,
            "account": line.account,
            "bill_id": line.bill_id,
            "amount": line.amount,
        }
        for line in lines
    ]


# A posting that meets another taking the same entry number tries again, this many times.
_NUMBER_TRIES = 5


def next_number(district_id: int) -> Any:
    """The district's next entry number, read where the entry is inserted."""
    return (
        sa_select(func.coalesce(func.max(ENTRIES.c.number), 0) + 1)
        .where(ENTRIES.c.district_id == district_id)
        .scalar_subquery()
    )


def _insert_entry(
    session: Session, entry: JournalEntry, lines: Sequence[Line], *, looked_up: bool
) -> None:
    """The entry, its lines and its running balances, written, the entry numbered next in
    its district. Under the district's lock with the key just looked up, no other writer
    can book it: no savepoint to fall back to. Otherwise one, for a key (or a number) booked
    meanwhile."""
    with nullcontext() if looked_up else session.begin_nested():
        # Core inserts (the rows are only written, never changed): fewer round trips and no
        # unit of work on the path of every payment.
        entry.id, entry.number = session.execute(
            insert(ENTRIES)
            .values(
                **{c: getattr(entry, c) for c in ENTRY_COLUMNS},
                number=next_number(entry.district_id),
            )
            .returning(ENTRIES.c.id, ENTRIES.c.number)
        ).one()
        session.execute(insert(LINES), _line_rows(entry.id or 0, lines))
        add_to_balances(
            session=session,
            district_id=entry.district_id,
            postings=[(entry.entry_date, entry.kind, lines)],
        )


def post_entry(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    entry_date: date,
    kind: str,
    memo: str,
    key: str,
    lines: Sequence[Line],
    reverses_id: int | None = None,
    looked_up: bool = False,
) -> Posted:
    """Append one balanced entry, once per ``key``: if the key is already booked (also by a
    concurrent writer that committed first), return that entry and write nothing.
    ``looked_up``: the caller holds the district's lock
    (:func:`tid.services.district_lock.lock_district`) and has just found the key unbooked;
    a key names its district, so no other writer can book it now."""
    _check_lines(lines)
    year_locks.ensure_open(session=session, district_id=district_id, entry_date=entry_date)
    existing = None if looked_up else entry_by_key(session=session, key=key)
    if existing is not None:
        return Posted(
            existing, entry_lines(session=session, entry_id=existing.id or 0), booked=False
        )
    entry = JournalEntry(
        district_id=district_id,
        entry_date=entry_date,
        kind=kind,
        memo=memo[:500],
        idempotency_key=key,
        reverses_id=reverses_id,
        actor=actor.label,
        user_id=actor.user_id,
    )
    for attempt in range(_NUMBER_TRIES):
        try:
            _insert_entry(session, entry, lines, looked_up=looked_up)
            break
        except IntegrityError:
            # The savepoint's rollback has already taken the new rows out of the session.
            existing = entry_by_key(session=session, key=key)
            if existing is None and reverses_id is not None:
                existing = session.exec(
                    select(JournalEntry).where(JournalEntry.reverses_id == reverses_id)
                ).first()
            if existing is not None:
                return Posted(
                    existing, entry_lines(session=session, entry_id=existing.id or 0), booked=False
                )
            # A writer without the district's lock took the same number first: the next.
            if looked_up or attempt == _NUMBER_TRIES - 1:
                raise
    audit.record(
        session=session,
        actor=actor,
        action=f"journal.{kind}",
        entity=entry,
        after={
            **(audit.snapshot(entry) or {}),
            "lines": [
                {"account": r.account, "bill_id": r.bill_id, "amount": str(r.amount)} for r in lines
            ],
        },
    )
    return Posted(entry, tuple(lines), booked=True)


# Asked before every posting: built once (its cache key is kept with it).
_ENTRY_BY_KEY = select(JournalEntry).where(JournalEntry.idempotency_key == bindparam("key"))


def entry_by_key(*, session: Session, key: str) -> JournalEntry | None:
    return session.exec(_ENTRY_BY_KEY, params={"key": key}).first()


def entry_lines(*, session: Session, entry_id: int) -> tuple[JournalLine, ...]:
    stmt = select(JournalLine).where(JournalLine.entry_id == entry_id).order_by(col(JournalLine.id))
    return tuple(session.exec(stmt))


@dataclass(frozen=True)
class Pending:
    """An entry to post in bulk (see :func:`post_many`)."""

    entry_date: date
    kind: str
    memo: str
    key: str
    lines: tuple[Line, ...]
    reverses_id: int | None = None  # the entry this one reverses (every line negated)


def post_many(
    *, session: Session, actor: audit.Actor, district_id: int, entries: Sequence[Pending]
) -> list[int]:
    """Append many balanced entries at once (a billing run's bills): the same rows as
    :func:`post_entry` one by one, with one audit event for the lot. The caller holds the
    district's lock and has checked that no key is already booked. Returns the entry ids."""
    if not entries:
        return []
    for pending in entries:
        _check_lines(pending.lines)
    # The same guards as post_entry: nothing is booked on a date of a locked fiscal year.
    for entry_date in sorted({p.entry_date for p in entries}):
        year_locks.ensure_open(session=session, district_id=district_id, entry_date=entry_date)
    now = utcnow()
    ids: dict[str, int] = {}
    # Numbered on from the district's last entry (the caller holds the district's lock).
    first = int(session.execute(sa_select(next_number(district_id))).scalar_one())
    for start in range(0, len(entries), 2000):
        chunk = entries[start : start + 2000]
        result = session.execute(
            insert(ENTRIES).returning(ENTRIES.c.id, ENTRIES.c.idempotency_key),
            [
                {
                    "number": first + start + i,
                    "district_id": district_id,
                    "entry_date": p.entry_date,
                    "kind": p.kind,
                    "memo": p.memo[:500],
                    "idempotency_key": p.key,
                    "reverses_id": p.reverses_id,
                    "actor": actor.label,
                    "user_id": actor.user_id,
                    "created_at": now,
                }
                for i, p in enumerate(chunk)
            ],
        )
        ids.update({key: int(entry_id) for entry_id, key in result})
    lines = [row for p in entries for row in _line_rows(ids[p.key], p.lines)]
    for start in range(0, len(lines), 5000):
        session.execute(insert(LINES), lines[start : start + 5000])
    add_to_balances(
        session=session,
        district_id=district_id,
        postings=[(p.entry_date, p.kind, p.lines) for p in entries],
    )
    made = [ids[p.key] for p in entries]
    kinds = sorted({p.kind for p in entries})
    audit.record(
        session=session,
        actor=actor,
        action="journal.bulk",
        entity=("district", district_id),
        after={
            "kinds": kinds,
            "entries": len(made),
            "entry_ids": made,
            "lines": len(lines),
            "debits": str(
                sum((ln.amount for p in entries for ln in p.lines if ln.amount > 0), ZERO)
            ),
        },
    )
    return made
