"""What ``tid setup`` makes: the first administrator, the municipality and, optionally, its
first district — read from a TOML file (``tid setup --from setup.toml``) or from the answers
to its questions, checked whole before anything is written, and made once: a second run
keeps what the first made."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from tid.models import District, Municipality, Role, User
from tid.rules.errors import InputError
from tid.rules.messages import Message
from tid.services.audit_trail import audit
from tid.services.auth import users

# Each table of the file and its keys; True: required.
KEYS: dict[str, dict[str, bool]] = {
    "admin": {"email": True, "name": True, "password": False, "locale": False},
    "municipality": {"name": True},
    "district": {"name": True, "association_name": False},
    "checks": {"mail_to": False},
}
REQUIRED_TABLES = ("admin", "municipality")
LOCALES = ("es", "en")


@dataclass(frozen=True)
class Plan:
    """What the setup makes, as the file (or the questions) gave it."""

    admin_email: str
    admin_name: str
    admin_password: str | None
    admin_locale: str
    municipality: str
    district: str | None = None
    association_name: str = ""
    mail_to: str | None = None


@dataclass(frozen=True)
class Made:
    """What the setup found and what it made."""

    admin: User
    admin_created: bool
    municipality: Municipality
    municipality_created: bool
    district: District | None
    district_created: bool


def _text(table: str, key: str, value: Any) -> str:
    field = f"{table}.{key}"
    if not isinstance(value, str):
        raise InputError(field, Message("%(field)s must be text in quotes.", field=field))
    cleaned = value.strip()
    if not cleaned or any(ord(ch) < 32 or ord(ch) == 127 for ch in cleaned):
        raise InputError(
            field, Message("%(field)s is empty or holds control characters.", field=field)
        )
    return cleaned


def _table(data: Mapping[str, Any], table: str) -> dict[str, str]:
    section = data.get(table)
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise InputError(table, Message("%(field)s must be a table ([%(field)s]).", field=table))
    known = KEYS[table]
    for key in section:
        if key not in known:
            raise InputError(
                f"{table}.{key}",
                Message(
                    "%(field)s is not a key of the setup file; [%(table)s] takes %(keys)s.",
                    field=f"{table}.{key}",
                    table=table,
                    keys=", ".join(known),
                ),
            )
    for key, required in known.items():
        if required and key not in section:
            raise InputError(
                f"{table}.{key}", Message("%(field)s is missing.", field=f"{table}.{key}")
            )
    return {key: _text(table, key, value) for key, value in section.items()}


def read_plan(data: Mapping[str, Any], *, default_locale: str = "es") -> Plan:
    """The plan of a setup file's contents: every key known, every value text, the
    required ones there; else an ``InputError`` naming the key."""
    for table in data:
        if table not in KEYS:
            raise InputError(
                table,
                Message(
                    "%(field)s is not a table of the setup file; it has %(tables)s.",
                    field=table,
                    tables=", ".join(f"[{t}]" for t in KEYS),
                ),
            )
    for table in REQUIRED_TABLES:
        if table not in data:
            raise InputError(table, Message("The table [%(field)s] is missing.", field=table))
    admin, town = _table(data, "admin"), _table(data, "municipality")
    district, checks = _table(data, "district"), _table(data, "checks")
    locale = admin.get("locale", default_locale if default_locale in LOCALES else "es")
    if locale not in LOCALES:
        raise InputError(
            "admin.locale", Message("admin.locale must be %(choices)s.", choices="es, en")
        )
    if "@" not in admin["email"]:
        raise InputError("admin.email", Message("admin.email is not an email address."))
    mail_to = checks.get("mail_to")
    if mail_to is not None and "@" not in mail_to:
        raise InputError("checks.mail_to", Message("checks.mail_to is not an email address."))
    return Plan(
        admin_email=admin["email"].lower(),
        admin_name=admin["name"],
        admin_password=admin.get("password"),
        admin_locale=locale,
        municipality=town["name"],
        district=district.get("name"),
        association_name=district.get("association_name", ""),
        mail_to=mail_to,
    )


def read_file(content: bytes, *, default_locale: str = "es") -> Plan:
    """The plan of a setup file (TOML); a file that is not TOML is refused with its line."""
    try:
        data = tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(
            "file", Message("The setup file is not TOML: %(error)s", error=str(exc))
        ) from None
    return read_plan(data, default_locale=default_locale)


def admin_by_email(*, session: Session, email: str) -> User | None:
    return session.exec(select(User).where(func.lower(User.email) == email.lower())).first()


def existing(*, session: Session) -> tuple[User | None, Municipality | None]:
    """The first administrator and the first municipality already there (the questions'
    defaults on a second run)."""
    admin = session.exec(
        select(User).where(User.role == Role.ADMIN.value).order_by(col(User.id))
    ).first()
    town = session.exec(select(Municipality).order_by(col(Municipality.id))).first()
    return admin, town


def _municipality(session: Session, actor: audit.Actor, name: str) -> tuple[Municipality, bool]:
    found = session.exec(
        select(Municipality).where(func.lower(Municipality.name) == name.lower())
    ).first()
    if found is not None:
        return found, False
    town = Municipality(name=name)
    session.add(town)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="municipality.create",
        entity=town,
        after=audit.snapshot(town),
    )
    return town, True


def _district(
    session: Session, actor: audit.Actor, town: Municipality, plan: Plan
) -> tuple[District | None, bool]:
    if not plan.district:
        return None, False
    found = session.exec(
        select(District).where(
            District.municipality_id == town.id, func.lower(District.name) == plan.district.lower()
        )
    ).first()
    if found is not None:
        return found, False
    district = District(
        municipality_id=town.id or 0, name=plan.district, association_name=plan.association_name
    )
    session.add(district)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="district.create",
        entity=district,
        after=audit.snapshot(district),
    )
    return district, True


def apply(*, session: Session, actor: audit.Actor, plan: Plan) -> Made:
    """Make what the plan names and is not there yet (the caller commits; on an
    ``InputError`` it rolls back, and nothing was made). An account of the plan's email
    that is not an administrator is refused: setup never changes a role."""
    admin = admin_by_email(session=session, email=plan.admin_email)
    if admin is not None and admin.role != Role.ADMIN.value:
        raise InputError(
            "admin.email",
            Message(
                "%(email)s already has an account that is not an administrator's.",
                email=plan.admin_email,
            ),
        )
    town, town_made = _municipality(session, actor, plan.municipality)
    district, district_made = _district(session, actor, town, plan)
    admin_made = admin is None
    if admin is None:
        if not plan.admin_password:
            raise InputError(
                "admin.password",
                Message(
                    "admin.password is missing: the new administrator needs one (or set "
                    "TID_ADMIN_PASSWORD)."
                ),
            )
        try:
            admin = users.create_user(
                session=session,
                actor=actor,
                email=plan.admin_email,
                name=plan.admin_name,
                password=plan.admin_password,
                role=Role.ADMIN.value,
                locale=plan.admin_locale,
            )
        except InputError as exc:
            raise exc.at("admin") from None
    return Made(admin, admin_made, town, town_made, district, district_made)
