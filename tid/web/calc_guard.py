"""The public calculators' bounds on the web (the API, the forms and their downloads).

- **A rate limit**: without a login, each client address may run ``CALC_RATE_LIMIT``
  computations a minute (default 60; 0 turns the limit off), counted in the database so that
  the limit holds across every worker (:mod:`tid.services.request_rate`). Past it: 429 with
  ``Retry-After``. Staff who are logged in are not limited.
- **A time budget**: a computation still running after ``CALC_TIME_LIMIT`` seconds (default
  5) is stopped at its next checkpoint (:func:`tid.rules.limits.checkpoint`, in every loop
  whose length follows the document) and answered 503; the worker goes on serving. It is
  cooperative, so it works the same under gunicorn's workers and the development server.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app, request
from flask_babel import gettext as _
from flask_login import current_user
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from tid.db import get_session
from tid.rules import limits
from tid.services import request_rate


class CalculationRateLimited(TooManyRequests):
    """Too many computations from one address in this minute."""


class CalculationTooLong(ServiceUnavailable):
    """A computation ran past its time budget and was stopped."""


def check_rate() -> None:
    """Count this computation; raise :class:`CalculationRateLimited` past the limit."""
    limit = int(current_app.config.get("CALC_RATE_LIMIT", 60))
    if limit <= 0 or current_user.is_authenticated:
        return
    db = get_session()
    decision = request_rate.hit(db, f"calc:{request.remote_addr or 'unknown'}", limit=limit)
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


@contextmanager
def time_budget() -> Iterator[None]:
    """Run the block under the time budget; past it, :class:`CalculationTooLong`."""
    seconds = float(current_app.config.get("CALC_TIME_LIMIT", 5.0))
    if seconds <= 0:
        yield
        return
    deadline = time.monotonic() + seconds

    def hook() -> None:
        if time.monotonic() > deadline:
            raise limits.TimeBudgetError

    try:
        with limits.watched(hook):
            yield
    except limits.TimeBudgetError:
        raise CalculationTooLong(
            _(
                "The calculation took longer than %(seconds)s seconds and was stopped. "
                "Send fewer rows at a time.",
                seconds=f"{seconds:g}",
            )
        ) from None
