"""What the Postal Service reports for a mailed notice: delivered, returned unclaimed, refused
or undeliverable, one by one or from a CSV file.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date

from sqlmodel import Session, col, select

from tid.models import DeliveryEvent, DeliveryStatus, Notice
from tid.rules import periods
from tid.rules.errors import N_, Finding, InputError
from tid.services.audit_trail import audit
from tid.services.notices.access_codes import normalize_notice_number
from tid.services.notices.uploaded_csv import csv_rows, is_header, row_findings

RETURNED = frozenset(
    {
        DeliveryStatus.RETURNED_UNCLAIMED.value,
        DeliveryStatus.REFUSED.value,
        DeliveryStatus.UNDELIVERABLE.value,
    }
)
# What a delivery file may say, in the words the Postal Service's reports and clerks use.
_STATUS_WORDS = {
    "delivered": DeliveryStatus.DELIVERED,
    "entregado": DeliveryStatus.DELIVERED,
    "returned_unclaimed": DeliveryStatus.RETURNED_UNCLAIMED,
    "returned unclaimed": DeliveryStatus.RETURNED_UNCLAIMED,
    "unclaimed": DeliveryStatus.RETURNED_UNCLAIMED,
    "no reclamado": DeliveryStatus.RETURNED_UNCLAIMED,
    "refused": DeliveryStatus.REFUSED,
    "rehusado": DeliveryStatus.REFUSED,
    "undeliverable": DeliveryStatus.UNDELIVERABLE,
    "undeliverable as addressed": DeliveryStatus.UNDELIVERABLE,
    "no entregable": DeliveryStatus.UNDELIVERABLE,
}


def parse_status(value: str, field: str = "status") -> DeliveryStatus:
    word = " ".join(value.strip().lower().replace("-", " ").split())
    status = _STATUS_WORDS.get(word) or _STATUS_WORDS.get(word.replace(" ", "_"))
    if status is None:
        raise InputError(
            field,
            N_("Use delivered, returned unclaimed, refused or undeliverable."),
        )
    return status


def record_delivery(
    *,
    session: Session,
    actor: audit.Actor,
    notice_id: int,
    status: str,
    occurred_on: date,
    today: date,
    source: str = "form",
) -> DeliveryEvent | None:
    """Record what the Postal Service reported for a mailed notice (idempotent: the same
    report twice is recorded once; returns None then)."""
    notice = session.get(Notice, notice_id)
    if notice is None:
        raise InputError("notice", N_("There is no such notice."))
    return _record_delivery(
        session, actor, notice, parse_status(status), occurred_on, today, source, "status"
    )


def _record_delivery(
    session: Session,
    actor: audit.Actor,
    notice: Notice,
    status: DeliveryStatus,
    occurred_on: date,
    today: date,
    source: str,
    field: str,
) -> DeliveryEvent | None:
    if notice.mailed_on is None:
        raise InputError(field, N_("This notice has not been mailed yet."))
    if occurred_on < notice.mailed_on or occurred_on > today:
        raise InputError("occurred_on", N_("The date must be between the mailing date and today."))
    existing = session.exec(
        select(DeliveryEvent).where(
            DeliveryEvent.notice_id == notice.id,
            DeliveryEvent.status == status.value,
            DeliveryEvent.occurred_on == occurred_on,
        )
    ).first()
    if existing is not None:
        return None
    event = DeliveryEvent(
        notice_id=notice.id or 0,
        status=status.value,
        occurred_on=occurred_on,
        source=source,
        actor=actor.label,
    )
    session.add(event)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="notice.delivery",
        entity=event,
        after=audit.snapshot(event),
    )
    return event


@dataclass(frozen=True)
class DeliveryImport:
    rows: int
    recorded: int
    already: int
    returned: list[str]  # notice numbers now returned (to re-mail)


def import_deliveries(
    *,
    session: Session,
    actor: audit.Actor,
    data: bytes,
    today: date,
    district_ids: Collection[int] | None,
) -> DeliveryImport:
    """Delivery reports from a CSV file: (article number, status, date) rows — or (notice
    number, status, date). Only notices of ``district_ids`` (None: any) are reachable. All
    rows are checked first; one bad row and nothing is written."""
    rows = csv_rows(data, "file")
    if rows and is_header(rows[0][1][:1]):
        rows = rows[1:]
    findings: list[Finding] = []
    plan: list[tuple[Notice, DeliveryStatus, date, int]] = []
    for line, cells in rows:
        if len(cells) < 3:
            findings.append(
                Finding("file", N_("Each row needs a number, a status and a date."), line)
            )
            continue
        key = "".join(cells[0].split())
        notice: Notice | None
        if key.isdigit():
            notice = session.exec(select(Notice).where(Notice.article_number == key)).first()
        else:
            notice = session.exec(
                select(Notice).where(Notice.number == normalize_notice_number(key))
            ).first()
        if notice is None or (district_ids is not None and notice.district_id not in district_ids):
            findings.append(
                Finding("article_number", N_("No mailed notice has this number."), line)
            )
            continue
        try:
            status = parse_status(cells[1])
            occurred = periods.parse_date(cells[2], "occurred_on")
        except InputError as exc:
            findings.append(Finding(exc.field, exc.message, line))
            continue
        if notice.mailed_on is None:
            findings.append(
                Finding("article_number", N_("No mailed notice has this number."), line)
            )
            continue
        if occurred < notice.mailed_on or occurred > today:
            findings.append(
                Finding(
                    "occurred_on", N_("The date must be between the mailing date and today."), line
                )
            )
            continue
        plan.append((notice, status, occurred, line))
    if not rows:
        findings.append(Finding("file", N_("The file has no rows."), None))
    if findings:
        raise row_findings(findings, rows)
    recorded = 0
    returned: list[str] = []
    for notice, status, occurred, _line in plan:
        event = _record_delivery(
            session, actor, notice, status, occurred, today, "csv", "article_number"
        )
        if event is not None:
            recorded += 1
            if status.value in RETURNED:
                returned.append(notice.number)
    return DeliveryImport(
        rows=len(plan), recorded=recorded, already=len(plan) - recorded, returned=returned
    )


def latest_delivery(*, session: Session, notice_ids: Collection[int]) -> dict[int, DeliveryEvent]:
    """The latest delivery report of each notice (by date, then by when recorded)."""
    if not notice_ids:
        return {}
    events = session.exec(
        select(DeliveryEvent)
        .where(col(DeliveryEvent.notice_id).in_(list(notice_ids)))
        .order_by(col(DeliveryEvent.occurred_on), col(DeliveryEvent.id))
    )
    return {e.notice_id: e for e in events}
