"""What every part of the demo shares: the password, the actor its records name, San Juan
and its Viejo San Juan district, and the instance folder its files are written to."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from tid.config import instance_path
from tid.models import District, Municipality
from tid.services.audit_trail import audit

DEMO_PASSWORD = "demo-password-2026"
DEMO_DISTRICT = "Distrito de Mejoramiento Turístico del Viejo San Juan"
DEMO_ACTOR = audit.Actor("demo loader")


def municipality_and_district(session: Session) -> tuple[Municipality, District]:
    """San Juan and its Viejo San Juan district (made, and audited, the first time)."""
    municipality = session.exec(select(Municipality).where(Municipality.name == "San Juan")).first()
    if municipality is None:
        municipality = Municipality(name="San Juan")
        session.add(municipality)
        session.flush()
        audit.record(
            session=session,
            actor=DEMO_ACTOR,
            action="municipality.create",
            entity=municipality,
            after=audit.snapshot(municipality),
        )
    district = session.exec(select(District).where(District.name == DEMO_DISTRICT)).first()
    if district is None:
        district = District(
            municipality_id=municipality.id or 0,
            name=DEMO_DISTRICT,
            association_name="Asociación del Distrito del Viejo San Juan, Inc.",
        )
        session.add(district)
        session.flush()
        audit.record(
            session=session,
            actor=DEMO_ACTOR,
            action="district.create",
            entity=district,
            after=audit.snapshot(district),
        )
    return municipality, district


def demo_folder(config: Mapping[str, Any]) -> Path:
    """The folder of the demo's files: ``instance/demo/``."""
    return Path(config.get("INSTANCE_PATH") or instance_path()) / "demo"


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` unless it already holds exactly that."""
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
