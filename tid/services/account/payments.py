"""Payments of the impost into the special account (21 LPRA § 6653(6)): entered by hand or
imported from the bank's deposit file, applied to a property's bills, the excess held as the
owner's credit, undone only by a reversing entry.

Every payment carries an idempotency key: a deposit's bank reference + date + amount, or the
token of the form that entered it. The journal's key is unique, so the same payment posted
twice (a double click, a rerun import, a retry after a crash, two clerks at once) is booked
once.

Applying: against a notice (bill) number the payment goes to that bill; against a cadastral
number it goes to the property's unpaid bills, the earliest due first. Whatever is left is
held as the owner's credit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal

from sqlmodel import Session, col, select

from tid.ids import parse_id
from tid.models import Bill, BillStatus, JournalLine, Notice, OpeningBill, Property
from tid.rules.allocation import Allocation, allocate
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.money import MAX_ACCOUNT_AMOUNT, ZERO, money_str, parse_money
from tid.rules.periods import parse_date
from tid.services import ledger
from tid.services.audit_trail import audit
from tid.services.files import csvfile
from tid.services.ledger import ASSESSED, BANK, OWNER_CREDIT, RECEIVABLE, REVENUE, Line


@dataclass(frozen=True)
class Application:
    bill_id: int
    applied: Decimal
    outstanding_after: Decimal


@dataclass(frozen=True)
class PaymentResult:
    entry_id: int
    booked: bool  # False: this payment was already in the journal, nothing was written
    amount: Decimal
    applied: tuple[Application, ...]
    credit: Decimal  # held for the owner


def payment_key(*, district_id: int, paid_on: date, amount: Decimal, reference: str) -> str:
    """The key of a bank deposit: its reference, date and amount (per district)."""
    return f"payment:{district_id}:bank:{reference.strip()}:{paid_on.isoformat()}:{amount}"


def form_key(district_id: int, token: str) -> str:
    return f"payment:{district_id}:form:{token}"


# The notice number printed on an owner's notice (tid/services/notices/rendering.py): year, serial.
NOTICE_NUMBER = re.compile(r"\d{4}-\d{6,}", re.ASCII)


def _find_bill(session: Session, district_id: int, notice: str, field_name: str) -> Bill:
    """The bill a payment quotes: by the notice number printed on the owner's notice
    ("2026-000008"), by the bill's number ("#48", as files made before quoted it), or for a
    bill the district brought when it moved in, by the notice its earlier books mailed."""
    text = notice.strip().lstrip("#")
    bill: Bill | None = None
    if NOTICE_NUMBER.fullmatch(text):
        printed = session.exec(
            select(Notice).where(Notice.number == text, Notice.district_id == district_id)
        ).first()
        bill = session.get(Bill, printed.bill_id) if printed is not None else None
    else:
        bill_id = parse_id(text)
        bill = session.get(Bill, bill_id) if bill_id is not None else None
    if bill is None and text:  # a bill brought from the earlier books, by its old notice
        opened = session.exec(  # the active one: a reversed position's bills are superseded
            select(OpeningBill.bill_id)
            .join(Bill, col(Bill.id) == col(OpeningBill.bill_id))
            .where(
                OpeningBill.district_id == district_id,
                OpeningBill.notice_number == text,
                Bill.status == BillStatus.ACTIVE.value,
            )
        ).first()
        bill = session.get(Bill, opened) if opened is not None else None
    if bill is None or bill.district_id != district_id:
        raise InputError(field_name, N_("There is no bill with this notice number here."))
    if bill.status != BillStatus.ACTIVE.value:
        raise InputError(
            field_name, N_("This bill was superseded; use the notice that replaced it.")
        )
    return bill


def _find_property(session: Session, district_id: int, cadastral: str, field_name: str) -> Property:
    found = session.exec(
        select(Property).where(
            Property.district_id == district_id, Property.cadastral_number == cadastral.strip()
        )
    ).first()
    if found is None:
        raise InputError(field_name, N_("There is no property with this cadastral number here."))
    return found


def payment_problems(
    *,
    paid_on: date | None,
    amount: Decimal | None,
    today: date,
    notice_number: str,
    cadastral_number: str,
    field_prefix: str = "",
) -> list[Finding]:
    """Every problem of a payment that needs no lookup, all at once (a form shows them
    together); ``None`` for a date or amount that could not be read (already flagged)."""
    problems: list[Finding] = []
    if amount is not None and amount <= 0:
        problems.append(Finding(f"{field_prefix}amount", N_("A payment must be more than zero.")))
    if paid_on is not None and paid_on > today:
        problems.append(
            Finding(f"{field_prefix}date", N_("A payment cannot be dated in the future."))
        )
    if not notice_number.strip() and not cadastral_number.strip():
        problems.append(
            Finding(
                f"{field_prefix}notice_number",
                N_("Give the notice number or the cadastral number."),
            )
        )
    return problems


def _bills_to_pay(
    session: Session,
    district_id: int,
    notice_number: str,
    cadastral_number: str,
    field_prefix: str,
) -> tuple[list[Bill], Bill]:
    """The bills a payment goes to, oldest first, and the bill an excess is held on: the
    notice's bill, or every active bill of the property."""

    def f(name: str) -> str:
        return f"{field_prefix}{name}"

    if notice_number.strip():
        bill = _find_bill(session, district_id, notice_number, f("notice_number"))
        if cadastral_number.strip():
            prop = _find_property(session, district_id, cadastral_number, f("cadastral_number"))
            if prop.id != bill.property_id:
                raise InputError(
                    f("cadastral_number"),
                    N_("The notice number and the cadastral number are of different properties."),
                )
        bills = [bill]
        credit_bill = bill
    else:
        prop = _find_property(session, district_id, cadastral_number, f("cadastral_number"))
        bills = list(
            session.exec(
                select(Bill)
                .where(Bill.property_id == prop.id, Bill.status == BillStatus.ACTIVE.value)
                .order_by(col(Bill.due_date), col(Bill.id))
            )
        )
        if not bills:
            raise InputError(f("cadastral_number"), N_("This property has no bill to pay."))
        credit_bill = bills[-1]
    return bills, credit_bill


