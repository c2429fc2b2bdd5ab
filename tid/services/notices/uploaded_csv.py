"""The CSV files clerks upload for notices (article numbers, delivery reports), read as every
upload is (tid/services/files/csvfile.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tid.rules.errors import Finding, FindingsError
from tid.services.files import csvfile

MAX_CSV_BYTES = 5 * 1024 * 1024


def csv_rows(data: bytes, field: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of an uploaded file, read as every upload is (csvfile)."""
    upload = csvfile.open_upload(data, field=field, max_bytes=MAX_CSV_BYTES)
    return csvfile.numbered_rows(upload, field=field)


def is_header(cells: Sequence[str]) -> bool:
    return not any(ch.isdigit() for ch in "".join(cells[:2]))


def row_findings(findings: list[Finding], rows: Sequence[tuple[int, list[str]]]) -> FindingsError:
    """The file's findings, each of a row carrying the number the row gives first (a notice
    or article number, in ``extra["number"]``), so that a page lists them row by row: the
    row, the number, what is wrong."""
    first = {line: (cells[0].strip() if cells else "") for line, cells in rows}
    return FindingsError(
        [
            replace(f, extra={**f.extra, "number": first.get(f.row, "")}) if f.row else f
            for f in findings
        ]
    )
