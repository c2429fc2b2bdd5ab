"""An opening position found wrong is reversed as one: its opening entries reversed in the
journal (both kept), its bills superseded, its liens cancelled, its earlier years withdrawn,
the position kept with who reversed it and why. A corrected position then loads even after
business was booked, as of a day no later than that business; the reversal is refused,
naming what must be undone first, while a payment or a notice depends on it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session, col, func, select

from tests.conftest import People
from tests.services.aboard.support import (
    ACTOR,
    CONFIRMED,
    TODAY,
    check,
    district_with_rolls,
    example_files,
    load,
)
from tid.models import (
    AuditEvent,
    Bill,
    BillStatus,
    JournalEntry,
    OpeningPosition,
    OpeningYear,
    PropertyLien,
)
from tid.rules.errors import InputError
from tid.rules.messages import render
from tid.services import aboard, ledger
from tid.services.account import expenditures, payments

CORRECTED_BANK = "fecha_de_corte,saldo\n2026-01-01,12400.00\n"
CORRECTED = {**CONFIRMED, "bank": Decimal("12400.00")}


def reverse(
    session: Session, district_id: int, reason: str = "bank balance was wrong"
) -> aboard.Reversed:
    position = aboard.position_of(session=session, district_id=district_id)
    assert position is not None and position.id is not None
    return aboard.reverse_position(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        position_id=position.id,
        reason=reason,
        today=TODAY,
    )


def spend(session: Session, district_id: int, on: date) -> None:
    """Business booked after the first load: an expenditure on an authorized purpose."""
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=district_id, name="Limpieza"
    )
    expenditures.record_expenditure(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        spent_on=on,
        amount=Decimal("300.00"),
        payee="Limpiezas del Viejo San Juan",
        today=TODAY,
        key="cleaning-1",
        purpose_id=purpose.id,
    )


def balance(session: Session, district_id: int, account: str) -> Decimal:
    return ledger.balance(session=session, district_id=district_id, account=account)


def test_a_wrong_position_is_reversed_and_the_corrected_one_loads_after_business(
    session: Session, people: People
) -> None:
    district_id = district_with_rolls(session, people)
    load(session, district_id, example_files("es"))
    session.commit()
    spend(session, district_id, date(2026, 1, 20))
    session.commit()
    done = reverse(session, district_id)
    session.commit()
    assert (done.entries, done.bills, done.liens) == (6, 4, 1)
    # The journal keeps both: each opening entry and its reversal, dated the cut-over day.
    reversals = session.exec(select(JournalEntry).where(JournalEntry.kind == "reversal")).all()
    assert len(reversals) == 6 and {e.entry_date for e in reversals} == {date(2026, 1, 1)}
    assert balance(session, district_id, ledger.BANK) == Decimal("-300.00")
    assert balance(session, district_id, ledger.RECEIVABLE) == 0
    assert balance(session, district_id, ledger.OWNER_CREDIT) == 0
    assert {b.status for b in session.exec(select(Bill))} == {BillStatus.SUPERSEDED.value}
    lien = session.exec(select(PropertyLien)).one()
    assert lien.status == "cancelled" and "bank balance was wrong" in lien.cancel_reason
    assert session.exec(select(func.count()).select_from(OpeningYear)).one() == 0
    kept = session.exec(select(OpeningPosition)).one()
    assert kept.reversed_by == "tests" and kept.reversal_reason == "bank balance was wrong"
    assert session.exec(select(AuditEvent).where(AuditEvent.action == "opening.reverse")).one()
    # The corrected files load beside the business booked since.
    corrected = example_files("es", bank=CORRECTED_BANK)
    assert check(session, district_id, corrected).state == aboard.READY
    booked = load(session, district_id, corrected, CORRECTED)
    session.commit()
    assert booked.booked and booked.bills == 4
    assert balance(session, district_id, ledger.BANK) == Decimal("12100.00")
    assert balance(session, district_id, ledger.RECEIVABLE) == Decimal("7345.00")
    assert aboard.position_of(session=session, district_id=district_id) == booked.position
    assert len(session.exec(select(OpeningPosition)).all()) == 2
    assert session.exec(select(func.count()).select_from(OpeningYear)).one() == 2
    _, differences = ledger.verify(session=session, district_id=district_id)
    assert differences == []
    # The old notice's number pays the corrected bill, not the superseded one.
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        paid_on=date(2026, 2, 1),
        amount=Decimal("315.00"),
        today=TODAY,
        key="old-notice",
        notice_number="N-2024-0101",
    )
    bill = session.get(Bill, paid.applied[0].bill_id)
    assert bill is not None and bill.status == BillStatus.ACTIVE.value
    # And the corrected position can itself be reversed later, its entries keyed apart.
    session.rollback()
    again = reverse(session, district_id, "once more")
    session.commit()
    assert again.entries == 6


def test_a_corrected_position_starts_no_later_than_the_business_booked(
    session: Session, people: People
) -> None:
    district_id = district_with_rolls(session, people)
    load(session, district_id, example_files("es"))
    session.commit()
    spend(session, district_id, date(2026, 1, 20))
    session.commit()
    reverse(session, district_id)
    session.commit()
    later = example_files("es", bank="fecha_de_corte,saldo\n2026-02-01,12400.00\n")
    preview = check(session, district_id, later)
    assert preview.state == aboard.REFUSED
    assert render(preview.refusal, "es").startswith("Se asentaron operaciones el 2026-01-20")
    with pytest.raises(InputError):
        load(session, district_id, later, CORRECTED)
    session.rollback()


def test_a_payment_on_its_bills_is_named_and_reversed_first(
    session: Session, people: People
) -> None:
    district_id = district_with_rolls(session, people)
    load(session, district_id, example_files("es"))
    session.commit()
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        paid_on=date(2026, 2, 1),
        amount=Decimal("315.00"),
        today=TODAY,
        key="old-notice",
        notice_number="N-2024-0101",
    )
    session.commit()
    number = session.get(JournalEntry, paid.entry_id).number  # type: ignore[union-attr]
    with pytest.raises(InputError) as caught:
        reverse(session, district_id)
    session.rollback()
    said = render(caught.value.message, "en")
    assert f"entry {number} of 2026-02-01 (Payment)" in said and "reverse it first" in said
    assert "no se puede revertir" in render(caught.value.message, "es")
    assert session.exec(select(JournalEntry).where(JournalEntry.kind == "reversal")).all() == []
    ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=paid.entry_id,
        on=date(2026, 2, 1),
        reason="deposit returned",
        today=TODAY,
    )
    session.commit()
    assert reverse(session, district_id).entries == 6


def test_a_reversed_position_is_not_reversed_twice(session: Session, people: People) -> None:
    district_id = district_with_rolls(session, people)
    booked = load(session, district_id, example_files("es"))
    session.commit()
    reverse(session, district_id)
    session.commit()
    with pytest.raises(InputError) as caught:
        aboard.reverse_position(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            position_id=booked.position.id or 0,
            reason="again",
            today=TODAY,
        )
    session.rollback()
    assert caught.value.message == aboard.reversal.ALREADY_REVERSED
    with pytest.raises(InputError) as empty:
        aboard.reverse_position(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            position_id=booked.position.id or 0,
            reason="  ",
            today=TODAY,
        )
    assert empty.value.field == "reason"
    session.rollback()
    reversals = session.exec(select(func.count()).where(col(JournalEntry.kind) == "reversal")).one()
    assert reversals == 6
