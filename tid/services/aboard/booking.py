"""The opening position booked, all at once or not at all, once the association has
confirmed its totals: per fiscal year a billing run of the opened bills (marked as brought
from the earlier books), the bills, what each brought (its notice, what was paid, the late
charges accrued), the liens recorded, the earlier years' totals; in the journal, dated the
cut-over day, one ``opening`` entry for the bank (Dr bank / Cr balance brought forward),
one for each open bill (Dr receivable / Cr impost assessed, what is still owed) and one for
each owner's credit (Dr balance brought forward / Cr owner credit); the files archived
under their SHA-256, and the load with its confirmed totals in the audit trail.

The same files loaded again book nothing; an account that already holds bills or entries
is refused — unless the district reversed its opening position as one
(tid/services/aboard/reversal.py): a corrected position is then booked beside the business
booked since, its entries under keys of its own."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import insert
from sqlmodel import Session, col, func, select

from tid.clock import utcnow
from tid.models import (
    Bill,
    BillingRun,
    BillStatus,
    LedgerState,
    OpeningBill,
    OpeningPosition,
    OpeningYear,
    PropertyLien,
)
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.messages import Message
from tid.rules.money import ZERO, money_str, parse_money
from tid.rules.periods import fiscal_year_of
from tid.rules.vocab.lien_kinds import IMPOST_KIND
from tid.services import ledger
from tid.services.aboard.file_checks import BOOKED, READY, OpenBill, Preview, check_position
from tid.services.aboard.position_files import BANK, FILE_NAMES
from tid.services.archive.store import archive
from tid.services.audit_trail import audit
from tid.services.billing.bulk_tables import _BILL_ROWS, _plain_table
from tid.services.district_lock import lock_district

# The bulk inserts write money as integer cents, as a billing run does.
_OPENED_ROWS = _plain_table(OpeningBill)

TOTALS_DIFFER = N_("This total is not what the files add up to: %(expected)s.")
TOTAL_MISSING = N_("Confirm this total: the files add up to %(expected)s.")
EXPLANATION = (
    "Brought from the district's earlier books: billed %(billed)s, paid %(paid)s before %(day)s."
)
EXPLANATION_ES = (
    "Traída de los libros anteriores del distrito: facturado %(billed)s, pagado %(paid)s "
    "antes del %(day)s."
)


@dataclass(frozen=True)
class Booked:
    """What a load did: ``booked`` False when the same files were already booked."""

    position: OpeningPosition
    booked: bool
    bills: int
    entries: int


def parse_confirmation(text: str) -> dict[str, Decimal]:
    """``"receivable:2024-25=1200.00,credits=50.00,bank=10000.00"`` as totals by key (what a
    person types after checking them against the trial balance)."""
    confirmed: dict[str, Decimal] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, amount = part.partition("=")
        if not sep or not key.strip():
            raise InputError(
                "confirm_totals", N_('Write each total as key=amount, like "bank=10000.00".')
            )
        confirmed[key.strip()] = parse_money(amount.strip(), key.strip(), allow_negative=True)
    return confirmed


def confirmation_problems(
    preview: Preview, confirmed: Mapping[str, Decimal | None]
) -> list[Finding]:
    """Each total not confirmed as the files add it up, by its key."""
    problems = []
    for key, expected in preview.totals.to_confirm().items():
        given = confirmed.get(key)
        if given is None:
            problems.append(
                Finding(
                    key,
                    Message(TOTAL_MISSING, expected=money_str(expected)),
                    extra={"msgid": TOTAL_MISSING, "params": {"expected": money_str(expected)}},
                )
            )
        elif given != expected:
            problems.append(
                Finding(
                    key,
                    Message(TOTALS_DIFFER, expected=money_str(expected)),
                    extra={"msgid": TOTALS_DIFFER, "params": {"expected": money_str(expected)}},
                )
            )
    return problems


def _cents(amount: Decimal) -> int:
    return int(amount * 100)


def _runs(
    session: Session, actor: audit.Actor, preview: Preview, cut_over: date, now: datetime
) -> dict[str, BillingRun]:
    """A billing run per fiscal year of the opened bills (and of the bills of nothing that
    hold a credit): its date the earliest billing date the file gives (else mailing date,
    else due date) — the impost lien's date."""
    by_year: dict[str, list[OpenBill]] = {}
    for bill in preview.bills:
        by_year.setdefault(bill.row["fiscal_year"], []).append(bill)
    cut_fy = fiscal_year_of(cut_over).label
    ordinances = {fy: bills[0].ordinance_id for fy, bills in by_year.items()}
    if preview.carriers and cut_fy not in ordinances:
        ordinances[cut_fy] = next(iter(preview.carriers.values()))[1]
    versions = dict(
        session.exec(
            select(col(BillingRun.fiscal_year), func.max(BillingRun.version))
            .where(BillingRun.district_id == preview.district_id)
            .group_by(col(BillingRun.fiscal_year))
        ).all()
    )  # a year's runs of a reversed position, or of business booked since
    runs: dict[str, BillingRun] = {}
    for fy, ordinance_id in sorted(ordinances.items()):
        bills = by_year.get(fy, [])
        dates = [b.row["billed_on"] or b.row["mailed_on"] or b.row["due_date"] for b in bills]
        run = BillingRun(
            district_id=preview.district_id,
            ordinance_id=ordinance_id,
            fiscal_year=fy,
            version=(versions.get(fy) or 0) + 1,
            formula="",
            property_count=len(bills),
            total=sum((b.row["billed"] for b in bills), ZERO),
            expected_amount=ZERO,
            run_on=min(dates, default=cut_over),
            due_date=max((b.row["due_date"] for b in bills), default=cut_over),
            fingerprint=preview.fingerprint,
            reason=f"Opening position as of {cut_over.isoformat()}",
            actor=actor.label,
            created_at=now,
        )
        session.add(run)
        runs[fy] = run
    session.flush()
    return runs


