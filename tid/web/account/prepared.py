"""The yearly statements and the delinquency lists laid out before anyone asks for them, on
the installation's shelf (:class:`tid.render.pdf.Shelf`): a statement's PDF takes about a
second to lay out, its page a tenth of that, and a treasurer or an auditor who opens the PDF
should not wait for the layout.

- Each day as it begins, and when the scheduler starts (the PDF says the day it was
  produced): every district's statements of its default fiscal year and of the year before,
  in Spanish and in English, as the statement's link gives them — a job on the queue that
  the scheduler starts (:func:`prepare_readers_statements`), laid out by a worker.
- When a statement's page is shown, its PDF as the page's link asks for it (the year and the
  day asked for, the reader's language): the page is how a reader reaches the PDF, and the
  journal may have changed since the worker started.
- When a request commits anything that moves a district's version (a booking, a billing or
  notice run, a lock …: tid/services/public/versions.py), the district's statement of its
  default year and its delinquency list in the reader's language, right after the commit.
- The delinquency list likewise when its page is shown, and each day (its charges grow with
  the days late).

Only the documents a request lays out are prepared (:data:`downloads.IN_REQUEST_ROWS`); the
longer ones are jobs. For pages and bookings, one thread per process does it, one document at
a time, at a lower priority than the requests; a
request for a document put or under way waits for it (:data:`WAIT_SECONDS` at most) rather
than laying it out again, and another worker's request waits on the shelf's lock. Off under
tests and with ``PDF_WARM_UP = false`` (tests turn it on with ``PREPARE_DOCUMENTS = true``)."""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import threading
from datetime import date
from typing import NamedTuple

from flask import Flask, current_app, has_request_context

from tid import documents
from tid.app_reader import reader, today
from tid.db import get_session
from tid.i18n import language
from tid.rules.periods import FiscalYear
from tid.services.account import account_pages, account_reads
from tid.services.public import versions
from tid.web.account.downloads import too_large

LANGUAGES = ("es", "en")
STATEMENT = "statement.pdf"
DELINQUENCY = "delinquency.pdf"


class Statement(NamedTuple):
    """A statement's PDF as a reader asks for it (``fy`` None: the district's default year,
    read when it is prepared)."""

    district_id: int
    fy: FiscalYear | None
    booked_by: date | None
    locale: str


class Delinquency(NamedTuple):
    """A district's delinquency list's PDF as of today, in a language."""

    district_id: int
    locale: str


Prepared = Statement | Delinquency


def preparing(app: Flask) -> bool:
    """Whether this app lays out documents before they are asked for."""
    default = not app.config.get("TESTING") and bool(app.config.get("PDF_WARM_UP", True))
    return bool(app.config.get("PREPARE_DOCUMENTS", default))


# A request for a statement being prepared waits this long for it, at most, before laying it
# out itself (under the shelf's lock, so still not twice at once).
WAIT_SECONDS = 30.0
SOON, DAILY = 0, 1  # asked for by a page or a booking; the day's preparation of every district


class _Preparer:
    """One thread laying out the statements put to it, one at a time, each once; those a page
    or a booking asks for before the day's round. A statement put again while it is laid out
    is laid out again after (the journal moved meanwhile: another version)."""

    def __init__(self) -> None:
        self.waiting: queue.PriorityQueue[tuple[int, int, int, Prepared]] = queue.PriorityQueue()
        self.apps: dict[int, Flask] = {}
        self.pending: dict[tuple[int, Prepared], threading.Event] = {}
        self.underway: dict[tuple[int, Prepared], threading.Event] = {}
        self.lock = threading.Lock()
        self.order = itertools.count()
        self.thread: threading.Thread | None = None

    def put(self, app: Flask, statement: Prepared, priority: int = SOON) -> None:
        with self.lock:
            if (id(app), statement) in self.pending:
                return
            self.pending[(id(app), statement)] = threading.Event()
            self.apps[id(app)] = app
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name=THREAD, daemon=True)
                self.thread.start()
        self.waiting.put((priority, next(self.order), id(app), statement))

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # requests first: this thread yields to them
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        while True:
            _priority, _order, app_id, statement = self.waiting.get()
            with self.lock:
                app = self.apps[app_id]
                done = self.pending.pop((app_id, statement))
                self.underway[(app_id, statement)] = done
            try:
                prepare(app, statement)
            except Exception:  # the request that asks for it lays it out and says what failed
                app.logger.exception("a statement could not be prepared: %s", statement)
            finally:
                with self.lock:
                    self.underway.pop((app_id, statement), None)
                done.set()
                self.waiting.task_done()

    def wait_for(self, app: Flask, statement: Prepared, seconds: float) -> None:
        """Wait for the preparation of ``statement`` (or of its district's default year in
        the same language) when one is put or under way."""
        default = statement._replace(fy=None) if isinstance(statement, Statement) else statement
        with self.lock:
            events = [
                found.get((id(app), s))
                for found in (self.pending, self.underway)
                for s in (statement, default)
            ]
        for event in events:
            if event is not None:
                event.wait(seconds)

    def join(self) -> None:
        """Wait until every statement put so far is prepared (tests)."""
        self.waiting.join()


