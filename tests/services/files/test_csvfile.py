"""The one reader of uploaded CSV files (tid/services/files/csvfile.py): the same encodings,
delimiters, limits and row numbers for the roll, the bank's deposits, the article numbers and
deliveries, and the calculators' tables."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlmodel import Session

from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.errors import FindingsError, InputError
from tid.services import ledger
from tid.services.account import payments
from tid.services.files import csvfile
from tid.services.ledger import BANK

TODAY = date(2025, 9, 1)


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("Número;Dueño\n1;Peña\n".encode(), "utf-8"),
        ("\ufeffNúmero;Dueño\n1;Peña\n".encode(), "utf-8-sig"),
        ("Número;Dueño\n1;Peña\n".encode("cp1252"), "cp1252"),
        # A byte Windows-1252 leaves undefined (0x81): read as Latin-1, never refused.
        (b"N\x81mero;Due\xf1o\n1;Pe\xf1a\n", "latin-1"),
    ],
)
def test_a_spreadsheets_file_is_read_in_its_encoding(data: bytes, encoding: str) -> None:
    upload = csvfile.open_upload(data, field="file", max_bytes=1000)
    assert upload.encoding == encoding and upload.delimiter == ";"
    rows = csvfile.numbered_rows(upload, field="file")
    assert rows[-1] == (2, ["1", "Peña"])


@pytest.mark.parametrize(
    ("first_line", "delimiter"),
    [("a,b,c", ","), ("a;b;c", ";"), ("a\tb\tc", "\t"), ("a;b,c;d", ";"), ("abc", ",")],
)
def test_the_delimiter_is_the_one_the_first_line_has_most_of(
    first_line: str, delimiter: str
) -> None:
    assert csvfile.delimiter_of(first_line) == delimiter


def test_a_file_too_large_empty_or_binary_is_refused_on_its_field() -> None:
    with pytest.raises(InputError) as large:
        csvfile.open_upload(b"a,b\n" * 100, field="file", max_bytes=399)
    assert large.value.field == "file"
    for empty in (b"", b"\n\n  \n"):
        with pytest.raises(InputError) as caught:
            csvfile.open_upload(empty, field="deposits", max_bytes=100)
        assert caught.value.field == "deposits" and "empty" in caught.value.message
    with pytest.raises(InputError) as binary:
        csvfile.open_upload(b"PK\x03\x04\x14\x00\x00\x00\x08\x00", field="file", max_bytes=100)
    assert "not a CSV" in binary.value.message


def test_rows_keep_their_line_numbers_and_a_stray_quote_names_its_row() -> None:
    upload = csvfile.open_upload(b"h1,h2\n\na,b\n\n c , d \n", field="file", max_bytes=100)
    assert csvfile.numbered_rows(upload, field="file") == [
        (1, ["h1", "h2"]),
        (3, ["a", "b"]),
        (5, ["c", "d"]),
    ]
    broken = csvfile.open_upload(b'h1,h2\na,b\nc,"d\n', field="file", max_bytes=100)
    with pytest.raises(FindingsError) as caught:
        csvfile.numbered_rows(broken, field="file")
    assert [(f.field, f.row) for f in caught.value.findings] == [("file", 3)]


@given(st.text(min_size=1, max_size=40))
def test_a_header_compares_by_its_normal_form(header: str) -> None:
    normal = csvfile.normalize_header(header)
    assert normal == csvfile.normalize_header(normal)  # idempotent
    assert all(c.isascii() and (c.isalnum() or c == "_") for c in normal)
    assert csvfile.normalize_header(" Número de  Catastro ") == "numero_de_catastro"


def test_the_banks_file_from_a_spanish_spreadsheet_is_read(session: Session) -> None:
    """Semicolons, Windows-1252 and Spanish headers with accents: the deposits are booked."""
    s = Scaffold(session)
    prop = s.property("111-111-111-11")
    s.bill(prop, "100.00")
    session.commit()
    data = (
        "Fecha;Importe;Referencia;Número catastro\n2025-08-01;1,000.00;DEP-Ñ;111-111-111-11\n"
    ).encode("cp1252")
    result = payments.import_deposits(
        session=session, actor=ACTOR, district_id=s.district_id, data=data, today=TODAY
    )
    session.commit()
    assert (result.booked, result.total_booked) == (1, Decimal("1000.00"))
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == Decimal(
        "1000.00"
    )
    with pytest.raises(InputError) as large:
        payments.parse_deposits(b"x" * (payments.MAX_DEPOSIT_BYTES + 1), today=TODAY)
    assert large.value.field == "file"
