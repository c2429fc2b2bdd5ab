"""A district billed once for FY2026-27 by the formula of the helpers."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import import_roll, make_ordinance, run
from tid.services import billing


@pytest.fixture
def billed(session: Session, people: People) -> billing.BillingResult:
    make_ordinance(session, people)
    import_roll(session, people)
    return run(session, people)
