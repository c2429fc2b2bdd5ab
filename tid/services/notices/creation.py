"""A billing run's notices created: which active bills have no notice yet, the sender and
payment text checked, and ``create_batch`` (§ 6653(5)).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import date
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from tid.models import (
    Bill,
    BillingRun,
    BillingRunStatus,
    BillStatus,
    Notice,
    NoticeBatch,
    Property,
    PropertyYear,
)
from tid.rules.errors import N_, InputError
from tid.services.audit_trail import audit
from tid.services.notices.access_codes import new_access_code
from tid.services.notices.contents import (
    BillForNotice,
    batch_context,
    kind_for_run,
    notice_content,
    text_lines,
)
from tid.services.notices.rendering import next_notice_numbers, store_batch


def bills_to_notify(
    *, session: Session, run: BillingRun, bill_ids: Collection[int] | None
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
    *, session: Session, run: BillingRun, bill_ids: Collection[int] | None = None
) -> int:
    """How many of the run's active bills have no notice yet."""
    stmt = select(func.count()).select_from(Bill).where(*_to_notify(run, bill_ids))
    return int(session.exec(stmt).one())


def _validate_sender(
    sender_name: str, sender_address: str, how_to_pay: str, how_to_pay_en: str | None = None
) -> None:
    if not sender_name.strip():
        raise InputError("sender_name", N_("Give the sender's name (the association)."))
    if not text_lines(sender_address):
        raise InputError("sender_address", N_("Give the sender's mailing address."))
    if not how_to_pay.strip():
        raise InputError("how_to_pay", N_("Say how the owners can pay."))
    if len(sender_name) > 200 or len(sender_address) > 1000 or len(how_to_pay) > 1500:
        raise InputError("how_to_pay", N_("This text is too long for the notice."))
    if how_to_pay_en is not None and not how_to_pay_en.strip():
        raise InputError("how_to_pay_en", N_("Say how the owners can pay, in English."))
    if how_to_pay_en is not None and len(how_to_pay_en) > 1500:
        raise InputError("how_to_pay_en", N_("This text is too long for the notice."))


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
    ctx = batch_context(session=session, run=run)
    kind = kind_for_run(ctx.ordinance, run)
    numbers = next_notice_numbers(session=session, year=issued_on.year, count=len(items))
    codes = [new_access_code() for _ in items]
    sender_lines = text_lines(sender_address)
    contents = [
        notice_content(
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
    return store_batch(
        session=session,
        actor=actor,
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
        if not bills_to_notify_count(session=session, run=run, bill_ids=bill_ids):
            raise InputError("billing_run", N_("Every bill of this run already has a notice."))
        return run, []
    items = bills_to_notify(session=session, run=run, bill_ids=bill_ids)
    if not items:
        raise InputError("billing_run", N_("Every bill of this run already has a notice."))
    return run, items
