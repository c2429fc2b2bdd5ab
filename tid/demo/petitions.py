"""The clerk's demo: two petitions before San Juan's legislature, and the steps every demo
petition goes through (received, under study, its findings)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any

from sqlmodel import Session, select

from tid import clock
from tid.demo.base import DEMO_ACTOR, municipality_and_district
from tid.models import Municipality, Petition
from tid.services import petitions

DEMO_PETITION_RECEIVED = "2026-03-02"  # 90 days end on Sunday 2026-05-31: due 2026-06-01
CONDADO = "Distrito de Mejoramiento Turístico de Condado"
ISLA_VERDE = "Distrito de Mejoramiento Turístico de Isla Verde"


def studied_petition(
    session: Session,
    *,
    municipality: Municipality,
    district_name: str,
    petitioner: str,
    received_on: str,
    documents: str,
    study_on: str,
    today: date,
) -> Petition:
    """A mayor's petition received on ``received_on`` and under study from ``study_on``."""
    petition = petitions.record_petition(
        session=session,
        actor=DEMO_ACTOR,
        municipality_id=municipality.id,
        district_name=district_name,
        petitioner=petitioner,
        received_on=received_on,
        documents=documents,
        today=today,
    )
    petitions.start_study(
        session=session, actor=DEMO_ACTOR, petition=petition, on=study_on, today=today
    )
    return petition


def record_findings(
    session: Session,
    petition: Petition,
    findings: Iterable[tuple[str, bool, str]],
    *,
    on: str,
    today: date,
) -> None:
    """The legislature's findings on the factors of § 6653(2), as (factor, favourable,
    grounds)."""
    for factor, favourable, grounds in findings:
        petitions.record_finding(
            session=session,
            actor=DEMO_ACTOR,
            petition=petition,
            factor=factor,
            favourable="yes" if favourable else "no",
            grounds=grounds,
            on=on,
            today=today,
        )


def load_petitions(session: Session, config: Mapping[str, Any]) -> None:
    """Two petitions before San Juan's legislature: one received 2026-03-02 and under study
    with three findings, one with the mayor whose 30 days end within the digest's window."""
    municipality, _district = municipality_and_district(session)
    today = max(clock.today(config), date(2026, 3, 12))

    def exists(name: str) -> bool:
        stmt = select(Petition).where(
            Petition.municipality_id == municipality.id, Petition.district_name == name
        )
        return session.exec(stmt).first() is not None

    if not exists(CONDADO):
        _condado_under_study(session, municipality, today)
    if not exists(ISLA_VERDE):
        _isla_verde_with_the_mayor(session, municipality, today)


def _condado_under_study(session: Session, municipality: Municipality, today: date) -> None:
    """Received 2026-03-02, under study, three of the five findings recorded."""
    petition = studied_petition(
        session,
        municipality=municipality,
        district_name=CONDADO,
        petitioner="Hon. Alcalde de San Juan, a petición de los comerciantes de Condado",
        received_on=DEMO_PETITION_RECEIVED,
        documents="Petición del alcalde; plano del distrito; plan de mejoras; lista de "
        "propiedades.",
        study_on="2026-03-09",
        today=today,
    )
    record_findings(
        session,
        petition,
        (
            ("a", True, "Las declaraciones de la petición fueron verificadas en vista pública."),
            ("b", True, "Compatible con el Plan de Ordenación Territorial de San Juan."),
            ("c", True, "El área es compacta: doce manzanas contiguas frente a la playa."),
        ),
        on="2026-03-11",
        today=today,
    )


def _isla_verde_with_the_mayor(session: Session, municipality: Municipality, today: date) -> None:
    """Received 70 days ago, all findings recorded (one unfavourable), the ordinance issued
    and sent to the mayor 24 days ago: the mayor's 30 days end within the digest's window."""

    def ago(days: int) -> str:
        return (today - timedelta(days=days)).isoformat()

    petition = studied_petition(
        session,
        municipality=municipality,
        district_name=ISLA_VERDE,
        petitioner="Hon. Alcalde de San Juan",
        received_on=ago(70),
        documents="Petición del alcalde y anejos.",
        study_on=ago(65),
        today=today,
    )
    record_findings(
        session,
        petition,
        (
            (factor, True, "Informe de la Comisión de Desarrollo Económico.")
            if factor != "d"
            else (factor, False, "La capacidad del alcantarillado es limitada (informe de AAA).")
            for factor in petitions.FACTORS
        ),
        on=ago(40),
        today=today,
    )
    petitions.issue_ordinance(
        session=session,
        actor=DEMO_ACTOR,
        petition=petition,
        number="Ord. Núm. 14, Serie 2025-2026",
        district_name=ISLA_VERDE,
        expected_amount="1,250,000.00",
        term_years="10",
        formula="max(250.00, 0.0035 * valor_tasado)",
        association_name="Asociación del Distrito de Isla Verde, Inc.",
        issued_on=ago(28),
        today=today,
    )
    petitions.send_to_mayor(
        session=session, actor=DEMO_ACTOR, petition=petition, on=ago(24), today=today
    )
