"""The bounds of anonymous heavy work on the web: the public calculators (the API, the forms
and their CSV and PDF), a saved reform's pages and documents while they are made (kept after,
tid/web/reform_cache.py), the owner's estimate on the public pages, and the portal's PDFs.
Every such request is bounded end to end.

- **A rate limit**: without a login, each client address may run ``CALC_RATE_LIMIT``
  computations a minute (default 60; 0 turns the limit off), counted in the database so that
  the limit holds across every worker (:mod:`tid.services.limits.request_rate`). Past it: 429 with
  ``Retry-After``.
- **A bound on concurrency**: without a login, at most ``CALC_CONCURRENCY`` such requests run
  at once across all the web workers (default: one fewer than ``WEB_WORKERS``, so a signed-in
  clerk always finds a free worker), and one at a time per client address
  (:mod:`tid.services.limits.heavy_work`). Past it the answer comes at once, never after a wait in
  a queue that would hold a worker: 429 for the client that already has work under way, 503
  when every place is taken, each with ``Retry-After``.
- **One time budget for the whole answer**: ``CALC_TIME_LIMIT`` seconds (default 5) from the
  moment the request's work begins. Reading the document, computing, and writing the page,
  the CSV or the PDF all count. The loops whose length follows the document call
  :func:`tid.rules.limits.checkpoint`; where the worker serves on its main thread (gunicorn's
  sync workers), an interval timer also stops work that has no checkpoint (a PDF's layout)
  at the same deadline. Past it: 503, and the worker goes on serving.
- **A bound on each document's rows** (:data:`PAGE_ROWS`, :data:`PDF_ROWS`): the result page
  shows the first rows of a longer table and says where the rest are; a PDF of more rows than
  a person reads is refused with a message naming the CSV and the command line.

Staff who are logged in are not rate-limited nor counted against the places, but their
requests keep the time budget and the documents' bounds.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from types import FrameType

from flask import current_app, request
from flask_babel import gettext as _
from flask_login import current_user
from sqlmodel import Session
from werkzeug.exceptions import (
    HTTPException,
    ServiceUnavailable,
    TooManyRequests,
    UnprocessableEntity,
)

from tid import i18n
from tid.db import engine, get_session
from tid.rules import limits
from tid.services.limits import heavy_work, request_rate

# The most rows of one table the result page shows (the CSV has them all).
PAGE_ROWS = 500
# The most rows a calculator's PDF from the web holds (past it: the CSV or the command line).
PDF_ROWS = 200
# How long past its budget a place is kept for a worker that died in the middle of its work
# (gunicorn's --timeout kills a stuck worker after 30 s).
_PLACE_GRACE = timedelta(seconds=30)

# The budget's clock: tests put in one that advances per reading, so that a verdict on the
# budget never depends on how busy the machine is.
clock: Callable[[], float] = time.monotonic


class Bound(HTTPException):
    """A bound of this module said to the reader: its description names the bound (and, with
    ``Retry-After``, when to try again), in the reader's language."""


class Refused(Bound):
    """Refused before or during the work (rate, places, time): the form comes back."""


class CalculationRateLimited(Refused, TooManyRequests):
    """Too many computations from one address in this minute, or one still under way."""


class CalculationsBusy(Refused, ServiceUnavailable):
    """Every place for anonymous heavy work is taken."""


class CalculationTooLong(Refused, ServiceUnavailable):
    """A request ran past its time budget and was stopped."""


class DocumentTooLong(Bound, UnprocessableEntity):
    """A document of more rows than its kind holds."""


def _seconds() -> float:
    return float(current_app.config.get("CALC_TIME_LIMIT", 5.0))


def concurrency() -> int:
    """How many anonymous heavy requests may run at once across the web workers."""
    configured = current_app.config.get("CALC_CONCURRENCY")
    if configured is not None and int(configured) > 0:
        return int(configured)
    return max(1, int(current_app.config.get("WEB_WORKERS") or 4) - 1)


def _client() -> str:
    return request.remote_addr or "unknown"


def check_rate() -> None:
    """Count this computation; raise :class:`CalculationRateLimited` past the limit."""
    limit = int(current_app.config.get("CALC_RATE_LIMIT", 60))
    if limit <= 0 or current_user.is_authenticated:
        return
    db = get_session()
    decision = request_rate.hit(session=db, key=f"calc:{_client()}", limit=limit)
    db.commit()
    if not decision.allowed:
        raise CalculationRateLimited(
            _(
                "Too many calculations from this address: at most %(limit)s a minute without "
                "logging in. Try again in %(seconds)s seconds.",
                limit=limit,
                seconds=decision.retry_after,
            ),
            retry_after=decision.retry_after,
        )


def _take_place() -> heavy_work.Place:
    retry = max(1, math.ceil(_seconds()))
    hold = timedelta(seconds=_seconds()) + _PLACE_GRACE
    with Session(engine()) as db:
        try:
            return heavy_work.begin(session=db, client=_client(), most=concurrency(), hold=hold)
        except heavy_work.NoPlaceError as refused:
            if refused.busy_client:
                raise CalculationRateLimited(
                    _(
                        "A calculation from this address is still running: one at a time "
                        "without logging in. Try again in %(seconds)s seconds.",
                        seconds=retry,
                    ),
                    retry_after=retry,
                ) from None
            raise CalculationsBusy(
                _(
                    "The calculators are busy with other requests. Try again in %(seconds)s "
                    "seconds.",
                    seconds=retry,
                ),
                retry_after=retry,
            ) from None


def _give_back(place: heavy_work.Place) -> None:
    with Session(engine()) as db:
        heavy_work.end(session=db, place=place)


@contextmanager
def bounded(*, counted: bool = True) -> Iterator[None]:
    """Run one anonymous heavy request's whole work: within the rate limit (``counted``: a
    computation; the portal's PDFs are not), in a place of its own, under the time budget."""
    place = None
    if not current_user.is_authenticated:
        if counted:
            check_rate()
        place = _take_place()
    try:
        with time_budget():
            yield
    finally:
        if place is not None:
            _give_back(place)


@contextmanager
def _timer(seconds: float) -> Iterator[None]:
    """On the main thread, a SIGALRM at the deadline stops work that has no checkpoint."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return

    def ring(_signum: int, _frame: FrameType | None) -> None:
        raise limits.TimeBudgetError

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def time_budget() -> Iterator[None]:
    """Run the block under the time budget; past it, :class:`CalculationTooLong`."""
    seconds = _seconds()
    if seconds <= 0:
        yield
        return
    deadline = clock() + seconds

    def hook() -> None:
        if clock() > deadline:
            raise limits.TimeBudgetError

    try:
        with _timer(seconds), limits.watched(hook):
            yield
    except limits.TimeBudgetError:
        raise CalculationTooLong(
            _(
                "The calculation took longer than %(seconds)s seconds and was stopped. "
                "Send fewer rows at a time.",
                seconds=f"{seconds:g}",
            ),
            retry_after=max(1, math.ceil(seconds)),
        ) from None


def refuse_long_pdf(rows: int, calculator: str) -> None:
    """A calculator's PDF of more than :data:`PDF_ROWS` rows is refused, saying where to get
    the whole result."""
    if rows <= PDF_ROWS:
        return
    raise DocumentTooLong(
        _(
            "This result has %(rows)s rows; a PDF from this page holds at most %(most)s. "
            "Download the CSV for every row, or write the PDF on the command line: "
            "tid document calculator.pdf --calculator %(name)s --input FILE --out FILE.pdf",
            rows=i18n.number(rows),
            most=PDF_ROWS,
            name=calculator,
        )
    )
