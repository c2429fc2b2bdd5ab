"""What the studio's tests share: the fiscal year of their roll and a study asked of it."""

from __future__ import annotations

from tests.conftest import People
from tid.services import studio

FY = "2026-27"


def study_of(
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
