"""An owner's email address for a property's notices, by double opt-in.

In the portal, the owner whose notice's number and code opened it may leave an address to
receive the next notice's digital copy and a reminder before its due date. The certified-mail
notice stays the legal notice (21 LPRA § 6653(5)); the address is kept only for this.

- Leaving it sends a confirmation message with a link whose token is 128 bits drawn by
  :mod:`secrets`, kept only as its SHA-256 and good for :data:`CONFIRM_DAYS` days; only a
  confirmed address is ever written to. At most :data:`CONFIRMATIONS_PER_DAY` confirmation
  messages go out per property a day.
- The address serves the owner it was left for (the roll's owner of the property when it was
  left): a change of owner deletes it (the new owner did not consent), and an earlier owner's
  notice cannot leave one.
- Removing it — from the portal, or by the link in every message — deletes its row. The audit
  trail records that an address was left, confirmed or removed, never the address.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import smtplib
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, col, delete, select

from tid import mail
from tid.clock import utcnow
from tid.ids import parse_id
from tid.models import Notice, OwnerEmail, OwnerMessage, Property, PropertyYear
from tid.rules.errors import N_, Finding, InputError
from tid.rules.messages import Message, render
from tid.services.audit_trail import audit

PENDING = "pending"
CONFIRMED = "confirmed"
TOKEN_BYTES = 16
TOKEN_BITS = TOKEN_BYTES * 8  # 128 bits: the confirmation's and the removal link's
CONFIRM_DAYS = 7
CONFIRMATIONS_PER_DAY = 3
# The links' paths (tid/web/portal_email.py answers them).
CONFIRM_PATH = "/portal/email/confirm/"
STOP_PATH = "/portal/email/stop/"
PORTAL = audit.Actor("owner's portal")
BY_LINK = audit.Actor("owner's email link")

_ADDRESS = re.compile(r"[^@\s]{1,64}@[^@\s]{1,253}")
_LABEL = re.compile(r"(?!-)[^\W_](?:[\w-]{0,61}[^\W_])?", re.UNICODE)


def owner_key(name: str) -> str:
    """An owner's name as compared: case and spacing folded."""
    return " ".join(name.casefold().split())[:500]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Links:
    """Where the messages' links lead: the installation's address (``BASE_URL``)."""

    base_url: str

    def confirm(self, token: str) -> str:
        return self.base_url.rstrip("/") + CONFIRM_PATH + token

    def stop(self, token: str) -> str:
        return self.base_url.rstrip("/") + STOP_PATH + token

    def portal(self, number: str = "") -> str:
        return self.base_url.rstrip("/") + "/portal" + (f"?n={number}" if number else "")


# --------------------------------------------------------------------------- the owner


def current_owner(*, session: Session, property_id: int) -> str:
    """The property's owner as its latest roll line names it (folded), or ""."""
    name = session.exec(
        select(PropertyYear.owner_names)
        .where(PropertyYear.property_id == property_id)
        .order_by(col(PropertyYear.fiscal_year).desc())
    ).first()
    return owner_key(name or "")


def is_current_owner(*, session: Session, notice: Notice) -> bool:
    """Whether the notice was addressed to the property's owner today."""
    return owner_key(notice.owner_name) == current_owner(
        session=session, property_id=notice.property_id
    )


@dataclass(frozen=True)
class State:
    """What the portal shows of a property's address to the owner whose codes opened it."""

    confirmed: str  # the confirmed address, or ""
    confirmed_at: datetime | None
    pending: str  # an address waiting for its confirmation, or ""
    pending_until: datetime | None
    may_leave: bool  # False: the notice's owner no longer owns the property
    cadastral: str = ""


def state(*, session: Session, notice: Notice, now: datetime | None = None) -> State:
    now = now or utcnow()
    rows = _rows(session, notice.property_id)
    confirmed = next((r for r in rows if r.status == CONFIRMED), None)
    pending = next(
        (
            r
            for r in rows
            if r.status == PENDING and r.token_expires_at is not None and r.token_expires_at > now
        ),
        None,
    )
    mine = is_current_owner(session=session, notice=notice)
    return State(
        confirmed.address if confirmed and mine else "",
        confirmed.confirmed_at if confirmed and mine else None,
        pending.address if pending and mine else "",
        pending.token_expires_at if pending and mine else None,
        mine,
        _cadastral(session, notice.property_id),
    )


