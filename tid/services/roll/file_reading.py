"""A roll file read once: refused before it is read when larger than ``DEFAULT_MAX_BYTES``
or with more than ``DEFAULT_MAX_ROWS`` rows; its text UTF-8 (with or without a byte-order
mark), else Windows-1252 / Latin-1; its header mapped to the roll's columns; its rows
checked (:mod:`.rows`), a cadastral number listed twice refused. Nothing is written.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from tid.rules.errors import N_, Finding, InputError
from tid.rules.vocab.roll_columns import header_aliases, required_columns
from tid.services.files.csvfile import decode, delimiter_of, normalize_header
from tid.services.roll.columns import ATTRIBUTE_NAME, NUMBER
from tid.services.roll.rows import RollRow, column_plan, parse_row, row_finding

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_ROWS = 200_000


@dataclass(frozen=True)
class ParsedRoll:
    """What a file says, before anything is written: the good rows and every finding."""

    sha256: str
    size: int
    encoding: str
    delimiter: str
    columns: dict[str, str]  # header as written -> column of the roll (or "attribute:x")
    ignored_columns: tuple[str, ...]  # extra columns with no number in them
    rows: tuple[RollRow, ...]
    row_count: int
    findings: tuple[Finding, ...]


def check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise InputError(
            "file",
            N_("The file is larger than the limit for a roll; split it or ask the administrator."),
        )
    if size == 0:
        raise InputError("file", N_("The file is empty."))


def parse_roll(
    data: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, max_rows: int = DEFAULT_MAX_ROWS
) -> ParsedRoll:
    """Read a roll file into rows and findings (never raises for a bad row; raises
    :class:`InputError` for a file too large, empty, or without the required columns)."""
    check_size(len(data), max_bytes)
    sha = hashlib.sha256(data).hexdigest()
    text, encoding = decode(data)
    if "\x00" in text:
        raise InputError("file", N_("This is not a CSV text file."))
    first_line = text.split("\n", 1)[0]
    delimiter = delimiter_of(first_line)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("file", N_("The file is empty.")) from None
    except csv.Error:
        raise InputError("file", N_("The first line of the file cannot be read as CSV.")) from None
    columns, _extra, findings = _map_columns(header)
    _require_columns(columns)
    if findings:
        return ParsedRoll(sha, len(data), encoding, delimiter, columns, (), (), 0, tuple(findings))
    raw_rows = _raw_rows(reader, max_rows, findings)
    if raw_rows is None:
        return ParsedRoll(sha, len(data), encoding, delimiter, columns, (), (), 0, tuple(findings))
    ignored = _ignored_columns(header, columns, raw_rows)
    rows = _good_rows(header, columns, ignored, raw_rows, findings)
    if not raw_rows:
        findings.append(row_finding(2, "", N_("The file has a header but no rows.")))
    return ParsedRoll(
        sha256=sha,
        size=len(data),
        encoding=encoding,
        delimiter=delimiter,
        columns=columns,
        ignored_columns=ignored,
        rows=tuple(rows),
        row_count=len(raw_rows),
        findings=tuple(sorted(findings, key=lambda f: (f.row or 0, f.field))),
    )


def _require_columns(columns: Mapping[str, str]) -> None:
    missing = sorted(required_columns() - set(columns.values()))
    if missing:
        raise InputError(
            ",".join(missing),  # the columns missing, by the roll's names
            N_(
                "The file lacks a required column: cadastral number, owner, mailing address, "
                "ZIP code and assessed value are needed."
            ),
        )


def _raw_rows(
    reader: Iterator[list[str]], max_rows: int, findings: list[Finding]
) -> list[tuple[int, list[str]]] | None:
    """The file's non-blank rows with their numbers (the header is row 1); None, with a
    finding, when a line cannot be read as CSV."""
    raw_rows: list[tuple[int, list[str]]] = []
    row_number = 1
    try:
        for cells in reader:
            row_number += 1
            if not any(c.strip() for c in cells):
                continue  # a blank line
            if len(raw_rows) >= max_rows:
                raise InputError(
                    "file",
                    N_("The file has more rows than the limit for a roll; split it."),
                )
            raw_rows.append((row_number, cells))
    except csv.Error:
        findings.append(
            row_finding(row_number + 1, "", N_("This line cannot be read as CSV (a stray quote?)."))
        )
        return None
    return raw_rows


def _ignored_columns(
    header: Sequence[str], columns: Mapping[str, str], raw_rows: Sequence[tuple[int, list[str]]]
) -> tuple[str, ...]:
    """Extra columns with no number anywhere (a notes column): ignored, not errors."""
    return tuple(
        header_name.strip().lstrip("\ufeff")
        for index, (header_name, target) in enumerate(
            zip(header, _targets(header, columns), strict=False)
        )
        if target.startswith("attribute:")
        and not any(_looks_numeric(cells[index]) for _, cells in raw_rows if index < len(cells))
    )


def _good_rows(
    header: Sequence[str],
    columns: Mapping[str, str],
    ignored: Sequence[str],
    raw_rows: Sequence[tuple[int, list[str]]],
    findings: list[Finding],
) -> list[RollRow]:
    """Each row checked (:mod:`.rows`); a cadastral number already on an earlier row is
    refused."""
    rows: list[RollRow] = []
    first_seen: dict[str, int] = {}
    targets = _targets(header, columns)
    column_of = {t: h.strip().lstrip("\ufeff") for h, t in zip(header, targets, strict=False) if t}
    plan = column_plan(header, targets, ignored)
    for number, cells in raw_rows:
        row = parse_row(number, len(header), plan, cells, findings, column_of)
        if row is None:
            continue
        earlier = first_seen.get(row.cadastral_number)
        if earlier is not None:
            findings.append(
                row_finding(
                    number,
                    column_of.get("cadastral_number", "cadastral_number"),
                    N_("This cadastral number is already on row %(first_row)s of the file."),
                    row.cadastral_number,
                    first_row=earlier,
                )
            )
            continue
        first_seen[row.cadastral_number] = number
        rows.append(row)
    return rows


def _map_columns(header: Sequence[str]) -> tuple[dict[str, str], list[str], list[Finding]]:
    columns: dict[str, str] = {}
    extra: list[str] = []
    findings: list[Finding] = []
    used: dict[str, str] = {}
    aliases = header_aliases()
    for name in header:
        key = normalize_header(name)
        shown = name.strip().lstrip("\ufeff")
        if not key:
            if shown:
                findings.append(row_finding(1, shown, N_("This column has no usable name.")))
            continue
        target = aliases.get(key)
        if target is None:
            if not ATTRIBUTE_NAME.match(key):
                findings.append(
                    row_finding(
                        1,
                        shown,
                        N_("This column's name cannot be used by a formula; rename it."),
                    )
                )
                continue
            target = f"attribute:{key}"
            extra.append(key)
        if target in used:
            findings.append(
                row_finding(
                    1,
                    shown,
                    N_("This column repeats the column %(other)s."),
                    other=used[target],
                )
            )
            continue
        used[target] = shown
        columns[shown] = target
    return columns, extra, findings


def _targets(header: Sequence[str], columns: Mapping[str, str]) -> list[str]:
    return [columns.get(h.strip().lstrip("\ufeff"), "") for h in header]


def _looks_numeric(cell: str) -> bool:
    text = cell.strip().replace(" ", "")
    return bool(text) and bool(NUMBER.match(text))
