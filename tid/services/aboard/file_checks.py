"""The opening position checked against the district, before anything is booked: every bad
row named at its row (a property not in the roll of the bill's year, a year outside the
ordinance's term, a paid amount above the billed, a duplicate …), and the totals the
association confirms against its own trial balance: what is owed by fiscal year, the
owners' credits, the bank. Nothing is written.

An open bill names a property of the district's roll for the bill's fiscal year (the roll of
that year is imported first, ``tid roll import``): the owner, the mailing address and the
values are the roll's, never a second copy in the bills' file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from tid.models import (
    Bill,
    BillStatus,
    District,
    JournalEntry,
    OpeningPosition,
    Property,
    PropertyYear,
)
from tid.rules.errors import N_, Finding, InputError
from tid.rules.messages import Message
from tid.rules.money import ZERO
from tid.rules.periods import fiscal_year_of, parse_fiscal_year
from tid.rules.vocab.lien_kinds import IMPOST_KIND, LIEN_KINDS
from tid.services.aboard.position_files import (
    BANK,
    BILLS,
    CREDITS,
    FILE_NAMES,
    LIENS,
    REQUIRED_FILES,
    YEARS,
    ReadFile,
    Row,
    finding,
    read_file,
)
from tid.services.billing.ordinance_terms import ordinance_for

READY, BOOKED, REFUSED = "ready", "booked", "refused"
BUSINESS_BOOKED = N_(
    "This district's special account already holds bills or entries: an opening position "
    "is loaded only into an account that starts with it."
)
OTHER_POSITION = N_(
    "This district already moved in with other files; its opening position is booked once. "
    "If it is wrong, reverse it as one first."
)
BUSINESS_BEFORE = N_(
    "Business was booked on %(day)s, before this cut-over day: a corrected opening position "
    "is as of a day no later than the first entry booked after the one reversed."
)
ALREADY_BILLED = N_(
    "This property already has a bill of this fiscal year here (bill %(bill)s): an opening "
    "position brings only what the earlier books billed."
)


@dataclass(frozen=True)
class Totals:
    """What the files add up to: owed by fiscal year (billed less paid), the owners'
    credits, the bank balance, and (for information) the late charges brought."""

    receivable: Mapping[str, Decimal]
    credits: Decimal
    bank: Decimal
    late_charges: Decimal

    def to_confirm(self) -> dict[str, Decimal]:
        """The totals a person confirms, by key: ``receivable:2024-25``, ``credits``,
        ``bank``."""
        return {
            **{f"receivable:{fy}": amount for fy, amount in sorted(self.receivable.items())},
            "credits": self.credits,
            "bank": self.bank,
        }


@dataclass(frozen=True)
class OpenBill:
    row: Row
    property_id: int
    property_year_id: int
    ordinance_id: int


@dataclass(frozen=True)
class Preview:
    """The files checked: their rows, every finding, the totals, and whether they can be
    booked (``READY``), were booked already (``BOOKED``: the same files) or cannot be
    (``REFUSED``, with the reason)."""

    district_id: int
    cut_over: date | None
    files: tuple[ReadFile, ...]
    findings: tuple[Finding, ...]
    totals: Totals
    fingerprint: str
    state: str
    refusal: str = ""
    bills: tuple[OpenBill, ...] = ()
    credits: tuple[tuple[Row, int], ...] = ()  # (row, property id)
    liens: tuple[tuple[Row, int], ...] = ()
    years: tuple[Row, ...] = ()
    carriers: Mapping[int, tuple[int, int]] = field(default_factory=dict)  # see _credits
    note: str = ""

    def file(self, kind: str) -> ReadFile | None:
        return next((f for f in self.files if f.kind == kind), None)


def _at(
    read: ReadFile, row: int | None, code: str, msgid: str, value: str = "", **params: object
) -> Finding:
    """A finding on a row of ``read`` at the column ``code``, named as the file names it."""
    return finding(
        read.name, row, read.columns.get(code, code) if code else "", msgid, value, **params
    )


def fingerprint(files: Mapping[str, tuple[str, bytes]]) -> str:
    """One hash for a set of files: the same bytes under the same kinds, the same hash."""
    lines = sorted(
        f"{kind}:{hashlib.sha256(data).hexdigest()}" for kind, (_, data) in files.items()
    )
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _corrected(session: Session, district_id: int) -> bool:
    """Whether the district reversed an opening position (a corrected one may follow it,
    after business: /readings#corrected-opening-position)."""
    return (
        session.exec(
            select(OpeningPosition.id).where(
                OpeningPosition.district_id == district_id,
                col(OpeningPosition.reversed_at).is_not(None),
            )
        ).first()
        is not None
    )


def _first_business(session: Session, district_id: int) -> date | None:
    """The first day of an entry that is neither an opening entry nor its reversal."""
    openings = select(col(JournalEntry.id)).where(
        JournalEntry.district_id == district_id, JournalEntry.kind == "opening"
    )
    return session.exec(
        select(func.min(JournalEntry.entry_date)).where(
            JournalEntry.district_id == district_id,
            JournalEntry.kind != "opening",
            or_(
                col(JournalEntry.reverses_id).is_(None),
                col(JournalEntry.reverses_id).not_in(openings),
            ),
        )
    ).one()


def _live_bills(session: Session, district_id: int) -> dict[tuple[int, str], int]:
    """The district's active bills by (property, fiscal year)."""
    rows = session.exec(
        select(col(Bill.property_id), col(Bill.fiscal_year), col(Bill.id)).where(
            Bill.district_id == district_id, Bill.status == BillStatus.ACTIVE.value
        )
    )
    return {(p, fy): bill_id or 0 for p, fy, bill_id in rows}


def _state(
    session: Session, district_id: int, print_: str, cut_over: date | None
) -> tuple[str, str]:
    booked = session.exec(
        select(OpeningPosition).where(
            OpeningPosition.district_id == district_id,
            col(OpeningPosition.reversed_at).is_(None),
        )
    ).first()
    if booked is not None:
        return (BOOKED, "") if booked.fingerprint == print_ else (REFUSED, OTHER_POSITION)
    if _corrected(session, district_id):
        first = _first_business(session, district_id)
        if first is not None and cut_over is not None and first < cut_over:
            return REFUSED, Message(BUSINESS_BEFORE, day=first.isoformat())
        return READY, ""
    entries = session.exec(
        select(func.count())
        .select_from(JournalEntry)
        .where(JournalEntry.district_id == district_id)
    ).one()
    bills = session.exec(
        select(func.count()).select_from(Bill).where(Bill.district_id == district_id)
    ).one()
    return (REFUSED, BUSINESS_BOOKED) if entries or bills else (READY, "")


def _cut_over(read: ReadFile, findings: list[Finding], today: date) -> tuple[date | None, Decimal]:
    """The bank file's one row: the cut-over day and the balance on it."""
    rows = read.rows
    if len(rows) > 1:
        findings.append(
            finding(
                read.name, rows[1].row, "", N_("The bank file has one row: the cut-over day's.")
            )
        )
    if not rows:
        return None, ZERO
    day, balance = rows[0]["cut_over"], rows[0]["balance"]
    if day > today:
        findings.append(
            finding(
                read.name,
                rows[0].row,
                "cut_over",
                N_("The cut-over day cannot be in the future."),
            )
        )
    return day, balance


def _roll_of(
    session: Session, district_id: int, years: set[str]
) -> tuple[dict[str, int], dict[tuple[int, str], int]]:
    """The district's properties by cadastral number, and their roll rows by (property,
    fiscal year) for the years asked."""
    properties = dict(
        session.exec(
            select(col(Property.cadastral_number), col(Property.id)).where(
                Property.district_id == district_id
            )
        ).all()
    )
    rows: dict[tuple[int, str], int] = {}
    if years:
        for property_id, fy, year_id in session.exec(
            select(
                col(PropertyYear.property_id), col(PropertyYear.fiscal_year), col(PropertyYear.id)
            ).where(
                PropertyYear.district_id == district_id,
                col(PropertyYear.fiscal_year).in_(sorted(years)),
                col(PropertyYear.in_roll).is_(True),
            )
        ):
            rows[(property_id, fy)] = year_id or 0
    return {k: v or 0 for k, v in properties.items()}, rows


def _ordinances(session: Session, district_id: int, years: set[str]) -> dict[str, int | None]:
    """The ordinance each fiscal year is billed by (None: outside every ordinance's term)."""
    found: dict[str, int | None] = {}
    for fy in sorted(years):
        try:
            found[fy] = ordinance_for(session=session, district_id=district_id, fiscal_year=fy).id
        except InputError:
            found[fy] = None
    return found


@dataclass
class _Context:
    district_id: int
    cut_over: date | None
    properties: dict[str, int]
    roll: dict[tuple[int, str], int]
    ordinances: dict[str, int | None]
    findings: list[Finding]
    live: dict[tuple[int, str], int] = field(default_factory=dict)  # bills already here


def _bill_problem(ctx: _Context, row: Row) -> tuple[str, str, dict[str, object]] | None:
    """What is wrong with an open bill (column, msgid, params), or None."""
    fy = row["fiscal_year"]
    property_id = ctx.properties.get(row["cadastral_number"])
    if property_id is None:
        return "cadastral_number", N_("This cadastral number is not in the district's roll."), {}
    if ctx.cut_over is not None and parse_fiscal_year(fy) > fiscal_year_of(ctx.cut_over):
        return "fiscal_year", N_("This fiscal year is after the cut-over day's."), {}
    if ctx.ordinances.get(fy) is None:
        return (
            "fiscal_year",
            N_("This fiscal year is outside the term of the district's ordinance."),
            {},
        )
    if (property_id, fy) not in ctx.roll:
        return (
            "cadastral_number",
            N_(
                "This property is not in the district's roll of %(fiscal_year)s; "
                "import that roll first."
            ),
            {"fiscal_year": fy},
        )
    if (property_id, fy) in ctx.live:
        return "fiscal_year", ALREADY_BILLED, {"bill": ctx.live[(property_id, fy)]}
    if row["billed"] <= 0:
        return "billed", N_("The amount billed must be more than zero."), {}
    if row["paid"] > row["billed"]:
        return "paid", N_("The amount paid is more than the amount billed."), {}
    if row["paid"] == row["billed"]:
        return "paid", N_("This bill is paid in full: only open bills move in."), {}
    return None


def _bills(ctx: _Context, read: ReadFile) -> list[OpenBill]:
    bills: list[OpenBill] = []
    first: dict[tuple[str, str], int] = {}
    for row in read.rows:
        key = (row["cadastral_number"], row["fiscal_year"])
        if key in first:
            ctx.findings.append(
                _at(
                    read,
                    row.row,
                    "cadastral_number",
                    N_("This property's bill of this fiscal year is already on row %(first_row)s."),
                    row["cadastral_number"],
                    first_row=first[key],
                )
            )
            continue
        first[key] = row.row
        problem = _bill_problem(ctx, row)
        if problem is not None:
            column, msgid, params = problem
            ctx.findings.append(_at(read, row.row, column, msgid, str(row[column] or ""), **params))
            continue
        property_id = ctx.properties[row["cadastral_number"]]
        bills.append(
            OpenBill(
                row,
                property_id,
                ctx.roll[(property_id, row["fiscal_year"])],
                ctx.ordinances[row["fiscal_year"]] or 0,
            )
        )
    return bills


def _credits(
    ctx: _Context, read: ReadFile, bills: list[OpenBill]
) -> tuple[list[tuple[Row, int]], dict[int, tuple[int, int]]]:
    """The owners' credits by property. A credit is held with a bill: the property's latest
    open bill, or else a bill of nothing for the cut-over's fiscal year (``carriers``:
    property → (its roll row of that year, the year's ordinance)), so the property must be
    in that year's roll."""
    with_bills = {b.property_id for b in bills}
    credits: list[tuple[Row, int]] = []
    carriers: dict[int, tuple[int, int]] = {}
    first: dict[str, int] = {}
    cut_fy = fiscal_year_of(ctx.cut_over).label if ctx.cut_over else ""
    for row in read.rows:
        number = row["cadastral_number"]
        property_id = ctx.properties.get(number)
        problem = None
        if number in first:
            problem = N_("This cadastral number is already on row %(first_row)s of the file.")
        elif property_id is None:
            problem = N_("This cadastral number is not in the district's roll.")
        elif row["amount"] <= 0:
            problem = N_("The amount must be more than zero.")
        elif property_id not in with_bills and (property_id, cut_fy) not in ctx.roll:
            problem = N_(
                "A credit is held with a bill: this property has no open bill and is not in "
                "the roll of the cut-over's fiscal year %(fiscal_year)s."
            )
        elif property_id not in with_bills and ctx.ordinances.get(cut_fy) is None:
            problem = N_("This fiscal year is outside the term of the district's ordinance.")
        if problem is not None:
            ctx.findings.append(
                _at(
                    read,
                    row.row,
                    "cadastral_number",
                    problem,
                    number,
                    first_row=first.get(number, 0),
                    fiscal_year=cut_fy,
                )
            )
            first.setdefault(number, row.row)
            continue
        first[number] = row.row
        assert property_id is not None
        credits.append((row, property_id))
        if property_id not in with_bills:
            carriers[property_id] = (ctx.roll[(property_id, cut_fy)], ctx.ordinances[cut_fy] or 0)
    return credits, carriers


def _liens(ctx: _Context, read: ReadFile) -> list[tuple[Row, int]]:
    liens: list[tuple[Row, int]] = []
    seen: dict[tuple[object, ...], int] = {}
    for row in read.rows:
        key = tuple(
            row.cells.get(c)
            for c in ("cadastral_number", "kind", "constituted_on", "amount", "reference")
        )
        property_id = ctx.properties.get(row["cadastral_number"])
        column, problem = "cadastral_number", ""
        if key in seen:
            problem = N_("This lien is already on row %(first_row)s of the file.")
        elif property_id is None:
            problem = N_("This cadastral number is not in the district's roll.")
        elif row["kind"] not in LIEN_KINDS:
            column, problem = (
                "kind",
                N_("This kind of lien is not one of the list in the documentation."),
            )
        elif row["kind"] != IMPOST_KIND and not (row["holder"] or "").strip():
            column, problem = "holder", N_("Name the holder of the lien.")
        elif ctx.cut_over is not None and row["constituted_on"] > ctx.cut_over:
            column, problem = "constituted_on", N_("The date is after the cut-over day.")
        elif row["amount"] <= 0:
            column, problem = "amount", N_("The amount must be more than zero.")
        if problem:
            ctx.findings.append(
                _at(
                    read,
                    row.row,
                    column,
                    problem,
                    str(row[column] if column != "cadastral_number" else row["cadastral_number"]),
                    first_row=seen.get(key, 0),
                )
            )
            seen.setdefault(key, row.row)
            continue
        seen[key] = row.row
        assert property_id is not None
        liens.append((row, property_id))
    return liens


def _years(ctx: _Context, read: ReadFile) -> list[Row]:
    years: list[Row] = []
    first: dict[str, int] = {}
    for row in read.rows:
        fy = row["fiscal_year"]
        problem = ""
        if fy in first:
            problem = N_("This fiscal year is already on row %(first_row)s of the file.")
        elif ctx.cut_over is not None and parse_fiscal_year(fy) >= fiscal_year_of(ctx.cut_over):
            problem = N_("Only the fiscal years before the cut-over day's go in this file.")
        if problem:
            ctx.findings.append(
                _at(read, row.row, "fiscal_year", problem, fy, first_row=first.get(fy, 0))
            )
            first.setdefault(fy, row.row)
            continue
        first[fy] = row.row
        years.append(row)
    return years


# Long: one pass over the five files in order, each check a helper above.
def check_position(
    *,
    session: Session,
    district_id: int,
    files: Mapping[str, tuple[str, bytes]],
    today: date,
    max_bytes: int,
    max_rows: int,
    progress: Callable[[int, int], None] | None = None,
) -> Preview:
    """Read and check the files of an opening position (``files``: kind → (name, bytes))
    against the district: every finding, the totals, whether it may be booked. Raises
    :class:`InputError` only for a file that cannot be read at all or one missing."""
    if session.get(District, district_id) is None:
        raise InputError("district", N_("There is no such district."))
    for kind in REQUIRED_FILES:
        if kind not in files:
            raise InputError(
                kind, Message("The file %(file)s is needed.", file=FILE_NAMES[kind][0])
            )
    findings: list[Finding] = []
    read: dict[str, ReadFile] = {}
    for kind, (name, data) in files.items():
        read[kind], found = read_file(kind, name, data, max_bytes=max_bytes, max_rows=max_rows)
        findings.extend(found)
    if progress is not None:
        progress(0, read[BILLS].row_count)
    cut_over, bank = _cut_over(read[BANK], findings, today)
    years = {r["fiscal_year"] for r in read[BILLS].rows}
    if cut_over is not None:
        years.add(fiscal_year_of(cut_over).label)
    properties, roll = _roll_of(session, district_id, years)
    ctx = _Context(
        district_id,
        cut_over,
        properties,
        roll,
        _ordinances(session, district_id, years),
        findings,
        _live_bills(session, district_id) if _corrected(session, district_id) else {},
    )
    bills = _bills(ctx, read[BILLS])
    credits, carriers = _credits(ctx, read[CREDITS], bills) if CREDITS in read else ([], {})
    liens = _liens(ctx, read[LIENS]) if LIENS in read else []
    earlier = _years(ctx, read[YEARS]) if YEARS in read else []
    owed: dict[str, Decimal] = {}
    for bill in bills:
        fy = bill.row["fiscal_year"]
        owed[fy] = owed.get(fy, ZERO) + bill.row["billed"] - bill.row["paid"]
    totals = Totals(
        receivable=owed,
        credits=sum((row["amount"] for row, _ in credits), ZERO),
        bank=bank,
        late_charges=sum((b.row["late_charges"] or ZERO for b in bills), ZERO),
    )
    print_ = fingerprint(files)
    state, refusal = _state(session, district_id, print_, cut_over)
    if progress is not None:
        progress(read[BILLS].row_count, read[BILLS].row_count)
    return Preview(
        district_id=district_id,
        cut_over=cut_over,
        files=tuple(read[k] for k in FILE_NAMES if k in read),
        findings=tuple(
            sorted(findings, key=lambda f: (f.extra.get("file", ""), f.row or 0, f.field))
        ),
        totals=totals,
        fingerprint=print_,
        state=state,
        refusal=refusal,
        bills=tuple(bills),
        credits=tuple(credits),
        liens=tuple(liens),
        years=tuple(earlier),
        carriers=carriers,
    )
