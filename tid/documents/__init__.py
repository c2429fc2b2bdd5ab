"""Every document of record the app issues, in one place: a function
``(session, …parameters, reader) -> Document`` (its bytes, media type and file name) per
document, one module per family (account, petitions, calculators, notices), and the
registry below that names them. The web's downloads, the background jobs and
``tid document NAME`` call the same functions, so each gives the same document.

Each function writes for its :class:`~tid.documents.base.Reader` (their language, today, the
templates), which the caller makes; bad parameters are
:class:`~tid.rules.errors.InputError` naming the parameter."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from tid.documents import (
    account,
    budget,
    calc_reports,
    closing,
    notices,
    petitions,
    reform_note,
    studio_reports,
)
from tid.documents.base import CSV, PDF, Document, Reader
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message

__all__ = ["CSV", "KINDS", "PARAMETERS", "PDF", "Document", "Kind", "Reader", "make"]

# What each parameter is, as ``tid document list`` says it.
PARAMETERS: dict[str, str] = {
    "district": N_("the district (its number or exact name)"),
    "year": N_("the fiscal year, like 2026-27 (by default the current one)"),
    "booked_by": N_("the journal as it stood at the end of this day (YYYY-MM-DD)"),
    "property": N_("the property (its number)"),
    "municipality": N_("the municipality (its number or exact name; by default every one)"),
    "state": Message(
        "the state of the petitions: %(states)s (by default every open one)",
        states=", ".join(petitions.STATES),
    ),
    "batch": N_("the notice run (its number)"),
    "notice": N_("the notice (its number, like 2026-000008)"),
    "calculator": N_("the calculator (its name, as tid calc names it)"),
    "input": N_("the calculator's JSON document (a file)"),
    "study": N_("the petition's formula study (its number)"),
    "through": N_("the day a payoff quote is good through (YYYY-MM-DD; by default 30 days on)"),
    "issued_by": N_("who issues the document (their name, as printed on it)"),
    "reform": N_("the saved reform (its id, as its address ends)"),
}


@dataclass(frozen=True)
class Kind:
    """A document of record: its name, what it is (a msgid), the function that makes it,
    the parameters it needs and those it may take."""

    name: str
    title: str
    make: Callable[..., Document]
    media_type: str
    needs: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)


_YEAR = ("year", "booked_by")
KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "delinquency.pdf",
            N_(
                "The delinquency list: each bill owed past its due date, with its surcharge "
                "and interest"
            ),
            account.delinquency_pdf,
            PDF,
            ("district",),
        ),
        Kind(
            "delinquency.csv",
            N_("The delinquency list as a spreadsheet"),
            account.delinquency_csv,
            CSV,
            ("district",),
        ),
        Kind(
            "statement.pdf",
            N_("The yearly statement of the special account, for audit"),
            account.statement_pdf,
            PDF,
            ("district",),
            _YEAR,
        ),
        Kind(
            "published-statement.pdf",
            N_(
                "The yearly statement as the district publishes it: the year's figures, "
                "without any property's row"
            ),
            account.published_statement_pdf,
            PDF,
            ("district",),
            ("year",),
        ),
        Kind(
            "budget-report.pdf",
            N_(
                "The district's yearly report: the year against its approved budget, the "
                "collections, the cap, the carry-over and the next year's budget"
            ),
            budget.budget_report_pdf,
            PDF,
            ("district",),
            ("year",),
        ),
        Kind(
            "statement.csv",
            N_("The yearly statement's lines as a spreadsheet"),
            account.statement_part_csv,
            CSV,
            ("district",),
            _YEAR,
            {"part": "statement"},
        ),
        Kind(
            "aging.csv",
            N_("The receivables at the fiscal year's end by age, as a spreadsheet"),
            account.statement_part_csv,
            CSV,
            ("district",),
            _YEAR,
            {"part": "aging"},
        ),
        Kind(
            "journal.csv",
            N_("The journal of the fiscal year as a spreadsheet"),
            account.statement_part_csv,
            CSV,
            ("district",),
            _YEAR,
            {"part": "journal"},
        ),
        Kind(
            "lien-certificate.pdf",
            N_(
                "A property's liens in the order the law ranks them (issued, archived and "
                "verifiable)"
            ),
            closing.lien_certificate,
            PDF,
            ("district", "property"),
            ("issued_by",),
        ),
        Kind(
            "payoff.pdf",
            N_(
                "A payoff quote: what a property owes through a day, with what each day after "
                "adds (issued, archived and verifiable)"
            ),
            closing.payoff_pdf,
            PDF,
            ("district", "property"),
            ("through", "issued_by"),
        ),
        Kind(
            "release.pdf",
            N_(
                "The release of a property's impost lien, once nothing it secures is owed "
                "(issued, archived and verifiable)"
            ),
            closing.release_pdf,
            PDF,
            ("district", "property"),
            ("issued_by",),
        ),
        Kind(
            "deadlines.pdf",
            N_("The open petitions and their deadlines"),
            petitions.deadlines_report,
            PDF,
            (),
            ("municipality", "state"),
        ),
        Kind(
            "formula-study.pdf",
            N_("A petition's formula study: the variants tried on a roll, side by side"),
            studio_reports.study_report,
            PDF,
            ("study",),
        ),
        Kind(
            "formula-study.csv",
            N_("A formula study's amounts, every property under each variant"),
            studio_reports.study_csv,
            CSV,
            ("study",),
        ),
        Kind(
            "calculator.pdf",
            N_("A calculator's result with its input, steps and citations"),
            calc_reports.report_pdf,
            PDF,
            ("calculator", "input"),
        ),
        Kind(
            "calculator.csv",
            N_("A calculator's result as a spreadsheet"),
            calc_reports.result_csv,
            CSV,
            ("calculator", "input"),
        ),
        Kind(
            "reform-note.pdf",
            N_("A reform's note: what it changes, from when, the totals, then the details"),
            reform_note.reform_note_pdf,
            PDF,
            ("reform",),
        ),
        Kind(
            "notices.pdf",
            N_("Every notice of a notice run, as printed"),
            notices.print_file,
            PDF,
            ("batch",),
            ("district",),
        ),
        Kind(
            "notice.pdf",
            N_("One notice, exactly as mailed"),
            notices.notice_pdf,
            PDF,
            ("notice",),
            ("district",),
        ),
        Kind(
            "manifest.pdf",
            N_("The PS Form 3877 manifest of a notice run"),
            notices.manifest_pdf,
            PDF,
            ("batch",),
            ("district",),
        ),
    )
}

NO_DOCUMENT = N_("There is no such document.")
NEEDED = N_("This document needs it (see tid document list).")
NOT_TAKEN = N_("This document does not take it (see tid document list).")


def make(session: Session | None, name: str, *, reader: Reader, **params: Any) -> Document:
    """The document ``name`` (a key of :data:`KINDS`) with its parameters, for ``reader``.
    A parameter left out is given as None."""
    kind = KINDS.get(name)
    if kind is None:
        raise InputError("name", NO_DOCUMENT)
    given = {k: v for k, v in params.items() if v is not None}
    for needed in kind.needs:
        if needed not in given:
            raise InputError(needed, NEEDED)
    for extra in given:
        if extra not in kind.needs and extra not in kind.optional:
            raise InputError(extra, NOT_TAKEN)
    return kind.make(session, reader=reader, **kind.fixed, **given)
