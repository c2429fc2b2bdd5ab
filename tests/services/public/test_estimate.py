"""The owner's estimate computes what the bill computes: for every bill of the demo, the
estimate from its property's roll values gives the bill's amount and its explanation; a bad
value is named with its field, every one at once."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlmodel import Session, select

from tid.models import Bill, BillStatus, PropertyYear
from tid.rules.errors import FindingsError
from tid.rules.messages import render
from tid.services.public import estimate


def test_the_estimate_is_the_bill_for_every_demo_property(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    rows = session.exec(
        select(Bill, PropertyYear)
        .join(PropertyYear, PropertyYear.id == Bill.property_year_id)
        .where(Bill.status == BillStatus.ACTIVE.value)
    ).all()
    assert rows
    for bill, year in rows:
        shape = estimate.estimate_form(session=session, district_id=bill.district_id)
        assert shape is not None and not shape.apportioned
        values = {
            i.name: "" if getattr(year, i.name) is None else str(getattr(year, i.name))
            for i in shape.inputs
        }
        found = estimate.estimate(session=session, district_id=bill.district_id, values=values)
        assert found is not None
        assert found.amount == bill.amount
        assert render(found.explanation, "en") == bill.explanation


def test_every_bad_value_is_named_with_its_field(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    bill = session.exec(select(Bill)).first()
    assert bill is not None
    with pytest.raises(FindingsError) as refused:
        estimate.estimate(
            session=session,
            district_id=bill.district_id,
            values={"assessed_value": "=1+1", "rooms": "2.5", "use_class": "abc"},
        )
    assert [f.field for f in refused.value.findings] == ["assessed_value", "use_class", "rooms"]
