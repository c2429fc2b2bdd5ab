"""The roll imported (21 LPRA § 6653(3)(d), (5)): all or nothing, idempotent, each fiscal year
kept, a corrected file audited, from the command line and the demo's file.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from flask import Flask
from flask.testing import FlaskCliRunner
from sqlmodel import Session, col, select

from tests.conftest import People
from tests.services.roll.helpers import (
    ACTOR,
    DUPLICATE,
    GOOD,
    HEADER,
    count_rows,
    import_file,
    roll_errors,
)
from tid.demo.roll import roll_csv
from tid.models import AuditEvent, Property, PropertyYear, RollImport
from tid.services import roll


def test_import_happy_path(session: Session, people: People) -> None:
    result = import_file(session, people, GOOD.encode())
    assert (result.added, result.changed, result.removed, result.unchanged) == (3, 0, 0, False)
    rows = {
        p.cadastral_number: y
        for p, y in session.exec(
            select(Property, PropertyYear).join(
                PropertyYear, col(PropertyYear.property_id) == col(Property.id)
            )
        )
    }
    first = rows["040-010-001-01"]
    assert first.owner_names == "José Rivera Colón"
    assert first.mailing_urbanization == "URB GARDEN HILLS"
    assert (first.mailing_line1, first.mailing_city, first.mailing_zip) == (
        "12 CALLE 5",
        "GUAYNABO",
        "00966",
    )
    assert first.mailing_state == "PR"  # no state column: Puerto Rico
    assert first.assessed_value == Decimal("31500.00")
    assert first.land_area == Decimal("250.5")
    assert first.rooms is None
    assert json.loads(first.attributes) == {"floors": "2"}  # the extra numeric column
    hotel = rows["040-010-001-02"]
    assert hotel.use_class == "hotel"  # use classes are kept in lower case
    assert hotel.rooms == 20
    assert hotel.mailing_zip == "00902-1234"
    assert hotel.physical_address == "Calle del Cristo 100, San Juan"
    assert rows["040-010-001-03-005"].owner_names == "María Ortiz; Luis Ortiz"
    imported = session.exec(select(RollImport)).one()
    assert imported.rows == 3
    assert imported.sha256 == __import__("hashlib").sha256(GOOD.encode()).hexdigest()
    events = session.exec(select(AuditEvent).where(AuditEvent.action == "roll.import")).all()
    assert len(events) == 1


def test_demo_roll_imports_cleanly(session: Session, people: People) -> None:
    data = roll_csv(500)
    preview = roll.preview_roll(
        session=session,
        district_id=people.district.id or 0,
        fiscal_year="2026-27",
        data=data,
        file_name="roll-2026-27.csv",
    )
    assert preview.parsed.findings == ()
    assert preview.parsed.encoding == "utf-8-sig"
    assert preview.added == 500 and preview.new_properties == 500
    assert roll_csv(500) == data  # deterministic: the same bytes every time
    assert count_rows(session, PropertyYear) == 0  # the preview writes nothing
    result = import_file(session, people, data)
    assert result.added == 500
    uses = set(session.exec(select(PropertyYear.use_class)).all())
    assert {"hotel", "residencial", "comercial"} <= uses
    hotels = session.exec(select(PropertyYear).where(PropertyYear.use_class == "hotel")).all()
    assert hotels and all(h.rooms and h.rooms > 0 for h in hotels)
    assert session.exec(select(PropertyYear).where(PropertyYear.mailing_urbanization != "")).first()


def test_every_bad_row_is_listed_at_once_and_nothing_is_written(
    session: Session, people: People
) -> None:
    text = (
        HEADER
        + "040-010-001-01,Ana Ruiz,,1 Calle,SJ,00901,,100.00,,residencial,,1\n"  # row 2: good
        + "040-010-001-01,Ana Ruiz,,1 Calle,SJ,00901,,100.00,,residencial,,1\n"  # 3: duplicate
        + "040-010-001-02,Ana Ruiz,,1 Calle,SJ,00901,,100.00,-3,residencial,,1\n"  # 4: negative
        + "040-010-001-03,Ana Ruiz,,1 Calle,SJ,00901,,100.00,,hotel,2.5,1\n"  # 5: rooms
        + "040-010-001-04,Ana Ruiz,,1 Calle,SJ,00901,,100.00,,residencial,,x\n"  # 6: extra
    )
    errors = roll_errors(session, people, text)
    assert errors == {
        (3, "cadastral_number", DUPLICATE),
        (4, "land_area", "A negative value is not allowed here."),
        (5, "rooms", "The number of rooms is a whole number."),
        (6, "floors", "This is not a number."),
    }
    for model in (Property, PropertyYear, RollImport):
        assert count_rows(session, model) == 0


def test_reimporting_the_same_file_changes_nothing(session: Session, people: People) -> None:
    first = import_file(session, people, GOOD.encode())
    events = count_rows(session, AuditEvent)
    again = import_file(session, people, GOOD.encode())
    assert again.unchanged is True
    assert again.roll_import.id == first.roll_import.id
    assert count_rows(session, RollImport) == 1
    assert count_rows(session, PropertyYear) == 3
    assert count_rows(session, AuditEvent) == events


def test_a_new_year_keeps_the_history(session: Session, people: People) -> None:
    import_file(session, people, GOOD.encode(), fy="2026-27")
    next_year = GOOD.replace("José Rivera Colón", "Carmen Santiago Reyes").replace(
        "31500.00", "33000.00"
    )
    result = import_file(session, people, next_year.encode(), fy="2027-28")
    assert result.added == 3 and result.new_properties == 0
    assert count_rows(session, Property) == 3
    assert count_rows(session, PropertyYear) == 6
    parcel = session.exec(
        select(Property).where(Property.cadastral_number == "040-010-001-01")
    ).one()
    history = roll.property_history(session=session, property_id=parcel.id or 0)
    assert [(y.fiscal_year, y.owner_names, y.assessed_value) for y in history] == [
        ("2027-28", "Carmen Santiago Reyes", Decimal("33000.00")),
        ("2026-27", "José Rivera Colón", Decimal("31500.00")),
    ]
    assert roll.fiscal_years(session=session, district_id=people.district.id or 0) == [
        ("2027-28", 3),
        ("2026-27", 3),
    ]


def test_a_new_year_with_a_new_physical_address_updates_the_property(
    session: Session, people: People
) -> None:
    """The latest year's roll says where a property is: a next year's file that moves one
    is imported (all rows), and the property's address follows it."""
    import_file(session, people, GOOD.encode(), fy="2026-27")
    moved = GOOD.replace("Calle del Cristo 10,", "Calle del Sol 22,")
    result = import_file(session, people, moved.encode(), fy="2027-28")
    assert result.added == 3 and result.new_properties == 0
    parcel = session.exec(
        select(Property).where(Property.cadastral_number == "040-010-001-01")
    ).one()
    session.refresh(parcel)
    assert parcel.physical_address == "Calle del Sol 22"
    # An earlier year's file does not move it back.
    import_file(session, people, GOOD.replace("4000.00", "4100.00").encode(), fy="2025-26")
    session.refresh(parcel)
    assert parcel.physical_address == "Calle del Sol 22"


