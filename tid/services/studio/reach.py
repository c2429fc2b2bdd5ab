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


def _districts_by_name(session: Session, municipality_id: int) -> dict[str, set[int]]:
    """The municipality's districts by name (spaces and capitals aside): a petition names
    its district in words, and each name may be borne by more than one."""
    stmt = select(District.id, District.name).where(
        col(District.municipality_id) == municipality_id
    )
    found: dict[str, set[int]] = {}
    for district_id, name in session.exec(stmt):
        if district_id is not None:
            found.setdefault(_normal(name), set()).add(int(district_id))
    return found


def concerned_districts(*, session: Session, petition: Petition) -> set[int]:
    """The districts the petition is about: those of its municipality with its name, and
    its ordinance's."""
    by_name = _districts_by_name(session, petition.municipality_id)
    found = set(by_name.get(_normal(petition.district_name), ()))
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
    return _opens_saved(person, study)


def _opens_saved(person: policy.Person, study: FormulaStudy) -> bool:
    """Of a petition ``person`` may study, whether they open this saved study: an association
    only one tried on its own district's roll (another's, or a file, may show other owners)."""
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


def petitions_to_study(
    *, session: Session, district: District, person: policy.Person
) -> list[tuple[Petition, list[FormulaStudy]]]:
    """The petitions about the district (:func:`petitions_about`) whose studio ``person`` may
    use (:func:`may_study`), the newest first, each with the saved studies they may open
    (:func:`studies_for`): read in three statements, however many petitions and studies
    there are (the district's page lists them on every reading)."""
    if district.id is None:
        return []
    ordained: dict[int, set[int]] = {}
    petitions: dict[int, Petition] = {}
    rows = session.exec(
        select(Petition, Ordinance.district_id)
        .join(Ordinance, col(Ordinance.petition_id) == col(Petition.id), isouter=True)
        .where(col(Petition.municipality_id) == district.municipality_id)
        .order_by(col(Petition.received_on).desc(), col(Petition.id).desc())
    )
    for petition, ordinance_district in rows:
        petitions.setdefault(petition.id or 0, petition)
        found = ordained.setdefault(petition.id or 0, set())
        if ordinance_district is not None:
            found.add(int(ordinance_district))
    by_name = _districts_by_name(session, district.municipality_id)
    wanted = _normal(district.name)
    chosen: list[Petition] = []
    for number, petition in petitions.items():
        named = _normal(petition.district_name)
        if district.id not in ordained[number] and named != wanted:
            continue
        concerned = by_name.get(named, set()) | ordained[number]
        if policy.may_study_petition(person, petition.municipality_id, concerned):
            chosen.append(petition)
    saved: dict[int, list[FormulaStudy]] = {p.id or 0: [] for p in chosen}
    if chosen:
        studies = session.exec(
            select(FormulaStudy)
            .where(col(FormulaStudy.petition_id).in_(list(saved)))
            .order_by(col(FormulaStudy.created_at).desc(), col(FormulaStudy.id).desc())
        )
        for study in studies:
            if _opens_saved(person, study):
                saved[study.petition_id].append(study)
    return [(p, saved[p.id or 0]) for p in chosen]
