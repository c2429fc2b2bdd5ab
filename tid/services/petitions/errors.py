"""Errors of the petition forms: a :class:`PetitionError` is an :class:`InputError` whose
message is a :class:`~tid.rules.messages.Message` like every other service's (rendered in the
reader's language wherever it is shown); a form's every error is collected and raised at once
(:class:`PetitionFieldsError`, a :class:`FindingsError`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tid.rules.errors import Finding, FindingsError, InputError
from tid.rules.messages import Message


def _said(value: Any) -> Any:
    """A parameter of a petition's message: a word of the catalogs (an action, a state) is
    said in the reader's language; days, numbers and messages stay what they are."""
    if value.__class__ is str:
        return Message(value)
    return value


class PetitionError(InputError):
    """A user error about one field: its msgid and parameters (kept, for a caller that moves
    the error to another field) and the message they make."""

    def __init__(self, field: str, msgid: str, **params: Any) -> None:
        if isinstance(msgid, Message) and not params:
            message: Message = msgid
        else:
            message = Message(msgid, **{k: _said(v) for k, v in params.items()})
        super().__init__(field, message)
        self.msgid = msgid
        self.params = params


class PetitionFieldsError(FindingsError, PetitionError):
    """Several field errors of one form at once; the first one names the field."""

    def __init__(self, errors: list[PetitionError]) -> None:
        FindingsError.__init__(self, [Finding(e.field, e.message) for e in errors])
        self.errors = errors
        self.msgid, self.params = errors[0].msgid, errors[0].params


T = TypeVar("T")


class Collector:
    """Runs each field's parser and keeps every error, so a form shows them all at once."""

    def __init__(self) -> None:
        self.errors: list[PetitionError] = []

    def __call__(self, parse: Callable[[], T], fallback: T) -> T:
        try:
            return parse()
        except PetitionError as exc:
            self.errors.append(exc)
            return fallback

    def raise_any(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise PetitionFieldsError(self.errors)
