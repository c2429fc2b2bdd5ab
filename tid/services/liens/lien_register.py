"""The register of the other liens on a property, kept true: a lien recorded wrongly is
corrected with a reason, and a lien the registry has cancelled (paid off, released by its
holder) is marked cancelled with its day and reason — kept, no longer ranked. Every change
leaves its before and after in the audit trail, which is the lien's history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tid.models import Property, PropertyLien
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district
from tid.services.liens import impost_lien as liens

RECORDED = "recorded"
CANCELLED = "cancelled"
NO_LIEN = N_("There is no such lien on this property.")
NO_REASON = N_("Say why (it is kept in the lien's history).")
ALREADY_CANCELLED = N_("This lien is already cancelled.")


def lien_of(*, session: Session, property_id: int, lien_id: int) -> PropertyLien:
    lien = session.get(PropertyLien, lien_id)
    if lien is None or lien.property_id != property_id:
        raise InputError("lien", NO_LIEN)
    return lien


def _locked_lien(session: Session, property_id: int, lien_id: int) -> PropertyLien:
    """The lien, read once its district's other writers are done (a correction or a
    cancellation decides on the lien as the one before it left it)."""
    prop = session.get(Property, property_id)
    if prop is not None:
        lock_district(session=session, district_id=prop.district_id)
    return lien_of(session=session, property_id=property_id, lien_id=lien_id)


def _refuse(problems: list[Finding]) -> None:
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)


@dataclass(frozen=True)
class Correction:
    """A lien's fields as corrected."""

    kind: str
    holder: str
    constituted_on: date
    amount: Decimal
    reference: str


NOTHING_TO_CORRECT = N_("The lien already reads so: nothing to correct.")


def _reads_already(lien: PropertyLien, correction: Correction) -> bool:
    """Whether the correction leaves every field as the lien has it."""
    return (
        lien.kind == correction.kind
        and lien.holder == correction.holder.strip()[:200]
        and lien.constituted_on == correction.constituted_on
        and lien.amount == correction.amount
        and lien.reference == correction.reference.strip()[:200]
    )


def correct_lien(
    *,
    session: Session,
    actor: audit.Actor,
    property_id: int,
    lien_id: int,
    correction: Correction,
    reason: str,
    today: date,
) -> PropertyLien:
    """Correct a recorded lien's fields, with the reason (all or nothing)."""
    lien = _locked_lien(session, property_id, lien_id)
    problems = liens.lien_problems(
        kind=correction.kind,
        holder=correction.holder,
        constituted_on=correction.constituted_on,
        amount=correction.amount,
        today=today,
    )
    if not reason.strip():
        problems.append(Finding("reason", NO_REASON))
    _refuse(problems)
    if _reads_already(lien, correction):
        raise InputError("kind", NOTHING_TO_CORRECT)
    before = audit.snapshot(lien)
    lien.kind = correction.kind
    lien.holder = correction.holder.strip()[:200]
    lien.constituted_on = correction.constituted_on
    lien.amount = correction.amount
    lien.reference = correction.reference.strip()[:200]
    session.add(lien)
    session.flush()
    after = {**(audit.snapshot(lien) or {}), "reason": reason.strip()[:500]}
    audit.record(
        session=session, actor=actor, action="lien.correct", entity=lien, before=before, after=after
    )
    return lien


def cancel_lien(
    *,
    session: Session,
    actor: audit.Actor,
    property_id: int,
    lien_id: int,
    cancelled_on: date,
    reason: str,
    today: date,
) -> PropertyLien:
    """Mark a recorded lien cancelled on ``cancelled_on`` (not in the future, not before it
    was constituted), with the reason: kept in the register, no longer ranked."""
    lien = _locked_lien(session, property_id, lien_id)
    problems: list[Finding] = []
    if lien.status == CANCELLED:
        problems.append(Finding("cancelled_on", ALREADY_CANCELLED))
    elif cancelled_on > today:
        problems.append(Finding("cancelled_on", N_("The date cannot be in the future.")))
    elif cancelled_on < lien.constituted_on:
        problems.append(
            Finding(
                "cancelled_on", N_("A lien is cancelled on or after the day it was constituted.")
            )
        )
    if not reason.strip():
        problems.append(Finding("cancel_reason", NO_REASON))
    _refuse(problems)
    before = audit.snapshot(lien)
    lien.status = CANCELLED
    lien.cancelled_on = cancelled_on
    lien.cancel_reason = reason.strip()[:500]
    session.add(lien)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="lien.cancel",
        entity=lien,
        before=before,
        after=audit.snapshot(lien),
    )
    return lien


def history(*, session: Session, lien_id: int) -> list[audit.Change]:
    """The lien's history: recorded, corrected (with the reason), cancelled."""
    return audit.trail(session=session, entity_type="property_lien", entity_id=lien_id)
