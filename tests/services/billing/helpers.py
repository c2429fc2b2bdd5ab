"""The billing tests' roll, ordinance and run: three properties billed by one formula, with
the amounts worked by hand."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlmodel import Session, col, func, select

from tests.conftest import People
from tid.demo import records
from tid.models import Bill, Ordinance, Property
from tid.services import billing, roll
from tid.services.audit_trail import audit

ACTOR = audit.Actor("tests")
FY = "2026-27"
RUN_ON = date(2026, 7, 1)
FORMULA = 'max(75.00, 0.0125 * assessed_value) + if(use_class == "hotel", 15.00 * rooms, 0)'

ROLL = (
    "cadastral_number,owner,mailing_address,zip,assessed_value,use,rooms,land_area\n"
    "040-010-001-01,José Rivera,1 Calle Sol,00901,31500.00,residencial,,100\n"
    "040-010-001-02,Hotel El Convento Inc,100 Calle del Cristo,00901,400000.00,hotel,20,900\n"
    "040-010-001-03,María Ortiz,305 Calle Fortaleza,00901,4000.00,residencial,,\n"
)
# By hand, with FORMULA:
#   001-01: max(75, 0.0125 × 31,500.00 = 393.75) + 0            = 393.75
#   001-02: max(75, 0.0125 × 400,000.00 = 5,000.00) + 15 × 20   = 5,300.00
#   001-03: max(75, 0.0125 × 4,000.00 = 50.00) + 0              = 75.00
#   total                                                       = 5,768.75
EXPECTED_AMOUNTS = {
    "040-010-001-01": Decimal("393.75"),
    "040-010-001-02": Decimal("5300.00"),
    "040-010-001-03": Decimal("75.00"),
}


def make_ordinance(
    session: Session,
    people: People,
    *,
    formula: str = FORMULA,
    expected: str = "6000.00",
    approved_on: date | None = date(2026, 3, 16),
    received_on: date | None = None,
    term_years: int = 5,
) -> Ordinance:
    ordinance = records.ordinance(
        session,
        municipality_id=people.municipality.id or 0,
        district_id=people.district.id or 0,
        district_name=people.district.name,
        petitioner="Asociación",
        received_on=date(2026, 1, 5),
        expected_amount=Decimal(expected),
        term_years=term_years,
        formula=formula,
        association_name="Asociación",
        issued_on=date(2026, 3, 2),
        approved_on=approved_on,
        received_by_association_on=received_on,
    )
    session.commit()
    return ordinance


def import_roll(session: Session, people: People, text: str = ROLL, fy: str = FY) -> None:
    roll.import_roll(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        fiscal_year=fy,
        data=text.encode(),
        file_name="roll.csv",
    )
    session.commit()


def run(session: Session, people: People, **kw: object) -> billing.BillingResult:
    arguments: dict[str, object] = {"fiscal_year": FY, "run_on": RUN_ON, **kw}
    result = billing.run_billing(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        **arguments,  # type: ignore[arg-type]
    )
    session.commit()
    return result


def amounts(session: Session, run_id: int) -> dict[str, Decimal]:
    rows = session.exec(
        select(Property.cadastral_number, Bill.amount)
        .join(Bill, col(Bill.property_id) == col(Property.id))
        .where(Bill.billing_run_id == run_id)
    ).all()
    return dict(rows)


def count(session: Session, model: type) -> int:
    return int(session.exec(select(func.count()).select_from(model)).one())
