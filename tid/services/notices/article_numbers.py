"""The certified-mail article number of each notice, one by one or from a CSV file of
(notice number, article number) rows, validated by tid/rules/certified_mail.py. A mailed
notice's number cannot change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from tid.models import Notice, NoticeBatch
from tid.rules.certified_mail import parse_article_number
from tid.rules.errors import N_, Finding, InputError
from tid.services.audit_trail import audit
from tid.services.notices.access_codes import normalize_notice_number
from tid.services.notices.uploaded_csv import csv_rows, is_header, row_findings


def _editable(notice: Notice, field: str) -> None:
    if notice.mailed_on is not None:
        raise InputError(field, N_("This notice was mailed; its record cannot be changed."))


def set_article_number(
    *, session: Session, actor: audit.Actor, notice_id: int, article_number: str
) -> Notice:
    """Record the certified-mail article number of a notice not yet mailed."""
    notice = session.get(Notice, notice_id)
    if notice is None:
        raise InputError("notice", N_("There is no such notice."))
    _editable(notice, "article_number")
    digits = parse_article_number(article_number, "article_number").digits
    _check_article_free(session, digits, notice.id, "article_number")
    before = audit.snapshot(notice, exclude=("access_code_hash",))
    notice.article_number = digits
    session.add(notice)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="notice.article_number",
        entity=notice,
        before=before,
        after=audit.snapshot(notice, exclude=("access_code_hash",)),
    )
    return notice


def _check_article_free(session: Session, digits: str, notice_id: int | None, field: str) -> None:
    other = session.exec(select(Notice).where(Notice.article_number == digits)).first()
    if other is not None and other.id != notice_id:
        raise InputError(field, N_("This article number is already used by another notice."))


@dataclass(frozen=True)
class ImportResult:
    rows: int
    changed: int
    unchanged: int


def import_article_numbers(
    *, session: Session, actor: audit.Actor, batch_id: int, data: bytes
) -> ImportResult:
    """Article numbers from a CSV file of (notice number, article number) rows, for the
    notices of one batch. All rows are checked first; one bad row and nothing is written."""
    batch = session.get(NoticeBatch, batch_id)
    if batch is None:
        raise InputError("file", N_("There is no such notice run."))
    notices = {n.number: n for n in session.exec(select(Notice).where(Notice.batch_id == batch_id))}
    rows = csv_rows(data, "file")
    if rows and is_header(rows[0][1]):
        rows = rows[1:]
    plan, in_file, findings = _plan_rows(rows, notices)
    if not rows:
        findings.append(Finding("file", N_("The file has no rows."), None))
    findings.extend(_used_elsewhere(session, plan, in_file))
    if findings:
        raise row_findings(findings, rows)
    changed = _assign(session, plan)
    audit.record(
        session=session,
        actor=actor,
        action="notice_batch.article_numbers",
        entity=batch,
        after={"rows": len(plan), "changed": changed},
    )
    return ImportResult(rows=len(plan), changed=changed, unchanged=len(plan) - changed)


def _plan_rows(
    rows: Sequence[tuple[int, list[str]]], notices: Mapping[str, Notice]
) -> tuple[list[tuple[Notice, str]], dict[str, int], list[Finding]]:
    """Each row checked on its own and against the file: (notice, article number) to record,
    each number's row, and the findings."""
    findings: list[Finding] = []
    plan: list[tuple[Notice, str]] = []
    in_file: dict[str, int] = {}
    for line, cells in rows:
        if len(cells) < 2:
            findings.append(
                Finding("file", N_("Each row needs a notice number and an article number."), line)
            )
            continue
        notice = notices.get(normalize_notice_number(cells[0]))
        if notice is None:
            findings.append(Finding("notice_number", N_("Not a notice of this run."), line))
            continue
        try:
            digits = parse_article_number(cells[1], "article_number").digits
        except InputError as exc:
            findings.append(Finding("article_number", exc.message, line))
            continue
        if digits in in_file:
            findings.append(
                Finding("article_number", N_("This article number appears twice."), line)
            )
            continue
        in_file[digits] = line
        if notice.mailed_on is not None and notice.article_number != digits:
            findings.append(
                Finding(
                    "notice_number",
                    N_("This notice was mailed; its record cannot be changed."),
                    line,
                )
            )
            continue
        plan.append((notice, digits))
    return plan, in_file, findings


def _used_elsewhere(
    session: Session, plan: Sequence[tuple[Notice, str]], in_file: Mapping[str, int]
) -> list[Finding]:
    """A finding for each planned number another notice already has."""
    numbers_taken = {
        a: i
        for a, i in session.exec(
            select(Notice.article_number, Notice.id).where(
                col(Notice.article_number).in_(list(in_file))
            )
        )
        if a
    }
    findings = []
    for notice, digits in plan:
        owner = numbers_taken.get(digits)
        if owner is not None and owner != notice.id:
            findings.append(
                Finding(
                    "article_number",
                    N_("This article number is already used by another notice."),
                    in_file[digits],
                )
            )
    return findings


def _assign(session: Session, plan: Sequence[tuple[Notice, str]]) -> int:
    """Record the planned numbers; how many changed."""
    changed = 0
    for notice, digits in plan:
        if notice.article_number == digits:
            continue
        # Free numbers being swapped inside the run before assigning them again.
        notice.article_number = None
        session.add(notice)
    session.flush()
    for notice, digits in plan:
        if notice.article_number is None:
            notice.article_number = digits
            session.add(notice)
            changed += 1
    session.flush()
    return changed
