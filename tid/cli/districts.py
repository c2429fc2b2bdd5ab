"""A district named on the command line by its id or its exact name."""

from __future__ import annotations

from tid.cli.errors import fail
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message


def district_id_of(reference: str) -> int:
    """A district by its id or its exact name (exit 2 when there is none)."""
    from sqlmodel import select

    from tid.db import get_session
    from tid.models import District

    session = get_session()
    from tid.ids import parse_id

    number = parse_id(reference)
    district = session.get(District, number) if number is not None else None
    if district is None:
        district = session.exec(select(District).where(District.name == reference)).first()
    if district is None or district.id is None:
        fail(
            InputError(
                "district",
                Message(N_("No district with the id or name %(name)s."), name=repr(reference)),
            )
        )
        raise AssertionError  # pragma: no cover - fail exits
    return district.id
