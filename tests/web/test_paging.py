"""The one pager: the pages its links go to, and their addresses."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_test_app
from tid.services.paging import page_info
from tid.web.paging import pager


def _links(page: int, pages: int) -> tuple[int | None, ...]:
    at = pager(page_info(pages * 10, page, 10), "roll.properties")
    return (at.first, at.previous, at.next, at.last)


def test_the_pager_links_the_first_previous_next_and_last_pages() -> None:
    assert not pager(page_info(10, 1, 10), "roll.properties").shown
    assert _links(1, 2) == (None, None, 2, None)
    assert _links(1, 5) == (None, None, 2, 5)
    assert _links(2, 5) == (None, 1, 3, 5)
    assert _links(3, 5) == (1, 2, 4, 5)
    assert _links(4, 5) == (1, 3, 5, None)
    assert _links(5, 5) == (1, 4, None, None)


def test_the_pager_keeps_the_search_and_leaves_out_what_is_none(tmp_path: Path) -> None:
    app = make_test_app("sqlite://", tmp_path)
    at = pager(page_info(30, 2, 10), "roll.properties", district_id=3, fiscal_year="2025-26")
    with app.test_request_context("/"):
        assert at.url(3) == "/roll/3/years/2025-26?page=3"
        searched = pager(at, "roll.properties", district_id=3, fiscal_year="2025-26", q="ana")
        assert searched.url(1) == "/roll/3/years/2025-26?page=1&q=ana"
        shown = app.jinja_env.from_string(
            '{% from "_macros/pager.html" import pager_nav %}{{ pager_nav(p) }}'
        ).render(p=at)
    assert 'rel="prev"' in shown and 'rel="next"' in shown and "?page=3" in shown
