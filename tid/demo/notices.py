"""The Condado run's certified-mail notices (21 LPRA § 6653(5)), and the sample notice number
and access code left for trying the owner's portal."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from sqlmodel import Session, select

from tid.config import portal_code_secret
from tid.demo.account import ACCOUNT_DISTRICT, ACCOUNT_FY
from tid.demo.base import DEMO_ACTOR, demo_folder
from tid.models import ArchivedDocument, District, Notice, NoticeBatch
from tid.rules.certified_mail import check_digit
from tid.services import billing, notices

PORTAL_SAMPLE = "portal-sample.txt"


def load_notices(session: Session, config: Mapping[str, Any]) -> None:
    """The certified-mail notices of the Condado run (21 LPRA § 6653(5)): rendered and
    archived, article numbers, mailed on 2025-07-21 with the PS 3877 manifest; the first
    owner's notice delivered, the second returned unclaimed (ready to be mailed again). The
    access codes are only on the PDFs (staff can download a notice to try the portal)."""
    district = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).first()
    if district is None:
        return
    run = billing.active_run(session=session, district_id=district.id or 0, fiscal_year=ACCOUNT_FY)
    if run is None:
        return
    if session.exec(select(NoticeBatch).where(NoticeBatch.district_id == district.id)).first():
        return
    batch = notices.create_batch(
        session=session,
        actor=DEMO_ACTOR,
        billing_run_id=run.id or 0,
        issued_on=date(2025, 7, 18),
        sender_name=district.association_name or "Asociación del Distrito de Condado, Inc.",
        sender_address="PO Box 19500\nSan Juan PR 00910-1500",
        how_to_pay="Cheque o giro a nombre de la Asociación, en su oficina de la Ave. Ashford "
        "1020, o por correo al apartado del remitente.",
        how_to_pay_en="Check or money order to the Association, at its office at 1020 Ashford "
        "Ave., or by mail to the sender's box.",
        portal_base_url=str(config.get("BASE_URL") or "http://127.0.0.1:5000"),
        secret=portal_code_secret(config),
        workers=1,
    )
    found = notices.batch_notices(session=session, batch_id=batch.id or 0)
    _mail(session, batch.id or 0, found)
    session.commit()
    _write_portal_sample(session, found[0], config)


def _mail(session: Session, batch_id: int, found: list[Notice]) -> None:
    """Article numbers, the mailing of 2025-07-21, and the first two owners' deliveries
    (one delivered, one returned unclaimed)."""
    for i, notice in enumerate(found):
        body = f"9407111899223{i + 1:08d}"
        notice.article_number = body + str(check_digit(body))
        session.add(notice)
    session.flush()
    notices.mail_batch(
        session=session,
        actor=DEMO_ACTOR,
        batch_id=batch_id,
        mailed_on=date(2025, 7, 21),
        postage="0.73",
        certified_fee="4.85",
        today=date(2025, 7, 21),
    )
    for notice, status in zip(found[:2], ("delivered", "returned unclaimed"), strict=False):
        notices.record_delivery(
            session=session,
            actor=DEMO_ACTOR,
            notice_id=notice.id or 0,
            status=status,
            occurred_on=date(2025, 7, 28),
            today=date(2025, 7, 31),
        )


def _write_portal_sample(session: Session, notice: Notice, config: Mapping[str, Any]) -> None:
    """Read the delivered notice's number and access code back from its archived PDF (the
    code is stored nowhere else) and leave them in instance/demo/ for trying the portal."""
    document = session.get(ArchivedDocument, notice.pdf_sha256)
    if document is None:
        return
    text = " ".join(
        page.extract_text() or "" for page in PdfReader(io.BytesIO(document.content)).pages
    )
    found = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})\b", text)
    if found is None:
        return
    write_portal_sample(config, f"{notice.number} {found.group(1)}\n")


def write_portal_sample(config: Mapping[str, Any], line: str) -> Path:
    """Keep a notice's number and access code for trying the portal, readable by the app's
    user alone (an access code opens an owner's account)."""
    from tid.files import private_folder, write_private

    path = private_folder(demo_folder(config)) / PORTAL_SAMPLE
    write_private(path, line.encode("utf-8"))
    return path


def portal_sample(instance_path: str) -> tuple[str, str] | None:
    """The demo notice number and access code for the owner's portal, if the demo made one."""
    path = Path(instance_path) / "demo" / PORTAL_SAMPLE
    if not path.exists():
        return None
    number, code = path.read_text(encoding="utf-8").split()
    return number, code
