"""The one reader of the CSV files users upload: the property roll, the bank's deposits, the
article numbers and deliveries of certified mail, the calculators' tables.

A file from a municipality's or a bank's spreadsheet comes in whatever its program wrote, so
every upload is read by the same policy:

- **size** checked before anything is decoded (the caller's limit); an empty file refused;
- **encoding**: UTF-8 (a byte-order mark dropped), else Windows-1252 (what a spreadsheet in
  Spanish saves as "CSV"), else Latin-1 (which reads any byte); a file with NUL bytes is not
  text and is refused;
- **delimiter**: the comma, or the semicolon or tab that spreadsheets in a Spanish locale
  write, whichever the first line has most of;
- **rows** numbered as the file's lines (the header is row 1), blank lines skipped, a line
  that cannot be read as CSV (a stray quote) reported with its row;
- **headers** compared by a normal form (``"Número de Catastro"`` → ``numero_de_catastro``),
  so each importer names its columns and their aliases once.

What a cell means is the importer's business; formulas are never run here (the app writes its
own CSV files through :mod:`tid.csv_safe`, which guards them against spreadsheet formulas).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from tid.rules.errors import N_, Finding, FindingsError, InputError

# The encodings a file can be read in, by their label in the reader's language.
ENCODING_LABELS = {
    "utf-8-sig": N_("UTF-8 (with a byte-order mark)"),
    "utf-8": N_("UTF-8"),
    "cp1252": N_("Windows Western European (Windows-1252)"),
    "latin-1": N_("Latin-1 (ISO 8859-1)"),
}


@dataclass(frozen=True)
class CsvText:
    """An uploaded file decoded: its text, the encoding it was read in, its delimiter."""

    text: str
    encoding: str
    delimiter: str

    def reader(self) -> Iterator[list[str]]:
        return csv.reader(io.StringIO(self.text, newline=""), delimiter=self.delimiter)


def decode(data: bytes) -> tuple[str, str]:
    """The file's text and its encoding: UTF-8 (a byte-order mark dropped), else
    Windows-1252, else Latin-1 (which reads any byte)."""
    try:
        return data.decode("utf-8-sig"), ("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def delimiter_of(first_line: str) -> str:
    """Comma, or the semicolon or tab of a spreadsheet in a Spanish locale."""
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def normalize_header(header: str) -> str:
    """``"Número de Catastro"`` → ``numero_de_catastro``."""
    text = unicodedata.normalize("NFKD", header.strip().lstrip("\ufeff"))
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


def open_upload(
    data: bytes,
    *,
    field: str,
    max_bytes: int,
    too_large: str = N_("The file is too large."),
) -> CsvText:
    """An uploaded file's text, checked and decoded by the policy above; an
    :class:`InputError` on ``field`` for a file too large, empty or not text."""
    if len(data) > max_bytes:
        raise InputError(field, too_large)
    if not data.strip():
        raise InputError(field, N_("The file is empty."))
    text, encoding = decode(data)
    if "\x00" in text:
        raise InputError(field, N_("This is not a CSV text file."))
    return CsvText(text, encoding, delimiter_of(text.split("\n", 1)[0]))


# The longest cell any upload may hold: the csv module's own default limit, held here because
# that limit is a setting of the whole process that a library may raise.
MAX_CELL = 131_072
CELL_TOO_LONG = N_("A cell of this line is too long to be a value of this file.")


def numbered_rows(upload: CsvText, *, field: str) -> list[tuple[int, list[str]]]:
    """Every non-blank row with its row number in the file (the first line is row 1), cells
    stripped; a line that cannot be read as CSV, or with a cell over :data:`MAX_CELL`
    characters, is a finding on ``field`` with its row."""
    reader = csv.reader(
        io.StringIO(upload.text, newline=""), delimiter=upload.delimiter, strict=True
    )
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            cells = [c.strip() for c in row]
            if any(len(c) > MAX_CELL for c in cells):
                raise FindingsError([Finding(field, CELL_TOO_LONG, start)])
            if any(cells):
                rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error:  # a cell over the csv module's limit, a stray quote
        line = N_("This line cannot be read as CSV (a stray quote?).")
        raise FindingsError([Finding(field, line, start)]) from None
    return rows
