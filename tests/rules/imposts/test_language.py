"""The formula language — 21 LPRA § 6653(3)(d): the names a formula uses, errors that point at
their column, the bounds of length and depth, unknown names.
"""

from __future__ import annotations

import pytest

from tid.rules.errors import InputError
from tid.rules.imposts import MAX_DEPTH, MAX_FORMULA_LENGTH, compile_formula


def test_compile_lists_names() -> None:
    f = compile_formula(
        "budget * assessed_value / sum(assessed_value) + fee", parameters={"budget", "fee"}
    )
    assert f.names == ("budget", "assessed_value", "fee")
    assert f.parameters == ("budget", "fee")
    assert f.attributes == ("assessed_value",)


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        # m1 a2 x3 (4 r5 o6 o7 m8 s9 ,10 _11 2 12 )13 )14
        ("max(rooms, 2))", "unexpected ')' at column 14"),
        ("a + ) b", "unexpected ')' at column 5"),
        ("1 +", "the formula ends too early at column 4"),
        ("a.b", "unexpected character '.' at column 2"),
        ("x ^ 2", "unexpected character '^' at column 3"),
        ("x ** 2", "unexpected '*' at column 4"),
        ("__import__('os')", "unknown function '__import__' at column 1"),
        ("foo(1)", "unknown function 'foo' at column 1"),
        ('rooms + "hotel"', "a number is needed here, not text at column 9"),
        ("if(rooms, 1, 2)", "'rooms' is not a condition"),
        ("rooms > 2", "a number is needed here, not a condition at column 1"),
        ("sum(sum(a))", "sum() cannot be inside sum or count at column 5"),
        ("round(a, b)", "whole number from 0 to 10 at column 10"),
        ("round(a, 2.5)", "whole number from 0 to 10"),
        ("if(a > 1, 2)", "if() takes a condition and two values"),
        ("1 < 2 < 3", "unexpected '<' at column 7"),
        ("x +\n  )", "unexpected ')' at line 2, column 3"),
        ("1" * 31, "more than 30 digits"),
        ("   ", "write the formula"),
        # Digits are ASCII: the language defines no other (an Arabic-Indic five, a full-width
        # one, a superscript two are refused as characters it does not know).
        ("\u0665", "unexpected character '\u0665' at column 1"),
        ("0.01 * \uff15", "unexpected character '\uff15' at column 8"),
        ("1\u0660 + x", "unexpected character '\u0660' at column 2"),
        ("2\u00b2", "unexpected character '\u00b2' at column 2"),
    ],
)
def test_formula_errors_point_at_the_column(formula: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        compile_formula(formula)
    assert err.value.field == "formula"
    assert message in err.value.message


def test_limits_of_length_and_depth() -> None:
    with pytest.raises(InputError, match="longer than"):
        compile_formula("1 + " * (MAX_FORMULA_LENGTH // 4) + "1")
    with pytest.raises(InputError, match="nests more than"):
        compile_formula("(1 + " * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(InputError, match="nests more than"):
        compile_formula("max(1, " * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(InputError, match="nests more than"):
        compile_formula("-" * 500 + "x")
    compile_formula("(1 + " * 20 + "x" + ")" * 20)  # reasonable nesting is fine
    # Parentheses only group, and a chain of one precedence is one level however long.
    compile_formula("(" * 500 + "x" + ")" * 500)
    compile_formula(" + ".join(["1"] * 1000) + " + x")


def test_unknown_name_at_compile_when_attributes_are_known() -> None:
    with pytest.raises(InputError) as err:
        compile_formula("1.00 * rooms + 2 * romz", attributes={"rooms"})
    assert err.value.message.startswith("unknown name 'romz'")
    assert "column 20" in err.value.message
