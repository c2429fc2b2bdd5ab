"""Each change of a year's roll answered — accepted, or sent back with a reason and how it is
billed meanwhile (kept out, or at last year's figures) — and the check's page: its filters,
its counts by kind and status, its pages, and the CSV of every change."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from tid import csv_safe
from tid.clock import utcnow
from tid.models import RollChange, RollCheckSetting
from tid.rules.errors import N_, InputError
from tid.rules.roll_changes import GONE, KINDS, NEW
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district
from tid.services.paging import PageInfo, page_info
from tid.services.roll_check.gate import (
    ACCEPTED,
    CORRECTED,
    EXCLUDE,
    LAST_YEAR,
    OPEN,
    SENT_BACK,
    WITHDRAWN,
)

STATUSES = {
    OPEN: N_("Waiting for an answer"),
    ACCEPTED: N_("Accepted"),
    SENT_BACK: N_("Sent back"),
    CORRECTED: N_("Corrected by the CRIM"),
    WITHDRAWN: N_("No longer in the roll"),
}
TREATMENTS = {
    EXCLUDE: N_("Kept out of billing"),
    LAST_YEAR: N_("Billed at last year's figures"),
}
PER_PAGE = 50
MAX_REASON = 1000


def _change(session: Session, district_id: int, fiscal_year: str, change_id: int) -> RollChange:
    change = session.get(RollChange, change_id)
    if change is None or change.district_id != district_id or change.fiscal_year != fiscal_year:
        raise InputError("change", N_("There is no such change in this year's roll."))
    return change


def answer(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fiscal_year: str,
    change_id: int,
    accept: bool,
    reason: str = "",
    treatment: str = EXCLUDE,
) -> RollChange:
    """Accept a change, or send it back with its reason and how it is billed meanwhile. A
    new property has no last year's figures: it can only be kept out. An answer may be
    changed until the CRIM's correction is imported; each answer is an audit event."""
    lock_district(session=session, district_id=district_id)
    change = _change(session, district_id, fiscal_year, change_id)
    if change.status in (CORRECTED, WITHDRAWN):
        raise InputError("change", N_("This change is closed: it cannot be answered again."))
    reason = " ".join(reason.split())
    if not accept:
        if not reason:
            raise InputError("reason", N_("Say why the change is sent back."))
        if len(reason) > MAX_REASON:
            raise InputError("reason", N_("The reason is too long (1,000 characters at most)."))
        if treatment not in TREATMENTS:
            raise InputError("treatment", N_("Choose how the property is billed meanwhile."))
        if treatment == LAST_YEAR and change.kind == NEW:
            raise InputError(
                "treatment", N_("A new property has no last year's figures: keep it out.")
            )
    before = audit.snapshot(change)
    change.status = ACCEPTED if accept else SENT_BACK
    change.treatment = "" if accept else treatment
    change.reason = "" if accept else reason
    change.answered_by = actor.label[:254]
    change.answered_at = utcnow()
    session.add(change)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="roll_change.answer",
        entity=change,
        before=before,
        after=audit.snapshot(change),
    )
    return change


def set_setting(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    enabled: bool,
    threshold_percent: str,
) -> RollCheckSetting:
    """The district's check: on or off, and the share an assessed value must move (1–100%)."""
    lock_district(session=session, district_id=district_id)
    try:
        percent = int(threshold_percent.strip().rstrip("%").strip())
    except ValueError:
        percent = 0
    if not 1 <= percent <= 100:
        raise InputError("threshold", N_("Write the threshold as a whole percent, 1 to 100."))
    setting = session.get(RollCheckSetting, district_id) or RollCheckSetting(
        district_id=district_id
    )
    before = audit.snapshot(setting) if setting.actor else None
    setting.enabled = enabled
    setting.threshold_percent = percent
    setting.updated_at = utcnow()
    setting.actor = actor.label[:254]
    session.add(setting)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="roll_check.setting",
        entity=("district", district_id),
        before=before,
        after=audit.snapshot(setting),
    )
    return setting


@dataclass(frozen=True)
class CheckPage:
    rows: list[RollChange]
    info: PageInfo
    by_kind: dict[str, int]
    by_status: dict[str, int]