def _owed_in_order(bills: Sequence[Bill], owed: dict[int, Decimal]) -> list[tuple[int, Decimal]]:
    """Each bill (in the order given) with what is still owed on it."""
    return [(bill.id or 0, owed.get(bill.id or 0, ZERO)) for bill in bills]


def _collected(spread: Allocation) -> list[Line]:
    """The lines of the impost collected on each bill a sum was spread over: the receivable
    paid down and the impost assessed turned into revenue."""
    lines: list[Line] = []
    for bill_id, applied in spread.taken:
        lines += [
            Line(RECEIVABLE, -applied, bill_id),
            Line(ASSESSED, applied, bill_id),
            Line(REVENUE, -applied, bill_id),
        ]
    return lines


@dataclass(frozen=True)
class EarlierPayment:
    """A payment already booked with the same bank reference, amount and date, as people
    know it: its date, amount and reference, what it paid (the notices, or the properties'
    cadastral numbers) and who booked it when."""

    entry_date: date
    amount: Decimal
    reference: str
    paid: tuple[str, ...]
    booked_by: str
    booked_at: datetime


class RepeatedPaymentError(InputError):
    """A payment like one already booked (same reference, amount and date): booked only
    when the person confirms it is another one."""

    def __init__(self, earlier: EarlierPayment) -> None:
        super().__init__(
            "confirm_repeat",
            N_(
                "A payment with the same bank reference, amount and date is already booked. "
                "Confirm that this is another payment to book it too."
            ),
        )
        self.earlier = earlier


def earlier_payment(
    *,
    session: Session,
    district_id: int,
    paid_on: date,
    amount: Decimal,
    reference: str,
    bill_ids: Sequence[int] = (),
) -> EarlierPayment | None:
    """The payment already booked in the district with this bank reference, amount and date
    (entered by hand or imported), if any. Without a reference: one of this amount and date
    booked on one of ``bill_ids`` (the bills this payment would pay) — many owners pay the
    same amount on the same day, but not twice on the same bill."""
    from tid.models import JournalEntry

    reference = reference.strip()
    if not reference and not bill_ids:
        return None
    memo = str(_memo(amount, reference))
    stmt = select(JournalEntry).where(
        JournalEntry.district_id == district_id,
        JournalEntry.kind == "payment",
        JournalEntry.entry_date == paid_on,
        JournalEntry.memo == memo,
    )
    if not reference:
        on_the_bills = select(JournalLine.entry_id).where(
            col(JournalLine.bill_id).in_(sorted(set(bill_ids)))
        )
        stmt = stmt.where(col(JournalEntry.id).in_(on_the_bills))
    entry = session.exec(stmt.order_by(col(JournalEntry.id)).limit(1)).first()
    if entry is None:
        return None
    paid = session.exec(
        select(Notice.number, Property.cadastral_number)
        .select_from(JournalLine)
        .join(Bill, col(Bill.id) == col(JournalLine.bill_id))
        .join(Property, col(Property.id) == col(Bill.property_id))
        .outerjoin(Notice, col(Notice.bill_id) == col(Bill.id))
        .where(JournalLine.entry_id == entry.id, JournalLine.account == RECEIVABLE)
    ).all()
    named = sorted({number or cadastral for number, cadastral in paid})
    return EarlierPayment(
        entry.entry_date, amount, reference, tuple(named), entry.actor, entry.created_at
    )


