"""Trying variants of a formula on a roll: a study's amounts are a billing run's to the cent,
a variant equal to the formula in force changes nobody's bill, two variants say who pays more
and why, and a bad formula is refused at its field."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import (
    FORMULA,
    amounts,
    import_roll,
    make_ordinance,
    run,
)
from tests.services.studio.support import FY, study_of
from tid.demo.roll import roll_csv
from tid.rules.errors import FindingsError
from tid.services import studio


def test_a_study_totals_what_a_billing_run_bills(session: Session, people: People) -> None:
    import_roll(session, people, roll_csv(120, seed=3).decode("utf-8-sig"))
    make_ordinance(session, people)
    billed = run(session, people)
    outcome = studio.try_study(session=session, study=study_of(people, FORMULA))
    in_force, variant = outcome.evaluated  # the formula in force first, then the variant
    assert in_force.total == variant.total == int(billed.total * 100)
    by_cadastral = amounts(session, billed.run.id or 0)
    for prop, cents in zip(outcome.roll.properties, variant.cents, strict=True):  # type: ignore[union-attr]
        assert Decimal(cents).scaleb(-2) == by_cadastral[prop["id"]]
    summary = outcome.summaries[1]
    assert sum(s.total for s in summary.by_class) == summary.total
    assert sum(s.total for s in summary.by_band) == summary.total


def test_a_variant_equal_to_the_formula_in_force_changes_nobody(
    session: Session, people: People
) -> None:
    import_roll(session, people)
    make_ordinance(session, people)
    outcome = studio.try_study(session=session, study=study_of(people, FORMULA))
    ((_index, comparison),) = outcome.comparisons
    assert (comparison.more, comparison.less, comparison.same) == (0, 0, 3)
    assert comparison.raised == comparison.lowered == 0
    assert comparison.largest_raises == comparison.largest_cuts == ()


def test_two_variants_say_who_pays_more_and_why(session: Session, people: People) -> None:
    import_roll(session, people)
    make_ordinance(session, people)
    outcome = studio.try_study(
        session=session, study=study_of(people, "0.015 * assessed_value", baseline="in_force")
    )
    ((index, comparison),) = outcome.comparisons
    # 001-01: 393.75 → 472.50 more; 001-02: 5,300.00 → 6,000.00 more; 001-03: 75.00 → 60.00
    assert (comparison.more, comparison.less, comparison.same) == (2, 1, 0)
    assert comparison.raised == 7875 + 70000 and comparison.lowered == 1500
    raise_ = comparison.largest_raises[0]
    assert raise_.cadastral == "040-010-001-02" and raise_.difference == 70000
    why = studio.explanation(outcome.evaluated[index], raise_.position)
    assert "6,000.00" in why
    was = studio.explanation(outcome.evaluated[0], raise_.position)
    assert "5,300.00" in was
    assert outcome.owners["040-010-001-02"] == "Hotel El Convento Inc"
    # What would meet 6,000.00 (the variant gives 6,532.50): the factor, the scaled formula.
    meet = outcome.meets[index]
    assert meet is not None and meet.factor == Decimal("0.918485")
    assert abs(meet.total - 600000) <= 3
    scaled = studio.Variant("scaled", meet.formula, {})
    assert (
        studio.evaluate_variant(scaled, outcome.roll, Decimal("6000.00"), "v9").total  # type: ignore[arg-type]
        == meet.total
    )


def test_a_bad_formula_is_refused_at_its_field(session: Session, people: People) -> None:
    import_roll(session, people)
    with pytest.raises(FindingsError) as refused:
        studio.try_study(
            session=session,
            study=study_of(people, FORMULA, "0.01 * valor_inventado", baseline="1"),
        )
    assert [f.field for f in refused.value.findings] == ["v2_formula"]
    values = {
        "source": f"{people.district.id}:{FY}",
        "expected_amount": "abc",
        "v1_formula": "rate * assessed_value",
        "v1_parameters": "rate 0.01",
    }
    with pytest.raises(FindingsError) as unread:
        studio.read_study(values)
    assert {f.field for f in unread.value.findings} == {"expected_amount", "v1_parameters"}
    with pytest.raises(FindingsError) as unused:
        studio.try_study(
            session=session,
            study=study_of(people, FORMULA, baseline="1").__class__(
                source=f"{people.district.id}:{FY}",
                expected=Decimal(1),
                variants=(studio.Variant("a", FORMULA, {"rate": Decimal(1)}, "rate = 1", 1),),
                baseline="1",
            ),
        )
    assert [f.field for f in unused.value.findings] == ["v1_parameters"]
