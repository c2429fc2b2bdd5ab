"""Every service that writes a district's books, or what its documents show, moves the
district's version in the same transaction: the public pages and the prepared statements are
kept by that version (tid/services/public/versions.py, tid/documents/account.py), so a write
that did not move it would leave a reader a document of before it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tests.conftest import People
from tests.services.billing.helpers import ACTOR, import_roll, make_ordinance, run
from tests.services.notice_support import BASE_URL, SECRET, SENDER
from tid.models import Bill, Property
from tid.rules.periods import FiscalYear
from tid.services import ledger, notices
from tid.services.account import audit_statement, expenditures, payments, year_locks
from tid.services.closing import transfers
from tid.services.liens import impost_lien as liens
from tid.services.liens import lien_register
from tid.services.public import versions

TODAY = date(2027, 8, 2)  # FY 2026-27 has ended: it may be locked


def _moves(session: Session, district_id: int, write: Callable[[], Any]) -> bool:
    before = versions.version_of(session=session, district_id=district_id)
    write()
    session.commit()
    return versions.version_of(session=session, district_id=district_id) > before


def _writes(session: Session, d: int) -> dict[str, Callable[[], Any]]:  # Long: one per service
    """Each write, in the order a district's year goes; each reads what the ones before made."""
    made: dict[str, Any] = {}
    first, second = session.exec(
        select(Property).where(Property.district_id == d).order_by(col(Property.id))
    ).all()[:2]

    def bill_of(prop: Property) -> Bill:
        return session.exec(select(Bill).where(Bill.property_id == prop.id)).first()  # type: ignore[return-value]

    def pay() -> None:
        payments.record_payment(
            session=session,
            actor=ACTOR,
            district_id=d,
            paid_on=date(2026, 8, 1),
            amount=Decimal("100.00"),
            today=TODAY,
            key="walk-pay",
            cadastral_number=first.cadastral_number,
        )

    def purpose() -> None:
        made["purpose"] = expenditures.add_purpose(
            session=session, actor=ACTOR, district_id=d, name="Ornato"
        )

    def spend() -> None:
        made["spent"] = expenditures.record_expenditure(
            session=session,
            actor=ACTOR,
            district_id=d,
            spent_on=date(2026, 8, 20),
            amount=Decimal("50.00"),
            payee="Jardines PR",
            today=TODAY,
            key="walk-spend",
            purpose_id=made["purpose"].id,
        )

    def reverse() -> None:
        ledger.reverse_entry(
            session=session,
            actor=ACTOR,
            entry_id=made["spent"].expenditure.entry_id,
            on=date(2026, 8, 21),
            reason="duplicate",
            today=TODAY,
        )

    def lien() -> None:
        made["lien"] = liens.add_lien(
            session=session,
            actor=ACTOR,
            property_id=second.id or 0,
            kind="mortgage",
            holder="Banco Popular",
            constituted_on=date(2020, 1, 2),
            amount=Decimal("90000.00"),
            today=TODAY,
        )

    def correct_lien() -> None:
        lien_register.correct_lien(
            session=session,
            actor=ACTOR,
            property_id=second.id or 0,
            lien_id=made["lien"].id,
            correction=lien_register.Correction(
                "mortgage", "Banco Popular de PR", date(2020, 1, 2), Decimal("90000.00"), ""
            ),
            reason="the holder's name",
            today=TODAY,
        )

    def cancel_lien() -> None:
        lien_register.cancel_lien(
            session=session,
            actor=ACTOR,
            property_id=second.id or 0,
            lien_id=made["lien"].id,
            cancelled_on=date(2027, 7, 1),
            reason="paid off",
            today=TODAY,
        )

    def notice_run() -> None:  # it names the bills by their notices
        notices.create_batch(
            session=session,
            actor=ACTOR,
            billing_run_id=bill_of(first).billing_run_id,
            issued_on=date(2026, 7, 2),
            portal_base_url=BASE_URL,
            secret=SECRET,
            workers=1,
            **SENDER,
        )

    return {
        "notice run": notice_run,
        "payment": pay,
        "purpose": purpose,
        "purpose set aside": lambda: expenditures.set_purpose_active(
            session=session, actor=ACTOR, purpose_id=made["purpose"].id, active=False
        ),
        "purpose again": lambda: expenditures.set_purpose_active(
            session=session, actor=ACTOR, purpose_id=made["purpose"].id, active=True
        ),
        "expenditure": spend,
        "reversal": reverse,
        "bank balance": lambda: audit_statement.record_bank_balance(
            session=session,
            actor=ACTOR,
            district_id=d,
            as_of=date(2026, 8, 31),
            balance=Decimal("50.00"),
            today=TODAY,
        ),
        "late-charge terms": lambda: liens.set_late_terms(
            session=session,
            actor=ACTOR,
            district_id=d,
            surcharge_rate="0.05",
            annual_interest_rate="0.10",
        ),
        "lien recorded": lien,
        "lien corrected": correct_lien,
        "lien cancelled": cancel_lien,
        "owner transfer": lambda: transfers.record_transfer(
            session=session,
            actor=ACTOR,
            district_id=d,
            property_id=first.id or 0,
            transferred_on=date(2027, 3, 1),
            owner=transfers.NewOwner("Compradora Nueva", "Calle Sol 1", "San Juan", "00901"),
            note="Escritura 12",
            today=TODAY,
        ),
        "year locked": lambda: year_locks.lock_year(
            session=session, actor=ACTOR, district_id=d, fy=FiscalYear(2026), today=TODAY
        ),
        "year unlocked": lambda: year_locks.unlock_year(
            session=session, actor=ACTOR, district_id=d, fy=FiscalYear(2026)
        ),
    }


def test_every_write_to_a_districts_books_or_documents_moves_its_version(
    session: Session, people: People
) -> None:
    d = people.district.id or 0
    make_ordinance(session, people)
    assert _moves(session, d, lambda: import_roll(session, people))
    assert _moves(session, d, lambda: run(session, people))  # the billing run
    still = [name for name, write in _writes(session, d).items() if not _moves(session, d, write)]
    assert still == []
