"""Reading the journal: its entries with their lines, whole or a page at a time, as the pages
and documents show them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import and_, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, func, select

from tid.models import (
    JournalDay,
    JournalEntry,
    JournalLine,
)
from tid.services.ledger.reversals import reversible as may_reverse
from tid.services.paging import PER_PAGE


@dataclass(frozen=True, slots=True)
class LineRead:
    """A journal line as the pages and documents read it: its columns, without the ORM's
    bookkeeping (a page shows hundreds of lines)."""

    id: int
    entry_id: int
    account: str
    bill_id: int | None
    amount: Decimal

    @property
    def debit(self) -> Decimal | None:
        return self.amount if self.amount > 0 else None

    @property
    def credit(self) -> Decimal | None:
        return -self.amount if self.amount < 0 else None


_LINE_COLUMNS = (
    col(JournalLine.id),
    col(JournalLine.entry_id),
    col(JournalLine.account),
    col(JournalLine.bill_id),
    col(JournalLine.amount),
)


@dataclass(frozen=True, slots=True)
class EntryRead:
    """A journal entry as the pages and documents read it: its columns, without the ORM's
    bookkeeping (a statement's documents list a year's 40,000)."""

    id: int
    district_id: int
    entry_date: date
    kind: str
    memo: str
    idempotency_key: str
    reverses_id: int | None
    actor: str
    user_id: int | None
    created_at: datetime
    number: int | None = None  # its number in the district's journal (what a reader sees)


_ENTRY_READ = tuple(col(getattr(JournalEntry, f.name)) for f in fields(EntryRead))


def _read_entries(session: Session, stmt: Any) -> list[EntryRead]:
    """The entries a query of :func:`_entries` finds, as rows."""
    return [EntryRead(*row) for row in session.execute(stmt)]


@dataclass(frozen=True)
class JournalRow:
    entry: EntryRead
    lines: tuple[LineRead, ...]
    reversed_by: int | None
    # The numbers (in the district's journal) of the entry that reverses this one and of
    # the one this one reverses: what the pages say, never the ids.
    reversed_by_number: int | None = None
    reverses_number: int | None = None

    @property
    def reversible(self) -> bool:
        """Whether the journal would reverse this entry: of a kind it reverses, and not
        reversed already (the pages offer to reverse only these)."""
        return self.reversed_by is None and may_reverse(self.entry)


def journal(
    *,
    session: Session,
    district_id: int,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
) -> list[JournalRow]:
    """The entries of a district between two booking dates, in booking order, with lines
    (as the journal stood at ``booked_before``, if given)."""
    stmt = _entries(district_id, since=since, until=until, booked_before=booked_before)
    order = (col(JournalEntry.entry_date), col(JournalEntry.id))
    entries = _read_entries(session, stmt.order_by(*order))
    return _with_lines(session, entries, booked_before)


# The entries read at once by :func:`journal_chunks`.
JOURNAL_CHUNK = 2000


def journal_chunks(
    *,
    session: Session,
    district_id: int,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
    size: int | None = None,
) -> Iterator[list[JournalRow]]:
    """:func:`journal`, ``size`` entries at a time (:data:`JOURNAL_CHUNK` by default; each
    chunk read after the last one's booking date and id): a year of a large district's
    journal in a bounded memory."""
    stmt = _entries(district_id, since=since, until=until, booked_before=booked_before)
    day, entry_id = col(JournalEntry.entry_date), col(JournalEntry.id)
    size = size or JOURNAL_CHUNK
    after: EntryRead | None = None
    while True:
        page = stmt
        if after is not None:
            page = page.where(
                or_(day > after.entry_date, and_(day == after.entry_date, entry_id > after.id))
            )
        entries = _read_entries(session, page.order_by(day, entry_id).limit(size))
        if not entries:
            return
        yield _with_lines(session, entries, booked_before)
        if len(entries) < size:
            return
        after = entries[-1]


def _entries(
    district_id: int,
    *,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
    kinds: Sequence[str] | None = None,
) -> Any:
    stmt = sa_select(*_ENTRY_READ).where(col(JournalEntry.district_id) == district_id)
    if booked_before is not None:
        stmt = stmt.where(col(JournalEntry.created_at) < booked_before)
    if since is not None:
        stmt = stmt.where(col(JournalEntry.entry_date) >= since)
    if until is not None:
        stmt = stmt.where(col(JournalEntry.entry_date) <= until)
    if kinds is not None:
        stmt = stmt.where(col(JournalEntry.kind).in_(kinds))
    return stmt


def _with_lines(
    session: Session, entries: list[EntryRead], booked_before: datetime | None = None
) -> list[JournalRow]:
    ids = [e.id for e in entries]
    by_entry: dict[int, list[LineRead]] = defaultdict(list)
    reversed_by: dict[int, int] = {}
    numbers = {e.id: e.number for e in entries}
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        for row in session.execute(
            sa_select(*_LINE_COLUMNS)
            .where(col(JournalLine.entry_id).in_(chunk))
            .order_by(col(JournalLine.id))
        ):
            by_entry[row[1]].append(LineRead(*row))
        # A reversal's key names the entry it reverses (the unique key's index finds it).
        reversals = select(
            col(JournalEntry.id), col(JournalEntry.reverses_id), col(JournalEntry.number)
        ).where(
            col(JournalEntry.idempotency_key).in_([f"reverse:{i}" for i in chunk]),
            col(JournalEntry.reverses_id).is_not(None),
        )
        if booked_before is not None:
            reversals = reversals.where(JournalEntry.created_at < booked_before)
        for reversal_id, reversed_id, number in session.exec(reversals):
            reversed_by[reversed_id or 0] = reversal_id or 0
            numbers[reversal_id or 0] = number
    numbers.update(
        entry_numbers(
            session=session,
            entry_ids=[e.reverses_id for e in entries if e.reverses_id not in numbers],
        )
    )
    return [
        JournalRow(
            e,
            tuple(by_entry[e.id or 0]),
            reversed_by.get(e.id or 0),
            numbers.get(reversed_by.get(e.id or 0, 0)),
            numbers.get(e.reverses_id or 0),
        )
        for e in entries
    ]


def entry_numbers(*, session: Session, entry_ids: Sequence[int | None]) -> dict[int, int | None]:
    """The numbers in their districts' journals of the entries ``entry_ids``."""
    wanted = sorted({i for i in entry_ids if i})
    found: dict[int, int | None] = {}
    for start in range(0, len(wanted), 5000):
        chunk = wanted[start : start + 5000]
        for entry_id, number in session.execute(
            sa_select(col(JournalEntry.id), col(JournalEntry.number)).where(
                col(JournalEntry.id).in_(chunk)
            )
        ):
            found[entry_id] = number
    return found


@dataclass(frozen=True)
class JournalPage:
    """One page of a district's journal, in booking order (or newest first)."""

    rows: list[JournalRow]
    total: int
    page: int
    pages: int
    per_page: int

    @property
    def previous_page(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def next_page(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def entries_count(
    *,
    session: Session,
    district_id: int,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[str] | None = None,
) -> int:
    """How many entries were booked between two dates (inclusive), from their count per day
    and kind (``journal_day``): a row a day, however many entries a day has."""
    stmt = select(func.sum(JournalDay.entries)).where(JournalDay.district_id == district_id)
    if since is not None:
        stmt = stmt.where(JournalDay.day >= since)
    if until is not None:
        stmt = stmt.where(JournalDay.day <= until)
    if kinds is not None:
        stmt = stmt.where(col(JournalDay.kind).in_(kinds))
    return int(session.exec(stmt).one() or 0)


def journal_page(
    *,
    session: Session,
    district_id: int,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[str] | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
    newest_first: bool = False,
    counted: bool = True,
) -> JournalPage:
    """A page of the entries between two booking dates, with their lines: only the page's
    entries are read (the index on district, booking date and id). Not ``counted``: the
    first page only, without the count of all (total and pages are then those of the page)."""
    base = _entries(district_id, since=since, until=until, kinds=kinds)
    if counted:
        total = entries_count(
            session=session, district_id=district_id, since=since, until=until, kinds=kinds
        )
        pages = max(1, -(-total // per_page))
        page = min(max(1, page), pages)
    else:
        total, pages, page = 0, 1, 1
    order = (
        (col(JournalEntry.entry_date).desc(), col(JournalEntry.id).desc())
        if newest_first
        else (col(JournalEntry.entry_date), col(JournalEntry.id))
    )
    start = (page - 1) * per_page
    if counted and start > total // 2:  # the later pages: counted from the other end
        end = min(start + per_page, total)
        back = (
            (col(JournalEntry.entry_date), col(JournalEntry.id))
            if newest_first
            else (col(JournalEntry.entry_date).desc(), col(JournalEntry.id).desc())
        )
        later = base.order_by(*back).offset(total - end).limit(end - start)
        entries = _read_entries(session, later)
        entries.reverse()
    else:
        entries = _read_entries(session, base.order_by(*order).offset(start).limit(per_page))
    if not counted:
        total = len(entries)
    return JournalPage(_with_lines(session, entries), total, page, pages, per_page)
