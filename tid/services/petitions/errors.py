"""Errors of the petition forms: :class:`PetitionError` is an :class:`InputError` whose English
message is also kept as a msgid with its parameters, so the web can show it in the user's
language; a form's every error is collected and raised at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tid.rules.errors import InputError


class PetitionError(InputError):
    """A user error about one field, with its msgid and parameters for translation."""

    def __init__(self, field: str, msgid: str, **params: Any) -> None:
        super().__init__(field, msgid % params if params else msgid)
        self.msgid = msgid
        self.params = params


class PetitionFieldsError(PetitionError):
    """Several field errors of one form at once; the first one names the field."""

    def __init__(self, errors: list[PetitionError]) -> None:
        first = errors[0]
        super().__init__(first.field, first.msgid, **first.params)
        self.errors = errors


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
