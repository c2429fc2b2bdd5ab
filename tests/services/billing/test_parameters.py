"""The formula's named parameters: missing, unused, and as text or a mapping."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import import_roll, make_ordinance, run
from tid.rules.errors import InputError
from tid.services import billing


def test_parameters(session: Session, people: People) -> None:
    make_ordinance(session, people, formula="rate * assessed_value")
    import_roll(session, people)
    with pytest.raises(InputError) as missing:
        run(session, people)
    assert "rate" in missing.value.message
    session.rollback()
    result = run(session, people, parameters="rate = 0.01\n")
    # 0.01 × (31,500.00 + 400,000.00 + 4,000.00) = 4,355.00
    assert result.total == Decimal("4355.00")
    with pytest.raises(InputError) as unused:
        run(session, people, parameters="rate = 0.01\nbudget = 5")
    assert unused.value.field == "parameters.budget"
    with pytest.raises(InputError):
        billing.parse_parameters("rate 0.01")
    assert billing.parse_parameters({"kind": "hotel", "rate": "1,000.50"}) == {
        "kind": "hotel",
        "rate": Decimal("1000.50"),
    }
