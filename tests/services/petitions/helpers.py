"""What the petition tests share: a clerk, today, a petition received, its findings, its
ordinance issued and approved, the audit events.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlmodel import Session, select

from tests.conftest import People
from tid.models import AuditEvent, Ordinance, Petition
from tid.services import petitions as svc
from tid.services.audit_trail import audit

ACTOR = audit.Actor("clerk@example.pr")
TODAY = date(2026, 3, 10)


def received_petition(session: Session, people: People, received: str = "2026-03-02") -> Petition:
    petition = svc.record_petition(
        session=session,
        actor=ACTOR,
        municipality_id=str(people.municipality.id),
        district_name="DMT de Condado",
        petitioner="Hon. Alcalde",
        received_on=received,
        documents="Petición y plano.",
        today=TODAY,
    )
    session.commit()
    return petition


def find_all(
    session: Session, petition: Petition, *, unfavourable: str = "", on: str = "2026-03-05"
) -> None:
    for letter in "abcde":
        svc.record_finding(
            session=session,
            actor=ACTOR,
            petition=petition,
            factor=letter,
            favourable="no" if letter in unfavourable else "yes",
            grounds=f"Fundamentos del factor {letter}.",
            on=on,
            today=TODAY,
        )
    session.commit()


ORDINANCE: dict[str, Any] = {
    "number": "Ord. 14",
    "district_name": "DMT de Condado",
    "expected_amount": "1,250,000.50",
    "term_years": "10",
    "formula": "max(250.00, 0.0035 * assessed_value)",
    "association_name": "Asociación de Condado, Inc.",
    "issued_on": "2026-03-08",
}


def issued_ordinance(
    session: Session, people: People, **overrides: Any
) -> tuple[Petition, Ordinance]:
    petition = received_petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    find_all(session, petition)
    ordinance = svc.issue_ordinance(
        session=session, actor=ACTOR, petition=petition, today=TODAY, **{**ORDINANCE, **overrides}
    )
    session.commit()
    return petition, ordinance


def audit_events(session: Session) -> list[AuditEvent]:
    return list(session.exec(select(AuditEvent)))


def approved_petition(session: Session, people: People) -> Petition:
    petition, _ordinance = issued_ordinance(session, people)
    svc.send_to_mayor(session=session, actor=ACTOR, petition=petition, on="2026-03-09", today=TODAY)
    svc.mayor_approves(
        session=session, actor=ACTOR, petition=petition, on="2026-03-10", today=TODAY
    )
    session.commit()
    return petition
