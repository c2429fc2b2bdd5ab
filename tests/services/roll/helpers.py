"""What the roll tests share: a good roll file, its header, an import of a file and the
findings of a bad one.
"""

from __future__ import annotations

import pytest
from sqlmodel import Session, func, select

from tests.conftest import People
from tid.rules.errors import FindingsError
from tid.services import roll
from tid.services.audit_trail import audit

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


def import_file(session: Session, people: People, data: bytes, fy: str = "2026-27", **kw: int):  # type: ignore[no-untyped-def]
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


def count_rows(session: Session, model: type) -> int:
    return int(session.exec(select(func.count()).select_from(model)).one())


def roll_errors(session: Session, people: People, text: str) -> set[tuple[int | None, str, str]]:
    with pytest.raises(FindingsError) as caught:
        import_file(session, people, text.encode())
    session.rollback()
    return {(f.row, f.field, f.extra["msgid"]) for f in caught.value.findings}
