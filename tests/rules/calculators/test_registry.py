"""A result's citations, in order of first use."""

from __future__ import annotations

from tid.rules import calculators


def test_citations_in_order_of_first_use() -> None:
    trace = [
        {"step": "a", "value": "1", "citation": "X"},
        {"step": "b", "value": "2", "citation": "Y"},
        {"step": "c", "value": "3", "citation": "X"},
    ]
    assert calculators.citations({"trace": trace}) == ["X", "Y"]