def _filtered(district_id: int, fiscal_year: str, kind: str, status: str, search: str) -> Any:
    stmt = select(RollChange).where(
        RollChange.district_id == district_id, RollChange.fiscal_year == fiscal_year
    )
    if kind in KINDS:
        stmt = stmt.where(RollChange.kind == kind)
    if status in STATUSES:
        stmt = stmt.where(RollChange.status == status)
    term = search.strip()
    if term:
        escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        stmt = stmt.where(
            col(RollChange.numbers_before).like(f"%{escaped}%", escape="\\")
            | col(RollChange.numbers_after).like(f"%{escaped}%", escape="\\")
        )
    return stmt


def counts(
    *, session: Session, district_id: int, fiscal_year: str
) -> tuple[dict[str, int], dict[str, int]]:
    """The year's changes counted by kind and by status (each key present)."""
    where = (RollChange.district_id == district_id, RollChange.fiscal_year == fiscal_year)
    by_kind = dict.fromkeys(KINDS, 0)
    for kind, n in session.exec(
        select(RollChange.kind, func.count()).where(*where).group_by(RollChange.kind)
    ):
        by_kind[kind] = int(n)
    by_status = dict.fromkeys(STATUSES, 0)
    for status, n in session.exec(
        select(RollChange.status, func.count()).where(*where).group_by(RollChange.status)
    ):
        by_status[status] = int(n)
    return by_kind, by_status


def check_page(
    *,
    session: Session,
    district_id: int,
    fiscal_year: str,
    kind: str = "",
    status: str = "",
    search: str = "",
    page: int = 1,
    per_page: int = PER_PAGE,
) -> CheckPage:
    """One page of the year's changes, filtered by kind, status and cadastral number."""
    stmt = _filtered(district_id, fiscal_year, kind, status, search[:40])
    total = int(session.exec(select(func.count()).select_from(stmt.subquery())).one())
    info = page_info(total, page, per_page)
    rows = list(
        session.exec(
            stmt.order_by(RollChange.number, RollChange.kind, col(RollChange.id))
            .offset(info.offset)
            .limit(per_page)
        )
    )
    by_kind, by_status = counts(session=session, district_id=district_id, fiscal_year=fiscal_year)
    return CheckPage(rows, info, by_kind, by_status)


def figures(change: RollChange) -> tuple[dict[str, str], dict[str, str]]:
    return json.loads(change.before or "{}"), json.loads(change.after or "{}")


def numbers(change: RollChange) -> tuple[list[str], list[str]]:
    return json.loads(change.numbers_before or "[]"), json.loads(change.numbers_after or "[]")


def _said(values: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in sorted(values.items()) if v)


def changes_csv(
    *, session: Session, district_id: int, fiscal_year: str, say: Callable[[str], str]
) -> bytes:
    """Every change of the year, one a row, its words said by ``say`` (a msgid in the
    reader's language; UTF-8 with a BOM, cells guarded against spreadsheet formulas)."""
    out = io.StringIO()
    writer = csv.writer(out)
    header = [
        N_("Change"),
        N_("Last year's numbers"),
        N_("This year's numbers"),
        N_("Last year"),
        N_("This year"),
        N_("Impost last year"),
        N_("Impost this year"),
        N_("Still owes"),
        N_("Answer"),
        N_("Billed meanwhile"),
        N_("Reason"),
        N_("Answered by"),
    ]
    writer.writerow([say(h) for h in header])
    stmt = _filtered(district_id, fiscal_year, "", "", "").order_by(
        RollChange.number, RollChange.kind, col(RollChange.id)
    )
    for change in session.exec(stmt):
        before, after = figures(change)
        then, now = numbers(change)
        writer.writerow(
            [
                csv_safe.text_cell(say(KINDS[change.kind])),
                csv_safe.text_cell(", ".join(then)),
                csv_safe.text_cell(", ".join(now)),
                csv_safe.text_cell(_said(before)),
                csv_safe.text_cell(_said(after)),
                csv_safe.number_cell(change.impost_before),
                csv_safe.number_cell(change.impost_after),
                csv_safe.number_cell(change.owed if change.kind == GONE else None),
                csv_safe.text_cell(say(STATUSES[change.status])),
                csv_safe.text_cell(say(TREATMENTS[change.treatment]) if change.treatment else ""),
                csv_safe.text_cell(change.reason),
                csv_safe.text_cell(change.answered_by),
            ]
        )
    return ("\ufeff" + out.getvalue()).encode()
