"""What the moving-in tests share: a district with an approved ordinance and the roll of
two fiscal years, the example files that ship with the app, and a load of them."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from sqlmodel import Session

from tests.conftest import People
from tests.services.roll.helpers import GOOD
from tid.demo import records
from tid.services import aboard, roll
from tid.services.audit_trail import audit

ACTOR = audit.Actor("tests")
TODAY = date(2026, 2, 15)
EXAMPLES = Path(__file__).resolve().parents[3] / "tid" / "static" / "aboard"
# What the example files add up to (checked by hand against the files).
CONFIRMED = {
    "receivable:2024-25": Decimal("3315.00"),
    "receivable:2025-26": Decimal("4030.00"),
    "credits": Decimal("25.00"),
    "bank": Decimal("12500.00"),
}


def district_with_rolls(session: Session, people: People) -> int:
    district = people.district
    records.ordinance(
        session,
        municipality_id=district.municipality_id,
        district_id=district.id or 0,
        district_name=district.name,
        petitioner="Mayor",
        received_on=date(2024, 1, 10),
        expected_amount=Decimal("100000.00"),
        term_years=5,
        formula="0.01 * assessed_value",
        association_name="Asociación",
        issued_on=date(2024, 3, 1),
        approved_on=date(2024, 3, 16),
    )
    for fy in ("2024-25", "2025-26"):
        roll.import_roll(
            session=session,
            actor=ACTOR,
            district_id=district.id or 0,
            fiscal_year=fy,
            data=GOOD.encode(),
            file_name="roll.csv",
        )
    session.commit()
    return district.id or 0


def example_files(language: str = "es", **replaced: str) -> dict[str, tuple[str, bytes]]:
    """The example files of a language by kind; ``replaced``: a kind's text instead."""
    files = {}
    for path in sorted((EXAMPLES / language).glob("*.csv")):
        kind = aboard.kind_of(path.name)
        assert kind is not None
        data = replaced[kind].encode() if kind in replaced else path.read_bytes()
        files[kind] = (path.name, data)
    return files


def check(
    session: Session, district_id: int, files: dict[str, tuple[str, bytes]]
) -> aboard.Preview:
    return aboard.check_position(
        session=session,
        district_id=district_id,
        files=files,
        today=TODAY,
        max_bytes=aboard.DEFAULT_MAX_BYTES,
        max_rows=aboard.DEFAULT_MAX_ROWS,
    )


def load(
    session: Session,
    district_id: int,
    files: dict[str, tuple[str, bytes]],
    confirmed: dict[str, Decimal] | None = None,
) -> aboard.Booked:
    return aboard.book_position(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        files=files,
        confirmed=CONFIRMED if confirmed is None else confirmed,
        today=TODAY,
        max_bytes=aboard.DEFAULT_MAX_BYTES,
        max_rows=aboard.DEFAULT_MAX_ROWS,
    )
