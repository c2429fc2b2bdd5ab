"""Changes of a property's owner (21 LPRA § 6653(8): the impost is a lien that follows the
property, so the debt stays with it). The association records a sale — the day of the deed,
the new owner and their mailing address, a note of the deed or of the CRIM's change — or a
roll import finds one (a new owner for the same cadastral number). The property's latest roll
line takes the new owner and address, so the next notice goes to them; the transfer keeps
the owner and address before, and the audit trail both lines."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from sqlalchemy import func
from sqlmodel import Session, col, select

from tid.models import OwnershipTransfer, Property, PropertyYear, RollImport
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.services.audit_trail import audit
from tid.services.notices.contents import mailing_lines
from tid.services.owners import owner_email

RECORDED = "recorded"
FROM_ROLL = "roll"
_ZIP = re.compile(r"\d{5}(-\d{4})?")


@dataclass(frozen=True)
class NewOwner:
    """Whom a property passes to, and where their mail goes."""

    owner_names: str
    mailing_line1: str
    mailing_city: str
    mailing_zip: str
    mailing_urbanization: str = ""
    mailing_line2: str = ""
    mailing_state: str = "PR"


def owner_problems(owner: NewOwner) -> list[Finding]:
    problems = []
    if not owner.owner_names.strip():
        problems.append(Finding("owner_names", N_("Name the new owner.")))
    elif len(owner.owner_names) > 500:
        problems.append(Finding("owner_names", N_("This text is too long.")))
    if not owner.mailing_line1.strip():
        problems.append(Finding("mailing_line1", N_("Write the street and number, or the PO box.")))
    if not owner.mailing_city.strip():
        problems.append(Finding("mailing_city", N_("Write the town or city.")))
    if not re.fullmatch(r"[A-Za-z]{2}", owner.mailing_state.strip()):
        problems.append(Finding("mailing_state", N_("Write the state's two letters, like PR.")))
    if not _ZIP.fullmatch(owner.mailing_zip.strip()):
        problems.append(Finding("mailing_zip", N_("Write the ZIP code like 00901 or 00901-1234.")))
    return problems


def latest_year(*, session: Session, property_id: int) -> PropertyYear | None:
    """The property's latest roll line: the one its next notice is addressed from."""
    return session.exec(
        select(PropertyYear)
        .where(PropertyYear.property_id == property_id)
        .order_by(col(PropertyYear.fiscal_year).desc())
    ).first()


def _address(year: PropertyYear | None) -> str:
    return "\n".join(line for line in mailing_lines(year) if line) if year else ""


def record_transfer(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    property_id: int,
    transferred_on: date,
    owner: NewOwner,
    note: str,
    today: date,
) -> OwnershipTransfer:
    """Record a sale: the property's latest roll line passes to the new owner (all or
    nothing), the transfer keeps the one before."""
    prop = session.get(Property, property_id)
    if prop is None or prop.district_id != district_id:
        raise InputError("property", N_("There is no such property in this district."))
    problems = owner_problems(owner)
    if transferred_on > today:
        problems.insert(0, Finding("transferred_on", N_("The date cannot be in the future.")))
    if not note.strip():
        problems.append(Finding("note", N_("Note the deed or the CRIM's change it comes from.")))
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)
    year = latest_year(session=session, property_id=property_id)
    if year is None:
        raise InputError("property", N_("The property has no roll line to change."))
    transfer = OwnershipTransfer(
        district_id=district_id,
        property_id=property_id,
        transferred_on=transferred_on,
        previous_owner_names=year.owner_names,
        previous_mailing_address=_address(year),
        new_owner_names=owner.owner_names.strip()[:500],
        note=note.strip()[:500],
        source=RECORDED,
        actor=actor.label,
    )
    before = audit.snapshot(year)
    year.owner_names = transfer.new_owner_names
    year.mailing_urbanization = owner.mailing_urbanization.strip()[:120]
    year.mailing_line1 = owner.mailing_line1.strip()[:200]
    year.mailing_line2 = owner.mailing_line2.strip()[:200]
    year.mailing_city = owner.mailing_city.strip()[:80]
    year.mailing_state = owner.mailing_state.strip().upper()[:2]
    year.mailing_zip = owner.mailing_zip.strip()[:10]
    transfer.new_mailing_address = _address(year)
    session.add_all([year, transfer])
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="property_year.transfer",
        entity=year,
        before=before,
        after=audit.snapshot(year),
    )
    audit.record(
        session=session,
        actor=actor,
        action="transfer.record",
        entity=transfer,
        after=audit.snapshot(transfer),
    )
    owner_email.drop_for_new_owner(session=session, actor=actor, property_ids=[property_id])
    return transfer


def _same_owner(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def detect_from_roll(
    *, session: Session, actor: audit.Actor, roll_import: RollImport
) -> list[OwnershipTransfer]:
    """The properties a roll import names a new owner for (against each one's previous
    fiscal year's line), each recorded once as a transfer found by the roll."""
    fy = roll_import.fiscal_year
    current = {
        y.property_id: y
        for y in session.exec(
            select(PropertyYear).where(
                PropertyYear.district_id == roll_import.district_id,
                PropertyYear.fiscal_year == fy,
            )
        )
    }
    before = (
        select(col(PropertyYear.property_id), func.max(PropertyYear.fiscal_year))
        .where(PropertyYear.district_id == roll_import.district_id, PropertyYear.fiscal_year < fy)
        .group_by(col(PropertyYear.property_id))
    )
    previous_fy = dict(session.exec(before).all())
    found: list[OwnershipTransfer] = []
    for year in _previous_years(session, roll_import.district_id, previous_fy):
        now = current.get(year.property_id)
        if now is None or _same_owner(now.owner_names, year.owner_names):
            continue
        found.append(
            OwnershipTransfer(
                district_id=roll_import.district_id,
                property_id=year.property_id,
                transferred_on=roll_import.imported_at.date(),
                previous_owner_names=year.owner_names,
                previous_mailing_address=_address(year),
                new_owner_names=now.owner_names,
                new_mailing_address=_address(now),
                note="",
                source=FROM_ROLL,
                roll_import_id=roll_import.id,
                actor=actor.label,
            )
        )
    session.add_all(found)
    session.flush()
    owner_email.drop_for_new_owner(
        session=session, actor=actor, property_ids=[t.property_id for t in found]
    )
    return found


def _previous_years(
    session: Session, district_id: int, previous_fy: dict[int, str]
) -> list[PropertyYear]:
    years: list[PropertyYear] = []
    for fiscal_year in sorted(set(previous_fy.values())):
        ids = [p for p, fy in previous_fy.items() if fy == fiscal_year]
        for start in range(0, len(ids), 2000):
            years += session.exec(
                select(PropertyYear).where(
                    PropertyYear.district_id == district_id,
                    PropertyYear.fiscal_year == fiscal_year,
                    col(PropertyYear.property_id).in_(ids[start : start + 2000]),
                )
            ).all()
    return years


def transfers_of(*, session: Session, property_id: int) -> Sequence[OwnershipTransfer]:
    """A property's owners over time: its transfers, the latest first."""
    return session.exec(
        select(OwnershipTransfer)
        .where(OwnershipTransfer.property_id == property_id)
        .order_by(col(OwnershipTransfer.transferred_on).desc(), col(OwnershipTransfer.id).desc())
    ).all()
