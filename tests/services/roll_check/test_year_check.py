"""The roll's yearly check: two years of a district's roll with each kind of change, the
changes answered, the correction file round-tripped, the statement signed and the year
billed (21 LPRA § 6653(3)(b), (3)(d))."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.billing.helpers import ACTOR, amounts, make_ordinance
from tid.models import AuditEvent, RollChange
from tid.rules.errors import FindingsError, InputError
from tid.services import billing, roll
from tid.services.roll_check import answers, changes, gate
from tid.services.roll_check import billing_statement as statement
from tid.services.roll_check import crim_file as corrections

LAST, THIS = "2026-27", "2027-28"
HEADER = "cadastral_number,owner,mailing_address,zip,location,value,use,rooms,exencion\n"
ROLL_LAST = HEADER + (
    "040-010-001-01,José Rivera,1 Calle Sol,00901,1 Calle Sol,31500.00,residencial,,0\n"
    "040-010-001-02,Hotel Inc,100 Cristo,00901,100 Cristo,400000.00,hotel,20,0\n"
    "040-010-001-03,María Ortiz,305 Fortaleza,00901,305 Fortaleza,4000.00,residencial,,0\n"
    "040-010-001-04,Ana Cruz,PO Box 4,00901,10 Calle Luna,80000.00,comercial,,0\n"
    "040-010-001-05,Luis Soto,PO Box 5,00901,20 Calle Luna,100000.00,comercial,,0\n"
    "040-010-001-06,Rosa Díaz,PO Box 6,00901,30 Calle Luna,50000.00,residencial,,0\n"
    "040-010-001-07,Rosa Díaz,PO Box 6,00901,32 Calle Luna,50000.00,residencial,,0\n"
    "040-010-001-09,Carlos Vega,40 Calle Sol,00901,40 Calle Sol,60000.00,residencial,,0\n"
    "040-010-001-10,Iglesia San José,50 Calle Sol,00901,50 Calle Sol,200000.00,residencial,,1\n"
    "040-010-001-11,Pedro Gómez,60 Calle Sol,00901,60 Calle Sol,70000.00,residencial,,0\n"
    "040-010-001-13,Elena Ruiz,80 Calle Sol,00901,80 Calle Sol,20000.00,residencial,,0\n"
)
ROLL_THIS = HEADER + (
    "040-010-001-01,José Rivera,1 Calle Sol,00901,1 Calle Sol,50000.00,residencial,,0\n"
    "040-010-001-02,Hotel Inc,100 Cristo,00901,100 Cristo,400000.00,hotel,25,0\n"
    "040-010-001-03,Pedro Ortiz,305 Fortaleza,00901,305 Fortaleza,4000.00,residencial,,0\n"
    "040-010-001-05-001,Luis Soto,PO Box 5,00901,20 Calle Luna,60000.00,comercial,,0\n"
    "040-010-001-05-002,Luis Soto,PO Box 5,00901,20 Calle Luna,40000.00,comercial,,0\n"
    "040-010-001-08,Rosa Díaz,PO Box 6,00901,30-32 Calle Luna,100000.00,residencial,,0\n"
    "040-010-001-09,Carlos Vega,40 Calle Sol,00901,40 Calle Sol,60000.00,comercial,,0\n"
    "040-010-001-10,Iglesia San José,50 Calle Sol,00901,50 Calle Sol,200000.00,residencial,,0\n"
    "040-010-001-11,Pedro Gómez,60 Calle Sol,00901,60 Calle Sol,70000.00,residencial,,1\n"
    "040-010-001-12,Nueva Casa LLC,70 Calle Sol,00901,70 Calle Sol,90000.00,residencial,,0\n"
    "040-010-001-13,Elena Ruiz,80 Calle Sol,00901,80 Calle Sol,20000.00,residencial,,0\n"
)


def _import(session: Session, people: People, text: str, fy: str) -> None:
    changes.import_roll(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        fiscal_year=fy,
        data=text.encode(),
        file_name=f"roll-{fy}.csv",
    )
    session.commit()


def _changes(session: Session, people: People) -> dict[tuple[str, str], RollChange]:
    rows = session.exec(
        select(RollChange).where(
            RollChange.district_id == people.district.id, RollChange.fiscal_year == THIS
        )
    ).all()
    return {(c.kind, c.number): c for c in rows}


@pytest.fixture
def two_years(session: Session, people: People) -> dict[tuple[str, str], RollChange]:
    make_ordinance(session, people)
    _import(session, people, ROLL_LAST, LAST)
    billing.run_billing(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        fiscal_year=LAST,
        run_on=date(2026, 7, 1),
    )
    session.commit()
    _import(session, people, ROLL_THIS, THIS)
    return _changes(session, people)


def test_each_kind_of_change_is_found_with_both_years_imposts(
    session: Session, two_years: dict[tuple[str, str], RollChange]
) -> None:
    assert set(two_years) == {
        ("value", "040-010-001-01"),
        ("rooms", "040-010-001-02"),
        ("owner", "040-010-001-03"),
        ("gone", "040-010-001-04"),
        ("split", "040-010-001-05-001"),
        ("merge", "040-010-001-08"),
        ("use_class", "040-010-001-09"),
        ("exemption_end", "040-010-001-10"),
        ("exemption_start", "040-010-001-11"),
        ("new", "040-010-001-12"),
    }
    value = two_years[("value", "040-010-001-01")]
    # max(75, 0.0125 × 31,500.00) = 393.75 last year; 0.0125 × 50,000.00 = 625.00 this year
    assert (value.impost_before, value.impost_after) == (Decimal("393.75"), Decimal("625.00"))
    rooms = two_years[("rooms", "040-010-001-02")]
    # 5,000.00 + 15 × 20 = 5,300.00; 5,000.00 + 15 × 25 = 5,375.00
    assert (rooms.impost_before, rooms.impost_after) == (Decimal("5300.00"), Decimal("5375.00"))
    split = two_years[("split", "040-010-001-05-001")]
    assert json.loads(split.numbers_before) == ["040-010-001-05"]
    assert json.loads(split.numbers_after) == ["040-010-001-05-001", "040-010-001-05-002"]
    assert json.loads(split.after)["assessed_value"] == "100000.00"
    merge = two_years[("merge", "040-010-001-08")]
    assert json.loads(merge.numbers_before) == ["040-010-001-06", "040-010-001-07"]
    # Gone, and still owing last year's bill: 0.0125 × 80,000.00 = 1,000.00
    gone = two_years[("gone", "040-010-001-04")]
    assert gone.owed == Decimal("1000.00") and gone.impost_after is None
    assert all(c.status == "open" for c in two_years.values())


def test_the_preview_of_the_file_shows_the_same_changes(
    session: Session, people: People, two_years: dict[tuple[str, str], RollChange]
) -> None:
    preview = roll.preview_roll(
        session=session,
        district_id=people.district.id or 0,
        fiscal_year=THIS,
        data=ROLL_THIS.encode(),
        file_name="again.csv",
    )
    found = changes.with_changes(session=session, preview=preview).changes
    assert {
        (f.change.kind, (f.change.numbers_after or f.change.numbers_before)[0])
        for f in found.changes
    } == set(two_years)
    assert found.counts["split"] == 1 and found.counts["new"] == 1
    assert found.expected_amount == Decimal("6000.00")
    assert found.total_after == sum(
        (
            f
            for f in changes.stored_imposts(
                session=session, district_id=people.district.id or 0, fiscal_year=THIS
            ).values()
        ),
        Decimal(0),
    )


def test_answered_signed_and_billed_with_the_sent_back_ones_as_chosen(
    session: Session, people: People, two_years: dict[tuple[str, str], RollChange]
) -> None:
    district_id = people.district.id or 0
    with pytest.raises(InputError) as refused:
        billing.run_billing(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            run_on=date(2027, 7, 1),
        )
    assert "10 changes" in str(
        refused.value.message
    ) and f"/roll/{district_id}/check/{THIS}" in str(refused.value.message)
    session.rollback()
    with pytest.raises(InputError):
        statement.sign(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            signed_by="Ana",
            signed_on=date(2027, 6, 1),
        )
    session.rollback()
    sent = {
        ("value", "040-010-001-01"): gate.LAST_YEAR,
        ("new", "040-010-001-12"): gate.EXCLUDE,
        ("rooms", "040-010-001-02"): gate.EXCLUDE,
    }
    with pytest.raises(InputError) as no_reason:
        answers.answer(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            change_id=two_years[("new", "040-010-001-12")].id or 0,
            accept=False,
            reason=" ",
        )
    assert no_reason.value.field == "reason"
    with pytest.raises(InputError) as no_last_year:
        answers.answer(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            change_id=two_years[("new", "040-010-001-12")].id or 0,
            accept=False,
            reason="No existe",
            treatment=gate.LAST_YEAR,
        )
    assert no_last_year.value.field == "treatment"
    for key, change in two_years.items():
        answers.answer(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            change_id=change.id or 0,
            accept=key not in sent,
            reason="El valor no coincide con la tasación" if key in sent else "",
            treatment=sent.get(key, gate.EXCLUDE),
        )
    session.commit()
    assert gate.open_count(session=session, district_id=district_id, fiscal_year=THIS) == 0
    signed = statement.sign(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year=THIS,
        signed_by="Ana Torres",
        signed_on=date(2027, 6, 1),
    )
    session.commit()
    said = statement.said(signed)
    assert signed.checked is True and signed.reference == "V-2027-000001"
    assert said["answers"]["sent_back"] == {"value": 1, "new": 1, "rooms": 1}
    assert said["properties"] == 11 and signed.billed_count == 9
    result = billing.run_billing(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year=THIS,
        run_on=date(2027, 7, 1),
    )
    session.commit()
    billed = amounts(session, result.run.id or 0)
    assert "040-010-001-12" not in billed and "040-010-001-02" not in billed
    assert billed["040-010-001-01"] == Decimal("393.75")  # last year's figures
    assert billed["040-010-001-09"] == Decimal("750.00")
    assert result.total == signed.billed_total and len(billed) == signed.billed_count


def test_the_correction_file_round_trips(
    session: Session, people: People, two_years: dict[tuple[str, str], RollChange]
) -> None:
    district_id = people.district.id or 0
    value = two_years[("value", "040-010-001-01")]
    answers.answer(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year=THIS,
        change_id=value.id or 0,
        accept=False,
        reason="Tasación sin visita",
        treatment=gate.EXCLUDE,
    )
    session.commit()
    sent = corrections.correction_file(session=session, district_id=district_id, fiscal_year=THIS)
    rows = list(csv.DictReader(io.StringIO(sent.decode("utf-8-sig"))))
    assert [(r["cadastral_number"], r["assessed_value"], r["motivo"]) for r in rows] == [
        ("040-010-001-01", "50000.00", "Tasación sin visita")
    ]
    stray = sent.decode("utf-8-sig").replace("040-010-001-01,", "040-010-001-13,").encode()
    with pytest.raises(FindingsError) as refused:  # a property not sent back
        corrections.import_corrections(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            data=stray,
            file_name="x.csv",
        )
    assert [(f.row, f.field) for f in refused.value.findings] == [(2, "cadastral_number")]
    session.rollback()
    answered = sent.decode("utf-8-sig").replace("50000.00", "40000.00").encode()
    assert (
        corrections.import_corrections(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            data=answered,
            file_name="crim.csv",
        )
        == 1
    )
    session.commit()
    assert (
        corrections.import_corrections(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=THIS,
            data=answered,
            file_name="crim.csv",
        )
        == 0
    )
    session.refresh(value)
    assert value.status == gate.CORRECTED and value.corrected_at is not None
    lines = changes.year_lines(session=session, district_id=district_id, fiscal_year=THIS)
    assert lines["040-010-001-01"].assessed_value == Decimal("40000.00")
    history = session.exec(
        select(AuditEvent).where(AuditEvent.action == "property_year.correct")
    ).all()
    crim = [e for e in history if "crim" in (e.after or "")]
    assert len(crim) == 1
    assert json.loads(crim[0].before or "{}")["assessed_value"] == "50000.00"
    assert json.loads(crim[0].after or "{}")["assessed_value"] == "40000.00"


def test_with_the_check_off_billing_goes_on_and_the_statement_says_so(
    session: Session, people: People, two_years: dict[tuple[str, str], RollChange]
) -> None:
    district_id = people.district.id or 0
    answers.set_setting(
        session=session, actor=ACTOR, district_id=district_id, enabled=False, threshold_percent="25"
    )
    session.commit()
    signed = statement.sign(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year=THIS,
        signed_by="Ana Torres",
        signed_on=date(2027, 6, 1),
    )
    assert signed.checked is False
    result = billing.run_billing(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year=THIS,
        run_on=date(2027, 7, 1),
    )
    assert result.run.property_count == 11
    with pytest.raises(InputError) as bad:
        answers.set_setting(
            session=session,
            actor=ACTOR,
            district_id=district_id,
            enabled=True,
            threshold_percent="0",
        )
    assert bad.value.field == "threshold"


def test_a_threshold_of_the_district_decides_what_moved(session: Session, people: People) -> None:
    district_id = people.district.id or 0
    answers.set_setting(
        session=session, actor=ACTOR, district_id=district_id, enabled=True, threshold_percent="60"
    )
    make_ordinance(session, people)
    _import(session, people, ROLL_LAST, LAST)
    _import(session, people, ROLL_THIS, THIS)
    assert ("value", "040-010-001-01") not in _changes(session, people)  # +58.7% < 60%
