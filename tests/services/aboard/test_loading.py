"""Moving in: the example files checked (bad rows first, each named at its row), their
totals confirmed, booked once as opening entries dated the cut-over day; a second load
books nothing, a load into an account with business is refused, and nothing is written
when anything is wrong."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session, func, select

from tests.conftest import People
from tests.services.aboard.support import (
    ACTOR,
    CONFIRMED,
    check,
    district_with_rolls,
    example_files,
    load,
)
from tid.models import (
    ArchivedDocument,
    AuditEvent,
    Bill,
    JournalEntry,
    OpeningBill,
    OpeningPosition,
    OpeningYear,
    PropertyLien,
)
from tid.rules.errors import FindingsError, InputError
from tid.services import aboard, ledger

BAD_BILLS = (
    "numero_de_catastro,ano_fiscal,facturado,pagado,fecha_de_vencimiento\n"
    "040-010-001-01,2024-25,315.00,0.00,2024-09-30\n"  # row 2: good
    "999-999-999-99,2024-25,100.00,0.00,2024-09-30\n"  # row 3: not in the roll
    "040-010-001-02,2019-20,100.00,0.00,2019-09-30\n"  # row 4: outside the term
    "040-010-001-02,2025-26,100.00,150.00,2025-09-30\n"  # row 5: paid above billed
    "040-010-001-01,2024-25,315.00,0.00,2024-09-30\n"  # row 6: duplicate of row 2
    "040-010-001-03-005,2025-26,abc,0.00,2025-09-30\n"  # row 7: not an amount
)


def count(session: Session, model: type) -> int:
    return int(session.exec(select(func.count()).select_from(model)).one())


def test_bad_rows_are_each_named_at_their_row_and_nothing_is_booked(
    session: Session, people: People
) -> None:
    district_id = district_with_rolls(session, people)
    files = example_files("es", bills=BAD_BILLS)
    preview = check(session, district_id, files)
    found = {(f.row, f.field, f.extra["msgid"]) for f in preview.findings}
    assert found == {
        (
            3,
            "facturas.csv: numero_de_catastro",
            "This cadastral number is not in the district's roll.",
        ),
        (
            4,
            "facturas.csv: ano_fiscal",
            "This fiscal year is outside the term of the district's ordinance.",
        ),
        (5, "facturas.csv: pagado", "The amount paid is more than the amount billed."),
        (
            6,
            "facturas.csv: numero_de_catastro",
            "This property's bill of this fiscal year is already on row %(first_row)s.",
        ),
        (7, "facturas.csv: facturado", "This is not an amount."),
    }
    with pytest.raises(FindingsError) as caught:
        load(session, district_id, files)
    session.rollback()
    assert {f.row for f in caught.value.findings} == {3, 4, 5, 6, 7}
    assert (
        count(session, JournalEntry) == count(session, Bill) == count(session, OpeningPosition) == 0
    )


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_example_files_load_once_their_totals_are_confirmed(
    session: Session, people: People, language: str
) -> None:
    district_id = district_with_rolls(session, people)
    files = example_files(language)
    preview = check(session, district_id, files)
    assert preview.findings == ()
    assert preview.state == aboard.READY
    assert preview.totals.to_confirm() == CONFIRMED
    assert preview.totals.late_charges == Decimal("497.25")
    # A total typed other than the files add it up: refused, nothing booked.
    with pytest.raises(FindingsError) as caught:
        load(session, district_id, files, {**CONFIRMED, "bank": Decimal("12000.00")})
    session.rollback()
    assert [f.field for f in caught.value.findings] == ["bank"]
    assert count(session, JournalEntry) == 0

    booked = load(session, district_id, files)
    session.commit()
    assert booked.booked and booked.bills == 4
    entries = session.exec(
        select(JournalEntry).where(JournalEntry.district_id == district_id)
    ).all()
    assert {e.kind for e in entries} == {"opening"}
    assert {e.entry_date for e in entries} == {date(2026, 1, 1)}
    assert len(entries) == 1 + 4 + 1  # the bank, four bills, one credit
    on = date(2026, 1, 1)
    assert ledger.balance(
        session=session, district_id=district_id, account=ledger.BANK, until=on
    ) == Decimal("12500.00")
    assert ledger.balance(
        session=session, district_id=district_id, account=ledger.RECEIVABLE, until=on
    ) == Decimal("7345.00")
    assert ledger.balance(
        session=session, district_id=district_id, account=ledger.OWNER_CREDIT, until=on
    ) == Decimal("-25.00")
    assert ledger.verify(session=session, district_id=district_id)[1] == []
    # The files archived under their SHA-256, the load and its totals in the audit trail.
    position = session.exec(select(OpeningPosition)).one()
    kept = json.loads(position.files)
    assert len(kept) == 5
    for file in kept:
        stored = session.get(ArchivedDocument, file["sha256"])
        assert stored is not None and bytes(stored.content) == files[file["kind"]][1]
    event = session.exec(select(AuditEvent).where(AuditEvent.action == "opening.load")).one()
    after = json.loads(event.after or "{}")
    assert after["confirmed_totals"] == {k: str(v) for k, v in CONFIRMED.items()}
    assert count(session, OpeningBill) == 4
    assert count(session, OpeningYear) == 2
    assert [lien.kind for lien in session.exec(select(PropertyLien))] == ["mortgage"]
    notices = {o.notice_number for o in session.exec(select(OpeningBill))}
    assert "N-2024-0102" in notices


def test_a_second_load_of_the_same_files_books_nothing(session: Session, people: People) -> None:
    district_id = district_with_rolls(session, people)
    load(session, district_id, example_files("es"))
    session.commit()
    entries = count(session, JournalEntry)
    again = load(session, district_id, example_files("es"), {})
    session.commit()
    assert not again.booked
    assert count(session, JournalEntry) == entries
    assert check(session, district_id, example_files("es")).state == aboard.BOOKED
    # Nor is an entry of it reversed on its own.
    first = session.exec(select(JournalEntry).where(JournalEntry.kind == "opening")).first()
    assert first is not None
    with pytest.raises(InputError):
        ledger.reverse_entry(
            session=session,
            actor=ACTOR,
            entry_id=first.id or 0,
            on=date(2026, 2, 1),
            reason="mistake",
            today=date(2026, 2, 15),
        )
    session.rollback()


def test_a_load_after_business_was_booked_is_refused(session: Session, people: People) -> None:
    district_id = district_with_rolls(session, people)
    load(session, district_id, example_files("es"))
    session.commit()
    other = example_files("es", bank="fecha_de_corte,saldo\n2026-01-01,100.00\n")
    assert check(session, district_id, other).state == aboard.REFUSED
    with pytest.raises(InputError) as caught:
        load(session, district_id, other, {**CONFIRMED, "bank": Decimal("100.00")})
    session.rollback()
    assert caught.value.field == "district"


def test_an_account_with_bills_of_its_own_is_refused(session: Session, people: People) -> None:
    from tid.services import billing

    district_id = district_with_rolls(session, people)
    billing.run_billing(
        session=session,
        actor=aboard_actor(),
        district_id=district_id,
        fiscal_year="2025-26",
        run_on=date(2025, 7, 1),
    )
    session.commit()
    preview = check(session, district_id, example_files("es"))
    assert preview.state == aboard.REFUSED and preview.refusal == aboard.BUSINESS_BOOKED
    with pytest.raises(InputError):
        load(session, district_id, example_files("es"))
    session.rollback()
    assert count(session, OpeningPosition) == 0


def aboard_actor():  # type: ignore[no-untyped-def]
    from tests.services.aboard.support import ACTOR

    return ACTOR


def test_all_or_nothing_when_the_booking_fails(
    session: Session, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure after the bills are written (here: the archive) leaves nothing behind."""
    district_id = district_with_rolls(session, people)

    def broken(**_kw: object) -> str:
        raise RuntimeError("disk full")

    monkeypatch.setattr("tid.services.aboard.booking.archive", broken)
    with pytest.raises(RuntimeError):
        load(session, district_id, example_files("es"))
    session.rollback()
    assert count(session, Bill) == count(session, JournalEntry) == count(session, OpeningBill) == 0
    monkeypatch.undo()
    assert load(session, district_id, example_files("es")).booked
