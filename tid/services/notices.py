"""Certified-mail notices to the owners — 21 LPRA § 6653(5), with the lien of § 6653(8).

The association notifies every owner by certified mail of the impost and its due date within
30 days of receiving the ordinance, then at least every later year of the term, and each
notice tells the consequences of not paying on time. Here:

- ``create_batch``: the notices of a billing run's bills, rendered in one run
  (tid/render/notice.py), each PDF archived by its SHA-256; a random access code per notice is
  printed on the paper and only its HMAC is stored;
- article numbers (one by one or from a CSV file), validated by tid/rules/certified_mail.py;
- ``mail_batch``: the mailing date, postage and fee, the PS Form 3877 manifest; from then on
  a notice's row is frozen (tid/models.py refuses the UPDATE);
- delivery reports (CSV or one by one) and the re-mailing of returned notices;
- ``dashboard`` and ``schedule_yearly_notices``: the 30-day clock and the yearly notices.

Access codes: 12 characters from a 31-letter alphabet (about 59 bits), stored as
HMAC-SHA256 keyed by a key derived from the app's secret and bound to the notice number.
A code this random cannot be guessed offline, so a slow password hash (argon2, ~50 ms each)
would add minutes to a run of thousands of notices for no gain; the keyed HMAC also means a
copy of the database alone does not let anyone test codes.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import secrets
import tempfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tid.models import (
    ArchivedDocument,
    Bill,
    BillingRun,
    BillingRunStatus,
    BillStatus,
    DeliveryEvent,
    DeliveryStatus,
    District,
    Municipality,
    Notice,
    NoticeBatch,
    NoticeKind,
    Ordinance,
    Property,
    PropertyYear,
)
from tid.render import manifest as manifest_render
from tid.render import notice as notice_pdf
from tid.rules import calendar, params, periods
from tid.rules.certified_mail import parse_article_number
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.money import parse_money
from tid.services import audit, csvfile

ACCESS_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off paper
ACCESS_LENGTH = 12
_KEY_LABEL = b"tid.notice-access-code.v1"
RETURNED = frozenset(
    {
        DeliveryStatus.RETURNED_UNCLAIMED.value,
        DeliveryStatus.REFUSED.value,
        DeliveryStatus.UNDELIVERABLE.value,
    }
)
# What a delivery file may say, in the words the Postal Service's reports and clerks use.
_STATUS_WORDS = {
    "delivered": DeliveryStatus.DELIVERED,
    "entregado": DeliveryStatus.DELIVERED,
    "returned_unclaimed": DeliveryStatus.RETURNED_UNCLAIMED,
    "returned unclaimed": DeliveryStatus.RETURNED_UNCLAIMED,
    "unclaimed": DeliveryStatus.RETURNED_UNCLAIMED,
    "no reclamado": DeliveryStatus.RETURNED_UNCLAIMED,
    "refused": DeliveryStatus.REFUSED,
    "rehusado": DeliveryStatus.REFUSED,
    "undeliverable": DeliveryStatus.UNDELIVERABLE,
    "undeliverable as addressed": DeliveryStatus.UNDELIVERABLE,
    "no entregable": DeliveryStatus.UNDELIVERABLE,
}
MAX_CSV_BYTES = 5 * 1024 * 1024
_NO_MAILED_NOTICE = N_("No mailed notice has this number.")
_DATE_OUT_OF_RANGE = N_("The date must be between the mailing date and today.")


# --------------------------------------------------------------------------- access codes


def new_access_code() -> str:
    """A fresh random access code, grouped for reading: ``ABCD-EFGH-JKMN``."""
    raw = "".join(secrets.choice(ACCESS_ALPHABET) for _ in range(ACCESS_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, ACCESS_LENGTH, 4))


def normalize_access_code(text: str) -> str:
    """The code as typed, without spaces or dashes, in capitals."""
    return "".join(ch for ch in text.upper() if ch.isalnum())


def normalize_notice_number(text: str) -> str:
    return "".join(text.split()).upper()[:40]


def access_code_hash(secret: str, number: str, code: str) -> str:
    """HMAC-SHA256 of (notice number, code) under a key derived from the app's secret."""
    key = hmac.new(secret.encode(), _KEY_LABEL, hashlib.sha256).digest()
    message = f"{normalize_notice_number(number)}\n{normalize_access_code(code)}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def portal_url(base_url: str, number: str) -> str:
    """The owner's portal with the notice number filled in (the QR code's target)."""
    return f"{base_url.rstrip('/')}/portal?n={quote(number)}"


# --------------------------------------------------------------------------- the archive


def archive(session: Session, content: bytes, media_type: str = "application/pdf") -> str:
    """Store ``content`` once under its SHA-256 and return the hash (idempotent)."""
    digest = hashlib.sha256(content).hexdigest()
    if session.get(ArchivedDocument, digest) is None:
        session.add(
            ArchivedDocument(
                sha256=digest, content=content, size=len(content), media_type=media_type
            )
        )
    return digest


def archived_bytes(session: Session, sha256: str) -> bytes:
    """The archived document with this hash, checked against it."""
    document = session.get(ArchivedDocument, sha256)
    if document is None:
        raise LookupError(f"no archived document {sha256}")
    content = bytes(document.content)
    if hashlib.sha256(content).hexdigest() != sha256:
        raise RuntimeError(f"archived document {sha256} does not match its hash")
    return content


def notice_pdf_bytes(session: Session, notice: Notice) -> bytes:
    """Exactly the bytes archived for this notice (what was mailed)."""
    return archived_bytes(session, notice.pdf_sha256)


# --------------------------------------------------------------------------- creating notices


@dataclass(frozen=True)
class BillForNotice:
    bill: Bill
    year: PropertyYear
    cadastral_number: str


def mailing_lines(year: PropertyYear) -> tuple[str, ...]:
    """The owner's mailing address as lines for the window envelope (Puerto Rico style:
    urbanization line first, then street, then city, state and ZIP)."""
    last = " ".join(p for p in (year.mailing_city, year.mailing_state, year.mailing_zip) if p)
    lines = (year.mailing_urbanization, year.mailing_line1, year.mailing_line2, last)
    return tuple(line.strip() for line in lines if line and line.strip())


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def _ordinance_first_fy(ordinance: Ordinance) -> periods.FiscalYear | None:
    if ordinance.approved_on is None:
        return None
    return periods.fiscal_year_of(ordinance.approved_on)


def kind_for_run(ordinance: Ordinance, run: BillingRun) -> str:
    """Initial notice for the ordinance's first fiscal year, yearly for every later one."""
    first = _ordinance_first_fy(ordinance)
    if first is None or run.fiscal_year <= first.label:
        return NoticeKind.INITIAL.value
    return NoticeKind.YEARLY.value


