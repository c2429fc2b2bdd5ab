"""The property roll: import from CSV with every bad row listed, all or nothing, idempotent,
history per fiscal year (21 LPRA § 6653(3)(d), (5))."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskCliRunner
from hypothesis import given
from hypothesis import strategies as st
from sqlmodel import Session, col, func, select

from tests.conftest import People
from tid.demo.roll import roll_csv
from tid.models import AuditEvent, Property, PropertyYear, RollImport
from tid.rules.errors import FindingsError, InputError
from tid.services import audit, roll

DUPLICATE = "This cadastral number is already on row %(first_row)s of the file."


ACTOR = audit.Actor("tests")

HEADER = (
    "cadastral_number,owner,urbanization,mailing_address,city,zip,physical_address,"
    "assessed_value,land_area,use,rooms,floors\n"
)
GOOD = (
    HEADER + "040-010-001-01,José Rivera Colón,URB GARDEN HILLS,12 CALLE 5,GUAYNABO,00966,"
    "Calle del Cristo 10,31500.00,250.5,residencial,,2\n"
    + '040-010-001-02,Hotel El Convento Inc,,PO BOX 9021234,SAN JUAN,00902-1234,"Calle del '
    'Cristo 100, San Juan",400000.00,1200,Hotel,20,4\n'
    + "040-010-001-03-005,María Ortiz; Luis Ortiz,,CALLE FORTALEZA 305,SAN JUAN,00901,"
    "Calle Fortaleza 305,4000.00,,residencial,,1\n"
)


def _import(session: Session, people: People, data: bytes, fy: str = "2026-27", **kw: int):  # type: ignore[no-untyped-def]
    result = roll.import_roll(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        fiscal_year=fy,
        data=data,
        file_name="roll.csv",
        **kw,
    )
    session.commit()
    return result


def _count(session: Session, model: type) -> int:
    return int(session.exec(select(func.count()).select_from(model)).one())


def _errors(session: Session, people: People, text: str) -> set[tuple[int | None, str, str]]:
    with pytest.raises(FindingsError) as caught:
        _import(session, people, text.encode())
    session.rollback()
    return {(f.row, f.field, f.extra["msgid"]) for f in caught.value.findings}


def test_import_happy_path(session: Session, people: People) -> None:
    result = _import(session, people, GOOD.encode())
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
    assert _count(session, PropertyYear) == 0  # the preview writes nothing
    result = _import(session, people, data)
    assert result.added == 500
    uses = set(session.exec(select(PropertyYear.use_class)).all())
    assert {"hotel", "residencial", "comercial"} <= uses
    hotels = session.exec(select(PropertyYear).where(PropertyYear.use_class == "hotel")).all()
    assert hotels and all(h.rooms and h.rooms > 0 for h in hotels)
    assert session.exec(select(PropertyYear).where(PropertyYear.mailing_urbanization != "")).first()


@pytest.mark.parametrize(
    ("cells", "row", "column", "msgid_start"),
    [
        # a bad cadastral number
        ("040-10-001-01,Ana,,1 Calle,SJ,00901,,100.00", 2, "cadastral_number", "A cadastral"),
        # a bad number
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,12abc", 2, "assessed_value", "This is not a num"),
        # a negative value ("-5" in a numeric column is not a formula injection)
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,-5", 2, "assessed_value", "A negative value"),
        # a missing owner mailing address
        ("040-010-001-09,Ana,,,SJ,00901,,100.00", 2, "mailing_address", "The owner's mailing"),
        # a missing owner
        ("040-010-001-09,,,1 Calle,SJ,00901,,100.00", 2, "owner", "The owner is missing"),
        # a bad ZIP code
        ("040-010-001-09,Ana,,1 Calle,SJ,9010,,100.00", 2, "zip", "A ZIP code"),
        # formula injection in text cells
        ("040-010-001-09,=HYPERLINK(1),,1 Calle,SJ,00901,,100.00", 2, "owner", "This cell starts"),
        ("040-010-001-09,Ana,@SUM(A1),1 Calle,SJ,00901,,100.00", 2, "urbanization", "This cell"),
        ("040-010-001-09,Ana,,+1 Calle,SJ,00901,,100.00", 2, "mailing_address", "This cell"),
        ("040-010-001-09,Ana,,1 Calle,-SJ,00901,,100.00", 2, "city", "This cell starts"),
        # formula injection in a numeric cell
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,=1+2", 2, "assessed_value", "This cell starts"),
        # cents beyond two decimals
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,10.005", 2, "assessed_value", "An amount of"),
    ],
)
def test_each_bad_row_kind_is_named_with_row_and_column(
    session: Session, people: People, cells: str, row: int, column: str, msgid_start: str
) -> None:
    header = "cadastral_number,owner,urbanization,mailing_address,city,zip,use,assessed_value\n"
    errors = _errors(session, people, header + cells + "\n")
    assert [(r, c) for r, c, m in errors if m.startswith(msgid_start)] == [(row, column)], errors


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
    errors = _errors(session, people, text)
    assert errors == {
        (3, "cadastral_number", DUPLICATE),
        (4, "land_area", "A negative value is not allowed here."),
        (5, "rooms", "The number of rooms is a whole number."),
        (6, "floors", "This is not a number."),
    }
    for model in (Property, PropertyYear, RollImport):
        assert _count(session, model) == 0


def test_duplicate_message_names_the_first_row(session: Session, people: People) -> None:
    text = HEADER + ("040-010-001-01,Ana,,1 Calle,SJ,00901,,1.00,,x,,1\n" * 2)
    with pytest.raises(FindingsError) as caught:
        _import(session, people, text.encode())
    assert caught.value.findings[0].message == (
        "This cadastral number is already on row 2 of the file."
    )
    assert caught.value.as_json()["errors"][0]["row"] == 3


def test_spanish_headers_in_latin1_and_utf8_with_bom(session: Session, people: People) -> None:
    text = (
        "Número de Catastro;Propietario;Urbanización;Dirección Postal 1;Pueblo;Código Postal;"
        "Valor Tasado;Habitaciones\n"
        "040-010-002-01;Efraín Muñiz Báez;URB SANTA MARÍA;5 CALLE ORQUÍDEA;SAN JUAN;00927;"
        "1.234,00;\n"
    )
    # Latin-1 (cp1252) with a semicolon; "1.234,00" is not a number this roll reads.
    with pytest.raises(FindingsError) as caught:
        _import(session, people, text.encode("cp1252"))
    session.rollback()
    assert [(f.row, f.field) for f in caught.value.findings] == [(2, "Valor Tasado")]
    fixed = text.replace("1.234,00", "1234.00")
    result = _import(session, people, fixed.encode("cp1252"))
    assert result.added == 1
    year = session.exec(select(PropertyYear)).one()
    assert year.owner_names == "Efraín Muñiz Báez"
    assert year.mailing_urbanization == "URB SANTA MARÍA"
    preview = roll.parse_roll(fixed.encode("cp1252"))
    assert preview.encoding == "cp1252" and preview.delimiter == ";"
    with_bom = "\ufeff" + fixed.replace(";", ",")
    parsed = roll.parse_roll(with_bom.encode("utf-8"))
    assert parsed.encoding == "utf-8-sig"
    assert parsed.columns["Número de Catastro"] == "cadastral_number"
    assert parsed.rows[0].owner_names == "Efraín Muñiz Báez"


def test_size_and_row_limits_refuse_before_parsing(session: Session, people: People) -> None:
    data = GOOD.encode()
    with pytest.raises(InputError) as caught:
        _import(session, people, data, max_bytes=len(data) - 1)
    assert caught.value.field == "file"
    assert "larger than the limit" in caught.value.message
    session.rollback()
    with pytest.raises(InputError) as rows:
        _import(session, people, data, max_rows=2)
    assert rows.value.field == "file" and "more rows than the limit" in rows.value.message
    session.rollback()
    assert _count(session, RollImport) == 0
    # Not CSV at all.
    with pytest.raises(InputError):
        roll.parse_roll(b"\x00\x01\x02")
    with pytest.raises(InputError) as missing:
        roll.parse_roll(b"owner,assessed_value\nAna,1.00\n")
    assert "required column" in missing.value.message


def test_reimporting_the_same_file_changes_nothing(session: Session, people: People) -> None:
    first = _import(session, people, GOOD.encode())
    events = _count(session, AuditEvent)
    again = _import(session, people, GOOD.encode())
    assert again.unchanged is True
    assert again.roll_import.id == first.roll_import.id
    assert _count(session, RollImport) == 1
    assert _count(session, PropertyYear) == 3
    assert _count(session, AuditEvent) == events


def test_a_new_year_keeps_the_history(session: Session, people: People) -> None:
    _import(session, people, GOOD.encode(), fy="2026-27")
    next_year = GOOD.replace("José Rivera Colón", "Carmen Santiago Reyes").replace(
        "31500.00", "33000.00"
    )
    result = _import(session, people, next_year.encode(), fy="2027-28")
    assert result.added == 3 and result.new_properties == 0
    assert _count(session, Property) == 3
    assert _count(session, PropertyYear) == 6
    parcel = session.exec(
        select(Property).where(Property.cadastral_number == "040-010-001-01")
    ).one()
    history = roll.property_history(session, parcel.id or 0)
    assert [(y.fiscal_year, y.owner_names, y.assessed_value) for y in history] == [
        ("2027-28", "Carmen Santiago Reyes", Decimal("33000.00")),
        ("2026-27", "José Rivera Colón", Decimal("31500.00")),
    ]
    assert roll.fiscal_years(session, people.district.id or 0) == [("2027-28", 3), ("2026-27", 3)]


def test_a_new_year_with_a_new_physical_address_updates_the_property(
    session: Session, people: People
) -> None:
    """The latest year's roll says where a property is: a next year's file that moves one
    is imported (all rows), and the property's address follows it."""
    _import(session, people, GOOD.encode(), fy="2026-27")
    moved = GOOD.replace("Calle del Cristo 10,", "Calle del Sol 22,")
    result = _import(session, people, moved.encode(), fy="2027-28")
    assert result.added == 3 and result.new_properties == 0
    parcel = session.exec(
        select(Property).where(Property.cadastral_number == "040-010-001-01")
    ).one()
    session.refresh(parcel)
    assert parcel.physical_address == "Calle del Sol 22"
    # An earlier year's file does not move it back.
    _import(session, people, GOOD.replace("4000.00", "4100.00").encode(), fy="2025-26")
    session.refresh(parcel)
    assert parcel.physical_address == "Calle del Sol 22"


