"""Which petitions a district's association studies: those of its municipality that name
its district (spaces and capitals aside) or whose ordinance is its district's; it opens the
studies saved on its own roll only."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import event
from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import make_ordinance
from tid.models import FormulaStudy, Petition
from tid.services import studio


def _petition(session: Session, people: People, name: str, municipality_id: int) -> Petition:
    petition = Petition(
        municipality_id=municipality_id,
        district_name=name,
        petitioner="Hon. Alcalde",
        received_on=date(2026, 3, 2),
    )
    session.add(petition)
    session.commit()
    return petition


def test_the_petitions_about_a_district(session: Session, people: People) -> None:
    san_juan = people.municipality.id or 0
    named = _petition(session, people, "  viejo   SAN juan ", san_juan)
    other = _petition(session, people, "Santurce", san_juan)
    elsewhere = _petition(session, people, "Viejo San Juan", people.other_municipality.id or 0)
    voted = make_ordinance(session, people)  # its petition names the district too
    about = studio.petitions_about(session=session, district=people.district)
    assert {p.id for p in about} == {named.id, voted.petition_id}
    assert studio.concerned_districts(session=session, petition=other) == set()
    assert studio.concerned_districts(session=session, petition=elsewhere) == set()
    assert studio.may_study(session=session, person=people.association, petition=named)
    assert not studio.may_study(session=session, person=people.association, petition=other)
    assert not studio.may_study(session=session, person=people.other_association, petition=named)
    assert studio.may_study(session=session, person=people.clerk, petition=other)

    # The studies it opens: those tried on its own roll, not on a file or another roll.
    def saved(source: str, district_id: int | None) -> FormulaStudy:
        return FormulaStudy(
            petition_id=named.id or 0,
            title="t",
            source=source,
            district_id=district_id,
            expected_amount=Decimal("1.00"),
            variants="[]",
            actor="clerk",
        )

    for study, opens in (
        (saved("roll", people.district.id), True),
        (saved("roll", people.other_district.id), False),
        (saved("file", None), False),
    ):
        assert (
            studio.may_open_study(
                session=session, person=people.association, petition=named, study=study
            )
            is opens
        )
        assert studio.may_open_study(
            session=session, person=people.clerk, petition=named, study=study
        )


def test_the_petitions_to_study_are_read_at_once_as_each_would_be_alone(
    session: Session, people: People
) -> None:
    """The district's page lists the petitions about it that the reader may study, each with
    the studies the reader may open: what the rules give one petition at a time, read in
    three statements however many petitions and studies there are."""
    san_juan = people.municipality.id or 0
    petitions = [_petition(session, people, "Viejo San Juan", san_juan) for _ in range(3)]
    _petition(session, people, "Santurce", san_juan)
    make_ordinance(session, people)
    for number, (source, district_id) in enumerate(
        [("roll", people.district.id), ("roll", people.other_district.id), ("file", None)] * 2
    ):
        session.add(
            FormulaStudy(
                petition_id=petitions[number % 3].id or 0,
                title=f"t{number}",
                source=source,
                district_id=district_id,
                expected_amount=Decimal("1.00"),
                variants="[]",
                actor="clerk",
            )
        )
    session.commit()
    engine = session.get_bind()
    sent: list[str] = []

    def count(*args: object) -> None:
        sent.append(str(args[2]))

    for person in (people.clerk, people.association, people.other_association, people.admin):
        alone = [
            (p.id, [s.id for s in studio.studies_for(session=session, person=person, petition=p)])
            for p in studio.petitions_about(session=session, district=people.district)
            if studio.may_study(session=session, person=person, petition=p)
        ]
        sent.clear()
        event.listen(engine, "before_cursor_execute", count)
        try:
            together = studio.petitions_to_study(
                session=session, district=people.district, person=person
            )
        finally:
            event.remove(engine, "before_cursor_execute", count)
        assert [(p.id, [s.id for s in studies]) for p, studies in together] == alone, person.role
        assert len(sent) <= 3, sent
    shown = studio.petitions_to_study(
        session=session, district=people.district, person=people.association
    )
    assert len(shown) == 4 and sum(len(studies) for _p, studies in shown) == 2
    assert not studio.petitions_to_study(
        session=session, district=people.district, person=people.other_association
    )