def _refuse_a_repeat(
    session: Session,
    district_id: int,
    paid_on: date,
    amount: Decimal,
    reference: str,
    bill_ids: Sequence[int],
) -> None:
    """A payment like one already booked (same reference, amount and date; without a
    reference, the same amount and date on the same bills), refused."""
    earlier = earlier_payment(
        session=session,
        district_id=district_id,
        paid_on=paid_on,
        amount=amount,
        reference=reference,
        bill_ids=bill_ids,
    )
    if earlier is not None:
        raise RepeatedPaymentError(earlier)


def _memo(amount: Decimal, reference: str) -> str:
    """A payment's memo: its amount, and its bank reference when it has one."""
    if reference.strip():
        return ledger.memo("payment", amount=money_str(amount), reference=reference.strip())
    return ledger.memo("payment", amount=money_str(amount))


def _refuse_problems(problems: list[Finding]) -> None:
    """A payment's problems, refused: one as itself, several together."""
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)


# A bank's reference, as its memo and its key keep it (journal_entry.memo holds 200).
MAX_REFERENCE = 100
REFERENCE_TOO_LONG = N_("A bank reference has at most 100 characters.")


def record_payment(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    paid_on: date,
    amount: Decimal,
    today: date,
    key: str,
    reference: str = "",
    notice_number: str = "",
    cadastral_number: str = "",
    field_prefix: str = "",
    repeat_confirmed: bool = True,
) -> PaymentResult:
    """Book one payment (once per ``key``) against a notice or a property's bills. Unless
    ``repeat_confirmed``, a payment with the bank reference, amount and date of one already
    booked is refused (:class:`RepeatedPaymentError`, naming the earlier one)."""
    if len(reference.strip()) > MAX_REFERENCE:
        raise InputError(f"{field_prefix}reference", REFERENCE_TOO_LONG)

    _refuse_problems(
        payment_problems(
            paid_on=paid_on,
            amount=amount,
            today=today,
            notice_number=notice_number,
            cadastral_number=cadastral_number,
            field_prefix=field_prefix,
        )
    )
    ledger.lock_district(session=session, district_id=district_id)
    existing = ledger.entry_by_key(session=session, key=key)
    if existing is not None:
        return _result(session, existing, booked=False)
    ledger.sync_bills(session=session, actor=actor, district_id=district_id)
    bills, credit_bill = _bills_to_pay(
        session, district_id, notice_number, cadastral_number, field_prefix
    )
    if not repeat_confirmed:
        paying = [b.id or 0 for b in bills] + [credit_bill.id or 0]
        _refuse_a_repeat(session, district_id, paid_on, amount, reference, paying)
    outstanding = ledger.bill_balances(
        session=session, district_id=district_id, bill_ids=[b.id or 0 for b in bills]
    )
    spread = allocate(amount, _owed_in_order(bills, outstanding))
    left, lines = spread.left, [Line(BANK, amount), *_collected(spread)]
    if left > 0:
        lines.append(Line(OWNER_CREDIT, -left, credit_bill.id))
    memo = _memo(amount, reference)
    posted = ledger.post_entry(
        session=session,
        actor=actor,
        district_id=district_id,
        entry_date=paid_on,
        kind="payment",
        memo=memo,
        key=key,
        lines=lines,
        looked_up=True,
    )
    if not posted.booked:  # booked meanwhile by another writer: its figures
        return _result(session, posted.entry, booked=False, lines=posted.lines)
    # What is left on each bill: what was owed less what this payment applied.
    after = {
        line.bill_id: outstanding.get(line.bill_id, ZERO) + line.amount
        for line in lines
        if line.account == RECEIVABLE and line.bill_id is not None
    }
    return PaymentResult(
        posted.entry.id or 0,
        True,
        amount,
        tuple(
            Application(bill_id, outstanding.get(bill_id, ZERO) - owed, owed)
            for bill_id, owed in after.items()
        ),
        left if left > 0 else ZERO,
    )


