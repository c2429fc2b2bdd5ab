"""The kinds of documents the archive holds, one registry: each kind names itself as a
person quotes it ("lien certificate C-2026-000001", "notice 2026-000008") and finds, by a
document's SHA-256, which of its documents were archived under it. ``tid archive verify``
(tid/services/archive/rehash.py) says by these names which document no longer matches.

A new kind of document issued about a property needs no row here: it is named in
tid/rules/vocab/closing_terms.py (with its reference letter), which this registry reads.
Another new kind of document of record takes a row here; either is archived with
:func:`tid.services.archive.store.archive` where it is made."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from tid.models import (
    FormulaStudy,
    IssuedDocument,
    Job,
    Notice,
    NoticeBatch,
    OpeningPosition,
    PublishedDocument,
)
from tid.rules.messages import N_, Message
from tid.rules.vocab.closing_terms import ISSUED_KINDS

NAMED = N_("%(kind)s %(number)s")
# The published yearly statement, as the district publishes it for audit.
AUDIT_STATEMENTS = ("published-statement.pdf", "statement.pdf")


@dataclass(frozen=True)
class Kind:
    """A kind of document of record: its code, how one is named (a msgid with
    ``%(number)s``) and how its documents archived under a SHA-256 are found (their
    numbers, as people quote them)."""

    code: str
    label: str
    numbers: Callable[[Session, str], Sequence[Any]]
    noun: str = ""  # a kind named by its vocabulary's label: "<noun> <number>"

    def named(self, number: Any) -> Message:
        """One document of this kind, as people quote it."""
        if self.noun:
            return Message(NAMED, kind=Message(self.noun), number=number)
        return Message(self.label, number=number)


def _column(
    model: Any, column: str, number: str, *where: Any
) -> Callable[[Session, str], list[Any]]:
    """The ``number`` of each row of ``model`` whose ``column`` holds the hash."""

    def numbers(session: Session, sha256: str) -> list[Any]:
        stmt = select(getattr(model, number)).where(getattr(model, column) == sha256, *where)
        return list(session.exec(stmt.order_by(col(getattr(model, number)))))

    return numbers


def _issued(kind: str) -> Callable[[Session, str], list[Any]]:
    return _column(IssuedDocument, "sha256", "reference", IssuedDocument.kind == kind)


def _published(session: Session, sha256: str) -> list[str]:
    rows = session.exec(
        select(PublishedDocument).where(
            PublishedDocument.sha256 == sha256,
            col(PublishedDocument.kind).not_in(AUDIT_STATEMENTS),
        )
    )
    return [f"{d.title} ({d.fiscal_year})" for d in rows]


def _opening_files(session: Session, sha256: str) -> list[str]:
    """The opening positions' source files archived under the hash (its ``files`` JSON)."""
    found = []
    for position in session.exec(select(OpeningPosition).order_by(col(OpeningPosition.id))):
        for f in json.loads(position.files or "[]"):
            if f.get("sha256") == sha256:
                found.append(f"{f.get('name', '')} ({position.cut_over.isoformat()})")
    return found


KINDS: tuple[Kind, ...] = (
    Kind("notice", N_("notice %(number)s"), _column(Notice, "pdf_sha256", "number")),
    Kind(
        "print_file",
        N_("print file of notice run %(number)s"),
        _column(NoticeBatch, "print_sha256", "number"),
    ),
    Kind(
        "manifest",
        N_("PS 3877 manifest of notice run %(number)s"),
        _column(NoticeBatch, "manifest_sha256", "number"),
    ),
    # Every kind of document issued about a property (payoff quotes, lien certificates,
    # releases): named as its vocabulary names it, found by its reference.
    *(Kind(k.code, NAMED, _issued(k.code), noun=k.label) for k in ISSUED_KINDS),
    Kind(
        "audit_statement",
        N_("audit statement of fiscal year %(number)s"),
        _column(
            PublishedDocument,
            "sha256",
            "fiscal_year",
            col(PublishedDocument.kind).in_(AUDIT_STATEMENTS),
        ),
    ),
    Kind("published", N_("published document %(number)s"), _published),
    Kind(
        "study_report",
        N_("report of formula study %(number)s"),
        _column(FormulaStudy, "report_sha256", "id"),
    ),
    Kind(
        "study_roll",
        N_("roll file of formula study %(number)s"),
        _column(FormulaStudy, "file_sha256", "id"),
    ),
    Kind("opening_file", N_("opening position file %(number)s"), _opening_files),
    Kind("job_file", N_("file made by job %(number)s"), _column(Job, "result_sha256", "id")),
)


def by_code() -> dict[str, Kind]:
    return {kind.code: kind for kind in KINDS}