def _next_numbers(session: Session, year: int, count: int) -> list[str]:
    prefix = f"{year}-"
    latest = session.exec(
        select(func.max(Notice.number)).where(col(Notice.number).like(f"{prefix}%"))
    ).one()
    start = int(str(latest).split("-")[1]) + 1 if latest else 1
    return [f"{prefix}{n:06d}" for n in range(start, start + count)]


def _new_public_id(taken: set[str]) -> str:
    while True:
        value = secrets.token_urlsafe(18)[:24]
        if value not in taken:
            taken.add(value)
            return value


def _bills_to_notify(
    session: Session, run: BillingRun, bill_ids: Collection[int] | None
) -> list[BillForNotice]:
    """The run's active bills that have no notice yet (re-mailings go by their own path)."""
    stmt = (
        select(Bill, PropertyYear, Property.cadastral_number)
        .join(PropertyYear, col(PropertyYear.id) == col(Bill.property_year_id))
        .join(Property, col(Property.id) == col(Bill.property_id))
        .where(*_to_notify(run, bill_ids))
        .order_by(col(Property.cadastral_number))
    )
    return [BillForNotice(b, y, str(c)) for b, y, c in session.exec(stmt)]


def _to_notify(run: BillingRun, bill_ids: Collection[int] | None) -> list[Any]:
    noticed = select(Notice.bill_id).where(Notice.district_id == run.district_id)
    where = [
        Bill.billing_run_id == run.id,
        Bill.status == BillStatus.ACTIVE.value,
        col(Bill.id).not_in(noticed),
    ]
    if bill_ids is not None:
        where.append(col(Bill.id).in_(list(bill_ids)))
    return where


def bills_to_notify_count(
    session: Session, run: BillingRun, bill_ids: Collection[int] | None = None
) -> int:
    """How many of the run's active bills have no notice yet."""
    stmt = select(func.count()).select_from(Bill).where(*_to_notify(run, bill_ids))
    return int(session.exec(stmt).one())


@dataclass(frozen=True)
class _Context:
    district: District
    municipality: Municipality
    ordinance: Ordinance
    run: BillingRun
    lien_effective_on: date


def _context(session: Session, run: BillingRun) -> _Context:
    district = session.get(District, run.district_id)
    ordinance = session.get(Ordinance, run.ordinance_id)
    if district is None or ordinance is None:
        raise InputError("billing_run", N_("This billing run has no district or ordinance."))
    municipality = session.get(Municipality, district.municipality_id)
    if municipality is None:  # pragma: no cover - a foreign key guarantees it
        raise InputError("billing_run", N_("This billing run has no district or ordinance."))
    setting = params.district_setting("lien_act_effective_date")
    effective = setting.value if isinstance(setting.value, date) else date(2010, 1, 15)
    return _Context(district, municipality, ordinance, run, effective)


def _validate_sender(
    sender_name: str, sender_address: str, how_to_pay: str, how_to_pay_en: str | None = None
) -> None:
    if not sender_name.strip():
        raise InputError("sender_name", N_("Give the sender's name (the association)."))
    if not _lines(sender_address):
        raise InputError("sender_address", N_("Give the sender's mailing address."))
    if not how_to_pay.strip():
        raise InputError("how_to_pay", N_("Say how the owners can pay."))
    if len(sender_name) > 200 or len(sender_address) > 1000 or len(how_to_pay) > 1500:
        raise InputError("how_to_pay", N_("This text is too long for the notice."))
    if how_to_pay_en is not None and not how_to_pay_en.strip():
        raise InputError("how_to_pay_en", N_("Say how the owners can pay, in English."))
    if how_to_pay_en is not None and len(how_to_pay_en) > 1500:
        raise InputError("how_to_pay_en", N_("This text is too long for the notice."))


def _content(
    ctx: _Context,
    item: BillForNotice,
    *,
    number: str,
    code: str,
    kind: str,
    issued_on: date,
    sender_name: str,
    sender_lines: tuple[str, ...],
    how_to_pay: str,
    how_to_pay_en: str,
    base_url: str,
    owner_name: str | None = None,
    address: tuple[str, ...] | None = None,
    remailing_of: str = "",
) -> notice_pdf.NoticeContent:
    bill = item.bill
    ordinance = ctx.ordinance
    return notice_pdf.NoticeContent(
        number=number,
        access_code=code,
        portal_url=portal_url(base_url, number),
        issued_on=issued_on,
        kind=kind,
        sender_name=sender_name,
        sender_lines=sender_lines,
        association_name=ordinance.association_name or ctx.district.association_name,
        district_name=ordinance.district_name or ctx.district.name,
        municipality_name=ctx.municipality.name,
        ordinance_number=ordinance.number,
        ordinance_issued_on=ordinance.issued_on,
        ordinance_approved_on=ordinance.approved_on,
        term_years=ordinance.term_years,
        period_label=bill.fiscal_year,
        cadastral_number=item.cadastral_number,
        property_address=item.year.physical_address,
        owner_name=owner_name if owner_name is not None else item.year.owner_names,
        mailing_lines=address if address is not None else mailing_lines(item.year),
        amount=bill.amount,
        explanation=bill.explanation,
        explanation_es=bill.explanation_es or "",
        due_on=bill.due_date,
        how_to_pay=how_to_pay,
        how_to_pay_en=how_to_pay_en,
        lien_effective_on=ctx.lien_effective_on,
        remailing_of=remailing_of,
    )


# Notices rendered before their PDFs go to a temporary folder: a run of 20,000 owners keeps
# one slice in memory, not every PDF (~21 KiB each).
RENDER_SLICE = 2000
_ARCHIVE_FLUSH = 200


@dataclass(frozen=True)
class _Spilled:
    sha256: str
    pages: int
    path: Path


def _render_to_disk(
    contents: Sequence[notice_pdf.NoticeContent],
    *,
    workers: int | None,
    progress: Callable[[int, int], None] | None,
    folder: Path,
) -> tuple[list[_Spilled], bytes, int]:
    """Render ``contents`` slice by slice, each notice's PDF written to ``folder``; returns
    them (in order), the merged print file and its page count."""
    total = len(contents)
    spilled: list[_Spilled] = []
    parts: list[Path] = []
    pages = 0
    for start in range(0, total, RENDER_SLICE):

        def report(done: int, _count: int, start: int = start) -> None:
            if progress is not None:
                progress(start + done, total)

        rendered = notice_pdf.render_notices(
            contents[start : start + RENDER_SLICE], workers=workers, progress=report
        )
        for offset, notice in enumerate(rendered.notices):
            path = folder / f"{start + offset}.pdf"
            path.write_bytes(notice.pdf)
            spilled.append(_Spilled(notice.sha256, notice.pages, path))
        part = folder / f"print-{start}.pdf"
        part.write_bytes(rendered.merged)
        parts.append(part)
        pages += rendered.merged_pages
        del rendered
    if len(parts) == 1:
        return spilled, parts[0].read_bytes(), pages
    from pypdf import PdfWriter

    writer = PdfWriter()
    for part in parts:
        writer.append(str(part))
    out = io.BytesIO()
    writer.write(out)
    return spilled, out.getvalue(), pages


