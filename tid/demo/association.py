"""The Viejo San Juan association's demo: its ordinance, walked through every step of the law
by San Juan's legislature and mayor, and its 500-property roll as a file to import."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from tid import clock
from tid.demo.base import (
    DEMO_ACTOR,
    DEMO_DISTRICT,
    demo_folder,
    municipality_and_district,
    write_file,
)
from tid.demo.petitions import record_findings, studied_petition
from tid.demo.roll import DEMO_FORMULA, roll_csv
from tid.models import District, Ordinance, Petition
from tid.services import petitions

DEMO_ROLL_FY = "2026-27"
DEMO_ROLL_SIZE = 500
DEMO_ORDINANCE_NUMBER = "Ord. Núm. 9, Serie 2025-2026"


def demo_roll_path(config: Mapping[str, Any]) -> Path:
    """Where the demo's roll file is written: ``instance/demo/roll-2026-27.csv``."""
    return demo_folder(config) / f"roll-{DEMO_ROLL_FY}.csv"


def load_roll(session: Session, config: Mapping[str, Any]) -> None:
    """The Viejo San Juan district's ordinance (approved, received by the association, with
    its formula) and its 500-property roll as a CSV file for the association to import
    (``tid roll import instance/demo/roll-2026-27.csv --district … --fiscal-year 2026-27``
    or the web page); the roll itself is not imported here."""
    write_file(demo_roll_path(config), roll_csv(DEMO_ROLL_SIZE))
    municipality, district = municipality_and_district(session)
    if session.exec(select(Ordinance).where(Ordinance.district_id == district.id)).first():
        return
    today = max(clock.today(config), date(2026, 3, 20))
    petition = studied_petition(
        session,
        municipality=municipality,
        district_name=DEMO_DISTRICT,
        petitioner="Hon. Alcalde de San Juan, a petición de la Asociación del Viejo San Juan",
        received_on="2026-01-12",
        documents="Petición del alcalde; plano del distrito; plan de mejoras; registro de "
        "propiedades del CRIM.",
        study_on="2026-01-20",
        today=today,
    )
    record_findings(
        session,
        petition,
        (
            (factor, True, "Informe de la Comisión de Turismo y Desarrollo Económico.")
            for factor in petitions.FACTORS
        ),
        on="2026-02-10",
        today=today,
    )
    _ordinance_to_the_association(session, petition, district, today)


def _ordinance_to_the_association(
    session: Session, petition: Petition, district: District, today: date
) -> None:
    """The ordinance issued, approved by the mayor, published, copied to the CRIM and
    received by the association (21 LPRA § 6653(2)–(4))."""
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
