"""``tid demo``: a municipality, its district, a user of every role, and each area's demo
records (the loaders of ``LOADERS``, in order); idempotent (a second ``tid demo`` changes
nothing)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from tid.demo.account import ACCOUNT_USER, load_account
from tid.demo.association import load_roll
from tid.demo.base import DEMO_ACTOR, DEMO_PASSWORD, municipality_and_district
from tid.demo.fund_figures import load_reform
from tid.demo.legislature_documents import load_petition_files
from tid.demo.notices import load_notices
from tid.demo.petitions import load_petitions
from tid.demo.public import load_public
from tid.models import User
from tid.services.auth import users

# (role, email, name)
DEMO_USERS = [
    ("admin", "admin@demo.tid.pr", "Ana Administradora"),
    ("clerk", "secretaria@demo.tid.pr", "Carmen Rivera (Secretaria, Legislatura Municipal)"),
    ("association", "asociacion@demo.tid.pr", "Luis Ortiz (Asociación DMT Viejo San Juan)"),
    ("auditor", "auditor@demo.tid.pr", "Rosa Méndez, CPA"),
]

Loader = Callable[[Session, Mapping[str, Any]], None]
# The clerk's petitions, the Viejo San Juan association's ordinance and roll file, the
# Condado treasurer's account, the Condado run's notices (which need its bills), a saved
# reform of the Equalization Fund, and the Condado year published.
LOADERS: list[Loader] = [
    load_petitions,
    load_petition_files,
    load_roll,
    load_account,
    load_notices,
    load_reform,
    load_public,
]


def load_demo(*, session: Session, config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Load (or complete) the demo and return the logins as (role, email, password)."""
    municipality, district = municipality_and_district(session)
    for role, email, name in DEMO_USERS:
        if session.exec(select(User).where(User.email == email)).first() is None:
            users.create_user(
                session=session,
                actor=DEMO_ACTOR,
                email=email,
                name=name,
                password=DEMO_PASSWORD,
                role=role,
                municipality_id=municipality.id if role == "clerk" else None,
                district_id=district.id if role == "association" else None,
            )
    session.commit()
    for loader in LOADERS:
        loader(session, config)
        session.commit()
    logins = [(role, email, DEMO_PASSWORD) for role, email, _ in DEMO_USERS]
    if session.exec(select(User).where(User.email == ACCOUNT_USER)).first() is not None:
        logins.append(("association", ACCOUNT_USER, DEMO_PASSWORD))
    return logins


TWO_FACTOR_OFF = "two_factor_roles = []  # the demo: no role needs two-factor sign-in\n"


def turn_off_two_factor(instance_path: str) -> bool:
    """Write ``two_factor_roles = []`` into the instance's config.toml (unless it already
    says something about it), so that the demo's logins need no authenticator app. True
    if the instance now has it off."""
    path = Path(instance_path) / "config.toml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    current = tomllib.loads(text) if text else {}
    if "two_factor_roles" not in current:
        from tid.files import private_folder, write_private

        private_folder(path.parent)
        prefix = "" if not text or text.endswith("\n") else "\n"
        # the configuration may hold secrets (SMTP's password): the app's user alone reads it
        write_private(path, (text + prefix + TWO_FACTOR_OFF).encode("utf-8"))
        return True
    value = current["two_factor_roles"]
    return value in ([], "", "none")
