"""A saved study reopens beside the ordinance voted, and its report and roll file are
documents of record."""

from __future__ import annotations

import hashlib
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.archive.test_rehash import _corrupt_one_byte
from tests.services.billing.helpers import (
    ACTOR,
    FORMULA,
    import_roll,
    make_ordinance,
)
from tests.services.studio.support import study_of
from tid.demo import records
from tid.demo.roll import roll_csv
from tid.models import Petition
from tid.services import archive, studio
from tid.services import roll as roll_files


def test_a_saved_study_reopens_beside_the_ordinance_voted(session: Session, people: People) -> None:
    import_roll(session, people)
    ordinance = make_ordinance(session, people)
    petition = session.get(Petition, ordinance.petition_id)
    assert petition is not None
    asked = study_of(people, "0.015 * assessed_value", FORMULA, baseline="1")
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
