"""The files of a district's opening position, read once: which file is which (by its name,
in Spanish or English), each file's columns by their headers in either language (compared
by the normal form of :func:`tid.services.files.csvfile.normalize_header`), each cell read by its
column's kind, every problem a finding with its file, row and column. Nothing is written.

The files (docs/moving-in.md describes every column and its checks; example files ship in
tid/static/aboard/):

- ``banco.csv`` / ``bank.csv``: the cut-over day and the special account's bank balance on it;
- ``facturas.csv`` / ``bills.csv``: every open bill;
- ``creditos.csv`` / ``credits.csv``: the owners' credits (optional);
- ``gravamenes.csv`` / ``liens.csv``: the liens recorded on the district's properties (optional);
- ``anos.csv`` / ``years.csv``: the fiscal years before the cut-over as the earlier books
  closed them (optional).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.periods import parse_fiscal_year
from tid.services.files.csvfile import normalize_header, numbered_rows, open_upload
from tid.services.roll.columns import CADASTRAL, INJECTION_START, NUMBER
from tid.services.roll.rows import row_finding

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_ROWS = 200_000

BANK, BILLS, CREDITS, LIENS, YEARS = "bank", "bills", "credits", "liens", "years"
# Each kind of file by the names it may have (Spanish first), and whether it is needed.
FILE_NAMES: dict[str, tuple[str, str]] = {
    BANK: ("banco.csv", "bank.csv"),
    BILLS: ("facturas.csv", "bills.csv"),
    CREDITS: ("creditos.csv", "credits.csv"),
    LIENS: ("gravamenes.csv", "liens.csv"),
    YEARS: ("anos.csv", "years.csv"),
}
REQUIRED_FILES = (BANK, BILLS)
FILE_LABELS = {
    BANK: N_("Bank balance"),
    BILLS: N_("Open bills"),
    CREDITS: N_("Owners' credits"),
    LIENS: N_("Recorded liens"),
    YEARS: N_("Earlier fiscal years"),
}

TEXT, CADASTRAL_NUMBER, MONEY, SIGNED_MONEY, DAY, FISCAL_YEAR = (
    "text",
    "cadastral",
    "money",
    "signed_money",
    "date",
    "fiscal_year",
)


@dataclass(frozen=True)
class Column:
    """A column of a file: its code, its headers (Spanish first, then English, then other
    names it is known by), its kind, whether every row needs it, its longest text."""

    code: str
    headers: tuple[str, ...]
    kind: str = TEXT
    required: bool = True
    limit: int = 200


_CADASTRAL_HEADERS = ("numero_de_catastro", "cadastral_number", "catastro")
COLUMNS: dict[str, tuple[Column, ...]] = {
    BANK: (
        Column("cut_over", ("fecha_de_corte", "cut_over_date", "fecha", "date"), DAY),
        Column("balance", ("saldo", "balance"), SIGNED_MONEY),
        Column("note", ("nota", "note"), required=False, limit=300),
    ),
    BILLS: (
        Column("cadastral_number", _CADASTRAL_HEADERS, CADASTRAL_NUMBER),
        Column("fiscal_year", ("ano_fiscal", "fiscal_year"), FISCAL_YEAR),
        Column("billed", ("facturado", "billed"), MONEY),
        Column("paid", ("pagado", "paid"), MONEY),
        Column("due_date", ("fecha_de_vencimiento", "due_date"), DAY),
        Column("billed_on", ("fecha_de_facturacion", "billed_on"), DAY, required=False),
        Column(
            "notice_number", ("numero_de_notificacion", "notice_number"), required=False, limit=40
        ),
        Column(
            "article_number", ("numero_de_articulo", "article_number"), required=False, limit=40
        ),
        Column("mailed_on", ("fecha_de_envio", "mailed_on"), DAY, required=False),
        Column(
            "late_charges", ("recargos_acumulados", "late_charges_accrued"), MONEY, required=False
        ),
    ),
    CREDITS: (
        Column("cadastral_number", _CADASTRAL_HEADERS, CADASTRAL_NUMBER),
        Column("amount", ("monto", "amount"), MONEY),
        Column("note", ("nota", "note"), required=False, limit=300),
    ),
    LIENS: (
        Column("cadastral_number", _CADASTRAL_HEADERS, CADASTRAL_NUMBER),
        Column("kind", ("tipo", "kind"), limit=40),
        Column("holder", ("acreedor", "holder"), required=False),
        Column("constituted_on", ("fecha_de_constitucion", "constituted_on", "fecha", "date"), DAY),
        Column("amount", ("monto", "amount"), MONEY),
        Column("reference", ("orden_de_inscripcion", "recorded_order", "referencia", "reference")),
    ),
    YEARS: (
        Column("fiscal_year", ("ano_fiscal", "fiscal_year"), FISCAL_YEAR),
        Column("billed", ("facturado", "billed"), MONEY),
        Column("collected", ("cobrado", "collected"), MONEY),
        Column("admin_spending", ("gastos_administrativos", "administrative_spending"), MONEY),
    ),
}


@dataclass(frozen=True)
class Row:
    """A good row of a file: its number in the file (the header is row 1) and its cells by
    column code, each read by its kind (None: empty)."""

    file: str  # the file's name as given
    row: int
    cells: Mapping[str, Any]

    def __getitem__(self, code: str) -> Any:
        return self.cells.get(code)


@dataclass(frozen=True)
class ReadFile:
    kind: str
    name: str
    sha256: str
    rows: tuple[Row, ...]
    row_count: int
    columns: Mapping[str, str] = field(default_factory=dict)  # code -> header as written


def kind_of(file_name: str) -> str | None:
    """Which file of the opening position a name is (``Facturas.CSV`` → bills)."""
    name = file_name.strip().lower().replace("ñ", "n")
    for kind, names in FILE_NAMES.items():
        if name in names:
            return kind
    return None


def finding(
    file: str, row: int | None, column: str, msgid: str, value: str = "", **params: Any
) -> Finding:
    """A finding on a file's row and column (``field`` names both: "facturas.csv: pagado")."""
    found = row_finding(row or 0, column, msgid, value, **params)
    where = f"{file}: {column}" if column else file
    return Finding(where, found.message, row, {**found.extra, "file": file})


