"""Postage and fees per piece of certified mail.

What the post office charges per piece is known before the manifest (PS Form 3877) is
printed: a new run takes the defaults of tid/rules/params/district.toml in force on its
date, and the association can change them on the run's page until it is mailed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session

from tid.models import NoticeBatch
from tid.rules import params
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.money import parse_money
from tid.services.audit_trail import audit

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


def piece_amount(value: str | Decimal, field: str) -> Decimal:
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
            amounts[field] = piece_amount(value, field)
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
        session=session,
        actor=actor,
        action="notice_batch.fees",
        entity=batch,
        before=before,
        after=audit.snapshot(batch),
    )
    return batch