def _flush_documents(session: Session, pending: list[ArchivedDocument]) -> None:
    """Write the archived documents and let go of their bytes."""
    if not pending:
        return
    session.flush()
    for document in pending:
        session.expunge(document)
    pending.clear()


# Long: the batch, its notices and their archived PDFs written together from one rendering.
def _store_batch(
    session: Session,
    actor: audit.Actor,
    *,
    ctx: _Context,
    kind: str,
    issued_on: date,
    sender_name: str,
    sender_address: str,
    how_to_pay: str,
    how_to_pay_en: str,
    items: Sequence[BillForNotice],
    contents: Sequence[notice_pdf.NoticeContent],
    codes: Sequence[str],
    secret: str,
    remailing_of: Sequence[Notice | None],
    workers: int | None,
    progress: Callable[[int, int], None] | None = None,
    fees: MailingFees | None = None,
) -> NoticeBatch:
    with tempfile.TemporaryDirectory(prefix="tid-notices-") as folder:
        spilled, merged, merged_pages = _render_to_disk(
            contents, workers=workers, progress=progress, folder=Path(folder)
        )
        fees = fees or default_fees(issued_on)
        batch = NoticeBatch(
            district_id=ctx.district.id or 0,
            number=next_batch_number(session, ctx.district.id or 0),
            billing_run_id=ctx.run.id or 0,
            kind=kind,
            postage=fees.postage,
            certified_fee=fees.certified_fee,
            return_receipt_fee=fees.return_receipt_fee,
            issued_on=issued_on,
            sender_name=sender_name.strip(),
            sender_address="\n".join(_lines(sender_address)),
            how_to_pay=how_to_pay.strip(),
            how_to_pay_en=how_to_pay_en.strip(),
            notice_count=len(contents),
            page_count=merged_pages,
            print_sha256=archive(session, merged),
            actor=actor.label,
            user_id=actor.user_id,
        )
        del merged
        session.add(batch)
        session.flush()
        taken: set[str] = set()
        seen: set[str] = {batch.print_sha256}
        pending: list[ArchivedDocument] = []
        for pdf in spilled:
            if pdf.sha256 not in seen and session.get(ArchivedDocument, pdf.sha256) is None:
                seen.add(pdf.sha256)
                content_bytes = pdf.path.read_bytes()
                document = ArchivedDocument(
                    sha256=pdf.sha256,
                    content=content_bytes,
                    size=len(content_bytes),
                    media_type="application/pdf",
                )
                session.add(document)
                pending.append(document)
            if len(pending) >= _ARCHIVE_FLUSH:
                _flush_documents(session, pending)
        _flush_documents(session, pending)
    notices = []
    for item, content, code, pdf, original in zip(
        items, contents, codes, spilled, remailing_of, strict=True
    ):
        notices.append(
            Notice(
                public_id=_new_public_id(taken),
                number=content.number,
                batch_id=batch.id or 0,
                bill_id=item.bill.id or 0,
                district_id=ctx.district.id or 0,
                property_id=item.bill.property_id,
                fiscal_year=item.bill.fiscal_year,
                kind=kind,
                owner_name=content.owner_name[:500],
                mailing_address="\n".join(content.mailing_lines),
                amount=item.bill.amount,
                due_date=item.bill.due_date,
                issued_on=issued_on,
                access_code_hash=access_code_hash(secret, content.number, code),
                pdf_sha256=pdf.sha256,
                page_count=pdf.pages,
                remailing_of_id=original.id if original is not None else None,
            )
        )
    session.add_all(notices)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise InputError(
            "batch", N_("Another notice run was saved at the same time; try again.")
        ) from None
    audit.record(
        session,
        actor,
        "notice_batch.create",
        batch,
        after={
            **(audit.snapshot(batch) or {}),
            "notices": [n.number for n in notices[:50]],
        },
    )
    return batch


