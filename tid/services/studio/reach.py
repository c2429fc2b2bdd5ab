"""Who may use a petition's formula studio, and which petitions a district's association
studies (tid/services/auth/access.py ``may_study_petition`` is the rule).

A petition is *about* the districts of its municipality that bear the name it asks for
(spaces and capitals aside) and, once its ordinance is issued, the ordinance's district. The
association of such a district tries formulas on its own roll (or on a file it uploads), as
the clerk does; it opens the studies saved on its own roll, not those tried on another
district's roll or on a file the clerk uploaded (they may show other owners)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from tid.models import District, FormulaStudy, Ordinance, Petition
from tid.services.auth import access as policy


def _normal(name: str) -> str:
    return " ".join(name.split()).casefold()


def concerned_districts(*, session: Session, petition: Petition) -> set[int]:
    """The districts the petition is about: those of its municipality with its name, and
    its ordinance's."""
    wanted = _normal(petition.district_name)
    stmt = select(District.id, District.name).where(
        col(District.municipality_id) == petition.municipality_id
    )
    found = {int(i) for i, name in session.exec(stmt) if i is not None and _normal(name) == wanted}
    ordinance = session.exec(
        select(Ordinance.district_id).where(col(Ordinance.petition_id) == petition.id)
    ).first()
    if ordinance is not None:
        found.add(int(ordinance))
    return found


def may_study(*, session: Session, person: policy.Person, petition: Petition) -> bool:
    """Whether ``person`` may open the petition's studio (``may_study_petition``)."""
    if person.role == policy.ASSOCIATION:
        concerned = concerned_districts(session=session, petition=petition)
    else:
        concerned = set()
    return policy.may_study_petition(person, petition.municipality_id, concerned)


def may_open_study(
    *, session: Session, person: policy.Person, petition: Petition, study: FormulaStudy
) -> bool:
    """Whether ``person`` may open a study saved with the petition: whoever may study the
    petition, but an association only a study tried on its own district's roll."""
    if not may_study(session=session, person=person, petition=petition):
        return False
    if person.role == policy.ASSOCIATION:
        return study.source != "file" and study.district_id == person.district_id
    return True


def petitions_about(*, session: Session, district: District) -> list[Petition]:
    """The petitions of the district's municipality about it, the newest first."""
    if district.id is None:
        return []
    voted = set(
        session.exec(select(Ordinance.petition_id).where(col(Ordinance.district_id) == district.id))
    )
    stmt = (
        select(Petition)
        .where(col(Petition.municipality_id) == district.municipality_id)
        .order_by(col(Petition.received_on).desc(), col(Petition.id).desc())
    )
    wanted = _normal(district.name)
    return [p for p in session.exec(stmt) if p.id in voted or _normal(p.district_name) == wanted]


def studies_for(
    *, session: Session, person: policy.Person, petition: Petition
) -> list[FormulaStudy]:
    """The petition's saved studies ``person`` may open, the newest first."""
    stmt = (
        select(FormulaStudy)
        .where(col(FormulaStudy.petition_id) == petition.id)
        .order_by(col(FormulaStudy.created_at).desc(), col(FormulaStudy.id).desc())
    )
    return [
        s
        for s in session.exec(stmt)
        if may_open_study(session=session, person=person, petition=petition, study=s)
    ]
