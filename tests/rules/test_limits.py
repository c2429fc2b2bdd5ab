"""The bounds of a calculator document (tid.rules.limits), checked before any work."""

from __future__ import annotations

from typing import Any

import pytest

from tid.rules import limits
from tid.rules.calculators import run
from tid.rules.errors import InputError


@pytest.mark.parametrize(
    ("document", "field", "words"),
    [
        ({"months": [{}] * 13}, "months", "at most 12 items"),
        ({"municipalities": [{}] * 101}, "municipalities", "at most 100 items"),
        ({"other": [0] * 101}, "other", "at most 100 items"),
        ({f"k{i}": 1 for i in range(101)}, "", "more than 100 fields"),
        ({"a": [[[[[[[[["deep"]]]]]]]]]}, "a[0][0][0][0][0][0][0][0]", "nested more than 8"),
        ({"nights": -(10**10)}, "nights", "larger than 1,000,000,000"),
        ({"rate": float("inf")}, "rate", "not a finite number"),
        ({"name": "x" * 1001}, "name", "longer than 1,000 characters"),
        ({"formula": "x" * 10_001}, "formula", "longer than 10,000 characters"),
        ({"properties": [{"id": "p", "owner": "x" * 1001}]}, "properties[0].owner", "1,000"),
    ],
)
def test_each_bound_is_refused_naming_the_field(
    document: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(InputError) as caught:
        limits.check_document(document)
    assert caught.value.field == field
    assert words in caught.value.message


def test_documents_within_the_bounds_pass() -> None:
    limits.check_document(
        {
            "months": [{"month": "2026-07", "collected": "1.00"}] * 12,
            "formula": "x" * 10_000,
            "nights": 10**9,
            "properties": [{"id": str(i)} for i in range(5_000)],
        }
    )


def test_every_calculator_checks_the_bounds_first() -> None:
    with pytest.raises(InputError) as caught:
        run("excise-allocation", {"fiscal_year": "2024-25", "months": [{}] * 13})
    assert caught.value.field == "months"


def test_the_checkpoint_calls_the_callers_hook_and_only_inside_its_block() -> None:
    calls: list[int] = []
    limits.checkpoint()  # no hook: nothing happens
    with limits.watched(lambda: calls.append(1)):
        limits.checkpoint()
        limits.checkpoint()
    limits.checkpoint()
    assert calls == [1, 1]

    def stop() -> None:
        raise limits.TimeBudgetError

    with pytest.raises(limits.TimeBudgetError), limits.watched(stop):
        run(
            "impost",
            {"formula": "0.01 * v", "properties": [{"id": "a", "v": "1.00"}]},
        )
