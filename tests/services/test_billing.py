"""The billing run: every property by the ordinance's formula, all or nothing, idempotent,
superseded with an audit trail, totals against the expected amount (21 LPRA § 6653(3))."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from flask.testing import FlaskCliRunner
from sqlmodel import Session, col, func, select

from tests.conftest import People
from tid.demo import records
from tid.models import AuditEvent, Bill, BillingRun, Ordinance, Property
from tid.rules.errors import InputError
from tid.services import audit, billing, roll

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


@pytest.fixture
def billed(session: Session, people: People) -> billing.BillingResult:
    make_ordinance(session, people)
    import_roll(session, people)
    return run(session, people)


def test_every_property_is_billed_by_the_formula(
    session: Session, billed: billing.BillingResult
) -> None:
    assert billed.unchanged is False
    assert amounts(session, billed.run.id or 0) == EXPECTED_AMOUNTS
    assert billed.total == Decimal("5768.75")
    assert billed.run.total == Decimal("5768.75")
    # § 6653(3)(b): against the ordinance's expected amount 6,000.00: 5,768.75 − 6,000.00
    assert billed.expected_amount == Decimal("6000.00")
    assert billed.difference == Decimal("-231.25")
    assert billed.run.version == 1 and billed.run.status == "active"
    assert billed.run.formula == FORMULA
    hotel = session.exec(select(Bill).where(Bill.amount == Decimal("5300.00"))).one()
    assert "15.00 × 20 rooms" in hotel.explanation.replace("$", "")
    assert hotel.fiscal_year == FY and hotel.status == "active"
    assert session.exec(select(AuditEvent).where(AuditEvent.action == "billing_run.run")).one()


def test_the_default_due_date_is_60_days_after_the_run(billed: billing.BillingResult) -> None:
    # 2026-07-01 + 60 days = 2026-08-30
    assert billed.run.due_date == date(2026, 8, 30)


def test_rerunning_changes_nothing_and_says_so(
    session: Session, people: People, billed: billing.BillingResult
) -> None:
    bills = count(session, Bill)
    events = count(session, AuditEvent)
    again = run(session, people, run_on=RUN_ON + timedelta(days=3))
    assert again.unchanged is True
    assert again.run.id == billed.run.id
    assert count(session, Bill) == bills
    assert count(session, BillingRun) == 1
    assert count(session, AuditEvent) == events


def test_a_corrected_formula_supersedes_with_an_audit_trail(
    session: Session, people: People, billed: billing.BillingResult
) -> None:
    old_bills = {b.property_id: b for b in session.exec(select(Bill))}
    mailed_id = next(iter(old_bills.values())).id or 0
    billing.mark_mailed(
        session=session, actor=ACTOR, bill_ids=[mailed_id], at=datetime(2026, 7, 3, tzinfo=UTC)
    )
    session.commit()
    ordinance = session.get(Ordinance, billed.run.ordinance_id)
    assert ordinance is not None
    ordinance.formula = "max(80.00, 0.0125 * assessed_value)"
    session.add(ordinance)
    session.commit()

    second = run(session, people, run_on=date(2026, 7, 5), reason="Ordinance amended")
    assert second.unchanged is False
    assert second.run.version == 2 and second.run.supersedes_id == billed.run.id
    assert second.superseded is not None and second.superseded.id == billed.run.id
    assert (second.superseded_bills, second.mailed_superseded) == (3, 1)
    # 393.75, max(80, 5,000.00) = 5,000.00, max(80, 50.00) = 80.00
    assert amounts(session, second.run.id or 0) == {
        "040-010-001-01": Decimal("393.75"),
        "040-010-001-02": Decimal("5000.00"),
        "040-010-001-03": Decimal("80.00"),
    }
    old = session.get(BillingRun, billed.run.id)
    assert old is not None and old.status == "superseded" and old.superseded_at is not None
    # The old bills stay, unchanged in amount, each pointing to its replacement.
    session.expire_all()
    for bill in session.exec(select(Bill).where(Bill.billing_run_id == billed.run.id)):
        assert bill.status == "superseded"
        assert bill.amount == old_bills[bill.property_id].amount
        replacement = session.get(Bill, bill.superseded_by_id)
        assert replacement is not None
        assert replacement.billing_run_id == second.run.id
        assert replacement.property_id == bill.property_id
    assert count(session, Bill) == 6
    # The due date of the active run is kept when none is given.
    assert second.run.due_date == billed.run.due_date
    needing = billing.corrected_notices_needed(session, second.run)
    assert [line.bill.id for line in needing] == [mailed_id]
    assert needing[0].replacement is not None
    actions = [
        e.action
        for e in session.exec(
            select(AuditEvent)
            .where(col(AuditEvent.action).startswith("billing_run"))
            .order_by(col(AuditEvent.id))
        )
    ]
    assert actions == ["billing_run.run", "billing_run.supersede", "billing_run.run"]
    supersede = session.exec(
        select(AuditEvent).where(AuditEvent.action == "billing_run.supersede")
    ).one()
    assert json.loads(supersede.before or "{}")["status"] == "active"
    assert json.loads(supersede.after or "{}")["status"] == "superseded"


def test_a_corrected_roll_supersedes(
    session: Session, people: People, billed: billing.BillingResult
) -> None:
    import_roll(session, people, ROLL.replace("31500.00", "32000.00"))
    second = run(session, people)
    assert second.run.version == 2
    # 0.0125 × 32,000.00 = 400.00
    assert amounts(session, second.run.id or 0)["040-010-001-01"] == Decimal("400.00")
    assert second.total == Decimal("5775.00")  # 400.00 + 5,300.00 + 75.00


def test_due_dates(session: Session, people: People) -> None:
    make_ordinance(session, people, received_on=date(2026, 6, 25))
    import_roll(session, people)
    # The run is on 2026-07-01: its 30-day notice period ends 2026-07-31 (a Friday).
    with pytest.raises(InputError) as caught:
        run(session, people, due_date=date(2026, 7, 30))
    assert caught.value.field == "due_date"
    session.rollback()
    assert count(session, BillingRun) == 0
    first = run(session, people, due_date=date(2026, 7, 31))
    assert first.run.due_date == date(2026, 7, 31)
    # Another due date, same bills: a new version that says so in its due date.
    second = run(session, people, due_date=date(2026, 9, 30))
    assert second.unchanged is False and second.run.version == 2
    assert second.run.due_date == date(2026, 9, 30)
    assert {b.due_date for b in session.exec(select(Bill).where(Bill.status == "active"))} == {
        date(2026, 9, 30)
    }


def test_an_apportionment_adds_up_to_the_expected_amount(session: Session, people: People) -> None:
    make_ordinance(
        session,
        people,
        formula="expected_amount * assessed_value / sum(assessed_value)",
        expected="10000.00",
    )
    import_roll(session, people)
    result = run(session, people)
    assert result.total == Decimal("10000.00")
    assert result.difference == Decimal("0.00")
    assert json.loads(result.run.parameters) == {"expected_amount": "10000.00"}
    assert sum(amounts(session, result.run.id or 0).values()) == Decimal("10000.00")


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


def test_a_formula_failing_on_one_property_writes_nothing(session: Session, people: People) -> None:
    make_ordinance(session, people, formula="2.00 * land_area")  # 001-03 has no land area
    import_roll(session, people)
    with pytest.raises(InputError) as caught:
        run(session, people)
    assert "040-010-001-03" in caught.value.message
    session.rollback()
    assert count(session, BillingRun) == 0 and count(session, Bill) == 0


def test_no_bill_without_an_approved_ordinance_in_term_and_a_roll(
    session: Session, people: People
) -> None:
    with pytest.raises(InputError) as none:
        run(session, people)
    assert none.value.field == "ordinance"
    session.rollback()
    ordinance = make_ordinance(session, people, approved_on=None)
    with pytest.raises(InputError) as unapproved:
        run(session, people)
    assert "not approved" in unapproved.value.message
    session.rollback()
    ordinance.approved_on = date(2026, 3, 16)  # FY2025-26: the term is FY2025-26 … 2029-30
    session.add(ordinance)
    session.commit()
    with pytest.raises(InputError) as no_roll:
        run(session, people)
    assert "import the roll" in no_roll.value.message
    session.rollback()
    with pytest.raises(InputError) as outside:
        run(session, people, fiscal_year="2030-31")
    assert outside.value.field == "fiscal_year"
    session.rollback()
    first, last = billing.ordinance_term(ordinance)
    assert (first.label, last.label) == ("2025-26", "2029-30")


def test_the_command_line_run(runner: FlaskCliRunner, session: Session, people: People) -> None:
    make_ordinance(session, people)
    import_roll(session, people)
    args = ["billing", "run", "--district", people.district.name, "--fiscal-year", FY]
    first = runner.invoke(args=[*args, "--run-date", "2026-07-01"])
    assert first.exit_code == 0, first.output
    document = json.loads(first.output)
    assert document["total"] == "5768.75" and document["difference"] == "-231.25"
    assert document["due_date"] == "2026-08-30" and document["unchanged"] is False
    again = runner.invoke(args=[*args, "--run-date", "2026-07-02"])
    assert json.loads(again.output)["unchanged"] is True
    early = runner.invoke(args=[*args, "--run-date", "2026-07-01", "--due-date", "2026-07-05"])
    assert early.exit_code == 2
    assert json.loads(early.stderr)["field"] == "due_date"
