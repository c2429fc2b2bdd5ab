"""A calculator's table read from a CSV file: rows as the JSON fields, every bad row reported,
none used; the size checked first."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tid.rules import calculators
from tid.rules.errors import FindingsError
from tid.web import calc_csv

MONTHS = next(t for t in calculators.FORMS["room-tax-distribution"].tables() if t.key == "months")
MUNICIPALITIES = calculators.FORMS["equalization"].tables()[0]


def test_rows_as_the_json_fields() -> None:
    data = b'month,collected\r\n2024-07,"1,234.50"\r\n\r\n2024-08,0\r\n'
    assert calc_csv.read_csv_numbered(data, MONTHS) == [
        (2, {"month": "2024-07", "collected": "1,234.50"}),
        (4, {"month": "2024-08", "collected": "0"}),  # the blank line 3 is skipped
    ]


def test_columns_in_any_order_and_optional_cells_left_out() -> None:
    liens = calculators.FORMS["liens"].tables()[0]
    data = b"amount,kind,id,constituted_on,unsecured_charges\n10.00,mortgage,M,2020-01-01,\n"
    assert calc_csv.read_csv(data, liens) == [
        {"amount": "10.00", "kind": "mortgage", "id": "M", "constituted_on": "2020-01-01"}
    ]


def test_every_bad_row_is_reported_and_none_is_used() -> None:
    data = b"month,collected\n2024-07,1.00\n2024-08,x\n2024-09,-2.00\n2024-1,3.00\n"
    with pytest.raises(FindingsError) as caught:
        calc_csv.read_csv(data, MONTHS)
    findings = caught.value.findings
    assert [f.row for f in findings] == [3, 4, 5]
    assert findings[0].message.startswith("Row 3, column collected: ")
    assert findings[1].message == "Row 4, column collected: It cannot be negative."
    assert findings[2].message.startswith("Row 5, column month: ")
    assert caught.value.field == "months_csv"


def test_size_is_checked_before_parsing() -> None:
    data = b"x" * (calc_csv.MAX_CSV_BYTES + 1)  # not even CSV: the size is refused first
    with pytest.raises(FindingsError, match="too large"):
        calc_csv.read_csv(data, MONTHS)


def test_open_columns_take_any_attribute() -> None:
    properties = calculators.FORMS["impost"].tables()[0]
    data = b"id,rooms,kind\nA,12,hotel\n"
    assert calc_csv.read_csv(data, properties, open_columns=True) == [
        {"id": "A", "rooms": "12", "kind": "hotel"}
    ]
    with pytest.raises(FindingsError, match="unknown column"):
        calc_csv.read_csv(data, properties)


_amount = st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False).map(str)
_month = st.sampled_from(["2024-07", "2024-12", "2025-06"])


@given(rows=st.lists(st.fixed_dictionaries({"month": _month, "collected": _amount}), min_size=1))
def test_written_rows_read_back_the_same(rows: list[dict[str, str]]) -> None:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["month", "collected"])
    writer.writeheader()
    writer.writerows(rows)
    data = ("\ufeff" + out.getvalue()).encode()
    assert calc_csv.read_csv(data, MONTHS) == rows


@given(
    names=st.lists(
        st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1).filter(
            lambda s: s.strip() == s and s.strip()
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_municipality_name_survives_the_file(names: list[str]) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["name", "base", "allocation_2007_08", "income_2007_08"])
    for name in names:
        writer.writerow([name, "1.00", "1.00", "2.00"])
    rows = calc_csv.read_csv(out.getvalue().encode(), MUNICIPALITIES)
    assert [r["name"] for r in rows] == names