def test_a_corrected_file_for_the_same_year_is_audited(session: Session, people: People) -> None:
    _import(session, people, GOOD.encode())
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
    result = _import(session, people, corrected.encode())
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
    assert roll.fiscal_years(session, people.district.id or 0) == [("2026-27", 2)]


def test_uploads_are_kept_by_their_hash_and_owner(tmp_path: pytest.TempPathFactory) -> None:
    folder = tmp_path / "uploads"  # type: ignore[operator]
    token = roll.store_upload(folder, GOOD.encode(), meta={"district_id": 1, "user_id": 7})
    data, meta = roll.load_upload(folder, token, user_id=7)
    assert data == GOOD.encode() and meta["district_id"] == 1
    with pytest.raises(InputError):
        roll.load_upload(folder, token, user_id=8)  # another user's upload
    with pytest.raises(InputError):
        roll.load_upload(folder, "../../etc/passwd", user_id=7)


def test_a_refused_cell_is_not_also_reported_missing(session: Session, people: People) -> None:
    header = "cadastral_number,owner,urbanization,mailing_address,city,zip,use,assessed_value\n"
    errors = _errors(session, people, header + "040-010-001-09,=cmd,,-,SJ,00901,,1.00\n")
    assert {(r, c) for r, c, _ in errors} == {(2, "owner"), (2, "mailing_address")}
    assert all(m.startswith("This cell starts") for _, _, m in errors)


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


