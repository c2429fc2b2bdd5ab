"""The one pager of a long list's pages: which pages its links go to (the first, the
previous, the next, the last) and their addresses. A route builds it from a page of rows
(anything with ``page`` and ``pages``: ``services.paging.PageInfo`` and the pages built on
it, the journal's and the delinquent bills' pages), the template ``_pager.html`` shows it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from flask import url_for


class Position(Protocol):
    """Where a page of rows stands: ``page`` of ``pages``."""

    @property
    def page(self) -> int: ...

    @property
    def pages(self) -> int: ...


@dataclass(frozen=True)
class Pager:
    """Page ``page`` of ``pages`` of the list at ``endpoint`` with the address's other
    values ``args`` (a search, a filter; those that are None are left out)."""

    page: int
    pages: int
    endpoint: str
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def shown(self) -> bool:
        """A list of one page has no pager."""
        return self.pages > 1

    @property
    def first(self) -> int | None:
        """The first page, linked on its own from the third page on (the second links it
        as the previous one)."""
        return 1 if self.page > 2 else None

    @property
    def previous(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def next(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None

    @property
    def last(self) -> int | None:
        """The last page, linked on its own up to the page before the one before it."""
        return self.pages if self.page < self.pages - 1 else None

    def url(self, page: int) -> str:
        return url_for(self.endpoint, page=page, **self.args)


def pager(at: Position, endpoint: str, **args: Any) -> Pager:
    """The pager of the page ``at`` of the list at ``endpoint`` (``args``: the address's
    other values)."""
    return Pager(page=at.page, pages=at.pages, endpoint=endpoint, args=args)
