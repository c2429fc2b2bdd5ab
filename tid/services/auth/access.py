"""Who may see and change what: the one access policy of the app.

Four roles (tid/models/places_and_users.py ``Role``):

- **admin** — sees and changes everything (users, districts, every record);
- **auditor** — sees everything, changes nothing but the account's year locks' reading;
- **clerk** — the municipal legislature's clerk: the petitions of their municipality and,
  read-only, the districts created in it;
- **association** — a district's association: its own district (roll, billing, notices,
  account), read and written; and the formula studio of the petitions about its district
  (tried on its own roll or a file, never saved to the legislature's file).

The pages (tid/web/access.py ``require`` and the blueprints), the jobs list, the petitions'
calendar feed and the templates all ask here, so a change of policy is made once. The
pages' table of who reaches what (tests/web/access_table.py) checks the result.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from sqlmodel import Session, select

from tid.models import District, Role

ADMIN, CLERK, ASSOCIATION, AUDITOR = (r.value for r in Role)
ALL_ROLES = tuple(r.value for r in Role)
STAFF = (ADMIN, CLERK, ASSOCIATION, AUDITOR)

# Who reaches each part of the app (the blueprints' ``require``).
PETITION_READERS = (ADMIN, CLERK, AUDITOR)
PETITION_WRITERS = (ADMIN, CLERK)
DISTRICT_READERS = (ADMIN, CLERK, ASSOCIATION, AUDITOR)
# The formula studio of a petition: its readers, and the association of the district the
# petition is about (:func:`may_study_petition`); only the petition's writers save a study.
STUDIO_READERS = (ADMIN, CLERK, ASSOCIATION, AUDITOR)
DISTRICT_WRITERS = (ADMIN, ASSOCIATION)
# The history of a record (who changed what, when): the administrator and the auditor.
HISTORY_READERS = (ADMIN, AUDITOR)
# Closing a fiscal year of the account (its lock) is the administrator's.
YEAR_LOCKERS = (ADMIN,)


class Person(Protocol):
    """A signed-in person as the policy sees them (a user row or the web's session user)."""

    @property
    def role(self) -> str: ...

    @property
    def municipality_id(self) -> int | None: ...

    @property
    def district_id(self) -> int | None: ...


def sees_all(person: Person) -> bool:
    """The administrator and the auditor see every municipality and district."""
    return person.role in (ADMIN, AUDITOR)


def can_see_municipality(person: Person, municipality_id: int | None) -> bool:
    if sees_all(person):
        return True
    return municipality_id is not None and person.municipality_id == municipality_id


def can_see_district(person: Person, district_id: int | None, municipality_id: int | None) -> bool:
    """A clerk sees the districts of their municipality; an association its own."""
    if sees_all(person):
        return True
    if person.role == CLERK:
        return municipality_id is not None and person.municipality_id == municipality_id
    return district_id is not None and person.district_id == district_id


def may_study_petition(
    person: Person, municipality_id: int | None, concerned: Collection[int]
) -> bool:
    """Whether ``person`` may use the formula studio of a petition of ``municipality_id``
    about the districts ``concerned`` (those of its municipality it names, or its
    ordinance's): whoever reads the petition, and the association of one of those districts
    (not another district's, even of the same municipality: a study shows owners)."""
    if person.role == ASSOCIATION:
        return person.district_id is not None and person.district_id in concerned
    return person.role in PETITION_READERS and can_see_municipality(person, municipality_id)


def may_write_district(person: Person, district_id: int | None) -> bool:
    """Whether ``person`` may change a district's records: an administrator, or the
    district's own association."""
    return person.role == ADMIN or (
        person.role == ASSOCIATION and district_id is not None and person.district_id == district_id
    )


def may_read_history(person: Person) -> bool:
    return person.role in HISTORY_READERS


def may_lock_years(person: Person) -> bool:
    return person.role in YEAR_LOCKERS


def visible_municipalities(person: Person) -> list[int] | None:
    """The municipalities whose petitions ``person`` may see (None: all of them): a clerk
    their own; an association none (petitions are the legislature's)."""
    if sees_all(person):
        return None
    if person.role == CLERK and person.municipality_id is not None:
        return [person.municipality_id]
    return []


def visible_district_ids(*, session: Session, person: Person) -> set[int] | None:
    """The districts ``person`` may see (None: all of them)."""
    if sees_all(person):
        return None
    if person.role == CLERK:
        stmt = select(District.id).where(District.municipality_id == person.municipality_id)
        return {int(i) for i in session.exec(stmt) if i is not None}
    return {person.district_id} if person.district_id is not None else set()


def own_district(person: Person) -> int | None:
    """The one district an association's pages open on (None for the other roles)."""
    return person.district_id if person.role == ASSOCIATION else None