def create_batch(
    *,
    session: Session,
    actor: audit.Actor,
    billing_run_id: int,
    issued_on: date,
    sender_name: str,
    sender_address: str,
    how_to_pay: str,
    portal_base_url: str,
    secret: str,
    how_to_pay_en: str | None = None,
    bill_ids: Collection[int] | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> NoticeBatch:
    """Render the notices of a billing run's active bills that have none yet (§ 6653(5)):
    one PDF per owner, archived, and one print file. The caller commits. ``progress`` is
    told (notices rendered, notices) as the rendering goes. ``how_to_pay`` is printed on the
    Spanish page and ``how_to_pay_en`` on the English one (``None``: the Spanish text on both,
    as for batches made before it was asked)."""
    run, items = check_batch(
        session=session,
        billing_run_id=billing_run_id,
        sender_name=sender_name,
        sender_address=sender_address,
        how_to_pay=how_to_pay,
        how_to_pay_en=how_to_pay_en,
        bill_ids=bill_ids,
    )
    english = (how_to_pay_en or "").strip()
    ctx = _context(session, run)
    kind = kind_for_run(ctx.ordinance, run)
    numbers = _next_numbers(session, issued_on.year, len(items))
    codes = [new_access_code() for _ in items]
    sender_lines = _lines(sender_address)
    contents = [
        _content(
            ctx,
            item,
            number=number,
            code=code,
            kind=kind,
            issued_on=issued_on,
            sender_name=sender_name.strip(),
            sender_lines=sender_lines,
            how_to_pay=how_to_pay.strip(),
            how_to_pay_en=english,
            base_url=portal_base_url,
        )
        for item, number, code in zip(items, numbers, codes, strict=True)
    ]
    return _store_batch(
        session,
        actor,
        ctx=ctx,
        kind=kind,
        issued_on=issued_on,
        sender_name=sender_name,
        sender_address=sender_address,
        how_to_pay=how_to_pay,
        how_to_pay_en=english,
        items=items,
        contents=contents,
        codes=codes,
        secret=secret,
        remailing_of=[None] * len(items),
        workers=workers,
        progress=progress,
    )


def check_batch(
    *,
    session: Session,
    billing_run_id: int,
    sender_name: str,
    sender_address: str,
    how_to_pay: str,
    how_to_pay_en: str | None = None,
    bill_ids: Collection[int] | None = None,
    load: bool = True,
) -> tuple[BillingRun, list[BillForNotice]]:
    """What :func:`create_batch` checks before rendering (the web asks before it queues the
    run, ``load=False``: nothing is loaded): the billing run is active, the sender is
    complete, and some bill has no notice."""
    run = session.get(BillingRun, billing_run_id)
    if run is None:
        raise InputError("billing_run", N_("There is no such billing run."))
    if run.status != BillingRunStatus.ACTIVE.value:
        raise InputError(
            "billing_run", N_("This billing run was superseded; notify with the active one.")
        )
    _validate_sender(sender_name, sender_address, how_to_pay, how_to_pay_en)
    if not load:
        if not bills_to_notify_count(session, run, bill_ids):
            raise InputError("billing_run", N_("Every bill of this run already has a notice."))
        return run, []
    items = _bills_to_notify(session, run, bill_ids)
    if not items:
        raise InputError("billing_run", N_("Every bill of this run already has a notice."))
    return run, items


# --------------------------------------------------------------------------- postage and fees
# What the post office charges per piece is known before the manifest (PS Form 3877) is
# printed: a new run takes the defaults of tid/rules/params/district.toml in force on its
# date, and the association can change them on the run's page until it is mailed.

MAX_PIECE_AMOUNT = Decimal("100.00")  # per piece: anything above is a typo


@dataclass(frozen=True)
class MailingFees:
    """Postage and fees of one piece of certified mail (``return_receipt_fee`` None: the
    run asks for no return receipt)."""

    postage: Decimal
    certified_fee: Decimal
    return_receipt_fee: Decimal | None

    @property
    def per_piece(self) -> Decimal:
        return self.postage + self.certified_fee + (self.return_receipt_fee or Decimal("0.00"))

    def total(self, pieces: int) -> Decimal:
        return self.per_piece * pieces


def _price(name: str, on: date) -> tuple[Any, str]:
    try:
        setting = params.district_setting(name, on)
    except InputError:  # a run dated before the first price listed: the first one
        first = params.history(f"district.{name}").values[0]
        return first.value, first.citation
    return setting.value, setting.citation


def default_fees(on: date) -> MailingFees:
    """The postage and fees in force on ``on`` (dated settings, USPS price list)."""
    postage, _c = _price("certified_mail_postage", on)
    fee, _c = _price("certified_mail_fee", on)
    receipt, _c = _price("return_receipt_fee", on)
    wanted, _c = _price("return_receipt_default", on)
    return MailingFees(
        postage=Decimal(str(postage)),
        certified_fee=Decimal(str(fee)),
        return_receipt_fee=Decimal(str(receipt)) if wanted is True else None,
    )


def default_receipt_fee(on: date) -> Decimal:
    """The return-receipt fee in force on ``on`` (offered when a run asks for one)."""
    return Decimal(str(_price("return_receipt_fee", on)[0]))


def fees_citation(on: date) -> str:
    return str(_price("certified_mail_fee", on)[1])


def batch_fees(batch: NoticeBatch) -> MailingFees:
    """The run's postage and fees; a run made before they were kept takes the defaults of
    its date for what it lacks."""
    defaults = default_fees(batch.issued_on)
    return MailingFees(
        postage=batch.postage if batch.postage is not None else defaults.postage,
        certified_fee=(
            batch.certified_fee if batch.certified_fee is not None else defaults.certified_fee
        ),
        return_receipt_fee=batch.return_receipt_fee,
    )


def _remail_fees(original: NoticeBatch, issued_on: date) -> MailingFees:
    """A re-mailing pays today's prices, with a return receipt if the first run had one."""
    defaults = default_fees(issued_on)
    receipt = None
    if original.return_receipt_fee is not None:
        receipt = default_receipt_fee(issued_on)
    return MailingFees(defaults.postage, defaults.certified_fee, receipt)


def _piece_amount(value: str | Decimal, field: str) -> Decimal:
    text = value if isinstance(value, Decimal) else value.strip().replace("$", "")
    try:
        amount = parse_money(text, field)
    except InputError:
        raise InputError(field, N_("Write an amount like 5.30 (dollars and cents).")) from None
    if amount > MAX_PIECE_AMOUNT:
        raise InputError(field, N_("This is more than $100.00 for one piece; check the amount."))
    return amount


def parse_fees(
    *,
    postage: str | Decimal,
    certified_fee: str | Decimal,
    return_receipt: bool,
    return_receipt_fee: str | Decimal,
) -> MailingFees:
    """Postage and fees as typed, every field checked at once (a FindingsError names each
    bad one)."""
    findings: list[Finding] = []
    amounts: dict[str, Decimal] = {}
    for field, value in (
        ("postage", postage),
        ("certified_fee", certified_fee),
        *((("return_receipt_fee", return_receipt_fee),) if return_receipt else ()),
    ):
        try:
            amounts[field] = _piece_amount(value, field)
        except InputError as exc:
            findings.append(Finding(field, exc.message, None))
    if findings:
        raise FindingsError(findings)
    return MailingFees(
        postage=amounts["postage"],
        certified_fee=amounts["certified_fee"],
        return_receipt_fee=amounts["return_receipt_fee"] if return_receipt else None,
    )


def set_batch_fees(
    *, session: Session, actor: audit.Actor, batch_id: int, fees: MailingFees
) -> NoticeBatch:
    """Change the postage and fees of a run not yet mailed (the manifest prints them)."""
    batch = session.get(NoticeBatch, batch_id)
    if batch is None:
        raise InputError("batch", N_("There is no such notice run."))
    if batch.mailed_on is not None:
        raise InputError("postage", N_("This notice run was already mailed."))
    before = audit.snapshot(batch)
    batch.postage = fees.postage
    batch.certified_fee = fees.certified_fee
    batch.return_receipt_fee = fees.return_receipt_fee
    session.add(batch)
    session.flush()
    audit.record(
        session, actor, "notice_batch.fees", batch, before=before, after=audit.snapshot(batch)
    )
    return batch


def next_batch_number(session: Session, district_id: int) -> int:
    """The next run number of a district: 1, 2, … (a concurrent run that takes the same
    number fails on the unique constraint and is refused as "try again")."""
    latest = session.exec(
        select(func.max(NoticeBatch.number)).where(NoticeBatch.district_id == district_id)
    ).one()
    return int(latest or 0) + 1


# --------------------------------------------------------------------------- article numbers


def _editable(notice: Notice, field: str) -> None:
    if notice.mailed_on is not None:
        raise InputError(field, N_("This notice was mailed; its record cannot be changed."))


def set_article_number(
    *, session: Session, actor: audit.Actor, notice_id: int, article_number: str
) -> Notice:
    """Record the certified-mail article number of a notice not yet mailed."""
    notice = session.get(Notice, notice_id)
    if notice is None:
        raise InputError("notice", N_("There is no such notice."))
    _editable(notice, "article_number")
    digits = parse_article_number(article_number, "article_number").digits
    _check_article_free(session, digits, notice.id, "article_number")
    before = audit.snapshot(notice, exclude=("access_code_hash",))
    notice.article_number = digits
    session.add(notice)
    session.flush()
    audit.record(
        session,
        actor,
        "notice.article_number",
        notice,
        before=before,
        after=audit.snapshot(notice, exclude=("access_code_hash",)),
    )
    return notice


def _check_article_free(session: Session, digits: str, notice_id: int | None, field: str) -> None:
    other = session.exec(select(Notice).where(Notice.article_number == digits)).first()
    if other is not None and other.id != notice_id:
        raise InputError(field, N_("This article number is already used by another notice."))


def _csv_rows(data: bytes, field: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of an uploaded file, read as every upload is (csvfile)."""
    upload = csvfile.open_upload(data, field=field, max_bytes=MAX_CSV_BYTES)
    return csvfile.numbered_rows(upload, field=field)


def _is_header(cells: Sequence[str]) -> bool:
    return not any(ch.isdigit() for ch in "".join(cells[:2]))


@dataclass(frozen=True)
class ImportResult:
    rows: int
    changed: int
    unchanged: int


# Long: every row checked before anything is written, in one pass.
def import_article_numbers(
    *, session: Session, actor: audit.Actor, batch_id: int, data: bytes
) -> ImportResult:
    """Article numbers from a CSV file of (notice number, article number) rows, for the
    notices of one batch. All rows are checked first; one bad row and nothing is written."""
    batch = session.get(NoticeBatch, batch_id)
    if batch is None:
        raise InputError("file", N_("There is no such notice run."))
    notices = {n.number: n for n in session.exec(select(Notice).where(Notice.batch_id == batch_id))}
    rows = _csv_rows(data, "file")
    if rows and _is_header(rows[0][1]):
        rows = rows[1:]
    findings: list[Finding] = []
    plan: list[tuple[Notice, str]] = []
    in_file: dict[str, int] = {}
    for line, cells in rows:
        if len(cells) < 2:
            findings.append(
                Finding("file", N_("Each row needs a notice number and an article number."), line)
            )
            continue
        notice = notices.get(normalize_notice_number(cells[0]))
        if notice is None:
            findings.append(Finding("notice_number", N_("Not a notice of this run."), line))
            continue
        try:
            digits = parse_article_number(cells[1], "article_number").digits
        except InputError as exc:
            findings.append(Finding("article_number", exc.message, line))
            continue
        if digits in in_file:
            findings.append(
                Finding("article_number", N_("This article number appears twice."), line)
            )
            continue
        in_file[digits] = line
        if notice.mailed_on is not None and notice.article_number != digits:
            findings.append(
                Finding(
                    "notice_number",
                    N_("This notice was mailed; its record cannot be changed."),
                    line,
                )
            )
            continue
        plan.append((notice, digits))
    if not rows:
        findings.append(Finding("file", N_("The file has no rows."), None))
    numbers_taken = {
        a: i
        for a, i in session.exec(
            select(Notice.article_number, Notice.id).where(
                col(Notice.article_number).in_(list(in_file))
            )
        )
        if a
    }
    for notice, digits in plan:
        owner = numbers_taken.get(digits)
        if owner is not None and owner != notice.id:
            findings.append(
                Finding(
                    "article_number",
                    N_("This article number is already used by another notice."),
                    in_file[digits],
                )
            )
    if findings:
        raise FindingsError(findings)
    changed = 0
    for notice, digits in plan:
        if notice.article_number == digits:
            continue
        # Free numbers being swapped inside the run before assigning them again.
        notice.article_number = None
        session.add(notice)
    session.flush()
    for notice, digits in plan:
        if notice.article_number is None:
            notice.article_number = digits
            session.add(notice)
            changed += 1
    session.flush()
    audit.record(
        session,
        actor,
        "notice_batch.article_numbers",
        batch,
        after={"rows": len(plan), "changed": changed},
    )
    return ImportResult(rows=len(plan), changed=changed, unchanged=len(plan) - changed)


# --------------------------------------------------------------------------- mailing


def manifest_rows(session: Session, batch_id: int) -> list[manifest_render.ManifestRow]:
    notices = session.exec(
        select(Notice)
        .where(Notice.batch_id == batch_id, col(Notice.article_number).is_not(None))
        .order_by(col(Notice.article_number))
    )
    return [
        manifest_render.ManifestRow(
            article_number=n.article_number or "",
            name=n.owner_name,
            address=", ".join(_lines(n.mailing_address)),
            notice_number=n.number,
        )
        for n in notices
    ]


def manifest_pdf(
    session: Session,
    batch: NoticeBatch,
    *,
    postage: Decimal | None = None,
    fee: Decimal | None = None,
) -> bytes:
    """The PS Form 3877 manifest of a batch: the archived one once mailed, else a draft
    with the run's postage and fees (set before it is printed)."""
    if batch.manifest_sha256:
        return archived_bytes(session, batch.manifest_sha256)
    fees = batch_fees(batch)
    return manifest_render.render_manifest(
        manifest_rows(session, batch.id or 0),
        sender_name=batch.sender_name,
        sender_lines=_lines(batch.sender_address),
        mailed_on=batch.mailed_on,
        postage=postage if postage is not None else fees.postage,
        fee=fee if fee is not None else fees.certified_fee,
        return_receipt_fee=fees.return_receipt_fee,
        batch_label=batch_label(batch),
    )


def batch_label(batch: NoticeBatch) -> str:
    """The run as people name it: its number in the district ("3")."""
    return str(batch.number or batch.id)


def mail_batch(
    *,
    session: Session,
    actor: audit.Actor,
    batch_id: int,
    mailed_on: date,
    today: date,
    postage: str | Decimal | None = None,
    certified_fee: str | Decimal | None = None,
) -> NoticeBatch:
    """Record that a batch went out by certified mail on ``mailed_on``: every notice must
    have its article number. The postage and fees are the run's (set on its page before the
    manifest was printed) unless given here. Archives the manifest; from now on the notices
    are frozen."""
    batch = session.get(NoticeBatch, batch_id)
    if batch is None:
        raise InputError("batch", N_("There is no such notice run."))
    if batch.mailed_on is not None:
        raise InputError("mailed_on", N_("This notice run was already mailed."))
    if mailed_on > today:
        raise InputError("mailed_on", N_("The mailing date cannot be in the future."))
    if mailed_on < batch.issued_on:
        raise InputError("mailed_on", N_("The mailing date cannot be before the notices' date."))
    fees = batch_fees(batch)
    postage_amount = (
        _piece_amount(postage, "postage") if postage not in (None, "") else fees.postage
    )
    fee_amount = (
        _piece_amount(certified_fee, "certified_fee")
        if certified_fee not in (None, "")
        else fees.certified_fee
    )
    notices = list(session.exec(select(Notice).where(Notice.batch_id == batch_id)))
    missing = [n.number for n in notices if not n.article_number]
    if missing:
        raise InputError(
            "article_numbers", N_("Every notice needs its article number before mailing.")
        )
    before = audit.snapshot(batch)
    batch.mailed_on = mailed_on
    batch.postage = postage_amount
    batch.certified_fee = fee_amount
    batch.return_receipt_fee = fees.return_receipt_fee
    manifest = manifest_render.render_manifest(
        manifest_rows(session, batch_id),
        sender_name=batch.sender_name,
        sender_lines=_lines(batch.sender_address),
        mailed_on=mailed_on,
        postage=postage_amount,
        fee=fee_amount,
        return_receipt_fee=fees.return_receipt_fee,
        batch_label=batch_label(batch),
    )
    batch.manifest_sha256 = archive(session, manifest)
    session.add(batch)
    for notice in notices:
        notice.mailed_on = mailed_on
        session.add(notice)
    session.flush()
    from tid.services import billing

    billing.mark_mailed(
        session=session,
        actor=actor,
        bill_ids=[n.bill_id for n in notices],
        at=datetime.combine(mailed_on, datetime.min.time(), tzinfo=UTC),
    )
    audit.record(
        session, actor, "notice_batch.mail", batch, before=before, after=audit.snapshot(batch)
    )
    return batch


# --------------------------------------------------------------------------- delivery


def parse_status(value: str, field: str = "status") -> DeliveryStatus:
    word = " ".join(value.strip().lower().replace("-", " ").split())
    status = _STATUS_WORDS.get(word) or _STATUS_WORDS.get(word.replace(" ", "_"))
    if status is None:
        raise InputError(
            field,
            N_("Use delivered, returned unclaimed, refused or undeliverable."),
        )
    return status


def record_delivery(
    *,
    session: Session,
    actor: audit.Actor,
    notice_id: int,
    status: str,
    occurred_on: date,
    today: date,
    source: str = "form",
) -> DeliveryEvent | None:
    """Record what the Postal Service reported for a mailed notice (idempotent: the same
    report twice is recorded once; returns None then)."""
    notice = session.get(Notice, notice_id)
    if notice is None:
        raise InputError("notice", N_("There is no such notice."))
    return _record_delivery(
        session, actor, notice, parse_status(status), occurred_on, today, source, "status"
    )


def _record_delivery(
    session: Session,
    actor: audit.Actor,
    notice: Notice,
    status: DeliveryStatus,
    occurred_on: date,
    today: date,
    source: str,
    field: str,
) -> DeliveryEvent | None:
    if notice.mailed_on is None:
        raise InputError(field, N_("This notice has not been mailed yet."))
    if occurred_on < notice.mailed_on or occurred_on > today:
        raise InputError("occurred_on", N_("The date must be between the mailing date and today."))
    existing = session.exec(
        select(DeliveryEvent).where(
            DeliveryEvent.notice_id == notice.id,
            DeliveryEvent.status == status.value,
            DeliveryEvent.occurred_on == occurred_on,
        )
    ).first()
    if existing is not None:
        return None
    event = DeliveryEvent(
        notice_id=notice.id or 0,
        status=status.value,
        occurred_on=occurred_on,
        source=source,
        actor=actor.label,
    )
    session.add(event)
    session.flush()
    audit.record(session, actor, "notice.delivery", event, after=audit.snapshot(event))
    return event


@dataclass(frozen=True)
class DeliveryImport:
    rows: int
    recorded: int
    already: int
    returned: list[str]  # notice numbers now returned (to re-mail)


def import_deliveries(
    *,
    session: Session,
    actor: audit.Actor,
    data: bytes,
    today: date,
    district_ids: Collection[int] | None,
) -> DeliveryImport:
    """Delivery reports from a CSV file: (article number, status, date) rows — or (notice
    number, status, date). Only notices of ``district_ids`` (None: any) are reachable. All
    rows are checked first; one bad row and nothing is written."""
    rows = _csv_rows(data, "file")
    if rows and _is_header(rows[0][1][:1]):
        rows = rows[1:]
    findings: list[Finding] = []
    plan: list[tuple[Notice, DeliveryStatus, date, int]] = []
    for line, cells in rows:
        if len(cells) < 3:
            findings.append(
                Finding("file", N_("Each row needs a number, a status and a date."), line)
            )
            continue
        key = "".join(cells[0].split())
        notice: Notice | None
        if key.isdigit():
            notice = session.exec(select(Notice).where(Notice.article_number == key)).first()
        else:
            notice = session.exec(
                select(Notice).where(Notice.number == normalize_notice_number(key))
            ).first()
        if notice is None or (district_ids is not None and notice.district_id not in district_ids):
            findings.append(
                Finding("article_number", N_("No mailed notice has this number."), line)
            )
            continue
        try:
            status = parse_status(cells[1])
            occurred = periods.parse_date(cells[2], "occurred_on")
        except InputError as exc:
            findings.append(Finding(exc.field, exc.message, line))
            continue
        if notice.mailed_on is None:
            findings.append(
                Finding("article_number", N_("No mailed notice has this number."), line)
            )
            continue
        if occurred < notice.mailed_on or occurred > today:
            findings.append(
                Finding(
                    "occurred_on", N_("The date must be between the mailing date and today."), line
                )
            )
            continue
        plan.append((notice, status, occurred, line))
    if not rows:
        findings.append(Finding("file", N_("The file has no rows."), None))
    if findings:
        raise FindingsError(findings)
    recorded = 0
    returned: list[str] = []
    for notice, status, occurred, _line in plan:
        event = _record_delivery(
            session, actor, notice, status, occurred, today, "csv", "article_number"
        )
        if event is not None:
            recorded += 1
            if status.value in RETURNED:
                returned.append(notice.number)
    return DeliveryImport(
        rows=len(plan), recorded=recorded, already=len(plan) - recorded, returned=returned
    )


def latest_delivery(session: Session, notice_ids: Collection[int]) -> dict[int, DeliveryEvent]:
    """The latest delivery report of each notice (by date, then by when recorded)."""
    if not notice_ids:
        return {}
    events = session.exec(
        select(DeliveryEvent)
        .where(col(DeliveryEvent.notice_id).in_(list(notice_ids)))
        .order_by(col(DeliveryEvent.occurred_on), col(DeliveryEvent.id))
    )
    return {e.notice_id: e for e in events}


# Long: the returned notices checked, renumbered and rendered as one new batch.
def remail_notices(
    *,
    session: Session,
    actor: audit.Actor,
    notice_ids: Sequence[int],
    issued_on: date,
    portal_base_url: str,
    secret: str,
    new_address: str = "",
    workers: int | None = None,
) -> NoticeBatch:
    """Send returned notices again: a new notice for the same bill (new number, new code,
    new article number to come), linked to the returned one, in a new batch of its own.
    ``new_address`` (lines) replaces the mailing address when there is one notice."""
    if not notice_ids:
        raise InputError("notices", N_("Choose the returned notices to send again."))
    originals = [session.get(Notice, i) for i in notice_ids]
    if any(n is None for n in originals):
        raise InputError("notices", N_("There is no such notice."))
    found = [n for n in originals if n is not None]
    runs = {session.get(Bill, n.bill_id).billing_run_id for n in found}  # type: ignore[union-attr]
    if len(runs) != 1:
        raise InputError("notices", N_("Re-mail notices of one billing run at a time."))
    address_override = _lines(new_address)
    if address_override and len(found) != 1:
        raise InputError("new_address", N_("A new address can be given for one notice at a time."))
    status = latest_delivery(session, [n.id or 0 for n in found])
    for notice in found:
        event = status.get(notice.id or 0)
        if event is None or event.status not in RETURNED:
            raise InputError("notices", N_("Only a returned notice can be sent again."))
        replacement = session.exec(
            select(Notice).where(Notice.remailing_of_id == notice.id)
        ).first()
        if replacement is not None:
            raise InputError("notices", N_("This notice was already sent again."))
    first_batch = session.get(NoticeBatch, found[0].batch_id)
    run = session.get(BillingRun, runs.pop())
    if first_batch is None or run is None:  # pragma: no cover - foreign keys guarantee them
        raise InputError("notices", N_("There is no such notice."))
    ctx = _context(session, run)
    items = []
    for notice in found:
        bill = session.get(Bill, notice.bill_id)
        year = session.get(PropertyYear, bill.property_year_id) if bill else None
        prop = session.get(Property, notice.property_id)
        if bill is None or year is None or prop is None:  # pragma: no cover
            raise InputError("notices", N_("There is no such notice."))
        if bill.status != BillStatus.ACTIVE.value:
            raise InputError(
                "notices", N_("The bill was superseded; notify the bill that replaced it.")
            )
        items.append(BillForNotice(bill, year, prop.cadastral_number))
    numbers = _next_numbers(session, issued_on.year, len(items))
    codes = [new_access_code() for _ in items]
    sender_lines = _lines(first_batch.sender_address)
    contents = [
        _content(
            ctx,
            item,
            number=number,
            code=code,
            kind=NoticeKind.REMAILING.value,
            issued_on=issued_on,
            sender_name=first_batch.sender_name,
            sender_lines=sender_lines,
            how_to_pay=first_batch.how_to_pay,
            how_to_pay_en=first_batch.how_to_pay_en,
            base_url=portal_base_url,
            owner_name=original.owner_name,
            address=address_override or _lines(original.mailing_address),
            remailing_of=original.number,
        )
        for item, number, code, original in zip(items, numbers, codes, found, strict=True)
    ]
    return _store_batch(
        session,
        actor,
        ctx=ctx,
        kind=NoticeKind.REMAILING.value,
        issued_on=issued_on,
        sender_name=first_batch.sender_name,
        sender_address=first_batch.sender_address,
        how_to_pay=first_batch.how_to_pay,
        how_to_pay_en=first_batch.how_to_pay_en,
        items=items,
        contents=contents,
        codes=codes,
        secret=secret,
        remailing_of=found,
        workers=workers,
        fees=_remail_fees(first_batch, issued_on),
    )


# --------------------------------------------------------------------------- the clock


@dataclass(frozen=True)
class DashboardRow:
    """Where one billing run's notices stand against their deadline."""

    district: District
    run: BillingRun
    ordinance: Ordinance
    kind: str
    bills: int
    notified: int  # active bills with a mailed notice
    rendered: int  # active bills with a notice not yet mailed
    deadline: calendar.Deadline | None
    days_left: int | None
    note: str  # why there is no deadline, if there is none

    @property
    def not_notified(self) -> int:
        return self.bills - self.notified

    @property
    def overdue(self) -> bool:
        return self.days_left is not None and self.days_left < 0 and self.not_notified > 0


def _previous_mailing(session: Session, run: BillingRun) -> date | None:
    """The latest mailing date of the notices of earlier fiscal years of the ordinance."""
    value = session.exec(
        select(func.max(Notice.mailed_on))
        .select_from(Notice)
        .join(NoticeBatch, col(NoticeBatch.id) == col(Notice.batch_id))
        .join(BillingRun, col(BillingRun.id) == col(NoticeBatch.billing_run_id))
        .where(
            BillingRun.ordinance_id == run.ordinance_id,
            col(BillingRun.fiscal_year) < run.fiscal_year,
            col(Notice.mailed_on).is_not(None),
        )
    ).one()
    return value if isinstance(value, date) else None


def notice_deadline(
    session: Session, ordinance: Ordinance, run: BillingRun
) -> tuple[calendar.Deadline | None, str]:
    """The certified-mail deadline of a run's notices (§ 6653(5), RULES.md § 1.1): 30 days
    after the association received the ordinance for its first fiscal year; for a later
    year, one year after the previous year's notices went out (the calendar's reading)."""
    if kind_for_run(ordinance, run) == NoticeKind.INITIAL.value:
        if ordinance.received_by_association_on is None:
            return None, N_("The date the association received the ordinance is not recorded.")
        return calendar.initial_notice_due(ordinance.received_by_association_on), ""
    previous = _previous_mailing(session, run)
    if previous is None:
        if ordinance.received_by_association_on is None:
            return None, N_("The previous year's notices have not been mailed.")
        previous = calendar.initial_notice_due(ordinance.received_by_association_on).date
    return calendar.yearly_notice_due(previous), ""


def dashboard(
    session: Session, *, district_ids: Collection[int] | None, today: date
) -> list[DashboardRow]:
    """Every active billing run (of the districts given; None: all) with its owners not yet
    notified, the deadline and the days left (negative: overdue)."""
    stmt = select(BillingRun).where(BillingRun.status == BillingRunStatus.ACTIVE.value)
    if district_ids is not None:
        stmt = stmt.where(col(BillingRun.district_id).in_(list(district_ids)))
    runs = list(session.exec(stmt.order_by(col(BillingRun.fiscal_year).desc())))
    rows = []
    for run in runs:
        district = session.get(District, run.district_id)
        ordinance = session.get(Ordinance, run.ordinance_id)
        if district is None or ordinance is None:  # pragma: no cover
            continue
        bills = int(
            session.exec(
                select(func.count())
                .select_from(Bill)
                .where(Bill.billing_run_id == run.id, Bill.status == BillStatus.ACTIVE.value)
            ).one()
        )
        mailed = col(Notice.mailed_on).is_not(None)
        counts = dict(
            session.exec(
                select(
                    col(Notice.mailed_on).is_not(None), func.count(func.distinct(Notice.bill_id))
                )
                .join(Bill, col(Bill.id) == col(Notice.bill_id))
                .where(Bill.billing_run_id == run.id, Bill.status == BillStatus.ACTIVE.value)
                .group_by(mailed)
            ).all()
        )
        notified = int(counts.get(True, 0))
        rendered = int(counts.get(False, 0))
        deadline, note = notice_deadline(session, ordinance, run)
        rows.append(
            DashboardRow(
                district=district,
                run=run,
                ordinance=ordinance,
                kind=kind_for_run(ordinance, run),
                bills=bills,
                notified=notified,
                rendered=rendered,
                deadline=deadline,
                days_left=calendar.days_left(deadline, today) if deadline else None,
                note=note,
            )
        )
    return rows


def schedule_yearly_notices(
    *,
    session: Session,
    today: date,
    portal_base_url: str,
    secret: str,
    actor: audit.Actor = audit.SYSTEM,
    lead_days: int = 30,
    workers: int | None = None,
) -> list[NoticeBatch]:
    """Daily job: for every later year of an ordinance's term whose yearly notice is due
    within ``lead_days`` (§ 6653(5)), render the notices of the year's active bills that have
    none, with the sender and payment text of the district's latest run. Mailing stays a
    person's act (article numbers, the post office). The caller commits."""
    made = []
    for row in dashboard(session, district_ids=None, today=today):
        if row.kind != NoticeKind.YEARLY.value or row.deadline is None:
            continue
        if row.deadline.date - timedelta(days=lead_days) > today:
            continue
        if not _bills_to_notify(session, row.run, None):
            continue
        previous = session.exec(
            select(NoticeBatch)
            .where(NoticeBatch.district_id == row.district.id)
            .order_by(col(NoticeBatch.created_at).desc(), col(NoticeBatch.id).desc())
        ).first()
        if previous is None:
            continue  # the first notices are a person's: sender and payment text unknown
        made.append(
            create_batch(
                session=session,
                actor=actor,
                billing_run_id=row.run.id or 0,
                issued_on=today,
                sender_name=previous.sender_name,
                sender_address=previous.sender_address,
                how_to_pay=previous.how_to_pay,
                how_to_pay_en=previous.how_to_pay_en or None,
                portal_base_url=portal_base_url,
                secret=secret,
                workers=workers,
            )
        )
    return made


def batches(session: Session, district_ids: Collection[int] | None) -> list[NoticeBatch]:
    stmt = select(NoticeBatch).order_by(col(NoticeBatch.created_at).desc())
    if district_ids is not None:
        stmt = stmt.where(col(NoticeBatch.district_id).in_(list(district_ids)))
    return list(session.exec(stmt))


# Where a notice stands in the mail, as the run's page filters it: not yet mailed; mailed
# with no report yet; or the latest delivery report (DeliveryStatus).
NOT_MAILED = "not_mailed"
AWAITING = "awaiting"
RETURNED_ANY = "returned"  # any of RETURNED
DELIVERY_FILTERS = (
    NOT_MAILED,
    AWAITING,
    DeliveryStatus.DELIVERED.value,
    RETURNED_ANY,
    DeliveryStatus.RETURNED_UNCLAIMED.value,
    DeliveryStatus.REFUSED.value,
    DeliveryStatus.UNDELIVERABLE.value,
)
BATCH_PAGE_SIZE = 100


def _mail_status() -> Any:
    """SQL: the notice's standing (``NOT_MAILED``, ``AWAITING`` or its latest report)."""
    from sqlalchemy import case

    latest = (
        select(DeliveryEvent.status)
        .where(DeliveryEvent.notice_id == Notice.id)
        .order_by(col(DeliveryEvent.occurred_on).desc(), col(DeliveryEvent.id).desc())
        .limit(1)
        .correlate(Notice)
        .scalar_subquery()
    )
    return case(
        (col(Notice.mailed_on).is_(None), NOT_MAILED), else_=func.coalesce(latest, AWAITING)
    )


@dataclass(frozen=True)
class BatchPage:
    """One page of a run's notices under a delivery filter, with the count of each status."""

    notices: list[Notice]
    counts: dict[str, int]  # every DELIVERY_FILTERS key (RETURNED_ANY: the three returns)
    info: Any  # paging.PageInfo
    status: str  # the filter ("" for all)


def batch_page(
    session: Session, batch_id: int, *, status: str = "", page: int = 1, per_page: int = 0
) -> BatchPage:
    """The run's notices (by number) with the delivery ``status`` asked for, one page."""
    from tid.services.paging import page_info

    per_page = per_page or BATCH_PAGE_SIZE
    standing = _mail_status()
    inner: Any = select(col(Notice.id).label("id"), standing.label("st")).where(
        Notice.batch_id == batch_id
    )
    sub = inner.subquery()
    counts = {key: 0 for key in DELIVERY_FILTERS}
    for key, n in session.exec(select(sub.c.st, func.count()).group_by(sub.c.st)).all():
        counts[str(key)] = int(n)
    counts[RETURNED_ANY] = sum(counts[k] for k in RETURNED)
    wanted = status if status in DELIVERY_FILTERS else ""
    where: list[Any] = [Notice.batch_id == batch_id]
    if wanted == RETURNED_ANY:
        where.append(standing.in_(sorted(RETURNED)))
    elif wanted:
        where.append(standing == wanted)
    total = sum(counts[k] for k in DELIVERY_FILTERS if k != RETURNED_ANY)
    shown = counts[wanted] if wanted else total
    info = page_info(shown, page, per_page)
    rows = list(
        session.exec(
            select(Notice)
            .where(*where)
            .order_by(col(Notice.number))
            .offset(info.offset)
            .limit(info.per_page)
        )
    )
    return BatchPage(notices=rows, counts=counts, info=info, status=wanted)


def batch_notices(session: Session, batch_id: int) -> list[Notice]:
    return list(
        session.exec(select(Notice).where(Notice.batch_id == batch_id).order_by(col(Notice.number)))
    )
