"""Any calculator's result document as plain tables (for a page or a PDF), its summary, and
as a CSV file (every cell guarded against a spreadsheet's formulas)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from tid import csv_safe
from tid.rules import limits
from tid.rules.vocab import roll_columns

# Keys whose decimal strings are rates or ratios (shown as percentages), and quantities.
RATE_KEYS = frozenset(
    {"rate", "lottery_rate", "gf_rate", "ratio_2007_08", "weight", "share", "points"}
)
PLAIN_KEYS = frozenset({"nights", "rank", "group", "days_left", "fiscal_year", "month", "id"})
QUANTITY_KEYS = frozenset({"diesel_gallons"})
# Names a person wrote, set as code on a page: a formula and the names it uses.
CODE_KEYS = frozenset({"formula", "parameters_used", "attributes_used"})
_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_DECIMAL = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")


def _is_day(text: str) -> bool:
    """A calendar day written as ISO text (``2026-02-30`` is shaped like one and is not)."""
    if not _ISO_DATE.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


_SKIPPED = frozenset({"warnings", "warnings_es", "trace", "explanation_es", "skipped"})


def kind_of(key: str, value: object) -> str:
    """How to show a value of a result: money, rate, quantity, date, number, flag or text."""
    leaf = key.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return "flag"
    if isinstance(value, int):
        return "number"
    if not isinstance(value, str):
        return "text"
    if leaf in CODE_KEYS:
        return "code"
    if _is_day(value):
        return "date"
    if _DECIMAL.match(value):
        if leaf in RATE_KEYS or (leaf.endswith("_rate") and leaf not in _MONEY_RATES):
            return "rate"
        if leaf in QUANTITY_KEYS or leaf in roll_columns.count_columns():
            return "quantity"
        if leaf in PLAIN_KEYS:
            return "number"
        return "money"
    return "text"


_MONEY_RATES = frozenset({"nightly_rate", "average_daily_rate"})


@dataclass
class ResultTable:
    """A list of the result as rows of flat cells; nested objects become dotted columns."""

    key: str
    columns: list[str]
    rows: list[dict[str, Any]]
    totals: dict[str, Any] = field(default_factory=dict)
    hidden: int = 0  # rows of the list left out of ``rows`` (a page shows the first ones)


def _flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, item in value.items():
        if key in _SKIPPED:
            continue
        path = f"{prefix}{key}"
        if isinstance(item, Mapping):
            flat.update(_flatten(item, f"{path}."))
        elif isinstance(item, list):
            if all(not isinstance(x, (Mapping, list)) for x in item):
                flat[path] = ", ".join(str(x) for x in item)
        else:
            flat[path] = item
    return flat


def _table(key: str, rows: Sequence[Mapping[str, Any]], most: int | None = None) -> ResultTable:
    hidden = max(0, len(rows) - most) if most is not None else 0
    flat_rows = []
    for row in rows[:most] if most is not None else rows:
        limits.checkpoint()  # writing a page, a CSV or a PDF counts against the time budget
        flat_rows.append(_flatten(row))
    columns: list[str] = []
    for row in flat_rows:
        for column in row:
            if column not in columns:
                columns.append(column)
    return ResultTable(key, columns, flat_rows, hidden=hidden)


def _is_table(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, Mapping) for x in value)


def _is_record_map(value: object) -> bool:
    """A mapping of named records ({"ordinance_due": {...}, ...}), shown as a table."""
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(x, Mapping) for x in value.values())
    )


def rows_in(*documents: Mapping[str, Any]) -> int:
    """The rows of the longest list at the top of these documents (an input and its result):
    how long a page or a PDF of them would be."""
    return max(
        (len(v) for d in documents for v in d.values() if isinstance(v, list)),
        default=0,
    )


def result_tables(result: Mapping[str, Any], most: int | None = None) -> list[ResultTable]:
    """Every list in a result (months, municipalities, ranking…) as a table.

    A ``totals`` mapping whose keys are the allocations of a ``months`` table becomes that
    table's totals row. A mapping of named records (records explained one by one, like the
    deadlines) is a table too, one row per name in a column called ``result``; records at the
    top level of the result (an object with an ``explanation``) make a table ``results``.
    """
    tables: list[ResultTable] = []
    records: list[dict[str, Any]] = []
    for key, value in result.items():
        if key in _SKIPPED:
            continue
        if _is_table(value):
            tables.append(_table(key, value, most))
        elif isinstance(value, Mapping) and "explanation" in value:
            records.append({"result": key, **value})
        elif _is_record_map(value):
            rows = [{"result": name, **record} for name, record in value.items()]
            tables.append(_table(key, rows))
    if records:
        tables.insert(0, _table("results", records))
    totals = result.get("totals")
    if isinstance(totals, Mapping):
        for table in tables:
            matched = {
                f"allocations.{k}": v
                for k, v in totals.items()
                if f"allocations.{k}" in table.columns
            }
            matched.update({k: v for k, v in totals.items() if k in table.columns})
            if matched:
                table.totals = matched
    return tables


def summary(result: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The key figures of a result: its scalars and its groups of scalars, flattened."""
    tables = {t.key for t in result_tables(result)}
    figures: list[tuple[str, Any]] = []
    for key, value in result.items():
        if key in _SKIPPED or key in tables:
            continue
        if isinstance(value, Mapping) and "explanation" in value:
            continue
        if isinstance(value, Mapping):
            figures.extend(_flatten(value, f"{key}.").items())
        elif isinstance(value, list):
            if all(not isinstance(x, (Mapping, list)) for x in value):
                figures.append((key, ", ".join(str(x) for x in value)))
        else:
            figures.append((key, value))
    return figures


