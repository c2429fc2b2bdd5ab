"""What the notice tests share: a rendered run of notices, its access codes, its mailing, its
audit trail, and the content of a sample notice.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tests.conftest import People
from tests.services.notice_support import (
    BASE_URL,
    ISSUED,
    issue_notices,
    make_ordinance,
    make_run,
)
from tid.models import AuditEvent, Notice, NoticeBatch
from tid.render import notice as notice_pdf
from tid.services.audit_trail import audit


def make_batch(
    session: Session, people: People, **kwargs: object
) -> tuple[NoticeBatch, list[Notice]]:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, **kwargs)  # type: ignore[arg-type]
    return issue_notices(session, billed)


def code_in(text: str) -> str:
    match = re.search(r"([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})", text)
    assert match, "no access code printed"
    return match.group(1)


def sample_content(i: int) -> notice_pdf.NoticeContent:
    return notice_pdf.NoticeContent(
        number=f"2026-{i:06d}",
        access_code="ABCD-EFGH-JKMN",
        portal_url=f"{BASE_URL}/portal?n=2026-{i:06d}",
        issued_on=ISSUED,
        kind="initial",
        sender_name="Asociación",
        sender_lines=("PO Box 1", "San Juan PR 00901"),
        association_name="Asociación",
        district_name="Distrito",
        municipality_name="San Juan",
        ordinance_number="12",
        ordinance_issued_on=date(2025, 11, 20),
        ordinance_approved_on=date(2025, 12, 1),
        term_years=5,
        period_label="2025-26",
        cadastral_number=f"040-012-001-{i:02d}",
        property_address="Calle Sol 1",
        owner_name=f"Owner {i}",
        mailing_lines=("Calle Luna 1", "San Juan PR 00901"),
        amount=Decimal("10.00"),
        explanation="1% × $1,000.00 = $10.00",
        due_on=date(2026, 4, 30),
        how_to_pay="Cheque.",
        lien_effective_on=date(2010, 1, 15),
    )


def audit_history(session: Session, batch: NoticeBatch) -> list[AuditEvent]:
    return audit.history(session=session, entity_type="notice_batch", entity_id=batch.id)
