"""A field's error speaks the reader's language: its field by its label, never its key."""

from __future__ import annotations

import pytest
from flask import Flask
from flask_babel import force_locale

from tid.rules.errors import InputError
from tid.rules.messages import render
from tid.rules.money import parse_money
from tid.rules.periods import parse_fiscal_year


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("es", "Año fiscal: «» no es un año fiscal como «2024-25»"),
        ("en", 'Fiscal year: "" is not a fiscal year like "2024-25"'),
    ],
)
def test_a_bad_fiscal_year_is_said_in_the_readers_language(
    app: Flask, language: str, expected: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_fiscal_year("")
    # the machine interface keeps the field's path and the English sentence
    assert str(caught.value.message) == 'fiscal_year: "" is not a fiscal year like "2024-25"'
    with app.test_request_context("/"), force_locale(language):
        assert render(caught.value.message) == expected


def test_a_huge_amount_says_it_is_too_large(app: Flask) -> None:
    with pytest.raises(InputError) as caught:
        parse_money("99999999999999999999", "amount")
    with app.test_request_context("/"), force_locale("es"):
        said = render(caught.value.message)
    assert "es demasiado grande" in said and "15 dígitos" in said, said
