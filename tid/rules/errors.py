"""Errors a user can cause, each naming the field it is about.

Every module of the core raises :class:`InputError` for bad input; the web shows the
message next to the field, the command line and the API return it as JSON
(``{"error": ..., "field": ...}``), as CALCULATORS.md fixes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any


def N_(message: str) -> str:  # noqa: N802 - the gettext convention
    """Mark a message for translation without translating it here (the core has no locale);
    the web translates it when it shows it (``pybabel extract -k N_``)."""
    return message


class Bilingual(str):
    """A text in English that carries its Spanish: a ``str`` equal to the English, so code,
    tests and JSON that treat it as a string keep working; ``.es`` is the Spanish
    (:func:`spanish` reads it)."""

    es: str

    def __new__(cls, en: str, es: str) -> Bilingual:
        text = super().__new__(cls, en)
        text.es = es
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (Bilingual, (str(self), self.es))


def spanish(text: str) -> str:
    """The Spanish of ``text`` when it carries one (:class:`Bilingual`), else ``text`` itself."""
    return getattr(text, "es", text)


def spanish_all(texts: Iterable[str]) -> list[str]:
    """:func:`spanish` of each text, for a result's ``warnings_es``."""
    return [spanish(t) for t in texts]


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