def test_the_demo_leaves_its_roll_file_and_ordinance(app: Flask, session: Session) -> None:
    from tid.demo import demo_roll_path, load_demo
    from tid.models import Ordinance, Petition

    config = {**app.config, "INSTANCE_PATH": app.instance_path, "TODAY": "2026-06-15"}
    load_demo(session=session, config=config)
    path = demo_roll_path(config)
    assert path == Path(app.instance_path) / "demo" / "roll-2026-27.csv"
    assert path.read_bytes() == roll_csv(500)
    ordinance = session.exec(
        select(Ordinance).where(Ordinance.number == "Ord. Núm. 9, Serie 2025-2026")
    ).one()
    assert ordinance.approved_on is not None and ordinance.received_by_association_on
    assert ordinance.expected_amount == Decimal("500000.00")
    petitions = _count(session, Petition)
    load_demo(session=session, config=config)  # idempotent
    assert _count(session, Petition) == petitions
    assert _count(session, Ordinance) == len(session.exec(select(Ordinance)).all())
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


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30
).filter(lambda t: t.strip() == t and "," not in t and '"' not in t)


@given(owner=_TEXT, cents=st.integers(min_value=-(10**9), max_value=10**11))
def test_any_owner_and_value_either_round_trips_or_is_a_finding(owner: str, cents: int) -> None:
    value = f"{'-' if cents < 0 else ''}{abs(cents) // 100}.{abs(cents) % 100:02d}"
    text = (
        "cadastral_number,owner,mailing_address,zip,assessed_value\n"
        f"040-010-001-01,{owner},1 Calle Sol,00901,{value}\n"
    )
    parsed = roll.parse_roll(text.encode())
    fields = {f.field for f in parsed.findings}
    if owner.startswith(("=", "+", "-", "@")):
        assert "owner" in fields  # a formula is never kept
    if cents < 0:
        assert "assessed_value" in fields  # a negative value is never kept
    if not parsed.findings:
        [row] = parsed.rows
        assert row.owner_names == " ".join(owner.split())
        assert row.assessed_value == Decimal(cents) / 100  # exact, to the cent
    else:
        assert parsed.rows == ()
