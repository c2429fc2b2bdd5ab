"""Pages of the roll and of a run's bills: kept within range, in cadastral order, and searched
by cadastral number or owner as plain text."""

from __future__ import annotations

from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import FY, import_roll, make_ordinance, run
from tid.services import billing, roll
from tid.services.paging import page_info

ROLL = (
    "cadastral_number,owner,mailing_address,zip,assessed_value,use,rooms\n"
    "040-010-001-01,José Rivera,1 Calle Sol,00901,31500.00,residencial,\n"
    "040-010-001-02,Hotel El Convento Inc,100 Calle del Cristo,00901,400000.00,hotel,20\n"
    "040-010-001-03,María Ortiz 100%,305 Calle Fortaleza,00901,4000.00,residencial,\n"
    "040-010-001-04,Ana_Rivera,7 Calle Luna,00901,9000.00,residencial,\n"
    "040-010-001-05,Luis Pérez,9 Calle Luna,00901,9000.00,residencial,\n"
)


def test_page_info_keeps_the_page_in_range() -> None:
    # 5 rows, 2 a page: pages 1..3; page 0 is the first, page 9 the last.
    assert (page_info(5, 0, 2).page, page_info(5, 0, 2).pages) == (1, 3)
    last = page_info(5, 9, 2)
    assert (last.page, last.offset) == (3, 4)
    assert page_info(0, 1, 100).pages == 1  # an empty list still has its one page


def test_roll_and_bills_pages(session: Session, people: People) -> None:
    district = people.district.id or 0
    make_ordinance(session, people)
    import_roll(session, people, ROLL)
    result = run(session, people)

    second = roll.roll_page(
        session=session, district_id=district, fiscal_year=FY, page=2, per_page=2
    )
    assert [p.cadastral_number for p, _ in second.rows] == ["040-010-001-03", "040-010-001-04"]
    assert (second.total, second.page, second.pages) == (5, 2, 3)

    # Search is plain text: "%" and "_" are not wildcards, case does not matter.
    assert [
        y.owner_names
        for _, y in roll.roll_page(
            session=session, district_id=district, fiscal_year=FY, search="100%"
        ).rows
    ] == ["María Ortiz 100%"]
    assert [
        y.owner_names
        for _, y in roll.roll_page(
            session=session, district_id=district, fiscal_year=FY, search="a_r"
        ).rows
    ] == ["Ana_Rivera"]
    # As a pattern "a%z" would match "María Ortiz 100%"; as text it matches nobody.
    assert (
        roll.roll_page(session=session, district_id=district, fiscal_year=FY, search="a%z").rows
        == []
    )
    by_number = roll.roll_page(
        session=session, district_id=district, fiscal_year=FY, search="001-05"
    )
    assert [p.cadastral_number for p, _ in by_number.rows] == ["040-010-001-05"]

    bills = billing.bills_page(
        session=session, run_id=result.run.id or 0, search="rivera", per_page=1
    )
    assert bills.total == 2 and bills.pages == 2
    assert [line.cadastral_number for line in bills.lines] == ["040-010-001-01"]
