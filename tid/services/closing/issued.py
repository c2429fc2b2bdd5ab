"""Documents issued about a property (a payoff quote, the lien certificate, a release): each
recorded with a reference a person can quote (``P-2026-000001``), a verification code no one
can guess (16 characters of a 32-letter alphabet: 80 bits from :mod:`secrets`), and the
SHA-256 of the PDF as issued, archived once (tid/services/archive/store.py).

The verification page (``/verificar/<code>``) reads a document back by its code, says what it
said and what happened to the property's account since, and checks an uploaded PDF against
the archived hash."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, func, select

from tid.models import Bill, District, IssuedDocument, JournalEntry, JournalLine, Property
from tid.rules.errors import N_, InputError
from tid.rules.money import ZERO
from tid.rules.vocab.closing_terms import ISSUED_KINDS
from tid.services.archive.store import archive
from tid.services.audit_trail import audit

PAYOFF = "payoff"
LIEN_CERTIFICATE = "lien_certificate"
RELEASE = "release"
# Each kind's reference letter, with its name (tid/rules/vocab/closing_terms.py).
PREFIXES = {kind.code: kind.prefix for kind in ISSUED_KINDS}

# 32 letters and digits no one confuses (no I, O, 0, 1): 5 bits each, 16 of them = 80 bits.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 16
CODE_BITS = CODE_LENGTH * 5

NO_SUCH_PROPERTY = N_("There is no such property in this district.")


def new_code() -> str:
    """A verification code: 16 characters drawn by :mod:`secrets` (80 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def shown_code(code: str) -> str:
    """The code as printed: four groups of four (``ABCD-EFGH-JKLM-NPQR``)."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def read_code(text: str) -> str:
    """A code as typed (any case, with dashes or spaces) in its stored form."""
    return "".join(ch for ch in text.upper() if ch.isalnum())[: CODE_LENGTH + 4]


def _reference(session: Session, kind: str, on: date) -> str:
    """The next reference of ``kind`` in the year of ``on``: ``P-2026-000001``."""
    prefix = f"{PREFIXES[kind]}-{on.year}-"
    last = session.exec(
        select(func.max(IssuedDocument.reference)).where(
            col(IssuedDocument.reference).startswith(prefix)
        )
    ).one()
    number = int(str(last).rsplit("-", 1)[1]) + 1 if last else 1
    return f"{prefix}{number:06d}"


@dataclass(frozen=True)
class Figures:
    """What a document says a property owes: the impost secured by the lien, the late
    charges, the total, the interest each day after adds (the daily accrual, to the cent),
    and a line per bill (with the one-time charge landing after the day, if any)."""

    secured: Decimal = ZERO
    charges: Decimal = ZERO
    per_day: Decimal = ZERO
    lines: tuple[dict[str, str], ...] = ()

    @property
    def total(self) -> Decimal:
        return self.secured + self.charges

    @property
    def one_time_charges(self) -> list[OneTimeCharge]:
        return one_time_charges(self.lines)


@dataclass(frozen=True)
class OneTimeCharge:
    """A one-time charge that lands after a quote's day: the surcharge of a bill whose due
    date passes (``on`` is the first day it is owed), and, for a bill not yet late on the day
    after the quote's, the daily interest it adds from then (``per_day``)."""

    on: date
    fiscal_year: str
    due_date: date
    surcharge: Decimal
    per_day: Decimal | None


def one_time_charges(lines: Iterable[dict[str, Any]]) -> list[OneTimeCharge]:
    """The one-time charges a document's lines say land in the days after its day, by day."""
    found = [
        OneTimeCharge(
            date.fromisoformat(line["lands_on"]),
            str(line["fiscal_year"]),
            date.fromisoformat(str(line["due_date"])),
            Decimal(line["lands_surcharge"]),
            Decimal(line["lands_per_day"]) if line.get("lands_per_day") else None,
        )
        for line in lines
        if line.get("lands_on")
    ]
    return sorted(found, key=lambda charge: (charge.on, charge.fiscal_year))


def says_one_time_charges(lines: Iterable[dict[str, Any]]) -> bool:
    """Whether a document's lines say which one-time charges land after its day (those
    issued before they did say nothing of them, which is not "none")."""
    listed = list(lines)
    return not listed or any(line.get("lands_on") is not None for line in listed)


def issue(
    *,
    session: Session,
    actor: audit.Actor,
    kind: str,
    district_id: int,
    property_id: int,
    issued_on: date,
    good_through: date | None,
    figures: Figures,
    issued_by: str = "",
) -> IssuedDocument:
    """Record a document about to be issued (its PDF follows: :func:`attach_pdf`), in the
    name of ``issued_by`` (a person's name; by default the actor's label)."""
    prop = session.get(Property, property_id)
    district = session.get(District, district_id)
    if prop is None or district is None or prop.district_id != district_id:
        raise InputError("property", NO_SUCH_PROPERTY)
    document = IssuedDocument(
        kind=kind,
        reference=_reference(session, kind, issued_on),
        code=new_code(),
        district_id=district_id,
        property_id=property_id,
        cadastral_number=prop.cadastral_number,
        issued_on=issued_on,
        good_through=good_through,
        issued_by=(issued_by.strip() or actor.label)[:254],
        association=(district.association_name or district.name)[:200],
        secured=figures.secured,
        charges=figures.charges,
        total=figures.total,
        per_day=figures.per_day,
        lines=json.dumps(list(figures.lines)),
    )
    session.add(document)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action=f"{kind}.issue",
        entity=document,
        after=audit.snapshot(document, exclude=("code",)),
    )
    return document