def _bill_rows(
    preview: Preview, runs: Mapping[str, BillingRun], cut_over: date, now: datetime
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for bill in preview.bills:
        r = bill.row
        words = {
            "billed": money_str(r["billed"]),
            "paid": money_str(r["paid"]),
            "day": cut_over.isoformat(),
        }
        rows.append(
            {
                "billing_run_id": runs[r["fiscal_year"]].id,
                "district_id": preview.district_id,
                "property_id": bill.property_id,
                "property_year_id": bill.property_year_id,
                "fiscal_year": r["fiscal_year"],
                "amount": _cents(r["billed"]),
                "explanation": EXPLANATION % words,
                "explanation_es": EXPLANATION_ES % words,
                "explanation_message": None,
                "due_date": r["due_date"],
                "status": BillStatus.ACTIVE.value,
                "mailed_at": None,
                "created_at": now,
            }
        )
    cut_fy = fiscal_year_of(cut_over).label
    words = {"billed": money_str(ZERO), "paid": money_str(ZERO), "day": cut_over.isoformat()}
    for property_id, (year_id, _ordinance) in sorted(preview.carriers.items()):
        rows.append(
            {
                "billing_run_id": runs[cut_fy].id,
                "district_id": preview.district_id,
                "property_id": property_id,
                "property_year_id": year_id,
                "fiscal_year": cut_fy,
                "amount": 0,
                "explanation": EXPLANATION % words,
                "explanation_es": EXPLANATION_ES % words,
                "explanation_message": None,
                "due_date": cut_over,
                "status": BillStatus.ACTIVE.value,
                "mailed_at": None,
                "created_at": now,
            }
        )
    return rows


def _write_bills(
    session: Session,
    preview: Preview,
    runs: Mapping[str, BillingRun],
    cut_over: date,
    now: datetime,
) -> dict[tuple[int, str], int]:
    """The bills written in bulk; their ids by (property, fiscal year)."""
    rows = _bill_rows(preview, runs, cut_over, now)
    for start in range(0, len(rows), 5000):
        session.execute(insert(_BILL_ROWS), rows[start : start + 5000])
    return {
        (property_id, fy): bill_id or 0
        for bill_id, property_id, fy in session.exec(
            select(col(Bill.id), col(Bill.property_id), col(Bill.fiscal_year)).where(
                col(Bill.billing_run_id).in_([run.id for run in runs.values()])
            )
        )
    }


def _entries(
    preview: Preview, ids: Mapping[tuple[int, str], int], cut_over: date, number: int
) -> list[ledger.Pending]:
    """The opening entries: the bank, each open bill's receivable, each owner's credit. The
    memos are the ledger's (``ledger.MEMOS["opening"]``), filled here once per entry
    without the message machinery: a bill's memo has only numbers and a date in it. The
    district's ``number``-th position (after one reversed) keys its entries apart."""
    day = cut_over.isoformat()
    d = preview.district_id if number == 1 else f"{preview.district_id}:{number}"
    bank_memo, bill_memo, _credit_memo = ledger.MEMOS["opening"]
    entries: list[ledger.Pending] = []
    bank = preview.totals.bank
    if bank:
        lines = (ledger.Line(ledger.BANK, bank), ledger.Line(ledger.OPENING, -bank))
        memo = bank_memo % {"date": day}
        entries.append(ledger.Pending(cut_over, "opening", memo, f"opening:{d}:bank", lines))
    receivable, assessed = ledger.RECEIVABLE, ledger.ASSESSED
    for bill in preview.bills:
        cells = bill.row.cells
        bill_id = ids[(bill.property_id, cells["fiscal_year"])]
        owed = cells["billed"] - cells["paid"]
        entries.append(
            ledger.Pending(
                cut_over,
                "opening",
                bill_memo % {"date": day, "bill": bill_id},
                f"bill:{bill_id}",
                (ledger.Line(receivable, owed, bill_id), ledger.Line(assessed, -owed, bill_id)),
            )
        )
    latest = {}
    for (property_id, _fy), bill_id in sorted(ids.items()):
        latest[property_id] = bill_id  # the latest fiscal year's
    for row, property_id in preview.credits:
        amount = row["amount"]
        entries.append(
            ledger.Pending(
                cut_over,
                "opening",
                ledger.memo("opening", date=day, cadastral_number=row["cadastral_number"]),
                f"opening:{d}:credit:{property_id}",
                (
                    ledger.Line(ledger.OPENING, amount),
                    ledger.Line(ledger.OWNER_CREDIT, -amount, latest[property_id]),
                ),
            )
        )
    return entries


def _records(
    session: Session,
    actor: audit.Actor,
    preview: Preview,
    ids: Mapping[tuple[int, str], int],
    cut_over: date,
    position_id: int | None,
) -> None:
    """What each opened bill brought, the liens recorded, the earlier years' totals."""
    opened = [
        {
            "bill_id": ids[(b.property_id, b.row["fiscal_year"])],
            "district_id": preview.district_id,
            "cut_over": cut_over,
            "billed": _cents(b.row["billed"]),
            "paid": _cents(b.row["paid"]),
            "late_charges": _cents(b.row["late_charges"] or ZERO),
            "notice_number": b.row["notice_number"] or "",
            "article_number": b.row["article_number"] or "",
            "mailed_on": b.row["mailed_on"],
        }
        for b in preview.bills
    ]
    for start in range(0, len(opened), 5000):
        session.execute(insert(_OPENED_ROWS), opened[start : start + 5000])
    for row, property_id in preview.liens:
        if row["kind"] == IMPOST_KIND:
            continue  # the impost lien is the open bills'
            # (tid.services.liens.impost_lien.impost_lien)
        session.add(
            PropertyLien(
                property_id=property_id,
                kind=row["kind"],
                holder=row["holder"] or "",
                constituted_on=row["constituted_on"],
                amount=row["amount"],
                reference=row["reference"] or "",
                actor=actor.label,
                opening_position_id=position_id,
            )
        )
    for row in preview.years:
        session.add(
            OpeningYear(
                district_id=preview.district_id,
                fiscal_year=row["fiscal_year"],
                billed=row["billed"],
                collected=row["collected"],
                admin_spending=row["admin_spending"],
            )
        )


def book_position(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    files: Mapping[str, tuple[str, bytes]],
    confirmed: Mapping[str, Decimal | None],
    today: date,
    max_bytes: int,
    max_rows: int,
    progress: Callable[[int, int], None] | None = None,
) -> Booked:
    """Check the files again under the district's lock and book them, once, all at once.
    ``FindingsError`` for bad rows or totals not confirmed as the files add them up;
    ``InputError`` when the account already holds business. The caller commits."""
    lock_district(session=session, district_id=district_id)
    preview = check_position(
        session=session,
        district_id=district_id,
        files=files,
        today=today,
        max_bytes=max_bytes,
        max_rows=max_rows,
    )
    ready = _ready(session, preview, confirmed)
    if isinstance(ready, Booked):
        return ready
    cut_over = ready
    total = len(preview.bills)
    if progress is not None:
        progress(0, total)
    now = utcnow()
    number = 1 + len(
        session.exec(
            select(OpeningPosition.id).where(OpeningPosition.district_id == district_id)
        ).all()
    )
    # The bills of business booked since a reversed position are in the journal first.
    ledger.sync_bills(session=session, actor=actor, district_id=district_id)
    runs = _runs(session, actor, preview, cut_over, now)
    ids = _write_bills(session, preview, runs, cut_over, now)
    if progress is not None:
        progress(total // 2, total)
    entries = _entries(preview, ids, cut_over, number)
    ledger.post_many(session=session, actor=actor, district_id=district_id, entries=entries)
    session.merge(LedgerState(district_id=district_id, bills_through=max(ids.values(), default=0)))
    position = _position(session, actor, preview, files, cut_over, now, entries=len(entries))
    _records(session, actor, preview, ids, cut_over, position.id)
    if progress is not None:
        progress(total, total)
    return Booked(position, booked=True, bills=total, entries=len(entries))


def _ready(
    session: Session, preview: Preview, confirmed: Mapping[str, Decimal | None]
) -> date | Booked:
    """The cut-over day of a position ready to book as confirmed, or the one already booked
    from the same files; each refusal raised as the checks name it."""
    if preview.findings:
        raise FindingsError(list(preview.findings))
    if preview.state == BOOKED:
        position = session.exec(
            select(OpeningPosition).where(
                OpeningPosition.district_id == preview.district_id,
                col(OpeningPosition.reversed_at).is_(None),
            )
        ).one()
        return Booked(position, booked=False, bills=position.bills, entries=0)
    if preview.state != READY:
        raise InputError("district", preview.refusal)
    problems = confirmation_problems(preview, confirmed)
    if problems:
        raise FindingsError(problems)
    if preview.cut_over is None:  # the bank file's row is checked: a finding otherwise
        raise InputError(BANK, Message("The file %(file)s is needed.", file=FILE_NAMES[BANK][0]))
    return preview.cut_over


def _position(
    session: Session,
    actor: audit.Actor,
    preview: Preview,
    files: Mapping[str, tuple[str, bytes]],
    cut_over: date,
    now: datetime,
    *,
    entries: int,
) -> OpeningPosition:
    """The position's record: its source files archived under their SHA-256, the totals
    confirmed, and the audit event that says what was loaded."""
    kept = [
        {
            "kind": f.kind,
            "name": f.name,
            "sha256": archive(session=session, content=files[f.kind][1], media_type="text/csv"),
            "rows": f.row_count,
        }
        for f in preview.files
    ]
    totals = {k: str(v) for k, v in preview.totals.to_confirm().items()}
    position = OpeningPosition(
        district_id=preview.district_id,
        cut_over=cut_over,
        fingerprint=preview.fingerprint,
        files=json.dumps(kept, ensure_ascii=False),
        totals=json.dumps(totals),
        bills=len(preview.bills),
        actor=actor.label,
        user_id=actor.user_id,
        created_at=now,
    )
    session.add(position)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="opening.load",
        entity=position,
        after={
            "cut_over": cut_over.isoformat(),
            "files": kept,
            "confirmed_totals": totals,
            "late_charges": str(preview.totals.late_charges),
            "bills": len(preview.bills),
            "credits": len(preview.credits),
            "liens": len(preview.liens),
            "years": len(preview.years),
            "entries": entries,
        },
    )
    return position
