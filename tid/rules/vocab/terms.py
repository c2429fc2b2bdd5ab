"""A vocabulary: the codes the database and the files keep, each with what users call it.

A record (:class:`Term`) holds its code, its label (the English msgid, marked with ``N_``: the
Spanish comes from the catalogs where it is shown) and, in the records of each vocabulary, its
flags. Its order is its place in the vocabulary: forms, lists and tables show codes in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tid.rules.messages import Message


@dataclass(frozen=True)
class Term:
    """A code and its label (an English msgid of the catalogs)."""

    code: str
    label: str


T = TypeVar("T", bound=Term)
R = TypeVar("R")


class Vocabulary(Generic[T]):
    """The records of one vocabulary, in their order. A reader looks a code up when it runs
    rather than copying the list when its module is loaded, so that a record added here
    reaches it."""

    def __init__(self, name: str, terms: Iterable[T]) -> None:
        self.name = name
        self._terms: dict[str, T] = {}
        for term in terms:
            if term.code in self._terms:
                raise ValueError(f"{name}: {term.code!r} is listed twice")
            self._terms[term.code] = term
        self._derived: dict[str, Any] = {}
        self._derived_from: dict[str, T] = self._terms

    def __iter__(self) -> Iterator[T]:
        return iter(tuple(self._terms.values()))

    def __len__(self) -> int:
        return len(self._terms)

    def __contains__(self, code: object) -> bool:
        return code in self._terms

    def __getitem__(self, code: str) -> T:
        return self._terms[code]

    def get(self, code: str) -> T | None:
        return self._terms.get(code)

    def codes(self, where: Callable[[T], bool] | None = None) -> tuple[str, ...]:
        """The codes in their order (only those ``where`` accepts, if given)."""
        return tuple(code for code, term in self._terms.items() if where is None or where(term))

    def order(self, code: str) -> int:
        """The place of a code in the vocabulary (0 first)."""
        return list(self._terms).index(code)

    def msgids(self) -> dict[str, str]:
        """Each code's label as its msgid (for tables of labels translated where shown)."""
        return {code: term.label for code, term in self._terms.items()}

    def label(self, code: str) -> str:
        """The label of a code as a message (shown in the reader's language); a code the
        vocabulary does not know is data and is shown as written."""
        term = self._terms.get(code)
        return Message(term.label) if term else code

    def derived(self, name: str, compute: Callable[[], R]) -> R:
        """A value computed from the records once, and again when the records change (a
        vocabulary read for every row of a file)."""
        if self._derived_from is not self._terms:
            self._derived, self._derived_from = {}, self._terms
        if name not in self._derived:
            self._derived[name] = compute()
        value: R = self._derived[name]
        return value
