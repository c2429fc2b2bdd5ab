"""The yearly statements laid out before anyone asks for them, on the installation's shelf
(:class:`tid.render.pdf.Shelf`): a statement's PDF takes about a second to lay out, its page a
tenth of that, and a treasurer or an auditor who opens the PDF should not wait for the layout.

- When a worker starts (after its warm-up), and again each day (the PDF says the day it was
  produced), every district's statements of its default fiscal year and of the year before,
  in Spanish and in English, as the statement's link gives them.
- When a statement's page is shown, its PDF as the page's link asks for it (the year and the
  day asked for, the reader's language): the page is how a reader reaches the PDF, and the
  journal may have changed since the worker started.

Only the documents a request lays out are prepared (:data:`downloads.IN_REQUEST_ROWS`); the
longer ones are jobs. One thread per process does it, one document at a time, at a lower
priority than the requests; a request for a document under way waits for it rather than
laying it out again. Off under tests and with ``PDF_WARM_UP = false`` (tests turn it on with
``PREPARE_DOCUMENTS = true``)."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from datetime import date, datetime, time, timedelta
from typing import NamedTuple

from flask import Flask, current_app

from tid import documents
from tid.app_reader import reader, today
from tid.clock import PUERTO_RICO
from tid.db import get_session
from tid.rules.periods import FiscalYear
from tid.services import account_pages
from tid.web.account.downloads import too_large

LANGUAGES = ("es", "en")
STATEMENT = "statement.pdf"


class Statement(NamedTuple):
    """A statement's PDF as a reader asks for it."""

    district_id: int
    fy: FiscalYear
    booked_by: date | None
    locale: str


def preparing(app: Flask) -> bool:
    """Whether this app lays out documents before they are asked for."""
    default = not app.config.get("TESTING") and bool(app.config.get("PDF_WARM_UP", True))
    return bool(app.config.get("PREPARE_DOCUMENTS", default))


class _Preparer:
    """One thread laying out the statements put to it, one at a time, each once."""

    def __init__(self) -> None:
        self.waiting: queue.Queue[tuple[Flask, Statement]] = queue.Queue()
        self.pending: set[tuple[int, Statement]] = set()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def put(self, app: Flask, statement: Statement) -> None:
        with self.lock:
            if (id(app), statement) in self.pending:
                return
            self.pending.add((id(app), statement))
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="tid-prepare", daemon=True)
                self.thread.start()
        self.waiting.put((app, statement))

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # requests first: this thread yields to them
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        while True:
            app, statement = self.waiting.get()
            try:
                prepare(app, statement)
            except Exception:  # the request that asks for it lays it out and says what failed
                app.logger.exception("a statement could not be prepared: %s", statement)
            finally:
                with self.lock:
                    self.pending.discard((id(app), statement))
                self.waiting.task_done()

    def join(self) -> None:
        """Wait until every statement put so far is prepared (tests)."""
        self.waiting.join()


_preparer = _Preparer()


def prepare(app: Flask, statement: Statement) -> bool:
    """Lay out ``statement`` onto the shelf unless it is one a request does not lay out
    (longer than :data:`downloads.IN_REQUEST_ROWS`); whether it is on the shelf now."""
    with app.app_context():
        if too_large(statement.district_id, "statement", statement.fy):
            return False
        documents.make(
            get_session(),
            STATEMENT,
            reader=reader(statement.locale),
            district=statement.district_id,
            year=statement.fy,
            booked_by=statement.booked_by,
        )
        return True


def prepare_later(statement: Statement) -> None:
    """Prepare ``statement`` in this process's background thread (a page shown links to it)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if preparing(app):
        _preparer.put(app, statement)


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


def prepare_each_day(app: Flask) -> None:
    """Prepare the readers' statements now, then again as each day begins in Puerto Rico
    (a worker's warm-up thread; it never returns)."""
    while True:
        try:
            for statement in readers_statements(app):
                _preparer.put(app, statement)
        except Exception:  # no database yet, say: the pages lay their PDFs out themselves
            app.logger.exception("the readers' statements could not be listed")
        now = datetime.now(PUERTO_RICO)
        tomorrow = datetime.combine(now.date() + timedelta(days=1), time(0, 1), PUERTO_RICO)
        threading.Event().wait((tomorrow - now).total_seconds())
