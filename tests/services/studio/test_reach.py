"""Which petitions a district's association studies: those of its municipality that name
its district (spaces and capitals aside) or whose ordinance is its district's; it opens the
studies saved on its own roll only."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

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