@dataclass(frozen=True)
class OnFile:
    """What the association sees of a property's address: whether there is one and since
    when, never the address (it is the owner's, for the messages alone)."""

    status: str  # confirmed | pending | ""
    since: datetime | None


def on_file(*, session: Session, property_id: int) -> OnFile:
    rows = _rows(session, property_id)
    confirmed = next((r for r in rows if r.status == CONFIRMED), None)
    if confirmed is not None:
        return OnFile(CONFIRMED, confirmed.confirmed_at)
    return OnFile(PENDING, rows[0].created_at) if rows else OnFile("", None)


def _rows(session: Session, property_id: int) -> list[OwnerEmail]:
    return list(
        session.exec(
            select(OwnerEmail)
            .where(OwnerEmail.property_id == property_id)
            .order_by(col(OwnerEmail.id).desc())
        )
    )


# --------------------------------------------------------------------------- leaving one


def address_problems(address: str) -> list[Finding]:
    """Whether ``address`` reads as an email address (name@domain.tld)."""
    text = address.strip()
    if not text:
        return [Finding("email", N_("Write your email address."))]
    local, _at, domain = text.rpartition("@")
    labels = domain.split(".")
    fits = (
        len(text) <= 254
        and _ADDRESS.fullmatch(text) is not None
        and text.isprintable()
        and not local.startswith(".")
        and not local.endswith(".")
        and ".." not in local
        and len(labels) >= 2
        and all(_LABEL.fullmatch(label) for label in labels)
        and not labels[-1].isdigit()
    )
    if not fits:
        return [Finding("email", N_("Write an email address like name@example.com."))]
    return []


def normalized(address: str) -> str:
    """An address as kept: its domain in lower case (the name's case is the mail server's)."""
    local, _at, domain = address.strip().rpartition("@")
    return f"{local}@{domain.lower()}"


def _sent_today(session: Session, property_id: int, now: datetime) -> int:
    return int(
        session.exec(
            select(func.count())
            .select_from(OwnerMessage)
            .where(
                OwnerMessage.property_id == property_id,
                OwnerMessage.kind == "confirm",
                col(OwnerMessage.created_at) >= now - timedelta(days=1),
            )
        ).one()
    )


def _may_ask(session: Session, notice: Notice, address: str, now: datetime) -> None:
    """Refuse what may not be asked: a bad address, an earlier owner's notice, an address
    already confirmed, too many confirmations today."""
    problems = address_problems(address)
    if problems:
        raise InputError(problems[0].field, problems[0].message)
    if not is_current_owner(session=session, notice=notice):
        raise InputError(
            "email",
            N_(
                "The property has passed to another owner: only its owner now may leave an "
                "address for its notices."
            ),
        )
    for row in _rows(session, notice.property_id):
        if row.status == CONFIRMED and row.address.casefold() == address.casefold():
            raise InputError("email", N_("This address is already confirmed for these notices."))
    if _sent_today(session, notice.property_id, now) >= CONFIRMATIONS_PER_DAY:
        raise InputError(
            "email",
            Message(
                "We already sent %(count)s confirmation messages for this property today. "
                "Try again tomorrow.",
                count=CONFIRMATIONS_PER_DAY,
            ),
        )


def ask_confirmation(
    *,
    session: Session,
    notice: Notice,
    address: str,
    language: str,
    links: Links,
    settings: mail.MailSettings,
    secret: str,
    now: datetime | None = None,
) -> OwnerEmail:
    """Leave ``address`` for the notices of the notice's property, waiting for its
    confirmation, and send the message that asks for it (the caller commits; a message that
    could not be sent leaves nothing)."""
    now = now or utcnow()
    address = normalized(address)
    _may_ask(session, notice, address, now)
    session.exec(
        delete(OwnerEmail).where(
            col(OwnerEmail.property_id) == notice.property_id, col(OwnerEmail.status) == PENDING
        )
    )
    token = secrets.token_urlsafe(TOKEN_BYTES)
    row = OwnerEmail(
        district_id=notice.district_id,
        property_id=notice.property_id,
        owner_key=owner_key(notice.owner_name),
        address=address,
        language=language if language in ("es", "en") else "es",
        status=PENDING,
        token_hash=token_hash(token),
        token_expires_at=now + timedelta(days=CONFIRM_DAYS),
        created_at=now,
    )
    message = OwnerMessage(
        property_id=notice.property_id,
        kind="confirm",
        key=f"confirm:{secrets.token_hex(12)}",
        created_at=now,
    )
    session.add_all([row, message])
    session.flush()
    _audit(session, PORTAL, "owner_email.add", notice.property_id, {"status": PENDING})
    subject, body = compose_confirmation(
        cadastral=_cadastral(session, notice.property_id),
        confirm=links.confirm(token),
        stop=links.stop(stop_token(row, secret)),
        days=CONFIRM_DAYS,
        first=row.language,
    )
    try:
        mail.send(
            settings, [address], subject, body, headers=unsubscribe_headers(links, row, secret)
        )
    except (smtplib.SMTPException, OSError):
        raise InputError(
            "email", N_("We could not send the message now. Try again in a few minutes.")
        ) from None
    message.status, message.sent_at = "sent", utcnow()
    session.add(message)
    return row


