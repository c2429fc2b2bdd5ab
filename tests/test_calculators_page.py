"""The calculators' JSON interface has one page in the project's own words
(docs/calculators.md), held to the registry: every calculator has its section, and every
field a calculator names — in or out, and the values it takes — is written in it."""

from __future__ import annotations

import re
from pathlib import Path

from tid.rules import calculators

PAGE = Path(__file__).resolve().parent.parent / "docs" / "calculators.md"


def _sections() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^## `([a-z-]+)`\n", text, flags=re.M)
    found = dict(zip(parts[1::2], parts[2::2], strict=True))
    return {name: body.split("\n## ")[0] for name, body in found.items()}


def test_every_calculator_and_every_field_it_names_is_on_its_page() -> None:
    sections = _sections()
    assert sorted(sections) == sorted(calculators.CALCULATORS)
    missing = {
        name: sorted(k for k in calculator.labels if f"`{k}`" not in sections[name])
        for name, calculator in calculators.CALCULATORS.items()
    }
    assert {name: keys for name, keys in missing.items() if keys} == {}