def _key(key: str) -> str:
    return key


def _as_is(key: str, value: object) -> object:
    return value


def _is_number(value: object) -> bool:
    """A value the calculator wrote as a number: an int, or an amount, rate or quantity
    (decimal strings, docs/calculators.md)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and bool(_DECIMAL.match(value)))


def _column_cells(
    values: list[object],
    column: str = "",
    text: Callable[[str, object], object] = _as_is,
) -> list[str]:
    """One column's cells: a column whose every value is a number keeps them as numbers;
    any other column is text (shown by ``text``), and each of its cells is escaped
    (tid/csv_safe.py)."""
    if all(v is None or _is_number(v) for v in values):
        return [csv_safe.number_cell(v) for v in values]
    return [csv_safe.text_cell(_plain(text(column, v))) for v in values]


def _plain(value: object) -> object:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def result_csv(
    result: Mapping[str, Any],
    heading: Callable[[str], str] = _key,
    text: Callable[[str, object], object] = _as_is,
) -> str:
    """A result as CSV: each table under its name, then the key figures, then the warnings.

    Columns are named by ``heading`` (by default the JSON fields, nested ones dotted,
    ``allocations.general_fund``; the web gives the reader's labels) and each text cell is
    shown by ``text(column, value)`` (the web: codes and flags by their labels, citations
    and warnings in the reader's language). Amounts and other numbers are written as the
    result gives them (``"1234.50"``), so they read back exactly.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    first = True
    tables = result_tables(result)
    for table in tables:
        if not first:
            writer.writerow([])
        first = False
        if len(tables) > 1:
            writer.writerow([csv_safe.text_cell(f"# {heading(table.key)}")])
        writer.writerow([csv_safe.text_cell(heading(c)) for c in table.columns])
        lines: list[dict[str, Any]] = list(table.rows)
        if table.totals:
            lines.append(dict(table.totals))
        columns = [_column_cells([line.get(c) for line in lines], c, text) for c in table.columns]
        for index in range(len(lines)):
            cells = [column[index] for column in columns]
            if table.totals and index == len(lines) - 1:
                cells[0] = cells[0] or heading("total")
            writer.writerow(cells)
    figures = summary(result)
    if figures:
        if not first:
            writer.writerow([])
        first = False
        writer.writerow([heading("field"), heading("value")])
        for key, value in figures:  # each field is a column of one value
            writer.writerow([csv_safe.text_cell(heading(key)), *_column_cells([value], key, text)])
    warnings = result.get("warnings") or []
    if warnings:
        if not first:
            writer.writerow([])
        writer.writerow([heading("warning")])
        for warning in warnings:
            writer.writerow([csv_safe.text_cell(text("warning", warning))])
    return out.getvalue()
