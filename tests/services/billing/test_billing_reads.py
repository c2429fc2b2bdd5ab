"""The billing runs and ordinances as the pages read them."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import Session

from tests.conftest import People
from tests.services.notice_support import make_ordinance, make_run
from tid.services.billing import billing_reads


def test_a_run_with_its_ordinance_and_the_years_roll(session: Session, people: People) -> None:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, amounts=[Decimal("60000.00")] * 2)
    session.commit()
    district_id, run_id = people.district.id or 0, billed.run.id or 0
    assert billing_reads.run(session=session, run_id=run_id) == billed.run
    assert billing_reads.ordinances(session=session, district_id=district_id) == [ordinance]

    lineage = billing_reads.run_lineage(session=session, district_id=district_id, run_id=run_id)
    assert lineage is not None and lineage.ordinance == ordinance
    assert (lineage.previous, lineage.superseded_by) == (None, None)
    assert lineage.difference == Decimal("120000.00") - billed.run.expected_amount
    assert lineage.correctable and lineage.parameters == {} and lineage.warnings == []
    assert [i.fiscal_year for i in lineage.roll_imports] == ["2025-26"]
    # Another district's run is not this district's.
    other = people.other_district.id or 0
    assert billing_reads.run_lineage(session=session, district_id=other, run_id=run_id) is None


def test_the_districts_list_names_the_latest_roll_and_the_active_run(
    session: Session, people: People
) -> None:
    billed = make_run(session, people.district, make_ordinance(session, people.district))
    session.commit()
    rows = billing_reads.district_rows(session=session, person=people.admin)
    by_name = {row.district.name: row for row in rows}
    assert by_name["Viejo San Juan"].active_run == billed.run
    assert by_name["Viejo San Juan"].latest == ("2025-26", 2)
    assert by_name["Ponce Centro"].active_run is None and by_name["Ponce Centro"].latest is None
    clerks = billing_reads.district_rows(session=session, person=people.clerk)
    assert [row.district.name for row in clerks] == ["Viejo San Juan"]
