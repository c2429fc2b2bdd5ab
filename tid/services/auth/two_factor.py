"""Two-factor sign-in: time-based one-time codes (TOTP, RFC 6238, with ``pyotp``) from an
authenticator app, enrolled by scanning a QR code, and ten one-time recovery codes (only
their SHA-256 is kept) for a lost phone.

A code is accepted for the current 30-second step and one step either side (clocks drift),
and never twice: the last accepted step is stored and a code of that step or an earlier one
is refused, atomically, so two parallel requests cannot both use one code.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Collection
from datetime import datetime

import pyotp
import segno
from sqlmodel import Session, col, select, update

from tid.clock import utcnow
from tid.config import parse_roles as parse_roles
from tid.models import RecoveryCode, User
from tid.services.audit_trail import audit

ISSUER = "tid"
RECOVERY_CODES = 10
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # 31 letters: 10 of them ≈ 49.5 bits


def is_required(user: User, roles: Collection[str]) -> bool:
    return user.role in roles


def is_enabled(user: User) -> bool:
    return bool(user.totp_secret and user.totp_enabled_at)


def new_secret() -> str:
    return pyotp.random_base32()


def provisioning_uri(secret: str, email: str) -> str:
    return pyotp.TOTP(secret).provisioning_uri(name=email, issuer_name=ISSUER)


def qr_svg_data_uri(uri: str) -> str:
    """The enrolment QR code as an SVG ``data:`` URI (the pages' CSP allows data: images)."""
    result: str = segno.make(uri, error="m").svg_data_uri(scale=5, dark="#000", light="#fff")
    return result


def _matching_step(secret: str, code: str, now: datetime) -> int | None:
    code = "".join(ch for ch in code if not ch.isspace())
    if len(code) != 6 or not code.isascii() or not code.isdigit():
        return None
    totp = pyotp.TOTP(secret)
    step = totp.timecode(now)
    for candidate in (step - 1, step, step + 1):
        if hmac.compare_digest(totp.generate_otp(candidate), code):
            return candidate
    return None


def verify(*, session: Session, user: User, code: str, now: datetime | None = None) -> bool:
    """Accept a code from the user's app once (a replayed code is refused)."""
    if not is_enabled(user) or user.totp_secret is None:
        return False
    step = _matching_step(user.totp_secret, code, now or utcnow())
    if step is None:
        return False
    used = session.exec(
        update(User)
        .where(
            col(User.id) == user.id,
            (col(User.totp_last_step).is_(None)) | (col(User.totp_last_step) < step),
        )
        .values(totp_last_step=step)
    )
    if not used.rowcount:
        return False
    user.totp_last_step = step
    return True


def normalize_recovery_code(code: str) -> str:
    return "".join(ch for ch in code.lower() if ch.isalnum())


def _recovery_hash(code: str) -> str:
    return hashlib.sha256(normalize_recovery_code(code).encode()).hexdigest()


def use_recovery_code(*, session: Session, user: User, code: str) -> bool:
    """Spend one recovery code (each works once)."""
    normalized = normalize_recovery_code(code)
    if len(normalized) != 10:
        return False
    spent = session.exec(
        update(RecoveryCode)
        .where(
            col(RecoveryCode.user_id) == user.id,
            col(RecoveryCode.code_hash) == _recovery_hash(normalized),
            col(RecoveryCode.used_at).is_(None),
        )
        .values(used_at=utcnow())
    )
    if spent.rowcount:
        audit.record(
            session=session,
            actor=audit.Actor(user.email, user.id),
            action="user.recovery_code_used",
            entity=user,
        )
        return True
    return False


def recovery_codes_left(*, session: Session, user_id: int) -> int:
    return len(
        session.exec(
            select(RecoveryCode.id).where(
                RecoveryCode.user_id == user_id,
                RecoveryCode.used_at == None,  # noqa: E711
            )
        ).all()
    )


def new_recovery_codes(*, session: Session, user: User) -> list[str]:
    """Ten fresh recovery codes (the old ones stop working); shown to the user once."""
    for old in session.exec(select(RecoveryCode).where(RecoveryCode.user_id == user.id)):
        session.delete(old)
    session.flush()
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(10))
        codes.append(f"{raw[:5]}-{raw[5:]}")
        session.add(RecoveryCode(user_id=user.id or 0, code_hash=_recovery_hash(raw)))
    return codes


def enable(*, session: Session, user: User, secret: str, code: str) -> list[str] | None:
    """Finish enrolment: the code from the app proves it holds ``secret``. Returns the
    recovery codes, or None if the code is wrong."""
    now = utcnow()
    step = _matching_step(secret, code, now)
    if step is None:
        return None
    user.totp_secret = secret
    user.totp_enabled_at = now
    user.totp_last_step = step
    session.add(user)
    audit.record(
        session=session,
        actor=audit.Actor(user.email, user.id),
        action="user.two_factor_on",
        entity=user,
    )
    return new_recovery_codes(session=session, user=user)


def disable(*, session: Session, actor: audit.Actor, user: User) -> None:
    """Turn two-factor sign-in off (the person, or an administrator for a lost phone)."""
    user.totp_secret = None
    user.totp_enabled_at = None
    user.totp_last_step = None
    session.add(user)
    for old in session.exec(select(RecoveryCode).where(RecoveryCode.user_id == user.id)):
        session.delete(old)
    audit.record(session=session, actor=actor, action="user.two_factor_off", entity=user)


def begin_enrolment(*, session: Session, user: User) -> str:
    """A new secret kept on the account, unconfirmed until a code from the app confirms it
    (``enable``); the secret, for the QR code."""
    user.totp_secret = new_secret()
    session.add(user)
    return user.totp_secret
