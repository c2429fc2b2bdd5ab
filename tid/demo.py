"""Demo data: a municipality, its district, and a user of every role.

Each area adds its own demo records through a loader registered in ``LOADERS``; the whole
demo is idempotent (a second ``tid demo`` changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
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


# --------------------------------------------------------------------------- petitions

DEMO_PETITION_RECEIVED = "2026-03-02"  # 90 days end on Sunday 2026-05-31: due 2026-06-01


def load_petitions(session: Session, config: Mapping[str, Any]) -> None:
    """Two petitions before San Juan's legislature: one received 2026-03-02 and under study
    with three findings, one with the mayor whose 30 days end within the digest's window."""
    from datetime import date, timedelta

    from tid.clock import today_in_puerto_rico
    from tid.models import Petition
    from tid.services import petitions

    municipality, _district = municipality_and_district(session)
    fixed = config.get("TODAY")
    today = (
        (fixed if isinstance(fixed, date) else date.fromisoformat(str(fixed)))
        if fixed
        else today_in_puerto_rico()
    )
    today = max(today, date(2026, 3, 12))

    def exists(name: str) -> bool:
        stmt = select(Petition).where(
            Petition.municipality_id == municipality.id, Petition.district_name == name
        )
        return session.exec(stmt).first() is not None

    condado = "Distrito de Mejoramiento Turístico de Condado"
    if not exists(condado):
        petition = petitions.record_petition(
            session=session,
            actor=DEMO_ACTOR,
            municipality_id=municipality.id,
            district_name=condado,
            petitioner="Hon. Alcalde de San Juan, a petición de los comerciantes de Condado",
            received_on=DEMO_PETITION_RECEIVED,
            documents="Petición del alcalde; plano del distrito; plan de mejoras; lista de "
            "propiedades.",
            today=today,
        )
        petitions.start_study(
            session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-09", today=today
        )
        for factor, grounds in (
            ("a", "Las declaraciones de la petición fueron verificadas en vista pública."),
            ("b", "Compatible con el Plan de Ordenación Territorial de San Juan."),
            ("c", "El área es compacta: doce manzanas contiguas frente a la playa."),
        ):
            petitions.record_finding(
                session=session,
                actor=DEMO_ACTOR,
                petition=petition,
                factor=factor,
                favourable="yes",
                grounds=grounds,
                on="2026-03-11",
                today=today,
            )

    isla_verde = "Distrito de Mejoramiento Turístico de Isla Verde"
    if not exists(isla_verde):

        def ago(days: int) -> str:
            return (today - timedelta(days=days)).isoformat()

        petition = petitions.record_petition(
            session=session,
            actor=DEMO_ACTOR,
            municipality_id=municipality.id,
            district_name=isla_verde,
            petitioner="Hon. Alcalde de San Juan",
            received_on=ago(70),
            documents="Petición del alcalde y anejos.",
            today=today,
        )
        petitions.start_study(
            session=session, actor=DEMO_ACTOR, petition=petition, on=ago(65), today=today
        )
        for factor in petitions.FACTORS:
            petitions.record_finding(
                session=session,
                actor=DEMO_ACTOR,
                petition=petition,
                factor=factor,
                favourable="no" if factor == "d" else "yes",
                grounds="Informe de la Comisión de Desarrollo Económico."
                if factor != "d"
                else "La capacidad del alcantarillado es limitada (informe de AAA).",
                on=ago(40),
                today=today,
            )
        petitions.issue_ordinance(
            session=session,
            actor=DEMO_ACTOR,
            petition=petition,
            number="Ord. Núm. 14, Serie 2025-2026",
            district_name=isla_verde,
            expected_amount="1,250,000.00",
            term_years="10",
            formula="0.35% del valor tasado de la propiedad, con un mínimo de $250.00 al año.",
            association_name="Asociación del Distrito de Isla Verde, Inc.",
            issued_on=ago(28),
            today=today,
        )
        petitions.send_to_mayor(
            session=session, actor=DEMO_ACTOR, petition=petition, on=ago(24), today=today
        )


LOADERS.append(load_petitions)


# --------------------------------------------------------------------------- roll and billing

DEMO_ROLL_FY = "2026-27"
DEMO_ROLL_SIZE = 500
DEMO_ORDINANCE_NUMBER = "Ord. Núm. 9, Serie 2025-2026"


def demo_roll_path(config: Mapping[str, Any]) -> Path:
    """Where the demo's roll file is written: ``instance/demo/roll-2026-27.csv``."""
    from tid.config import instance_path

    folder = Path(config.get("INSTANCE_PATH") or instance_path())
    return folder / "demo" / f"roll-{DEMO_ROLL_FY}.csv"


def load_roll(session: Session, config: Mapping[str, Any]) -> None:
    """The Viejo San Juan district's ordinance (approved, received by the association, with
    its formula) and its 500-property roll as a CSV file for the association to import
    (``tid roll import instance/demo/roll-2026-27.csv --district … --fiscal-year 2026-27``
    or the web page); the roll itself is not imported here."""
    from datetime import date

    from tid.clock import today_in_puerto_rico
    from tid.models import Ordinance
    from tid.roll_demo import DEMO_FORMULA, roll_csv
    from tid.services import petitions

    path = demo_roll_path(config)
    data = roll_csv(DEMO_ROLL_SIZE)
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    municipality, district = municipality_and_district(session)
    if session.exec(select(Ordinance).where(Ordinance.district_id == district.id)).first():
        return
    fixed = config.get("TODAY")
    today = (
        (fixed if isinstance(fixed, date) else date.fromisoformat(str(fixed)))
        if fixed
        else today_in_puerto_rico()
    )
    today = max(today, date(2026, 3, 20))
    petition = petitions.record_petition(
        session=session,
        actor=DEMO_ACTOR,
        municipality_id=municipality.id,
        district_name=DEMO_DISTRICT,
        petitioner="Hon. Alcalde de San Juan, a petición de la Asociación del Viejo San Juan",
        received_on="2026-01-12",
        documents="Petición del alcalde; plano del distrito; plan de mejoras; registro de "
        "propiedades del CRIM.",
        today=today,
    )
    petitions.start_study(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-01-20", today=today
    )
    for factor in petitions.FACTORS:
        petitions.record_finding(
            session=session,
            actor=DEMO_ACTOR,
            petition=petition,
            factor=factor,
            favourable="yes",
            grounds="Informe de la Comisión de Turismo y Desarrollo Económico.",
            on="2026-02-10",
            today=today,
        )
    petitions.issue_ordinance(
        session=session,
        actor=DEMO_ACTOR,
        petition=petition,
        number=DEMO_ORDINANCE_NUMBER,
        district_name=DEMO_DISTRICT,
        expected_amount="500,000.00",
        term_years="5",
        formula=DEMO_FORMULA,
        association_name=district.association_name
        or "Asociación del Distrito del Viejo San Juan, Inc.",
        issued_on="2026-02-24",
        today=today,
    )
    petitions.send_to_mayor(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-02-26", today=today
    )
    petitions.mayor_approves(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-09", today=today
    )
    petitions.publish(
        session=session,
        actor=DEMO_ACTOR,
        petition=petition,
        on="2026-03-12",
        newspaper="El Nuevo Día",
        outside_window_confirmed=False,
        today=today,
    )
    petitions.record_crim_copy(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-16", today=today
    )
    petitions.record_association_receipt(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-18", today=today
    )


LOADERS.append(load_roll)
