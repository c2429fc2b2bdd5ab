"""A formula in Spanish: the roll's columns and the ordinance's figures by their Spanish
names (``valor_tasado``) evaluate as by their codes, and the parser's errors, the names they
give and the explanations are said in the reader's language (the English text unchanged for
the machine interface)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tid.rules.errors import InputError
from tid.rules.imposts import check_formula_names, compile_formula, evaluate
from tid.rules.messages import from_json, render, to_json

PROPS = [
    {"id": "A", "assessed_value": Decimal("100000.00"), "rooms": Decimal(3)},
    {"id": "B", "assessed_value": Decimal("20000.00"), "rooms": Decimal(0)},
]


def test_spanish_names_evaluate_as_the_codes() -> None:
    spanish = compile_formula("max(250, 0.0035 * valor_tasado) + 2 * habitaciones")
    english = compile_formula("max(250, 0.0035 * assessed_value) + 2 * rooms")
    assert spanish.attributes == english.attributes == ("assessed_value", "rooms")
    got, want = evaluate(spanish, PROPS), evaluate(english, PROPS)
    assert [p.amount for p in got.properties] == [p.amount for p in want.properties]
    assert got.formula == "max(250, 0.0035 * valor_tasado) + 2 * habitaciones"  # as written
    said = render(got.properties[0].explanation, "es")
    assert "valor tasado" in said and "habitaciones" in said
    assert "assessed" not in said


def test_figures_by_spanish_names_and_a_parameter_of_that_name_wins() -> None:
    f = compile_formula("presupuesto * valor_tasado / sum(valor_tasado)", parameters={"budget"})
    assert f.parameters == ("budget",)
    result = evaluate(f, PROPS, {"budget": Decimal("1200.00")})
    assert result.total == Decimal("1200.00")
    own = compile_formula("presupuesto * 2", parameters={"presupuesto"})
    assert own.parameters == ("presupuesto",)


def test_a_machine_document_keyed_by_the_spanish_name_still_reads() -> None:
    f = compile_formula("0.01 * valor_tasado")
    result = evaluate(f, [{"id": "A", "valor_tasado": Decimal("500.00")}])
    assert result.total == Decimal("5.00")


def test_parser_errors_in_spanish_and_english() -> None:
    with pytest.raises(InputError) as err:
        compile_formula("max(250, 0.0035 * valor_tasado")
    message = err.value.message
    assert message == "the formula ends too early at column 31; expected ')', ',', 'or'"
    assert render(message, "es") == (
        "la fórmula termina antes de tiempo en la columna 31; se esperaba ')', ',' u 'or'"
    )
    assert render(from_json(to_json(message)), "es") == render(message, "es")
    assert err.value.as_json()["field"] == "formula"


def test_type_error_and_unknown_name_in_spanish() -> None:
    with pytest.raises(InputError) as err:
        compile_formula('habitaciones + "hotel"')
    assert render(err.value.message, "es") == (
        "aquí se necesita un número, no texto en la columna 16"
    )
    with pytest.raises(InputError) as err:
        compile_formula("0.01 * valor_tasdo", attributes={"assessed_value"})
    assert "'valor_tasdo'" in render(err.value.message, "es")
    assert render(err.value.message, "es").startswith("nombre desconocido")


def test_the_roll_columns_are_listed_by_their_names_in_the_reader_language() -> None:
    with pytest.raises(InputError) as err:
        check_formula_names(
            "0.01 * valor_tasdo", columns=["assessed_value", "rooms"], parameters=[]
        )
    assert render(err.value.message, "es").endswith(
        "Las columnas del registro: valor_tasado, habitaciones."
    )
    assert str(err.value.message).endswith("The roll's columns: assessed_value, rooms.")
    assert "valor_tasdo" in str(err.value.message)


def test_an_evaluation_error_names_the_property_in_spanish() -> None:
    f = compile_formula("valor_tasado / habitaciones")
    with pytest.raises(InputError) as err:
        evaluate(f, PROPS)
    assert render(err.value.message, "es") == (
        "propiedad B: división entre cero (habitaciones es 0) en la columna 14 de la fórmula"
    )
    assert err.value.field == "properties[1]"
