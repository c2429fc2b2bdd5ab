"""Test scaffolding for the notices: an approved ordinance, a roll and a billing run with
bills, made directly (the billing service is not under test here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tid.demo import records
from tid.models import (
    Bill,
    BillingRun,
    District,
    Notice,
    NoticeBatch,
    Ordinance,
    Property,
    PropertyYear,
)
from tid.rules.certified_mail import check_digit
from tid.services import notices
from tid.services.audit_trail import audit

ACTOR = audit.Actor("tests")
SECRET = "test-secret-key"
BASE_URL = "http://127.0.0.1:5000"
SENDER = {
    "sender_name": "Asociación del Viejo San Juan, Inc.",
    "sender_address": "PO Box 9020\nSan Juan PR 00902-0000",
    "how_to_pay": "Cheque o giro a nombre de la Asociación.",
    "how_to_pay_en": "Check or money order to the Association.",
}


@dataclass
class Billed:
    ordinance: Ordinance
    run: BillingRun
    bills: list[Bill]


def make_ordinance(
    session: Session, district: District, *, received: date = date(2026, 1, 5)
) -> Ordinance:
    ordinance = records.ordinance(
        session,
        municipality_id=district.municipality_id,
        district_id=district.id or 0,
        district_name=district.name,
        petitioner="Alcalde",
        received_on=date(2025, 9, 1),
        number="Ord. 12, Serie 2025-2026",
        expected_amount=Decimal("100000.00"),
        term_years=5,
        formula="0.01 * assessed_value",
        association_name=district.association_name or "Asociación",
        issued_on=date(2025, 11, 20),
        approved_on=date(2025, 12, 1),  # FY 2025-26 is the first year of the term
        received_by_association_on=received,
    )
    return ordinance


def make_run(
    session: Session,
    district: District,
    ordinance: Ordinance,
    *,
    fiscal_year: str = "2025-26",
    owners: list[str] | None = None,
    amounts: list[Decimal] | None = None,
    properties: list[Property] | None = None,
    due: date = date(2026, 4, 30),
) -> Billed:
    owners = owners or ["María Rodríguez", "José Pérez"]
    amounts = amounts or [Decimal("1234.56")] * len(owners)
    roll = records.roll_import(
        session,
        district_id=district.id or 0,
        fiscal_year=fiscal_year,
        sha256=f"{fiscal_year}-{len(owners)}-{id(owners)}",
        rows=len(owners),
        actor="tests",
    )
    run = records.billing_run(
        session,
        ordinance,
        fiscal_year=fiscal_year,
        property_count=len(owners),
        total=sum(amounts, Decimal("0")),
        run_on=date(2026, 1, 10),
        due_date=due,
        fingerprint="x" * 64,
        actor="tests",
    )
    bills = []
    for i, (owner, amount) in enumerate(zip(owners, amounts, strict=True)):
        if properties is not None:
            prop = properties[i]
        else:
            prop = Property(
                district_id=district.id or 0,
                cadastral_number=f"040-012-{district.id:03d}-{i:02d}",
                physical_address=f"Calle Fortaleza {100 + i}, San Juan",
            )
            session.add(prop)
            session.flush()
        year = PropertyYear(
            property_id=prop.id or 0,
            district_id=district.id or 0,
            fiscal_year=fiscal_year,
            roll_import_id=roll.id or 0,
            owner_names=owner,
            mailing_urbanization="URB EL VEDADO",
            mailing_line1=f"Calle Luna {10 + i}",
            mailing_city="San Juan",
            mailing_zip="00901-1234",
            physical_address=prop.physical_address,
            assessed_value=amount * 100,
        )
        session.add(year)
        session.flush()
        bill = Bill(
            billing_run_id=run.id or 0,
            district_id=district.id or 0,
            property_id=prop.id or 0,
            property_year_id=year.id or 0,
            fiscal_year=fiscal_year,
            amount=amount,
            explanation=f"1% of the assessed value ${amount * 100:,.2f} = ${amount:,.2f}",
            explanation_es=f"1% del valor tasado ${amount * 100:,.2f} = ${amount:,.2f}",
            due_date=due,
        )
        session.add(bill)
        bills.append(bill)
    session.flush()
    return Billed(ordinance, run, bills)


def article(seed: int, length: int = 22) -> str:
    """A valid article number (good check digit) made from ``seed``."""
    body = ("9400" + f"{seed:0{length - 5}d}")[: length - 1]
    return body + str(check_digit(body))


ISSUED = date(2026, 1, 20)


def issue_notices(
    session: Session, billed: Billed, *, issued_on: date = ISSUED, **kwargs: object
) -> tuple[NoticeBatch, list[Notice]]:
    """The notices of a billing run, rendered in this process and committed."""
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=billed.run.id or 0,
        issued_on=issued_on,
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **{**SENDER, **kwargs},  # type: ignore[arg-type]
    )
    session.commit()
    return batch, notices.batch_notices(session=session, batch_id=batch.id or 0)


def mail_all(session: Session, batch: NoticeBatch, found: list[Notice], seed: int = 100) -> None:
    """Every notice of ``batch`` given an article number and mailed on 2026-01-22."""
    for i, notice in enumerate(found):
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=notice.id or 0, article_number=article(seed + i)
        )
    notices.mail_batch(
        session=session,
        actor=ACTOR,
        batch_id=batch.id or 0,
        mailed_on=date(2026, 1, 22),
        postage="0.73",
        certified_fee="4.85",
        today=date(2026, 1, 22),
    )
    session.commit()