def _result(
    session: Session,
    entry: object,
    *,
    booked: bool,
    lines: Sequence[Line | JournalLine] | None = None,
) -> PaymentResult:
    from tid.models import JournalEntry

    assert isinstance(entry, JournalEntry)
    if lines is None:
        lines = ledger.entry_lines(session=session, entry_id=entry.id or 0)
    outstanding = ledger.bill_balances(
        session=session,
        district_id=entry.district_id,
        bill_ids=sorted({line.bill_id for line in lines if line.bill_id is not None}),
    )
    applied = tuple(
        Application(line.bill_id or 0, -line.amount, outstanding.get(line.bill_id or 0, ZERO))
        for line in lines
        if line.account == RECEIVABLE
    )
    credit = -sum((line.amount for line in lines if line.account == OWNER_CREDIT), ZERO)
    amount = sum((line.amount for line in lines if line.account == BANK), ZERO)
    if entry.kind == "credit_applied":
        amount = sum((a.applied for a in applied), ZERO)
        credit = ZERO
    return PaymentResult(entry.id or 0, booked, amount, applied, credit)


# --------------------------------------------------------------------------- bank file

# A bank's file is read as every upload is (tid/services/files/csvfile.py); 5 MB is some 60,000
# deposits.
MAX_DEPOSIT_BYTES = 5_000_000

_COLUMNS = {
    "date": ("date", "fecha"),
    "amount": ("amount", "monto", "importe"),
    "reference": ("reference", "referencia", "ref"),
    "cadastral_number": ("cadastral_number", "cadastral", "catastro", "numero_catastro"),
    "notice_number": ("notice_number", "notice", "aviso", "numero_aviso", "bill"),
}


@dataclass(frozen=True)
class DepositRow:
    row: int  # the file's row number (header = row 1)
    paid_on: date
    amount: Decimal
    reference: str
    cadastral_number: str
    notice_number: str

    @property
    def quote(self) -> str:
        """The payoff quote's reference the payer wrote (in the notice's column, or as the
        deposit's reference), or ""."""
        for text in (self.notice_number, self.reference):
            if QUOTE_REFERENCE.fullmatch(text.strip()):
                return text.strip().upper()
        return ""


# A payoff quote's reference (tid/services/closing/issued.py): P-2026-000001.
QUOTE_REFERENCE = re.compile(r"[Pp]-\d{4}-\d{6,}", re.ASCII)


@dataclass(frozen=True)
class QuoteRow:
    """A deposit that brought a payoff quote's reference: booked in one entry against the
    quote (tid/services/closing/payoffs.py), and whether it settled it or what remains."""

    row: int
    reference: str  # the quote's, P-2026-000001
    booked: bool
    settled: bool
    remaining: Decimal


@dataclass
class ImportResult:
    rows: int = 0
    booked: int = 0
    already_booked: int = 0
    total_booked: Decimal = ZERO
    payments: list[PaymentResult] = field(default_factory=list)
    quotes: list[QuoteRow] = field(default_factory=list)