def test_a_corrected_file_for_the_same_year_is_audited(session: Session, people: People) -> None:
    import_file(session, people, GOOD.encode())
    lines = GOOD.splitlines(keepends=True)
    corrected = "".join(lines[:3]).replace("31500.00", "32000.00")  # drops the third property
    preview = roll.preview_roll(
        session=session,
        district_id=people.district.id or 0,
        fiscal_year="2026-27",
        data=corrected.encode(),
        file_name="roll-corrected.csv",
    )
    assert (preview.added, preview.changed, preview.unchanged, preview.removed) == (0, 1, 1, 1)
    result = import_file(session, people, corrected.encode())
    assert (result.added, result.changed, result.removed) == (0, 1, 1)
    years = {
        p.cadastral_number: y
        for p, y in session.exec(
            select(Property, PropertyYear).join(
                PropertyYear, col(PropertyYear.property_id) == col(Property.id)
            )
        )
    }
    assert years["040-010-001-01"].assessed_value == Decimal("32000.00")
    assert years["040-010-001-03-005"].in_roll is False
    corrected_event = session.exec(
        select(AuditEvent).where(AuditEvent.action == "property_year.correct")
    ).one()
    assert json.loads(corrected_event.before or "{}")["assessed_value"] == "31500.00"
    assert json.loads(corrected_event.after or "{}")["assessed_value"] == "32000.00"
    assert session.exec(
        select(AuditEvent).where(AuditEvent.action == "property_year.leave_roll")
    ).one()
    assert roll.fiscal_years(session=session, district_id=people.district.id or 0) == [
        ("2026-27", 2)
    ]


def test_the_command_line_import(runner: FlaskCliRunner, people: People, tmp_path: Path) -> None:
    path = tmp_path / "roll.csv"
    path.write_bytes(GOOD.encode())
    district = str(people.district.id)
    args = ["roll", "import", str(path), "--district", district, "--fiscal-year", "2026-27"]
    dry = runner.invoke(args=[*args, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output)["added"] == 3
    done = runner.invoke(args=args)
    assert done.exit_code == 0 and json.loads(done.output)["unchanged"] is False
    again = runner.invoke(args=args)
    assert json.loads(again.output)["unchanged"] is True
    bad = tmp_path / "bad.csv"
    bad.write_bytes((HEADER + "040-010-001-01,Ana,,1 Calle,SJ,00901,,-5,,x,,1\n").encode())
    failed = runner.invoke(args=["roll", "import", str(bad), "--district", district,
                                 "--fiscal-year", "2026-27"])  # fmt: skip
    assert failed.exit_code == 2
    error = json.loads(failed.stderr.strip().splitlines()[-1])
    assert error["errors"] == [
        {"error": "A negative value is not allowed here.", "field": "assessed_value", "row": 2}
    ]
    unknown = runner.invoke(args=["roll", "import", str(path), "--district", "Nowhere",
                                  "--fiscal-year", "2026-27"])  # fmt: skip
    assert unknown.exit_code == 2 and json.loads(unknown.stderr)["field"] == "district"


def test_the_demo_leaves_its_roll_file_and_ordinance(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    from tid.demo import demo_roll_path
    from tid.models import Ordinance

    path = demo_roll_path(app.config)
    assert path == Path(app.instance_path) / "demo" / "roll-2026-27.csv"
    assert path.read_bytes() == roll_csv(500)
    ordinance = session.exec(
        select(Ordinance).where(Ordinance.number == "Ord. Núm. 9, Serie 2025-2026")
    ).one()
    assert ordinance.approved_on is not None and ordinance.received_by_association_on
    assert ordinance.expected_amount == Decimal("500000.00")
    # The demo association imports it like any roll.
    result = roll.import_roll(
        session=session,
        actor=ACTOR,
        district_id=ordinance.district_id,
        fiscal_year="2026-27",
        data=path.read_bytes(),
        file_name=path.name,
    )
    assert result.added == 500
