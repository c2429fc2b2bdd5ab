"""Returned notices sent again: a new notice for the same bill (new number, new code, new
article number to come), linked to the returned one, in a batch of its own at today's prices.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from sqlmodel import Session, select

from tid.models import (
    Bill,
    BillingRun,
    BillStatus,
    Notice,
    NoticeBatch,
    NoticeKind,
    Property,
    PropertyYear,
)
from tid.rules.errors import N_, InputError
from tid.services.audit_trail import audit
from tid.services.notices.access_codes import new_access_code
from tid.services.notices.contents import BillForNotice, batch_context, notice_content, text_lines
from tid.services.notices.deliveries import RETURNED, latest_delivery
from tid.services.notices.fees import MailingFees, default_fees, default_receipt_fee
from tid.services.notices.rendering import next_notice_numbers, store_batch


def _remail_fees(original: NoticeBatch, issued_on: date) -> MailingFees:
    """A re-mailing pays today's prices, with a return receipt if the first run had one."""
    defaults = default_fees(issued_on)
    receipt = None
    if original.return_receipt_fee is not None:
        receipt = default_receipt_fee(issued_on)
    return MailingFees(defaults.postage, defaults.certified_fee, receipt)


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
    found, run_id = _returned(session, notice_ids)
    address_override = text_lines(new_address)
    if address_override and len(found) != 1:
        raise InputError("new_address", N_("A new address can be given for one notice at a time."))
    _check_not_sent_again(session, found)
    first_batch = session.get(NoticeBatch, found[0].batch_id)
    run = session.get(BillingRun, run_id)
    if first_batch is None or run is None:  # pragma: no cover - foreign keys guarantee them
        raise InputError("notices", N_("There is no such notice."))
    ctx = batch_context(session=session, run=run)
    items = [_active_bill(session, notice) for notice in found]
    numbers = next_notice_numbers(session=session, year=issued_on.year, count=len(items))
    codes = [new_access_code() for _ in items]
    sender_lines = text_lines(first_batch.sender_address)
    contents = [
        notice_content(
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
            address=address_override or text_lines(original.mailing_address),
            remailing_of=original.number,
        )
        for item, number, code, original in zip(items, numbers, codes, found, strict=True)
    ]
    return store_batch(
        session=session,
        actor=actor,
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


def _returned(session: Session, notice_ids: Sequence[int]) -> tuple[list[Notice], int]:
    """The notices chosen, all of one billing run, and that run's id."""
    if not notice_ids:
        raise InputError("notices", N_("Choose the returned notices to send again."))
    originals = [session.get(Notice, i) for i in notice_ids]
    if any(n is None for n in originals):
        raise InputError("notices", N_("There is no such notice."))
    found = [n for n in originals if n is not None]
    runs = {session.get(Bill, n.bill_id).billing_run_id for n in found}  # type: ignore[union-attr]
    if len(runs) != 1:
        raise InputError("notices", N_("Re-mail notices of one billing run at a time."))
    return found, runs.pop()


def _check_not_sent_again(session: Session, found: Sequence[Notice]) -> None:
    """Each notice was reported returned and has not been sent again yet."""
    status = latest_delivery(session=session, notice_ids=[n.id or 0 for n in found])
    for notice in found:
        event = status.get(notice.id or 0)
        if event is None or event.status not in RETURNED:
            raise InputError("notices", N_("Only a returned notice can be sent again."))
        replacement = session.exec(
            select(Notice).where(Notice.remailing_of_id == notice.id)
        ).first()
        if replacement is not None:
            raise InputError("notices", N_("This notice was already sent again."))


def _active_bill(session: Session, notice: Notice) -> BillForNotice:
    """The bill a returned notice was for, still the active one."""
    bill = session.get(Bill, notice.bill_id)
    year = session.get(PropertyYear, bill.property_year_id) if bill else None
    prop = session.get(Property, notice.property_id)
    if bill is None or year is None or prop is None:  # pragma: no cover
        raise InputError("notices", N_("There is no such notice."))
    if bill.status != BillStatus.ACTIVE.value:
        raise InputError(
            "notices", N_("The bill was superseded; notify the bill that replaced it.")
        )
    return BillForNotice(bill, year, prop.cadastral_number)