def cadastral_of(*, session: Session, row: OwnerEmail) -> str:
    """The cadastral number of the property an address is for (what a link's page shows)."""
    return _cadastral(session, row.property_id)


def _cadastral(session: Session, property_id: int) -> str:
    prop = session.get(Property, property_id)
    return prop.cadastral_number if prop else ""


def _audit(
    session: Session, actor: audit.Actor, action: str, property_id: int, after: dict[str, str]
) -> None:
    """The trail of a property's address: what happened to it, never the address."""
    audit.record(
        session=session, actor=actor, action=action, entity=("property", property_id), after=after
    )


def bilingual(lines: list[Message], first: str = "es") -> str:
    """Lines of messages in both languages, ``first`` first."""
    second = "en" if first == "es" else "es"
    heading = {"es": "— Español —", "en": "— English —"}
    parts = [*(render(m, first) for m in lines), "", heading[second], ""]
    parts += [render(m, second) for m in lines]
    return "\n\n".join(p for p in parts if p) + "\n"


LEGAL_NOTE = N_(
    "The notice sent by certified mail remains the legal notice; these messages only bring "
    "a copy and a reminder. The address is kept only for this."
)


def compose_confirmation(
    *, cadastral: str, confirm: str, stop: str, days: int, first: str = "es"
) -> tuple[str, str]:
    """The confirmation message: its subject and body, in both languages."""
    subject = "Confirme su correo / Confirm your email"
    lines = [
        Message(
            "Someone (we hope you) left this address in the owner's portal to receive the "
            "notices of property %(cadastral)s by email: a digital copy of the next notice and "
            "a reminder before its due date.",
            cadastral=cadastral,
        ),
        Message(
            "To confirm it, open this link within %(days)s days: %(link)s",
            days=days,
            link=confirm,
        ),
        Message(LEGAL_NOTE),
        Message(
            "If you did not ask for this, do nothing: without the confirmation the address is "
            "not used, and it is deleted when the link expires. To delete it now: %(link)s",
            link=stop,
        ),
    ]
    return subject, bilingual(lines, first)


# --------------------------------------------------------------------------- confirming


@dataclass(frozen=True)
class Confirmation:
    """What following a confirmation link did: ``confirmed``, ``expired`` or ``unknown``
    (a link never given, already used, or of an address removed since)."""

    outcome: str
    cadastral: str = ""


def pending_by_token(*, session: Session, token: str) -> OwnerEmail | None:
    if not token or len(token) > 100:
        return None
    return session.exec(
        select(OwnerEmail).where(
            OwnerEmail.token_hash == token_hash(token), OwnerEmail.status == PENDING
        )
    ).first()


def confirm(*, session: Session, token: str, now: datetime | None = None) -> Confirmation:
    """Confirm the address whose link carries ``token``: it replaces the property's address
    confirmed before (the caller commits)."""
    now = now or utcnow()
    row = pending_by_token(session=session, token=token)
    if row is None:
        return Confirmation("unknown")
    cadastral = _cadastral(session, row.property_id)
    if row.token_expires_at is None or row.token_expires_at <= now:
        session.delete(row)
        session.flush()
        _audit(session, BY_LINK, "owner_email.remove", row.property_id, {"removed_by": "expired"})
        return Confirmation("expired", cadastral)
    if row.owner_key != current_owner(session=session, property_id=row.property_id):
        session.delete(row)
        return Confirmation("unknown")
    session.exec(
        delete(OwnerEmail).where(
            col(OwnerEmail.property_id) == row.property_id, col(OwnerEmail.id) != row.id
        )
    )
    row.status, row.confirmed_at = CONFIRMED, now
    row.token_hash, row.token_expires_at = None, None
    session.add(row)
    session.flush()
    _audit(session, BY_LINK, "owner_email.confirm", row.property_id, {"status": CONFIRMED})
    return Confirmation("confirmed", cadastral)