def _headers(kind: str, file: str, header: Sequence[str]) -> tuple[dict[str, int], list[Finding]]:
    """Each column's index in the file; a finding for a column missing or given twice. A
    column the file does not know is ignored (a notes column)."""
    known = {normalize_header(h): column for column in COLUMNS[kind] for h in column.headers}
    at: dict[str, int] = {}
    findings: list[Finding] = []
    for index, name in enumerate(header):
        column = known.get(normalize_header(name))
        if column is None:
            continue
        if column.code in at:
            findings.append(
                finding(
                    file,
                    1,
                    name.strip(),
                    N_("This column repeats the column %(other)s."),
                    other=header[at[column.code]].strip(),
                )
            )
            continue
        at[column.code] = index
    for column in COLUMNS[kind]:
        if column.required and column.code not in at:
            findings.append(
                finding(
                    file,
                    1,
                    column.headers[0],
                    N_("The file lacks the column %(spanish)s (in English: %(english)s)."),
                    spanish=column.headers[0],
                    english=column.headers[1],
                )
            )
    return at, findings


def _money(cell: str, *, signed: bool) -> Decimal | str:
    """An amount as the earlier books write it ("1,234.50", "$12", "-3.10" where allowed),
    or the msgid of what is wrong with it."""
    match = NUMBER.match(cell.replace(" ", ""))
    if match is None:
        return N_("This is not an amount.")
    sign, whole, frac = match.groups()
    if sign and not signed:
        return N_("A negative value is not allowed here.")
    if len(frac or "") > 2:
        return N_("An amount of money has at most two decimals.")
    if len(whole.replace(",", "")) > 9:
        return N_("This amount is larger than any amount of the special account.")
    return Decimal(f"{sign or ''}{whole.replace(',', '')}.{frac or '0'}")


