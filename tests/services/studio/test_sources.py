"""The rolls a study reads: a roll file gives what its import would."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import (
    FORMULA,
    import_roll,
)
from tests.services.studio.support import study_of
from tid.demo.roll import roll_csv
from tid.services import studio


def test_a_roll_file_gives_what_its_import_would(session: Session, people: People) -> None:
    data = roll_csv(80, seed=9)
    import_roll(session, people, data.decode("utf-8-sig"))
    from_roll = studio.try_study(session=session, study=study_of(people, FORMULA, baseline="1"))
    from_file = studio.try_study(
        session=session,
        study=studio.StudyInput(
            source=studio.FILE,
            expected=Decimal("6000.00"),
            variants=(studio.Variant("a", FORMULA, {}),),
            baseline="1",
        ),
        data=data,
    )
    assert from_file.evaluated[0].cents == from_roll.evaluated[0].cents
    assert from_file.owners  # a file's owners are its own
