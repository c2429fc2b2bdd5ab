"""The one way a page's form is read and written (the GOV.UK error-summary pattern): every
field is read on its own and its error kept beside it, the form's one write is rolled back
when refused, and a form without an error commits, says so and moves on; a button's form,
with no field to show an error beside, says its refusal in a flash."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import flash, redirect, session
from werkzeug.wrappers import Response as BaseResponse

from tid.db import get_session
from tid.i18n import say
from tid.rules.errors import Finding, FindingsError, InputError

T = TypeVar("T")


class Form:
    """Every error of one form, field → message in the user's language: each field is read
    on its own, so a form comes back with all its errors at once, not the first one."""

    def __init__(
        self,
        rename: dict[str, str] | None = None,
        *,
        words: Callable[[InputError], dict[str, str]] | None = None,
    ) -> None:
        """``rename`` moves a finding's field to the form's; ``words`` gives a refusal's
        errors (field → message) where a page words them its own way."""
        self.errors: dict[str, str] = {}
        self.rename = rename or {}
        self.words = words
        self.refused: InputError | None = None

    def add(self, findings: list[Finding]) -> None:
        for finding in findings:
            field = self.rename.get(finding.field, finding.field)
            self.errors.setdefault(field, say(finding.message))

    def failed(self, exc: InputError) -> None:
        self.refused = self.refused or exc
        if self.words is not None:
            for field, message in self.words(exc).items():
                self.errors.setdefault(self.rename.get(field, field), message)
            return
        self.add(
            exc.findings if isinstance(exc, FindingsError) else [Finding(exc.field, exc.message)]
        )

    def read(self, parse: Callable[[], T]) -> T | None:
        try:
            return parse()
        except InputError as exc:
            self.failed(exc)
            return None

    def write(self, service: Callable[[], T]) -> T | None:
        """The form's one write: refused (an InputError), it is rolled back and its errors
        join the form's."""
        try:
            return service()
        except InputError as exc:
            get_session().rollback()
            self.failed(exc)
            return None

    def saved(self, message: str, target: str | Callable[[], str]) -> BaseResponse | None:
        """Without an error: the write committed, ``message`` said, and on to ``target``
        (a callable is asked after the commit: the address of a row the write made).
        With one, nothing of the form is kept (rolled back) and the page shows the errors."""
        if self.errors:
            get_session().rollback()
            return None
        get_session().commit()
        flash(message)
        return redirect(target if isinstance(target, str) else target())

    def flashed(
        self,
        message: str,
        target: str,
        *,
        explain: Callable[[InputError], str] | None = None,
        field: str | None = None,
    ) -> BaseResponse:
        """A button's form, or a row's in a list: on to ``target`` either way, saying
        ``message`` (committed) or the refusal (rolled back; ``explain`` words it, the
        refusal's own message without it). ``field``: the id of the row's field the refusal
        is about, marked with its error on the page ``target`` opens (:func:`field_error`)."""
        if self.refused is None:
            return self.saved(message, target) or redirect(target)
        return self.refusal(target, explain=explain, field=field)

    def refusal(
        self,
        target: str,
        *,
        explain: Callable[[InputError], str] | None = None,
        field: str | None = None,
    ) -> BaseResponse:
        """The refused write rolled back, its error said, and on to ``target`` (at the
        field ``field``, marked with the error there, when given)."""
        get_session().rollback()
        if self.refused is None:
            return redirect(target)
        said = explain(self.refused) if explain else say(self.refused.message)
        if field is not None:
            return refused_at(field, said, target)
        flash(said, "error")
        return redirect(target)


FIELD_ERRORS = "field_errors"


def refused_at(field: str, message: str, target: str) -> BaseResponse:
    """On to ``target`` with ``message`` said, and said beside the row's field ``field`` (its
    id) on the page it opens: a row's form in a list, whose page is another route's."""
    flash(message, "error")
    session[FIELD_ERRORS] = {field: message}
    return redirect(f"{target}#{field}")