def read_cell(column: Column, cell: str) -> Any:
    """A cell read by its column's kind: the value, or a :class:`_Problem` saying what is
    wrong with it."""
    if column.kind == TEXT:
        if cell.startswith(INJECTION_START):
            return _Problem(
                N_(
                    "This cell starts with %(char)s, which a spreadsheet would run as a "
                    "formula; it is refused. Remove the sign or put the text in other words."
                ),
                {"char": repr(cell[:1])},
            )
        if len(cell) > column.limit:
            return _Problem(
                N_("This text is longer than %(limit)s characters."), {"limit": column.limit}
            )
        return cell
    if column.kind == CADASTRAL_NUMBER:
        if not CADASTRAL.match(cell):
            return _Problem(
                N_("A cadastral number is written NNN-NNN-NNN-NN, optionally with -NNN.")
            )
        return cell
    if column.kind in (MONEY, SIGNED_MONEY):
        value = _money(cell, signed=column.kind == SIGNED_MONEY)
        return _Problem(value) if isinstance(value, str) else value
    if column.kind == DAY:
        try:
            return date.fromisoformat(cell)
        except ValueError:
            return _Problem(N_("Write the date like 2026-01-31."))
    try:
        return parse_fiscal_year(cell).label
    except InputError:
        return _Problem(N_('Write the fiscal year like "2025-26".'))


@dataclass(frozen=True)
class _Problem:
    msgid: str
    params: Mapping[str, Any] = field(default_factory=dict)


def _row(
    kind: str,
    file: str,
    number: int,
    cells: list[str],
    at: Mapping[str, int],
    names: Mapping[str, str],
) -> tuple[Row | None, list[Finding]]:
    findings: list[Finding] = []
    values: dict[str, Any] = {}
    for column in COLUMNS[kind]:
        index = at.get(column.code)
        cell = cells[index].strip() if index is not None and index < len(cells) else ""
        shown = names.get(column.code, column.headers[0])
        if not cell:
            if column.required:
                findings.append(finding(file, number, shown, N_("This cell is empty.")))
            values[column.code] = None
            continue
        value = read_cell(column, cell)
        if isinstance(value, _Problem):
            findings.append(finding(file, number, shown, value.msgid, cell, **value.params))
            continue
        values[column.code] = value
    return (None if findings else Row(file, number, values)), findings


def read_file(
    kind: str,
    name: str,
    data: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> tuple[ReadFile, list[Finding]]:
    """A file of the opening position read into its good rows and every finding (a file
    too large, empty or not CSV text is an :class:`InputError` naming the file)."""
    upload = open_upload(
        data,
        field=name,
        max_bytes=max_bytes,
        too_large=N_("The file is larger than the limit; split it or ask the administrator."),
    )
    try:
        lines = numbered_rows(upload, field=name)
    except FindingsError as exc:
        return ReadFile(kind, name, hashlib.sha256(data).hexdigest(), (), 0), [
            finding(name, f.row, "", f.message) for f in exc.findings
        ]
    if len(lines) - 1 > max_rows:
        raise InputError(name, N_("The file has more rows than the limit; split it."))
    header = lines[0][1] if lines else []
    at, findings = _headers(kind, name, header)
    rows: list[Row] = []
    columns = {c.code: header[at[c.code]].strip() for c in COLUMNS[kind] if c.code in at}
    if not findings:
        for number, cells in lines[1:]:
            row, problems = _row(kind, name, number, cells, at, columns)
            findings.extend(problems)
            if row is not None:
                rows.append(row)
        if len(lines) < 2:
            findings.append(finding(name, 2, "", N_("The file has a header but no rows.")))
    sha = hashlib.sha256(data).hexdigest()
    return ReadFile(kind, name, sha, tuple(rows), len(lines) - 1, columns), findings
