"""A day is Puerto Rico's (``tid.clock``), never the machine's: between midnight UTC and
midnight in Puerto Rico the two differ, and a page's default date, a quote's day or a test's
expectation would then be a day off."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MACHINE_DAY = re.compile(r"\bdate\.today\(\)|\bdatetime\.now\(\)(?!\.astimezone)")


def test_no_code_and_no_test_asks_the_machine_for_the_day() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for place in ("tid", "tests", "benchmarks")
        for path in sorted((ROOT / place).rglob("*.py"))
        if path.name != Path(__file__).name
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if MACHINE_DAY.search(line)
    ]
    assert found == []