THREAD = "tid-prepare"
_preparer = _Preparer()


def prepare(app: Flask, statement: Prepared) -> bool:
    """Lay out ``statement`` onto the shelf unless it is one a request does not lay out
    (longer than :data:`downloads.IN_REQUEST_ROWS`); whether it is on the shelf now (it is
    not laid out again when it is there already)."""
    if isinstance(statement, Delinquency):
        return _prepare_delinquency(app, statement)
    with app.app_context():
        session = get_session()
        fy = statement.fy or account_reads.default_fiscal_year(
            session=session, district_id=statement.district_id, today=today()
        )
        if too_large(statement.district_id, "statement", fy):
            return False
        documents.make(
            session,
            STATEMENT,
            reader=reader(statement.locale),
            district=statement.district_id,
            year=fy,
            booked_by=statement.booked_by,
        )
        return True


def _prepare_delinquency(app: Flask, delinquency: Delinquency) -> bool:
    with app.app_context():
        if too_large(delinquency.district_id, "delinquency", None):
            return False
        documents.make(
            get_session(),
            DELINQUENCY,
            reader=reader(delinquency.locale),
            district=delinquency.district_id,
        )
        return True


def prepare_later(statement: Prepared) -> None:
    """Prepare ``statement`` in this process's background thread (a page shown links to it)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if preparing(app):
        _preparer.put(app, statement)


def wait_for(statement: Prepared) -> None:
    """Wait, a while at most, for ``statement`` when this process is preparing it (a request
    for its PDF: the first after a booking is the one the booking prepares)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if preparing(app):
        _preparer.wait_for(app, statement, WAIT_SECONDS)


def _after_booking(district_ids: list[int]) -> None:
    """A request committed what moves these districts' documents: prepare each one's
    statement of its default year, in the reader's language, for the PDF asked for next."""
    if not has_request_context():  # a job or a command: the pages prepare theirs
        return
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if preparing(app):
        for district_id in district_ids:
            _preparer.put(app, Statement(district_id, None, None, language()))
            _preparer.put(app, Delinquency(district_id, language()))


versions.on_moved(_after_booking)


def readers_statements(app: Flask) -> list[Statement]:
    """The statements a reader opens first (``account_pages.statements_first_read``), in
    each language."""
    with app.app_context():
        years = account_pages.statements_first_read(session=get_session(), today=today())
    return [
        Statement(district_id, fy, None, locale)
        for district_id, fy in years
        for locale in LANGUAGES
    ]


def prepare_readers_statements(app: Flask) -> int:
    """The day's round, a queued job the scheduler starts as each day begins in Puerto Rico
    and when it starts (tid/jobs/scheduler.py ``statements_job``): the readers' statements and
    their districts' delinquency lists laid out onto the shelf, each once (one already there
    is not laid out again); how many are on the shelf now. Nothing when this installation
    does not prepare documents."""
    if not preparing(app):
        return 0
    statements = readers_statements(app)
    documents: list[Prepared] = list(statements)
    for district_id in sorted({s.district_id for s in statements}):
        documents.extend(Delinquency(district_id, locale) for locale in LANGUAGES)
    done = 0
    for document in documents:
        try:
            done += prepare(app, document)
        except Exception:  # the request that asks for it lays it out and says what failed
            app.logger.exception("a document could not be prepared: %s", document)
    return done