def parse_deposits(data: bytes, *, today: date) -> list[DepositRow]:
    """Read a bank-deposit CSV (date, amount, reference, cadastral_number or notice_number);
    every bad row is reported with its row number, and nothing is read if any is bad."""
    upload = csvfile.open_upload(data, field="file", max_bytes=MAX_DEPOSIT_BYTES)
    rows = csvfile.numbered_rows(upload, field="file")
    if not rows:
        raise InputError("file", N_("The file is empty."))
    header = [csvfile.normalize_header(h) for h in rows[0][1]]
    where: dict[str, int] = {}
    for name, aliases in _COLUMNS.items():
        for i, h in enumerate(header):
            if h in aliases:
                where[name] = i
                break
    missing = [n for n in ("date", "amount", "reference") if n not in where]
    if missing or ("cadastral_number" not in where and "notice_number" not in where):
        raise InputError(
            "file",
            N_(
                "The file needs the columns date, amount, reference, and notice_number or "
                "cadastral_number (in Spanish: fecha, monto, referencia, and aviso or catastro)."
            ),
        )
    findings: list[Finding] = []
    parsed: list[DepositRow] = []
    seen: dict[tuple[str, date, Decimal], int] = {}
    for number, raw in rows[1:]:

        def cell(name: str, raw: list[str] = raw) -> str:
            i = where.get(name)
            return raw[i].strip() if i is not None and i < len(raw) else ""

        try:
            paid_on = parse_date(cell("date"), "date")
        except InputError:
            findings.append(
                Finding(f"rows[{number}].date", N_("Write a date like 2026-03-02."), number)
            )
            continue
        try:
            amount = parse_money(cell("amount"), "amount", allow_negative=True)
        except InputError:
            findings.append(
                Finding(f"rows[{number}].amount", N_("Write an amount like 1,234.50."), number)
            )
            continue
        reference = cell("reference")
        target = cell("cadastral_number") or cell("notice_number")
        problem = _row_problem(paid_on, amount, reference, target, today)
        if problem is None and (reference, paid_on, amount) in seen:
            problem = (
                "reference",
                N_("This row repeats an earlier row (same reference, date and amount)."),
            )
        if problem:
            findings.append(Finding(f"rows[{number}].{problem[0]}", problem[1], number))
            continue
        seen[(reference, paid_on, amount)] = number
        parsed.append(
            DepositRow(
                number, paid_on, amount, reference, cell("cadastral_number"), cell("notice_number")
            )
        )
    if findings:
        raise FindingsError(findings)
    if not parsed:
        raise InputError("file", N_("The file has no deposits."))
    return parsed


def _row_problem(
    paid_on: date, amount: Decimal, reference: str, target: str, today: date
) -> tuple[str, str] | None:
    """A deposit row's first problem (its field and message), or None."""
    if amount <= 0:
        return ("amount", N_("A payment must be more than zero."))
    if amount > MAX_ACCOUNT_AMOUNT:
        return ("amount", ledger.AMOUNT_TOO_LARGE)
    if paid_on > today:
        return ("date", N_("A payment cannot be dated in the future."))
    if not reference:
        return ("reference", N_("Each deposit needs its bank reference."))
    if len(reference) > MAX_REFERENCE:
        return ("reference", REFERENCE_TOO_LONG)
    if not target and not QUOTE_REFERENCE.fullmatch(reference):
        return ("notice_number", N_("Give the notice number or the cadastral number."))
    return None


def import_deposits(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    data: bytes,
    today: date,
) -> ImportResult:
    """Book a bank-deposit file: all rows or none (the caller rolls back on error); a row
    already booked (same reference, date and amount) is not booked again."""
    rows = parse_deposits(data, today=today)
    result = ImportResult(rows=len(rows))
    findings: list[Finding] = []
    for row in rows:
        try:
            payment = _book_row(session, actor, district_id, row, today, result)
        except InputError as exc:
            findings.append(Finding(exc.field, exc.message, row.row))
            continue
        if payment.booked:
            result.booked += 1
            result.total_booked += payment.amount
        else:
            result.already_booked += 1
    if findings:
        raise FindingsError(findings)
    audit.record(
        session=session,
        actor=actor,
        action="payments.import",
        entity=("district", district_id),
        after={
            "rows": result.rows,
            "booked": result.booked,
            "already_booked": result.already_booked,
            "total_booked": str(result.total_booked),
        },
    )
    return result


def _book_row(
    session: Session,
    actor: audit.Actor,
    district_id: int,
    row: DepositRow,
    today: date,
    result: ImportResult,
) -> PaymentResult:
    """One deposit booked (once per bank reference, date and amount): against the payoff
    quote whose reference it brings, or else against its notice or property."""
    key = payment_key(
        district_id=district_id, paid_on=row.paid_on, amount=row.amount, reference=row.reference
    )
    if row.quote:
        return _book_quote_row(session, actor, district_id, row, today, key, result)
    payment = record_payment(
        session=session,
        actor=actor,
        district_id=district_id,
        paid_on=row.paid_on,
        amount=row.amount,
        today=today,
        key=key,
        reference=row.reference,
        notice_number=row.notice_number,
        cadastral_number=row.cadastral_number,
        field_prefix=f"rows[{row.row}].",
    )
    result.payments.append(payment)
    return payment


