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


def test_the_registry_lists_each_module_once_in_its_order() -> None:
    assert list(calculators.CALCULATORS) == [m.CALCULATOR.name for m in calculators.MODULES]
    assert list(calculators.FORMS) == list(calculators.CALCULATORS)
    assert all(calculators.available(name) for name in calculators.CALCULATORS)
    assert not calculators.available("no-such-calculator")


def test_every_form_is_named_as_its_calculator() -> None:
    for name, calculator in calculators.CALCULATORS.items():
        assert calculator.form.name == name
