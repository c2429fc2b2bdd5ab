"""A batch mailed: ``mail_batch`` records the mailing date, postage and fee, archives the PS
Form 3877 manifest, freezes the notices and marks their bills mailed.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tid.models import Notice, NoticeBatch
from tid.render import manifest as manifest_render
from tid.rules.errors import N_, InputError
from tid.services.archive.store import archive, archived_bytes
from tid.services.audit_trail import audit, record_names
from tid.services.notices.contents import text_lines
from tid.services.notices.fees import batch_fees, piece_amount


def manifest_rows(*, session: Session, batch_id: int) -> list[manifest_render.ManifestRow]:
    """The manifest's rows: the notices with an article number, in its order (their four
    columns read, not the notices: a run's page asks for them to find its draft)."""
    found = session.exec(
        select(Notice.article_number, Notice.owner_name, Notice.mailing_address, Notice.number)
        .where(Notice.batch_id == batch_id, col(Notice.article_number).is_not(None))
        .order_by(col(Notice.article_number))
    )
    return [
        manifest_render.ManifestRow(
            article_number=article or "",
            name=owner,
            address=", ".join(text_lines(address)),
            notice_number=number,
        )
        for article, owner, address, number in found
    ]


def manifest_pdf(
    *,
    session: Session,
    batch: NoticeBatch,
    postage: Decimal | None = None,
    fee: Decimal | None = None,
) -> bytes:
    """The PS Form 3877 manifest of a batch: the archived one once mailed, else a draft
    with the run's postage and fees (set before it is printed)."""
    if batch.manifest_sha256:
        return archived_bytes(session=session, sha256=batch.manifest_sha256)
    draft = manifest_draft(session=session, batch=batch)
    if postage is not None:
        draft["postage"] = postage
    if fee is not None:
        draft["fee"] = fee
    return render_draft(draft)


def manifest_draft(*, session: Session, batch: NoticeBatch) -> dict[str, Any]:
    """All a run's draft manifest shows, read without laying it out: its rows (the notices
    with an article number: the number, the owner, the address, the notice), the sender,
    the postage and fees per piece, the mailing date and the run's name."""
    fees = batch_fees(batch)
    return {
        "rows": manifest_rows(session=session, batch_id=batch.id or 0),
        "sender_name": batch.sender_name,
        "sender_lines": text_lines(batch.sender_address),
        "mailed_on": batch.mailed_on,
        "postage": fees.postage,
        "fee": fees.certified_fee,
        "return_receipt_fee": fees.return_receipt_fee,
        "batch_label": batch_label(batch),
    }


def draft_name(draft: dict[str, Any], batch_id: int) -> str:
    """The name a draft manifest is kept by (tid.render.pdf ``found_named``): the run and a
    digest of everything it shows, so a run whose article numbers, fees or notices changed
    has another name and its old draft is never served for it."""
    shown = repr(sorted(draft.items(), key=lambda item: item[0])).encode()
    return f"ps3877\x00{batch_id}\x00{hashlib.sha256(shown).hexdigest()}"


def render_draft(draft: dict[str, Any]) -> bytes:
    """A draft manifest (:func:`manifest_draft`) laid out as the PS Form 3877's PDF."""
    return manifest_render.render_manifest(**draft)


def batch_label(batch: NoticeBatch) -> str:
    """The run as people name it everywhere ("Notice run 3": its number in the district)."""
    return record_names.batch_name(batch)


def check_mailing(*, session: Session, batch_id: int, mailed_on: date, today: date) -> NoticeBatch:
    """What can be known before a run is mailed, each refusal naming its field: the run is
    not mailed yet, the mailing date is neither in the future nor before the notices' date,
    and every notice has its article number."""
    batch = session.get(NoticeBatch, batch_id)
    if batch is None:
        raise InputError("batch", N_("There is no such notice run."))
    if batch.mailed_on is not None:
        raise InputError("mailed_on", N_("This notice run was already mailed."))
    if mailed_on > today:
        raise InputError("mailed_on", N_("The mailing date cannot be in the future."))
    if mailed_on < batch.issued_on:
        raise InputError("mailed_on", N_("The mailing date cannot be before the notices' date."))
    missing = session.exec(
        select(Notice.id)
        .where(Notice.batch_id == batch_id, col(Notice.article_number).is_(None))
        .limit(1)
    ).first()
    if missing is not None:
        raise InputError(
            "article_numbers", N_("Every notice needs its article number before mailing.")
        )
    return batch


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
    batch = check_mailing(session=session, batch_id=batch_id, mailed_on=mailed_on, today=today)
    fees = batch_fees(batch)
    postage_amount = piece_amount(postage, "postage") if postage not in (None, "") else fees.postage
    fee_amount = (
        piece_amount(certified_fee, "certified_fee")
        if certified_fee not in (None, "")
        else fees.certified_fee
    )
    notices = list(session.exec(select(Notice).where(Notice.batch_id == batch_id)))
    before = audit.snapshot(batch)
    batch.mailed_on = mailed_on
    batch.postage = postage_amount
    batch.certified_fee = fee_amount
    batch.return_receipt_fee = fees.return_receipt_fee
    manifest = manifest_render.render_manifest(
        manifest_rows(session=session, batch_id=batch_id),
        sender_name=batch.sender_name,
        sender_lines=text_lines(batch.sender_address),
        mailed_on=mailed_on,
        postage=postage_amount,
        fee=fee_amount,
        return_receipt_fee=fees.return_receipt_fee,
        batch_label=batch_label(batch),
    )
    batch.manifest_sha256 = archive(session=session, content=manifest)
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
        session=session,
        actor=actor,
        action="notice_batch.mail",
        entity=batch,
        before=before,
        after=audit.snapshot(batch),
    )
    return batch
