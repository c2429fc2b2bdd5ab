"""The one access policy (tid/services/auth/access.py), role by role: what each person sees and
may change, the same answer wherever it is asked (pages, jobs, petitions' calendar)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tid.services.auth import access


@dataclass(frozen=True)
class P:
    role: str
    municipality_id: int | None = None
    district_id: int | None = None


ADMIN, AUDITOR = P("admin"), P("auditor")
CLERK = P("clerk", municipality_id=1)
ASSOCIATION = P("association", municipality_id=1, district_id=10)

# (person, district 10 in municipality 1, district 20 in municipality 2): sees, writes.
CASES = [
    (ADMIN, (True, True), (True, True)),
    (AUDITOR, (True, False), (True, False)),
    (CLERK, (True, False), (False, False)),
    (ASSOCIATION, (True, True), (False, False)),
    (P("association"), (False, False), (False, False)),  # an association without a district
]


@pytest.mark.parametrize(("person", "own", "other"), CASES)
def test_who_sees_and_changes_a_district(
    person: P, own: tuple[bool, bool], other: tuple[bool, bool]
) -> None:
    for (district, municipality), (sees, writes) in (((10, 1), own), ((20, 2), other)):
        assert access.can_see_district(person, district, municipality) is sees
        assert access.may_write_district(person, district) is writes


def test_petitions_are_the_legislatures_and_history_the_auditors() -> None:
    assert access.visible_municipalities(ADMIN) is None
    assert access.visible_municipalities(AUDITOR) is None
    assert access.visible_municipalities(CLERK) == [1]
    assert access.visible_municipalities(ASSOCIATION) == []
    assert access.visible_municipalities(P("clerk")) == []
    assert [access.may_read_history(p) for p in (ADMIN, AUDITOR, CLERK, ASSOCIATION)] == [
        True,
        True,
        False,
        False,
    ]
    assert [access.may_lock_years(p) for p in (ADMIN, AUDITOR, CLERK, ASSOCIATION)] == [
        True,
        False,
        False,
        False,
    ]
    assert access.own_district(ASSOCIATION) == 10 and access.own_district(CLERK) is None
    assert set(access.PETITION_WRITERS) <= set(access.PETITION_READERS)
    assert set(access.DISTRICT_WRITERS) <= set(access.DISTRICT_READERS)


def test_who_may_use_a_petitions_formula_studio() -> None:
    """A petition of municipality 1 about district 10: its readers, and district 10's
    association only (not another district's of the same municipality)."""
    about_ten = {10}
    assert access.may_study_petition(ADMIN, 1, about_ten)
    assert access.may_study_petition(AUDITOR, 1, about_ten)
    assert access.may_study_petition(CLERK, 1, about_ten)
    assert not access.may_study_petition(P("clerk", municipality_id=2), 1, about_ten)
    assert access.may_study_petition(ASSOCIATION, 1, about_ten)
    assert not access.may_study_petition(ASSOCIATION, 1, {11})
    assert not access.may_study_petition(ASSOCIATION, 1, set())
    assert not access.may_study_petition(P("association"), 1, about_ten)