def attach_pdf(*, session: Session, document: IssuedDocument, pdf: bytes) -> None:
    """Archive the PDF as issued and keep its SHA-256 with the document."""
    document.sha256 = archive(session=session, content=pdf)
    session.add(document)
    session.flush()


def lines_of(document: IssuedDocument) -> list[dict[str, Any]]:
    return list(json.loads(document.lines or "[]"))


def by_code(*, session: Session, code: str) -> IssuedDocument | None:
    """The document issued under this code (as typed), or None."""
    wanted = read_code(code)
    if len(wanted) != CODE_LENGTH:
        return None
    return session.exec(select(IssuedDocument).where(IssuedDocument.code == wanted)).first()


def by_reference(*, session: Session, district_id: int, reference: str) -> IssuedDocument | None:
    return session.exec(
        select(IssuedDocument).where(
            IssuedDocument.reference == reference.strip().upper(),
            IssuedDocument.district_id == district_id,
        )
    ).first()


def of_property(
    *, session: Session, property_id: int, kind: str | None = None
) -> list[IssuedDocument]:
    """The documents issued about a property, the latest first."""
    stmt = select(IssuedDocument).where(IssuedDocument.property_id == property_id)
    if kind is not None:
        stmt = stmt.where(IssuedDocument.kind == kind)
    return list(session.exec(stmt.order_by(col(IssuedDocument.id).desc())))


def matches(document: IssuedDocument, content: bytes) -> bool:
    """Whether ``content`` is, byte for byte, the PDF archived for the document."""
    return bool(document.sha256) and hashlib.sha256(content).hexdigest() == document.sha256


def entries_since(*, session: Session, document: IssuedDocument) -> int:
    """How many journal entries touched the property's bills after the document was issued
    (payments, credits, reversals, new bills): what was booked since."""
    stmt = (
        select(func.count(func.distinct(JournalEntry.id)))
        .select_from(JournalEntry)
        .join(JournalLine, col(JournalLine.entry_id) == col(JournalEntry.id))
        .join(Bill, col(Bill.id) == col(JournalLine.bill_id))
        .where(
            Bill.property_id == document.property_id,
            JournalEntry.district_id == document.district_id,
            col(JournalEntry.created_at) > document.created_at,
        )
    )
    return int(session.exec(stmt).one() or 0)