# --------------------------------------------------------------------------- removing


def stop_token(row: OwnerEmail, secret: str) -> str:
    """The removal link's token of an address: its number and 128 bits of an HMAC of it
    (nothing to store; a removed address's token leads nowhere)."""
    return f"{row.id}.{_stop_mac(row, secret)}"


def _stop_mac(row: OwnerEmail, secret: str) -> str:
    made = f"owner-email-stop:{row.id}:{int(row.created_at.timestamp())}".encode()
    digest = hmac.new(secret.encode(), made, hashlib.sha256).digest()[:TOKEN_BYTES]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def unsubscribe_headers(links: Links, row: OwnerEmail, secret: str) -> dict[str, str]:
    """The headers that let a mail program offer the removal in one click (RFC 8058)."""
    return {
        "List-Unsubscribe": f"<{links.stop(stop_token(row, secret))}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "Auto-Submitted": "auto-generated",
    }


def by_stop_token(*, session: Session, token: str, secret: str) -> OwnerEmail | None:
    number, _dot, mac = token.partition(".")
    row_id = parse_id(number)
    if row_id is None or len(token) > 100:
        return None
    row = session.get(OwnerEmail, row_id)
    if row is None or not hmac.compare_digest(mac.encode(), _stop_mac(row, secret).encode()):
        return None
    return row


def remove_by_link(*, session: Session, token: str, secret: str) -> bool:
    """Delete the address the removal link names; False if none is kept for it."""
    row = by_stop_token(session=session, token=token, secret=secret)
    if row is None:
        return False
    _remove(session, BY_LINK, row.property_id, "link")
    return True


def remove(*, session: Session, notice: Notice) -> bool:
    """The owner deletes the property's address (confirmed or waiting) from the portal."""
    if not is_current_owner(session=session, notice=notice):
        return False
    return _remove(session, PORTAL, notice.property_id, "portal")


def _remove(session: Session, actor: audit.Actor, property_id: int, by: str) -> bool:
    rows = _rows(session, property_id)
    for row in rows:
        session.delete(row)
    if rows:
        session.flush()
        _audit(session, actor, "owner_email.remove", property_id, {"removed_by": by})
    return bool(rows)


def drop_for_new_owner(
    *, session: Session, actor: audit.Actor, property_ids: Collection[int]
) -> int:
    """A change of owner: the properties' addresses are deleted (the new owner did not leave
    them). Returns how many properties had one."""
    dropped = 0
    ids = sorted(set(property_ids))
    for start in range(0, len(ids), 1000):
        held = session.exec(
            select(OwnerEmail.property_id)
            .where(col(OwnerEmail.property_id).in_(ids[start : start + 1000]))
            .distinct()
        ).all()
        for property_id in held:
            dropped += _remove(session, actor, property_id, "transfer")
    return dropped


def prune(*, session: Session, now: datetime | None = None) -> int:
    """Delete the addresses whose confirmation expired unconfirmed, and those of an owner who
    no longer owns the property (a roll corrected in place); returns how many."""
    now = now or utcnow()
    # The confirmations asked (no address in them) count only for the day's limit.
    session.exec(
        delete(OwnerMessage).where(
            col(OwnerMessage.kind) == "confirm",
            col(OwnerMessage.created_at) < now - timedelta(days=2),
        )
    )
    gone = 0
    moved: set[int] = set()
    for row in session.exec(select(OwnerEmail)).all():
        if row.property_id in moved:
            continue
        if row.owner_key != current_owner(session=session, property_id=row.property_id):
            moved.add(row.property_id)
            gone += _remove(session, audit.SYSTEM, row.property_id, "transfer")
        elif row.status == PENDING and (
            row.token_expires_at is None or row.token_expires_at <= now
        ):
            session.delete(row)
            session.flush()
            _audit(
                session,
                audit.SYSTEM,
                "owner_email.remove",
                row.property_id,
                {"removed_by": "expired"},
            )
            gone += 1
    return gone
