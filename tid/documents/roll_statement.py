"""The verified billing statement of a district's fiscal year as a PDF/A document of record
(tid/services/roll_check/statement.py): signed, archived once as issued, verifiable by its
code like the payoff quote; and read back exactly as archived."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlmodel import Session

from tid.documents.base import PDF, Document, Reader, district_of
from tid.models import RollStatement
from tid.render.qr import qr_svg_data_uri
from tid.rules.errors import N_, InputError
from tid.rules.roll_changes import KINDS
from tid.services.archive.store import archived_bytes
from tid.services.audit_trail import audit
from tid.services.closing import issued
from tid.services.roll_check import billing_statement as statements

NO_STATEMENT = N_("There is no such statement in this district.")


def context(reader: Reader, statement: RollStatement) -> dict[str, Any]:
    """What the statement's PDF and its page show."""
    url = f"{reader.base_url}/verificar/{issued.shown_code(statement.code)}"
    return {
        "statement": statement,
        "document": statement,
        "said": statements.said(statement),
        "kinds": KINDS,
        "code": issued.shown_code(statement.code),
        "verify_url": url,
        "qr": qr_svg_data_uri(url),
    }


def sign_pdf(
    session: Session,
    *,
    district: int,
    fiscal_year: str,
    reader: Reader,
    signed_by: str,
    actor: audit.Actor,
    signed_on: date | None = None,
) -> Document:
    """Sign the year's verified billing statement: recorded, its PDF archived, returned."""
    shown = district_of(session, district)
    signed = statements.sign(
        session=session,
        actor=actor,
        district_id=district,
        fiscal_year=fiscal_year,
        signed_by=signed_by,
        signed_on=signed_on or reader.today,
    )
    pdf = reader.pdf("pdf/roll_statement.html", district=shown, **context(reader, signed))
    statements.attach_pdf(session=session, statement=signed, pdf=pdf)
    return Document(pdf, PDF, f"{signed.reference}.pdf")


def statement_pdf(session: Session, *, district: int, statement_id: int) -> Document:
    """A signed statement's PDF, exactly as archived."""
    found = statements.get(session=session, district_id=district, statement_id=statement_id)
    if found is None or not found.sha256:
        raise InputError("statement", NO_STATEMENT)
    return Document(
        archived_bytes(session=session, sha256=found.sha256), PDF, f"{found.reference}.pdf"
    )
