"""The public pages' content, rendered once per version of what it shows and kept by each
web worker: a crowd reading a district's page costs what the sign-in page costs — the frame
of the site (its header, the language switch with the reader's own form token) is rendered
for each request, the content is not.

The key of a content is what it depends on: the version the database gives for it (a
district's public version, the register's, the installation's — one indexed read per
request, so a change made through any worker, a job or the command line shows at the next
request everywhere), the reader's language, the day (deadlines and terms count from it) and
the page's own arguments. Nothing of the reader is in it: a page that shows something of the
reader (the link to choosing a district's public years) shows it outside the content."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from tid.db import get_session
from tid.i18n import language
from tid.services.public import versions
from tid.web.util import today


@dataclass(frozen=True)
class Fragment:
    """A page's content as HTML, its title, and the few values its frame needs."""

    title: str
    body: Markup
    frame: dict[str, Any] = field(default_factory=dict)


def kept(
    *, version: object, key: tuple[Any, ...], make: Callable[[], Fragment | None]
) -> Fragment | None:
    """The content ``make`` renders for ``version`` in the reader's language and today (None:
    the page is not there — kept too, so that a missing page costs no more than a page).
    The figures a first reading computed are kept for every worker (committed)."""
    session = get_session()
    found = versions.kept(
        session=session,
        district_id=0,
        key=("fragment", language(), today(), *key),
        make=make,
        version=version,
    )
    if session.in_transaction():  # a first reading's figures (a kept page opens none)
        session.commit()
    return found
