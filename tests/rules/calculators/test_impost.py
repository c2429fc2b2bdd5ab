"""The impost formula's module: its properties take any column, its parameters are pairs."""

from __future__ import annotations

from tid.rules.calculators import impost


def test_properties_are_open_and_parameters_are_pairs() -> None:
    properties, parameters = impost.FORM.tables()
    assert (properties.key, properties.open_columns, properties.pairs) == (
        "properties",
        True,
        False,
    )
    assert (parameters.key, parameters.open_columns, parameters.pairs) == (
        "parameters",
        False,
        True,
    )
