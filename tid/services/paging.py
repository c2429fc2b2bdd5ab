"""Pages of long lists (a roll of 100,000 properties, a run's bills) and the plain-text search
by cadastral number or owner that both offer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import func

from tid.models import Property, PropertyYear

# The rows of a page on screen: a table a person reads, and a phone scrolls, at once (the
# CSV and PDF files have every row). Fifty journal entries are some 150 lines.
PER_PAGE = 50
# The first rows a summary shows of a long list, with a link to the list's own pages: the
# payments page's latest payments.
FIRST_ROWS = 25


@dataclass(frozen=True)
class PageInfo:
    """Where a page stands among the others: ``page`` of ``pages``, ``total`` rows in all."""

    total: int
    page: int
    pages: int

    per_page: int = PER_PAGE

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def position(self) -> dict[str, int]:
        """The page's position, to build a page of rows: ``RollPage(rows=…, **info.position())``."""
        return {
            "total": self.total,
            "page": self.page,
            "pages": self.pages,
            "per_page": self.per_page,
        }


def page_info(total: int, page: int, per_page: int) -> PageInfo:
    """The page asked for, kept between the first and the last."""
    pages = max(1, -(-total // per_page))
    return PageInfo(total=total, page=min(max(1, page), pages), pages=pages, per_page=per_page)


def cadastral_or_owner(term: str) -> Any | None:
    """A condition matching ``term`` in the cadastral number or the owners' names, taken as
    plain text (``%`` and ``_`` are not wildcards); None for an empty search."""
    term = term.strip()
    if not term:
        return None
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped.lower()}%"
    return func.lower(Property.cadastral_number).like(pattern, escape="\\") | func.lower(
        PropertyYear.owner_names
    ).like(pattern, escape="\\")
