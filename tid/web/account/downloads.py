"""The account's documents of record as downloads, from the one registry ``tid.documents.KINDS``:
a PDF shown in the browser, a CSV file downloaded. The documents that grow with the district
are prepared in the background once they have more rows than a request renders
(:data:`IN_REQUEST_ROWS`, by media): a link to one (bookmarked, say) goes back to its page,
which prepares it (a job with its progress on the page)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from tid import documents
from tid.app_reader import reader
from tid.db import get_session
from tid.documents import PDF, Kind
from tid.i18n import language
from tid.models import District
from tid.rules.periods import FiscalYear
from tid.services.account import account_pages
from tid.web.account.kept import kept_for_today, mark
from tid.web.util import latest_jobs_looked_up, look_up_latest_jobs, send, today

# What a request makes in about a second on an idle server; longer is a job with its progress.
# A PDF's row costs WeasyPrint some 8–12 ms to lay out (a delinquent bill; an entry of the
# statement's journal, of two to four lines), so a hundred rows; a CSV's row costs microseconds.
IN_REQUEST_ROWS = {"pdf": 100, "csv": 5000}


def kind_name(which: str) -> str:
    """The key of ``documents.KINDS`` of a large document as its job and its button name it
    (``statement`` is the statement's PDF)."""
    return which if "." in which else f"{which}.pdf"


class LargeDocument(NamedTuple):
    """A document of the account that grows with the district: its kind and the page (an
    endpoint) it is prepared on."""

    kind: Kind
    page: str


def _large_document(which: str, page: str) -> tuple[str, LargeDocument]:
    return which, LargeDocument(documents.KINDS[kind_name(which)], page)


# By the name a job and a page's button give it (its target is ``pdf:<name>:<district>``).
LARGE_DOCUMENTS: dict[str, LargeDocument] = dict(
    (
        _large_document("statement", "account.statement"),
        _large_document("delinquency", "account.delinquency"),
        _large_document("delinquency.csv", "account.delinquency"),
        _large_document("aging.csv", "account.statement"),
        _large_document("journal.csv", "account.statement"),
    )
)


def _limit(which: str) -> int:
    media = "pdf" if LARGE_DOCUMENTS[which].kind.media_type == PDF else "csv"
    return IN_REQUEST_ROWS[media]


BUTTON = "jobs/_document_button.html"
# The buttons that prepare a long document in the background, by document: each written per
# request into its page's kept content (its job's progress and its one-time job token are the
# reader's own).
BUTTON_LABELS = {
    "statement": _l("the statement (PDF)"),
    "aging.csv": _l("the aging (CSV)"),
    "journal.csv": _l("the journal (CSV)"),
    "delinquency": _l("the list (PDF)"),
    "delinquency.csv": _l("the list (CSV)"),
}


def button_mark(which: str) -> Markup:
    """Where a kept content holds the button of document ``which``."""
    return Markup(mark(f"document-{which}"))


def document_buttons(district: District) -> dict[str, Callable[[], str]]:
    """Each document's button as this request writes it, for :func:`kept_content`."""

    def button(which: str) -> str:
        target = f"pdf:{which}:{district.id}"
        if (target, "account.pdf") not in latest_jobs_looked_up():  # every button's job at once
            targets = [f"pdf:{name}:{district.id}" for name in BUTTON_LABELS]
            look_up_latest_jobs(targets, "account.pdf")
        label = BUTTON_LABELS[which]
        return render_template(BUTTON, district=district, doc_which=which, doc_label=label)

    return {f"document-{which}": partial(button, which) for which in BUTTON_LABELS}


def in_request_bounds() -> tuple[tuple[str, int], ...]:
    """The rows a request lays out, by media: a kept page's links (the document itself or
    the button that prepares it) were chosen by them, so they are part of its key."""
    return tuple(sorted(IN_REQUEST_ROWS.items()))


def is_large(rows: dict[str, int]) -> dict[str, bool]:
    """Which of these documents (by their rows) are prepared in the background."""
    return {which: n > _limit(which) for which, n in rows.items()}


def large(district_id: int, rows: dict[str, int]) -> dict[str, bool]:
    """Which of a page's documents are prepared in the background, with their latest jobs
    read at once for the page's buttons."""
    found = is_large(rows)
    targets = [f"pdf:{which}:{district_id}" for which in rows if found[which]]
    look_up_latest_jobs(targets, "account.pdf")
    return found


_STATEMENT = ("statement", "aging.csv", "journal.csv")


def statement_large(district_id: int, aging: int, entries: int) -> dict[str, bool]:
    """Which of the yearly statement's documents are prepared in the background."""
    rows = account_pages.statement_rows(aging, entries)
    return large(district_id, {which: rows[kind_name(which)] for which in _STATEMENT})


def document_rows(district_id: int, which: str, fy: FiscalYear | None) -> int:
    """How many rows the large document has (from the indexed counts, not the rows), read
    once per version of the district's figures and day."""
    return kept_for_today(
        district_id=district_id,
        key=("document rows", kind_name(which), fy.label if fy else None),
        make=lambda: account_pages.document_rows(
            session=get_session(),
            district_id=district_id,
            name=kind_name(which),
            fy=fy,
            today=today(),
        ),
    )


def too_large(district_id: int, which: str, fy: FiscalYear | None) -> bool:
    """The document is prepared in the background rather than in the request."""
    return is_large({which: document_rows(district_id, which, fy)})[which]


def _prepare_instead(district: District, which: str) -> Any:
    """A link to a large document: back to its page, which prepares it."""
    flash(
        _(
            "This document is long: prepare it in the background with the button below, "
            "and it will be ready to download here."
        ),
        "warning",
    )
    query: dict[str, Any] = {k: request.args[k] for k in ("fy", "booked_by") if request.args.get(k)}
    page = LARGE_DOCUMENTS[which].page
    return redirect(url_for(page, district_id=district.id, **query), code=303)


def download(district: District, name: str, **params: Any) -> Any:
    """The document ``name`` (a key of ``documents.KINDS``) of the district in the reader's
    language, with its parameters (a ``year`` is the one its rows are counted in); a large
    one too long for a request: back to its page, which prepares it."""
    which = name.removesuffix(".pdf")
    if which in LARGE_DOCUMENTS and too_large(district.id or 0, which, params.get("year")):
        return _prepare_instead(district, which)
    document = documents.make(
        get_session(), name, reader=reader(language()), district=district.id, **params
    )
    return send(document, inline=document.is_pdf)
