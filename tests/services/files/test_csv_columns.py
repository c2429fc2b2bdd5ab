"""The account's CSV files: headed in the reader's language (Spanish outside a request),
numbers left as numbers and text guarded against spreadsheet formulas."""

from __future__ import annotations

import csv
import io

from tid.services.files.csv_columns import COLUMNS, column_label, csv_text


def test_a_csv_is_headed_in_spanish_and_its_text_is_guarded() -> None:
    rows = [("fiscal_year", "amount", "memo"), ("2025-26", "-12.50", "-12.50")]
    header, row = list(csv.reader(io.StringIO(csv_text(rows, numbers={"amount"}))))
    assert header[:2] == ["Año fiscal", "Cantidad"]
    assert row[1] == "-12.50"  # a number column keeps its sign
    assert row[2] != "-12.50" and row[2].endswith("-12.50")  # a text column is guarded


def test_every_column_has_a_label_of_its_own() -> None:
    labels = [column_label(key) for key in COLUMNS]
    assert all(labels) and len(set(labels)) == len(labels)
