"""A roll file read: Spanish headers in Latin-1 and UTF-8 with a byte-order mark, the size
and row limits before parsing, a cadastral number repeated naming its first row.
"""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.roll.helpers import GOOD, HEADER, count_rows, import_file
from tid.models import PropertyYear, RollImport
from tid.rules.errors import FindingsError, InputError
from tid.services import roll


def test_duplicate_message_names_the_first_row(session: Session, people: People) -> None:
    text = HEADER + ("040-010-001-01,Ana,,1 Calle,SJ,00901,,1.00,,x,,1\n" * 2)
    with pytest.raises(FindingsError) as caught:
        import_file(session, people, text.encode())
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
        import_file(session, people, text.encode("cp1252"))
    session.rollback()
    assert [(f.row, f.field) for f in caught.value.findings] == [(2, "Valor Tasado")]
    fixed = text.replace("1.234,00", "1234.00")
    result = import_file(session, people, fixed.encode("cp1252"))
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
        import_file(session, people, data, max_bytes=len(data) - 1)
    assert caught.value.field == "file"
    assert "larger than the limit" in caught.value.message
    session.rollback()
    with pytest.raises(InputError) as rows:
        import_file(session, people, data, max_rows=2)
    assert rows.value.field == "file" and "more rows than the limit" in rows.value.message
    session.rollback()
    assert count_rows(session, RollImport) == 0
    # Not CSV at all.
    with pytest.raises(InputError):
        roll.parse_roll(b"\x00\x01\x02")
    with pytest.raises(InputError) as missing:
        roll.parse_roll(b"owner,assessed_value\nAna,1.00\n")
    assert "required column" in missing.value.message
