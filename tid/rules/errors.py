"""Errors a user can cause, each naming the field it is about.

Every module of the core raises :class:`InputError` for bad input; the web shows the
message next to the field, the command line and the API return it as JSON
(``{"error": ..., "field": ...}``), as docs/calculators.md fixes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from tid.rules.messages import N_, FieldRef, Message, joined

__all__ = ["N_", "Finding", "FindingsError", "InputError", "field_error", "field_names"]


def field_error(field: str, reason: str) -> InputError:
    """``field: reason`` as a message: the JSON interface reads the field's path, a page its
    label (:class:`~tid.rules.messages.FieldRef`), and the reason in the reader's language."""
    return InputError(field, Message("%(field)s: %(reason)s", field=FieldRef(field), reason=reason))


def field_names(names: Iterable[object]) -> str:
    """Fields (or a vocabulary's codes) listed in a message: their names as the JSON writes
    them in its English ``str``, their labels on a page."""
    return joined([FieldRef(str(name)) for name in names], ", ")


def required(field: str) -> InputError:
    return InputError(field, Message("Required: %(field)s", field=FieldRef(field)))


class InputError(ValueError):
    """Bad input: a sentence a clerk understands and the path of the field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def as_json(self) -> dict[str, Any]:
        return {"error": self.message, "field": self.field}

    def at(self, prefix: str) -> InputError:
        """The same error with its field path placed under ``prefix``."""
        path = f"{prefix}.{self.field}" if self.field else prefix
        return InputError(path, self.message)


@dataclass(frozen=True)
class Finding:
    """One validation finding (validators return a list of these instead of raising)."""

    field: str
    message: str
    row: int | None = None
    extra: dict[str, Any] = dc_field(default_factory=dict)


class FindingsError(InputError):
    """Several findings at once (a file with bad rows): the first names the field."""

    def __init__(self, findings: list[Finding]) -> None:
        if not findings:
            raise ValueError("FindingsError needs at least one finding")
        first = findings[0]
        super().__init__(first.field, first.message)
        self.findings = findings

    def as_json(self) -> dict[str, Any]:
        doc = super().as_json()
        doc["errors"] = [
            {"error": f.message, "field": f.field, **({"row": f.row} if f.row else {})}
            for f in self.findings
        ]
        return doc
