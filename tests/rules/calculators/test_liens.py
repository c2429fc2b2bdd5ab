"""The lien ranking's module: its form offers the rule's kinds of lien, each named."""

from __future__ import annotations

from tid.rules.calculators import liens
from tid.rules.liens import KINDS


def test_the_form_offers_the_rules_kinds_each_with_its_label() -> None:
    table = liens.FORM.tables()[0]
    kind = table.column("kind")
    assert kind is not None and kind.choices == KINDS
    assert set(KINDS) <= set(liens.LABELS)
