"""Documents in and out of files: CSV rows read strictly, results written as tables."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.calc_documents import DOCUMENTS
from tid import calc_io
from tid.rules import calculators
from tid.rules.errors import FindingsError

MONTHS = next(t for t in calc_io.FORMS["room-tax-distribution"].tables() if t.key == "months")
MUNICIPALITIES = calc_io.FORMS["equalization"].tables()[0]


def test_rows_as_the_json_fields() -> None:
    data = b'month,collected\r\n2024-07,"1,234.50"\r\n\r\n2024-08,0\r\n'
    assert calc_io.read_csv_numbered(data, MONTHS) == [
        (2, {"month": "2024-07", "collected": "1,234.50"}),
        (4, {"month": "2024-08", "collected": "0"}),  # the blank line 3 is skipped
    ]


def test_columns_in_any_order_and_optional_cells_left_out() -> None:
    liens = calc_io.FORMS["liens"].tables()[0]
    data = b"amount,kind,id,constituted_on,unsecured_charges\n10.00,mortgage,M,2020-01-01,\n"
    assert calc_io.read_csv(data, liens) == [
        {"amount": "10.00", "kind": "mortgage", "id": "M", "constituted_on": "2020-01-01"}
    ]


def test_every_bad_row_is_reported_and_none_is_used() -> None:
    data = b"month,collected\n2024-07,1.00\n2024-08,x\n2024-09,-2.00\n2024-1,3.00\n"
    with pytest.raises(FindingsError) as caught:
        calc_io.read_csv(data, MONTHS)
    findings = caught.value.findings
    assert [f.row for f in findings] == [3, 4, 5]
    assert findings[0].message.startswith("Row 3, column collected: ")
    assert findings[1].message == "Row 4, column collected: It cannot be negative."
    assert findings[2].message.startswith("Row 5, column month: ")
    assert caught.value.field == "months_csv"


def test_size_is_checked_before_parsing() -> None:
    data = b"x" * (calc_io.MAX_CSV_BYTES + 1)  # not even CSV: the size is refused first
    with pytest.raises(FindingsError, match="too large"):
        calc_io.read_csv(data, MONTHS)


def test_open_columns_take_any_attribute() -> None:
    properties = calc_io.FORMS["impost"].tables()[0]
    data = b"id,rooms,kind\nA,12,hotel\n"
    assert calc_io.read_csv(data, properties, open_columns=True) == [
        {"id": "A", "rooms": "12", "kind": "hotel"}
    ]
    with pytest.raises(FindingsError, match="unknown column"):
        calc_io.read_csv(data, properties)


_amount = st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False).map(str)
_month = st.sampled_from(["2024-07", "2024-12", "2025-06"])


@given(rows=st.lists(st.fixed_dictionaries({"month": _month, "collected": _amount}), min_size=1))
def test_written_rows_read_back_the_same(rows: list[dict[str, str]]) -> None:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["month", "collected"])
    writer.writeheader()
    writer.writerows(rows)
    data = ("\ufeff" + out.getvalue()).encode()
    assert calc_io.read_csv(data, MONTHS) == rows


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
    rows = calc_io.read_csv(out.getvalue().encode(), MUNICIPALITIES)
    assert [r["name"] for r in rows] == names


@pytest.mark.parametrize(
    ("key", "value", "kind"),
    [
        ("tax", "54.00", "money"),
        ("allocations.general_fund", "45000.00", "money"),
        ("rate", "0.09", "rate"),
        ("gf_rate", "0.025", "rate"),
        ("nightly_rate", "200.00", "money"),  # a rate charged, in dollars
        ("ratio_2007_08", "0.6", "rate"),
        ("diesel_gallons", "5000000", "quantity"),
        ("rank", 2, "number"),
        ("month", "2024-07", "text"),
        ("id", "1234", "number"),
        ("remit_by", "2026-04-10", "date"),
        ("protected", True, "flag"),
        ("reason", "Ranks above", "text"),
    ],
)
def test_kind_of(key: str, value: object, kind: str) -> None:
    assert calc_io.kind_of(key, value) == kind


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_every_amount_of_a_result_is_in_its_csv(name: str) -> None:
    result = calculators.run(name, DOCUMENTS[name])
    rows = list(csv.reader(io.StringIO(calc_io.result_csv(result))))
    cells = {cell for row in rows for cell in row}

    def amounts(value: object) -> list[str]:
        if isinstance(value, dict):
            return [a for k, v in value.items() if k not in ("trace",) for a in amounts(v)]
        if isinstance(value, list):
            return [a for v in value for a in amounts(v)]
        return [value] if isinstance(value, str) and calc_io.kind_of("x", value) == "money" else []

    for amount in amounts(result):
        assert amount in cells, amount
    for warning in result["warnings"]:
        assert [warning] in rows


def test_months_table_with_its_totals() -> None:
    result = calculators.run("room-tax-distribution", DOCUMENTS["room-tax-distribution"])
    (months,) = [t for t in calc_io.result_tables(result) if t.key == "months"]
    assert months.columns[:3] == ["month", "collected", "allocations.authority_debt_service"]
    # The totals row adds up each allocation column: 100,000.00 + 50,000.00 = 150,000.00.
    total = sum(Decimal(r["allocations.authority_debt_service"]) for r in months.rows)
    assert Decimal(months.totals["allocations.authority_debt_service"]) == total
    assert total == Decimal("150000.00")


def test_a_formula_is_not_left_for_a_spreadsheet() -> None:
    text = calc_io.result_csv({"rows": [{"name": "=1+1", "amount": "-5.00"}], "warnings": []})
    assert text.splitlines() == ["name,amount", "'=1+1,-5.00"]


def test_citations_in_order_of_first_use() -> None:
    trace = [
        {"step": "a", "value": "1", "citation": "X"},
        {"step": "b", "value": "2", "citation": "Y"},
        {"step": "c", "value": "3", "citation": "X"},
    ]
    assert calc_io.citations({"trace": trace}) == ["X", "Y"]
