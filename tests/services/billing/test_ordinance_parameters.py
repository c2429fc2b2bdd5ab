"""An ordinance's own parameters apply to its billing runs (a run may give another value),
and a run is refused before it starts, naming the field, when the year has no roll or a
parameter is one the formula does not use."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import (
    EXPECTED_AMOUNTS,
    FY,
    amounts,
    import_roll,
    make_ordinance,
    run,
)
from tid.rules.errors import InputError
from tid.services import billing

FORMULA = 'max(75.00, rate * assessed_value) + if(use_class == "hotel", 15.00 * rooms, 0)'


def test_the_ordinances_parameters_apply_unless_the_run_gives_another(
    session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people, formula=FORMULA)
    ordinance.parameters = json.dumps({"rate": "0.0125"})
    session.add(ordinance)
    session.commit()
    import_roll(session, people)
    first = run(session, people)
    assert amounts(session, first.run.id or 0) == EXPECTED_AMOUNTS
    assert json.loads(first.run.parameters) == {"rate": "0.0125"}
    again = run(session, people, parameters="rate = 0.02", reason="Otra tasa.")
    assert amounts(session, again.run.id or 0)["040-010-001-01"] == 630  # 0.02 × 31,500


def test_a_run_is_checked_before_it_starts(session: Session, people: People) -> None:
    make_ordinance(session, people)
    district = people.district.id or 0
    with pytest.raises(InputError) as no_roll:
        billing.check_run(session=session, district_id=district, fiscal_year=FY)
    assert no_roll.value.field == "fiscal_year"
    import_roll(session, people)
    with pytest.raises(InputError) as unused:
        billing.check_run(
            session=session, district_id=district, fiscal_year=FY, parameters="tasa = 1"
        )
    assert unused.value.field == "parameters.tasa" and "tasa" in unused.value.message
    assert billing.check_run(session=session, district_id=district, fiscal_year=FY).id
