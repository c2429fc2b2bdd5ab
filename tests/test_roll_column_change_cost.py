"""A new column of the property roll costs four files plus a migration and the catalogs' entries
for its label: its record in the vocabulary (tid/rules/vocab/roll_columns.py: label, type,
header names in Spanish and English, its name in a formula), its field on the model
(``PropertyYear`` in tid/models/roll_and_properties.py), the migration that adds it, and the
sentence of the upload page that lists the optional columns (templates/roll/upload.html). The
roll import, the property's page, the formula's variables and their explanations read it from
the vocabulary."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask, render_template
from sqlmodel import Session

from tests.conftest import People
from tid.models import PropertyYear
from tid.rules.imposts.explanations import label_of
from tid.rules.messages import N_
from tid.rules.vocab import ROLL_COLUMNS, RollColumn
from tid.rules.vocab.roll_columns import COUNT, formula_columns, year_columns
from tid.services import roll

PROJECT = Path(__file__).resolve().parent.parent
# The files a new column is written in (besides a migration and the catalogs).
COLUMN_FILES = {
    "tid/rules/vocab/roll_columns.py",
    "tid/models/roll_and_properties.py",
    "templates/roll/upload.html",
}
PARKING = RollColumn(
    "parking_spaces",
    N_("Parking spaces"),
    COUNT,
    ("parking_spaces", "parking", "estacionamientos"),
    variable=N_("parking spaces"),
)
# The model's fields that are not columns of the roll file: ids and the import's bookkeeping.
BOOKKEEPING = {
    "id",
    "property_id",
    "district_id",
    "fiscal_year",
    "roll_import_id",
    "source_row",
    "in_roll",
    "attributes",
    "updated_at",
}


@pytest.fixture
def a_new_column(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The vocabulary with one more column, the parking spaces, after the frontage."""
    terms = {**{c.code: c for c in ROLL_COLUMNS}, PARKING.code: PARKING}
    monkeypatch.setattr(ROLL_COLUMNS, "_terms", terms)
    yield


def test_the_vocabulary_and_the_model_have_the_same_columns() -> None:
    fields = set(PropertyYear.model_fields) - BOOKKEEPING
    assert fields == set(year_columns())


@pytest.mark.usefixtures("a_new_column")
def test_the_roll_import_reads_a_new_column_by_its_spanish_or_english_header() -> None:
    header = "catastro,propietario,direccion_postal,codigo_postal,valor_tasado,estacionamientos"
    data = f"{header}\n040-010-001-01,José Rivera,12 CALLE 5,00966,31500.00,3\n".encode()
    parsed = roll.parse_roll(data)
    assert parsed.findings == ()
    assert parsed.columns["estacionamientos"] == "parking_spaces"
    (row,) = parsed.rows
    assert row.parking_spaces == 3 and row.values()["parking_spaces"] == 3
    assert roll.column_label("parking_spaces") == "Parking spaces"
    bad = roll.parse_roll(data.replace(b",3\n", b",-3\n"))
    assert [f.field for f in bad.findings] == ["estacionamientos"]


@pytest.mark.usefixtures("a_new_column")
def test_the_formula_reads_and_explains_a_new_column(session: Session, people: People) -> None:
    assert "parking_spaces" in formula_columns()
    names = roll.attribute_names(
        session=session, district_id=people.district.id or 0, fiscal_year="2026-27"
    )
    assert "parking_spaces" in names
    assert label_of("parking_spaces") == "parking spaces"


@pytest.mark.usefixtures("a_new_column")
def test_the_property_page_shows_a_new_column(app: Flask) -> None:
    year = SimpleNamespace(
        fiscal_year="2026-27",
        in_roll=True,
        owner_names="José Rivera",
        mailing_urbanization="",
        mailing_line1="12 CALLE 5",
        mailing_line2="",
        mailing_city="GUAYNABO",
        mailing_state="PR",
        mailing_zip="00966",
        use_class="residencial",
        assessed_value=Decimal("31500.00"),
        land_area=None,
        built_area=None,
        rooms=None,
        frontage=Decimal("12.5"),
        parking_spaces=3,
    )
    with app.test_request_context("/roll/1/properties/1"):
        page = render_template(
            "roll/property.html",
            district=SimpleNamespace(id=1, name="Viejo San Juan"),
            parcel=SimpleNamespace(cadastral_number="040-010-001-01", physical_address=""),
            history=[(year, {})],
            bills=[],
        )
    assert '<th class="num">Parking spaces</th>' in page
    assert '<td class="num" data-label="Parking spaces">3</td>' in page


# --------------------------------------------------------------------------- no other list


def _files() -> Iterator[Path]:
    yield from sorted((PROJECT / "templates").rglob("*.html"))
    for path in sorted((PROJECT / "tid").rglob("*")):
        if path.suffix in {".py", ".html", ".js"} and path.is_file():
            yield path


def test_only_the_vocabulary_the_model_and_the_upload_page_name_an_ordinary_column() -> None:
    """The frontage has no rule of its own (unlike the cadastral number, the owner, the
    mailing address or the assessed value, which the import checks by name): every file
    that names it would name a new column too."""
    word = re.compile(r"\bfrontage\b", re.I)
    found = set()
    for path in _files():
        name = path.relative_to(PROJECT).as_posix()
        if name.startswith("tid/demo/"):  # the demo's roll is data: a file with the column
            continue
        text = path.read_text(encoding="utf-8")
        if any(word.search(line) and not _comment(line) for line in text.splitlines()):
            found.add(name)
    assert found == COLUMN_FILES


def _comment(line: str) -> bool:
    return line.strip().startswith("#") or line.strip().startswith('"""')
