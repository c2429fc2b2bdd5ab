"""The municipalities and districts as the pages read them."""

from __future__ import annotations

from sqlmodel import Session

from tests.conftest import People
from tid.models import User
from tid.services import places


def test_one_place_by_its_id_and_the_lists_by_name(session: Session, people: People) -> None:
    district_id = people.district.id or 0
    assert places.district(session=session, district_id=district_id) == people.district
    assert places.district(session=session, district_id=999_999) is None
    municipality_id = people.municipality.id or 0
    found = places.municipality(session=session, municipality_id=municipality_id)
    assert found == people.municipality
    assert [m.name for m in places.municipalities(session=session)] == ["Ponce", "San Juan"]
    assert [d.name for d in places.districts(session=session)] == [
        "Ponce Centro",
        "Viejo San Juan",
    ]
    assert places.district_names(session=session, district_ids=[district_id]) == {
        district_id: "Viejo San Juan"
    }
    assert set(places.municipality_names(session=session).values()) == {"Ponce", "San Juan"}


def test_each_person_sees_their_own_districts(session: Session, people: People) -> None:
    def seen(person: User) -> list[str]:
        rows = places.visible_districts(session=session, person=person)
        return [district.name for district, _municipality in rows]

    assert seen(people.admin) == ["Ponce Centro", "Viejo San Juan"]
    assert seen(people.clerk) == ["Viejo San Juan"]
    assert seen(people.other_association) == ["Ponce Centro"]
