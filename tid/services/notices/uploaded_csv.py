"""The CSV files clerks upload for notices (article numbers, delivery reports), read as every
upload is (tid/services/csvfile.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tid.services import csvfile

MAX_CSV_BYTES = 5 * 1024 * 1024


def csv_rows(data: bytes, field: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of an uploaded file, read as every upload is (csvfile)."""
    upload = csvfile.open_upload(data, field=field, max_bytes=MAX_CSV_BYTES)
    return csvfile.numbered_rows(upload, field=field)


def is_header(cells: Sequence[str]) -> bool:
    return not any(ch.isdigit() for ch in "".join(cells[:2]))
