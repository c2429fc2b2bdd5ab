"""The formula studio: a study's amounts are a billing run's to the cent, a variant equal to
the formula in force changes nobody's bill, a roll file gives what its import would, every
split adds up to its total, and a bad formula is refused at its field."""

from __future__ import annotations

import hashlib
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sqlmodel import Session

from tests.conftest import People, examples
from tests.services.billing.helpers import (
    ACTOR,
    FORMULA,
    amounts,
    import_roll,
    make_ordinance,
    run,
)
from tests.services.test_archive import _corrupt_one_byte
from tid.demo import records
from tid.demo.roll import roll_csv
from tid.models import Petition
from tid.rules.errors import FindingsError
from tid.services import archive, studio
from tid.services import roll as roll_files

FY = "2026-27"


def _study(
    people: People, *formulas: str, expected: str = "6000.00", baseline: str = "in_force"
) -> studio.StudyInput:
    values = {
        "source": f"{people.district.id}:{FY}",
        "expected_amount": expected,
        "baseline": baseline,
    }
    for number, formula in enumerate(formulas, start=1):
        values[f"v{number}_formula"] = formula
    return studio.read_study(values)


def test_a_study_totals_what_a_billing_run_bills(session: Session, people: People) -> None:
    import_roll(session, people, roll_csv(120, seed=3).decode("utf-8-sig"))
    make_ordinance(session, people)
    billed = run(session, people)
    outcome = studio.try_study(session=session, study=_study(people, FORMULA))
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
    outcome = studio.try_study(session=session, study=_study(people, FORMULA))
    ((_index, comparison),) = outcome.comparisons
    assert (comparison.more, comparison.less, comparison.same) == (0, 0, 3)
    assert comparison.raised == comparison.lowered == 0
    assert comparison.largest_raises == comparison.largest_cuts == ()