def _book_quote_row(
    session: Session,
    actor: audit.Actor,
    district_id: int,
    row: DepositRow,
    today: date,
    key: str,
    result: ImportResult,
) -> PaymentResult:
    """A deposit against a payoff quote: one entry settling it, as a payment entered on the
    quote's page books it; a quote past its day, settled, or of another property (the row's
    cadastral number) is refused on the row."""
    from tid.services.closing import payoffs

    prefix = f"rows[{row.row}]."
    field = "notice_number" if QUOTE_REFERENCE.fullmatch(row.notice_number) else "reference"
    try:
        quote = payoffs.find_quote(session=session, district_id=district_id, reference=row.quote)
        if row.cadastral_number:
            prop = _find_property(session, district_id, row.cadastral_number, "cadastral_number")
            if prop.id != quote.property_id:
                raise InputError(
                    "cadastral_number",
                    N_(
                        "The quote's reference and the cadastral number are of different "
                        "properties."
                    ),
                )
        done = payoffs.pay_quote(
            session=session,
            actor=actor,
            district_id=district_id,
            reference=row.quote,
            paid_on=row.paid_on,
            amount=row.amount,
            today=today,
            key=key,
        )
    except FindingsError as exc:
        first = exc.findings[0]
        raise InputError(prefix + _quote_field(first.field, field), first.message) from None
    except InputError as exc:
        raise InputError(prefix + _quote_field(exc.field, field), exc.message) from None
    result.quotes.append(
        QuoteRow(row.row, quote.reference, done.booked, done.settled, done.remaining)
    )
    entry = ledger.entry_by_key(session=session, key=key)
    payment = _result(session, entry, booked=done.booked)
    result.payments.append(payment)
    return payment


def _quote_field(name: str, reference_field: str) -> str:
    """A quote's refusal named by the file's column: its day is the row's date, its
    reference the column that brought it."""
    return {"paid_on": "date", "reference": reference_field}.get(name, name)


# --------------------------------------------------------------------------- owner credit


def credit_by_bill(*, session: Session, district_id: int, property_id: int) -> dict[int, Decimal]:
    """The owner's credit held per bill of the property (overpayments not yet applied)."""
    bill_ids = [
        b for b in session.exec(select(Bill.id).where(Bill.property_id == property_id)) if b
    ]
    held = ledger.bill_balances(
        session=session, district_id=district_id, account=OWNER_CREDIT, bill_ids=bill_ids
    )
    return {b: -amount for b, amount in held.items() if amount < 0}


def apply_credit(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    property_id: int,
    on: date,
    today: date,
    key: str,
) -> PaymentResult:
    """Apply the owner's credit held for a property to its unpaid bills, the earliest due
    first: the impost is collected (revenue) when the credit pays it."""
    if on > today:
        raise InputError("date", N_("The date cannot be in the future."))
    prop = session.get(Property, property_id)
    if prop is None or prop.district_id != district_id:
        raise InputError("property", N_("There is no such property."))
    ledger.lock_district(session=session, district_id=district_id)
    existing = ledger.entry_by_key(session=session, key=key)
    if existing is not None:
        return _result(session, existing, booked=False)
    ledger.sync_bills(session=session, actor=actor, district_id=district_id)
    credits = credit_by_bill(session=session, district_id=district_id, property_id=property_id)
    available = sum(credits.values(), ZERO)
    if available <= 0:
        raise InputError("property", N_("No credit is held for this owner."))
    bills = list(
        session.exec(
            select(Bill)
            .where(Bill.property_id == property_id, Bill.status == BillStatus.ACTIVE.value)
            .order_by(col(Bill.due_date), col(Bill.id))
        )
    )
    owed = ledger.bill_balances(
        session=session, district_id=district_id, bill_ids=[b.id or 0 for b in bills]
    )
    spread = allocate(available, _owed_in_order(bills, owed))
    lines = _collected(spread)
    used = spread.used
    if used <= 0:
        raise InputError("property", N_("Nothing is owed on this property's bills."))
    # The oldest credit first.
    for bill_id, take in allocate(used, sorted(credits.items())).taken:
        lines.append(Line(OWNER_CREDIT, take, bill_id))
    posted = ledger.post_entry(
        session=session,
        actor=actor,
        district_id=district_id,
        entry_date=on,
        kind="credit_applied",
        memo=ledger.memo(
            "credit_applied", amount=money_str(used), cadastral_number=prop.cadastral_number
        ),
        key=key,
        lines=lines,
    )
    return _result(session, posted.entry, booked=posted.booked, lines=posted.lines)
