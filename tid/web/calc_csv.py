"""The rows of a calculator's table read from an uploaded CSV file whose header names the
JSON fields: size, encoding and delimiter as every upload, every cell checked before any row
is used."""

from __future__ import annotations

import csv
import io
from typing import Any

from tid.rules.calculators.inputs import (
    Field,
    Gettext,
    Table,
    check_value,
    json_value,
    untranslated,
)
from tid.rules.errors import Finding, FindingsError
from tid.rules.messages import N_, Message
from tid.services.files import csvfile

# The largest CSV file read for a table (checked before a byte is parsed).
MAX_CSV_BYTES = 1_000_000
MAX_CSV_ROWS = 5_000


class CsvError(FindingsError):
    """A CSV file that cannot be read in full: each finding names the row and the column."""


def decode_upload(data: bytes, field_name: str, _: Gettext = untranslated) -> str:
    """The text of an uploaded file: size checked first, then read as every upload is
    (tid/services/files/csvfile.py: UTF-8, else a spreadsheet's Windows-1252)."""
    if len(data) > MAX_CSV_BYTES:
        raise CsvError(
            [
                Finding(
                    field_name,
                    Message(
                        N_("The file is too large (at most %(size)s bytes)."),
                        size=f"{MAX_CSV_BYTES:,}",
                    ),
                )
            ]
        )
    text, _encoding = csvfile.decode(data)
    if "\x00" in text:
        raise CsvError([Finding(field_name, Message(N_("This is not a CSV text file.")))])
    return text


def read_csv(
    data: bytes,
    table: Table,
    *,
    field_name: str | None = None,
    open_columns: bool = False,
    _: Gettext = untranslated,
) -> list[dict[str, Any]]:
    """The rows of ``table`` from a CSV file whose header names the JSON fields.

    See :func:`read_csv_numbered`, which also gives each row's line number.
    """
    rows = read_csv_numbered(data, table, field_name=field_name, open_columns=open_columns, _=_)
    return [row for _number, row in rows]


def read_csv_numbered(
    data: bytes,
    table: Table,
    *,
    field_name: str | None = None,
    open_columns: bool = False,
    _: Gettext = untranslated,
) -> list[tuple[int, dict[str, Any]]]:
    """The rows of ``table`` from a CSV file, each with its row number in the file.

    Every cell is checked before anything is returned: one bad row is a :class:`CsvError`
    naming the row number (the header is row 1) and the column, and no row is used. Empty
    lines are skipped; an empty optional cell is left out of the row. With ``open_columns``
    any column is accepted (as text) besides the ones of ``table``.
    """
    name = field_name or f"{table.key}_csv"
    text = decode_upload(data, name, _)
    # The delimiter: a comma, or the semicolon or tab of spreadsheets in Spanish.
    delimiter = csvfile.delimiter_of(text.split("\n", 1)[0])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise CsvError(
            [Finding(name, Message(N_("Row 1: %(problem)s"), **{"problem": str(exc)}))]
        ) from None
    if header is None or not any(h.strip() for h in header):
        raise CsvError(
            [Finding(name, Message(N_("The file is empty: the first row names the columns.")))]
        )
    columns = [h.strip() for h in header]
    findings = _header_findings(columns, table, name, open_columns, _)
    if findings:
        raise CsvError(findings)
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        for cells in reader:
            number = reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(rows) >= MAX_CSV_ROWS:
                raise CsvError(
                    [
                        Finding(
                            name,
                            Message(N_("Too many rows (at most %(n)s)."), **{"n": MAX_CSV_ROWS}),
                        )
                    ]
                )
            row = _csv_row(number, cells, columns, table, name, findings, _)
            if row is not None:
                rows.append((number, row))
    except csv.Error as exc:
        findings.append(
            Finding(
                name,
                Message(
                    N_("Row %(row)s: %(problem)s"), **{"row": reader.line_num, "problem": str(exc)}
                ),
                reader.line_num,
            )
        )
    if findings:
        raise CsvError(findings)
    if not rows:
        raise CsvError([Finding(name, Message(N_("The file has a header but no rows.")))])
    return rows


def _header_findings(
    columns: list[str], table: Table, name: str, open_columns: bool, _: Gettext
) -> list[Finding]:
    """What is wrong with a CSV file's header row: unnamed, unknown, repeated or missing
    columns."""
    findings: list[Finding] = []
    known = {c.key for c in table.columns}
    for position, column in enumerate(columns, start=1):
        if not column:
            findings.append(
                Finding(
                    name,
                    Message(N_("Row 1, column %(n)s: the column has no name."), **{"n": position}),
                    1,
                )
            )
        elif column not in known and not open_columns:
            findings.append(
                Finding(
                    name,
                    Message(
                        N_("Row 1: unknown column “%(column)s”; the columns are: %(known)s."),
                        **{"column": column, "known": ", ".join(c.key for c in table.columns)},
                    ),
                    1,
                )
            )
        elif columns.index(column) != position - 1:
            findings.append(
                Finding(
                    name,
                    Message(
                        N_("Row 1: the column “%(column)s” appears twice."), **{"column": column}
                    ),
                    1,
                )
            )
    for required in (c for c in table.columns if c.required):
        if required.key not in columns:
            findings.append(
                Finding(
                    name,
                    Message(
                        N_("Row 1: the column “%(column)s” is missing."), **{"column": required.key}
                    ),
                    1,
                )
            )
    return findings


def _csv_row(
    number: int,
    cells: list[str],
    columns: list[str],
    table: Table,
    name: str,
    findings: list[Finding],
    _: Gettext,
) -> dict[str, Any] | None:
    """One row of a CSV file as JSON values; its problems go to ``findings`` (None: a row
    with more cells than the header has columns)."""
    if len(cells) > len(columns):
        findings.append(
            Finding(
                name,
                Message(
                    N_("Row %(row)s: %(cells)s cells, but the header names %(columns)s columns."),
                    **{"row": number, "cells": len(cells), "columns": len(columns)},
                ),
                number,
            )
        )
        return None
    row: dict[str, Any] = {}
    for column, raw in zip(columns, cells, strict=False):
        value = raw.strip()
        spec = table.column(column) or Field(column, "text", column)
        if not value:
            if spec.required:
                findings.append(
                    Finding(
                        name,
                        Message(
                            N_("Row %(row)s, column %(column)s: this value is required."),
                            **{"row": number, "column": column},
                        ),
                        number,
                    )
                )
            continue
        problem = check_value(spec, value, _)
        if problem:
            findings.append(
                Finding(
                    name,
                    Message(
                        N_("Row %(row)s, column %(column)s: %(problem)s"),
                        **{"row": number, "column": column, "problem": problem},
                    ),
                    number,
                )
            )
            continue
        row[column] = json_value(spec, value)
    for missing in columns[len(cells) :]:
        missing_spec = table.column(missing)
        if missing_spec is not None and missing_spec.required:
            findings.append(
                Finding(
                    name,
                    Message(
                        N_("Row %(row)s, column %(column)s: this value is required."),
                        **{"row": number, "column": missing},
                    ),
                    number,
                )
            )
    return row