def test_two_variants_say_who_pays_more_and_why(session: Session, people: People) -> None:
    import_roll(session, people)
    make_ordinance(session, people)
    outcome = studio.try_study(
        session=session, study=_study(people, "0.015 * assessed_value", baseline="in_force")
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


def test_a_roll_file_gives_what_its_import_would(session: Session, people: People) -> None:
    data = roll_csv(80, seed=9)
    import_roll(session, people, data.decode("utf-8-sig"))
    from_roll = studio.try_study(session=session, study=_study(people, FORMULA, baseline="1"))
    from_file = studio.try_study(
        session=session,
        study=studio.StudyInput(
            source=studio.FILE,
            expected=Decimal("6000.00"),
            variants=(studio.Variant("a", FORMULA, {}),),
            baseline="1",
        ),
        data=data,
    )
    assert from_file.evaluated[0].cents == from_roll.evaluated[0].cents
    assert from_file.owners  # a file's owners are its own


def test_a_bad_formula_is_refused_at_its_field(session: Session, people: People) -> None:
    import_roll(session, people)
    with pytest.raises(FindingsError) as refused:
        studio.try_study(
            session=session,
            study=_study(people, FORMULA, "0.01 * valor_inventado", baseline="1"),
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
            study=_study(people, FORMULA, baseline="1").__class__(
                source=f"{people.district.id}:{FY}",
                expected=Decimal(1),
                variants=(studio.Variant("a", FORMULA, {"rate": Decimal(1)}, "rate = 1", 1),),
                baseline="1",
            ),
        )
    assert [f.field for f in unused.value.findings] == ["v1_parameters"]


_VALUES = st.lists(
    st.tuples(
        st.decimals(min_value=0, max_value=3_000_000, places=2),
        st.sampled_from(["hotel", "residencial", "comercial", ""]),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=examples(40), deadline=None)
@given(rows=_VALUES, budget=st.decimals(min_value=0, max_value=2_000_000, places=2))
def test_every_split_adds_up_to_its_total(rows: list[tuple[Decimal, str]], budget: Decimal) -> None:
    assume(sum(v for v, _c in rows) > 0)
    roll = studio.StudyRoll(
        properties=[
            {"id": f"040-010-{i:03d}-01", "assessed_value": v, "use_class": c}
            for i, (v, c) in enumerate(rows)
        ],
        classes=[c for _v, c in rows],
        assessed=[v for v, _c in rows],
        attributes=["assessed_value", "use_class"],
        owners={},
    )
    base = studio.evaluate_variant(
        studio.Variant("a", "max(75.00, 0.0125 * assessed_value)", {}), roll, budget, "v1"
    )
    shared = studio.evaluate_variant(
        studio.Variant("b", "expected_amount * assessed_value / sum(assessed_value)", {}),
        roll,
        budget,
        "v2",
    )
    assert shared.total == int(budget * 100)  # the apportionment meets it to the cent
    for evaluated in (base, shared):
        summary = studio.summarize(evaluated, roll, budget)
        assert sum(s.total for s in summary.by_class) == summary.total == evaluated.total
        assert sum(s.total for s in summary.by_band) == summary.total
        assert sum(s.count for s in summary.by_band) == len(rows)
    comparison = studio.compare(base, shared, roll)
    assert comparison.more + comparison.less + comparison.same == len(rows)
    assert comparison.net == shared.total - base.total
    assert sum(after - before for _k, before, after in comparison.by_class) == comparison.net
    same = studio.compare(base, base, roll)
    assert (same.more, same.less, same.raised, same.lowered) == (0, 0, 0, 0)


def test_a_saved_study_reopens_beside_the_ordinance_voted(session: Session, people: People) -> None:
    import_roll(session, people)
    ordinance = make_ordinance(session, people)
    petition = session.get(Petition, ordinance.petition_id)
    assert petition is not None
    asked = _study(people, "0.015 * assessed_value", FORMULA, baseline="1")
    outcome = studio.try_study(session=session, study=asked)
    saved = studio.save_study(
        session=session,
        actor=ACTOR,
        petition=petition,
        outcome=outcome,
        report=b"%PDF-1.7 a report",
        title="Estudio",
    )
    session.commit()
    assert studio.studies_of(session=session, petition_id=petition.id or 0) == [saved]
    assert studio.report_bytes(session=session, study=saved) == b"%PDF-1.7 a report"
    again = studio.reopen(session=session, study=saved, voted=None)
    assert [e.total for e in again.evaluated] == [e.total for e in outcome.evaluated]
    against = studio.reopen(session=session, study=saved, voted=ordinance)
    assert against.base_index == 0 and against.summaries[0].total == 576875
    by_name = {c.variant: c for _i, c in against.comparisons}
    same = by_name["Variant 2"]  # the voted formula, tried before the vote
    assert (same.more, same.less) == (0, 0)
    assert studio.form_values(saved)["v1_formula"] == "0.015 * assessed_value"


def test_a_studys_report_and_roll_file_are_documents_of_record(
    session: Session, people: People, tmp_path: Path
) -> None:
    """The uploaded file a study was tried on and its report are archived by their SHA-256:
    the archive's check names the study when a byte of either changes."""
    data = roll_csv(12, seed=5)
    clerk = people.clerk.id
    token = roll_files.store_upload(
        tmp_path, data, meta={"file_name": "crim.csv", "user_id": clerk}
    )
    asked = studio.StudyInput(
        source=studio.FILE,
        expected=Decimal("1000.00"),
        variants=(studio.Variant("a", FORMULA, {}),),
        baseline="1",
        file_token=token,
        file_name="crim.csv",
    )
    outcome = studio.try_study(session=session, study=asked, uploads=tmp_path, user_id=clerk)
    petition = records.add(
        session,
        Petition(
            municipality_id=people.municipality.id or 0,
            district_name="Condado",
            petitioner="Alcalde",
            received_on=date(2026, 3, 2),
        ),
    )
    saved = studio.save_study(
        session=session,
        actor=ACTOR,
        petition=petition,
        outcome=outcome,
        report=b"%PDF-1.7 the study's report",
        title="Estudio",
        uploads=tmp_path,
        user_id=clerk,
    )
    session.commit()
    assert saved.file_sha256 == hashlib.sha256(data).hexdigest()
    assert archive.verify(session=session).ok
    again = studio.reopen(session=session, study=saved, voted=None)  # from the archive
    assert again.evaluated[0].cents == outcome.evaluated[0].cents
    _corrupt_one_byte(session, saved.report_sha256)
    report = archive.verify(session=session)
    assert [m.used_by for m in report.mismatches] == [(f"report of formula study {saved.id}",)]
    with pytest.raises(RuntimeError):
        studio.report_bytes(session=session, study=saved)
