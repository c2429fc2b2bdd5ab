"""Demo data: a municipality, its district, and a user of every role.

Each area adds its own demo records through a loader registered in ``LOADERS``; the whole
demo is idempotent (a second ``tid demo`` changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlmodel import Session, select

from tid.models import District, Municipality, User
from tid.services import audit, users

DEMO_PASSWORD = "demo-password-2026"
DEMO_DISTRICT = "Distrito de Mejoramiento Turístico del Viejo San Juan"
DEMO_ACTOR = audit.Actor("demo loader")

# (role, email, name)
DEMO_USERS = [
    ("admin", "admin@demo.tid.pr", "Ana Administradora"),
    ("clerk", "secretaria@demo.tid.pr", "Carmen Rivera (Secretaria, Legislatura Municipal)"),
    ("association", "asociacion@demo.tid.pr", "Luis Ortiz (Asociación DMT Viejo San Juan)"),
    ("auditor", "auditor@demo.tid.pr", "Rosa Méndez, CPA"),
]

Loader = Callable[[Session, Mapping[str, Any]], None]
LOADERS: list[Loader] = []


def municipality_and_district(session: Session) -> tuple[Municipality, District]:
    municipality = session.exec(select(Municipality).where(Municipality.name == "San Juan")).first()
    if municipality is None:
        municipality = Municipality(name="San Juan")
        session.add(municipality)
        session.flush()
        audit.record(
            session,
            DEMO_ACTOR,
            "municipality.create",
            municipality,
            after=audit.snapshot(municipality),
        )
    district = session.exec(
        select(District).where(
            District.name == "Distrito de Mejoramiento Turístico del Viejo San Juan"
        )
    ).first()
    if district is None:
        district = District(
            municipality_id=municipality.id or 0,
            name=DEMO_DISTRICT,
            association_name="Asociación del Distrito del Viejo San Juan, Inc.",
        )
        session.add(district)
        session.flush()
        audit.record(
            session, DEMO_ACTOR, "district.create", district, after=audit.snapshot(district)
        )
    return municipality, district


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
    return [(role, email, DEMO_PASSWORD) for role, email, _ in DEMO_USERS]
