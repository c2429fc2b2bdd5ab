"""The impost formula language — 21 LPRA § 6653(3)(d)."""

from __future__ import annotations

import time
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tid.rules.calculators import run
from tid.rules.errors import InputError
from tid.rules.imposts import (
    _CONTEXT,
    MAX_DEPTH,
    MAX_FORMULA_LENGTH,
    NUM,
    _Compiler,
    apportioned_attribute,
    compile_formula,
    evaluate,
)

D = Decimal


def one(formula: str, params: dict[str, Any] | None = None, **attrs: Any) -> Any:
    f = compile_formula(formula, parameters=params or {})
    return evaluate(f, [{"id": "P1", **attrs}], params).properties[0]


def test_rate_and_per_room_fee_worked_example() -> None:
    # 0.0125 × 412,000.00 = 5,150.00; 1.50 × 120 = 180.00; 5,150.00 + 180.00 = 5,330.00
    line = one(
        "0.0125 * assessed_value + 1.50 * rooms", assessed_value=D("412000.00"), rooms=D(120)
    )
    assert line.amount == D("5330.00")
    assert line.explanation == (
        "0.0125 × $412,000.00 assessed value + $1.50 × 120 rooms = $5,330.00"
    )


def test_compile_lists_names() -> None:
    f = compile_formula(
        "budget * assessed_value / sum(assessed_value) + fee", parameters={"budget", "fee"}
    )
    assert f.names == ("budget", "assessed_value", "fee")
    assert f.parameters == ("budget", "fee")
    assert f.attributes == ("assessed_value",)


def test_half_up_rounding_of_amount_and_round() -> None:
    # 0.005 × 1 = 0.005 -> 0.01 half-up (half-even would give 0.00).
    assert one("0.005 * x", x=D(1)).amount == D("0.01")
    # round(2.345, 2) = 2.35 half-up; × 1 = 2.35
    assert one("round(2.345, 2) * x", x=D(1)).amount == D("2.35")
    # 10 / 3 = 3.333… -> 3.33, and the explanation says it was rounded.
    line = one("x / 3", x=D(10))
    assert line.amount == D("3.33")
    assert line.explanation == "10 x ÷ 3 = $3.33 (rounded to cents)"


def test_conditions_text_and_functions() -> None:
    formula = (
        'if(kind == "hotel" and not rooms < 100, 0.02, 0.01) * value + max(0, rooms - 10) * 2.00'
    )
    # hotel with 120 rooms: 0.02 × 50,000.00 = 1,000.00; (120 - 10) × 2.00 = 220.00 -> 1,220.00
    hotel = one(formula, kind="hotel", rooms=D(120), value=D("50000.00"))
    assert hotel.amount == D("1220.00")
    assert '(as kind "hotel" = "hotel" and not (120 rooms < 100) is true)' in hotel.explanation
    # inn with 3 rooms: 0.01 × 50,000.00 = 500.00; max(0, 3 - 10) = 0 -> 500.00
    inn = one(formula, kind="inn", rooms=D(3), value=D("50000.00"))
    assert inn.amount == D("500.00")
    assert "is false" in inn.explanation
    # min, or, != and <>
    assert one("min(5.00, x, 7.00)", x=D("6.00")).amount == D("5.00")
    assert one('if(k != "a" or x >= 2, 1.00, 2.00)', k="a", x=D(1)).amount == D("2.00")
    assert one('if(k <> "a", 1.00, 2.00)', k="b").amount == D("1.00")
    assert one("-(-x)", x=D("4.00")).amount == D("4.00")


def test_aggregates() -> None:
    f = compile_formula("count() * 1.00 + count(rooms > 10) * 10.00 + sum(rooms * 2) / 100")
    props = [{"id": "A", "rooms": D(20)}, {"id": "B", "rooms": D(5)}]
    # count() = 2; count(rooms > 10) = 1; sum(rooms × 2) = 40 + 10 = 50
    # each: 2 × 1.00 + 1 × 10.00 + 50 / 100 = 2.00 + 10.00 + 0.50 = 12.50
    result = evaluate(f, props)
    assert [p.amount for p in result.properties] == [D("12.50"), D("12.50")]
    assert result.total == D("25.00")
    assert "2 properties × $1.00" in result.properties[0].explanation
    assert "1 property where rooms > 10" in result.properties[0].explanation


def test_budget_apportionment_by_largest_remainder() -> None:
    f = compile_formula("budget * assessed_value / sum(assessed_value)", parameters={"budget"})
    props = [{"id": i, "assessed_value": D("100.00")} for i in ("A", "B", "C")]
    result = evaluate(f, props, {"budget": D("100.00")})
    # 100.00 × 100 / 300 = 33.333… each; 3 × 33.33 = 99.99, the cent left goes to the
    # earliest of the equal remainders: A.
    assert [p.amount for p in result.properties] == [D("33.34"), D("33.33"), D("33.33")]
    assert result.total == D("100.00")
    assert result.apportioned and result.budget == D("100.00")
    assert result.properties[0].explanation == (
        "$100.00 budget × $100.00 assessed value ÷ $300.00 total assessed value = $33.34 "
        "(a largest-remainder share of $100.00)"
    )
    assert any("largest-remainder" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("budget * assessed_value / sum(assessed_value)", "assessed_value"),
        ("assessed_value / sum(assessed_value) * budget", "assessed_value"),
        ("budget * (assessed_value / sum(assessed_value))", "assessed_value"),
        ("0.5 * budget * rooms / sum(rooms)", "rooms"),
        ("budget * assessed_value / sum(assessed_value) + 1.00", None),
        ("rooms * assessed_value / sum(assessed_value)", None),  # rooms varies by property
        ("budget * assessed_value / sum(rooms)", None),
        ("budget / sum(assessed_value) / assessed_value", None),
    ],
)
def test_apportionment_shape(formula: str, expected: str | None) -> None:
    f = compile_formula(formula, parameters={"budget"})
    assert apportioned_attribute(f, {"budget"}) == expected


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


def test_evaluation_errors_name_the_property_and_position() -> None:
    f = compile_formula("10.00 / rooms")
    with pytest.raises(InputError) as err:
        evaluate(f, [{"id": "A", "rooms": D(2)}, {"id": "B-7", "rooms": D(0)}])
    assert err.value.field == "properties[1]"
    assert err.value.message == (
        "property B-7: division by zero (rooms is 0) at column 7 of the formula"
    )
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("2 * romz"), [{"id": "A", "rooms": D(1)}])
    assert err.value.field == "properties[0].romz"
    assert err.value.message.startswith("property A: unknown name 'romz'")
    assert err.value.message.endswith("at column 5 of the formula")
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("2 * kind"), [{"id": "A", "kind": "hotel"}])
    assert "property A: kind is 'hotel', not a number at column 5" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(compile_formula('if(kind == "1", 1, 2)'), [{"id": "A", "kind": D(1)}])
    assert "compares a number with text" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("x - 5.00"), [{"id": "A", "x": D("1.00")}])
    assert "negative amount" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(
            compile_formula("budget * x"),
            [{"id": "A", "x": D(1), "budget": D(2)}],
            {"budget": D(1)},
        )
    assert "both a parameter and an attribute" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("x"), [{"id": "A", "x": D(1)}, {"id": "A", "x": D(1)}])
    assert err.value.field == "properties[1].id"


def test_zero_total_apportionment_is_a_division_error() -> None:
    f = compile_formula("budget * v / sum(v)", parameters={"budget"})
    with pytest.raises(InputError) as err:
        evaluate(f, [{"id": "A", "v": D(0)}], {"budget": D("10.00")})
    assert "division by zero (sum(v) is 0) at column 12" in err.value.message


def test_document() -> None:
    out = run(
        "impost",
        {
            "formula": 'if(kind = "hotel", 0.0125, 0.01) * assessed_value + fee * rooms',
            "properties": [
                {"id": "A", "kind": "hotel", "assessed_value": "412,000.00", "rooms": "120"},
                {"id": "B", "kind": "inn", "assessed_value": "80000.00", "rooms": "4"},
            ],
            "parameters": {"fee": "1.50"},
        },
    )
    # A: 0.0125 × 412,000.00 + 1.50 × 120 = 5,150.00 + 180.00 = 5,330.00
    # B: 0.01 × 80,000.00 + 1.50 × 4 = 800.00 + 6.00 = 806.00; total 6,136.00
    assert [(p["id"], p["amount"]) for p in out["properties"]] == [
        ("A", "5330.00"),
        ("B", "806.00"),
    ]
    assert out["total"] == "6136.00"
    assert out["properties"][1]["explanation"] == (
        '0.01 (as kind "inn" = "hotel" is false) × $80,000.00 assessed value '
        "+ $1.50 fee × 4 rooms = $806.00"
    )
    assert out["parameters_used"] == ["fee"]
    assert out["apportioned"] is False
    assert out["trace"] and "warnings" in out


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({"formula": "x", "properties": [{"id": "A", "x": 1.5}]}, "properties[0].x"),
        ({"formula": 3, "properties": [{"id": "A"}]}, "formula"),
        ({"formula": "x +", "properties": [{"id": "A"}]}, "formula"),
        ({"formula": "x", "properties": []}, "properties"),
        ({"formula": "x", "properties": [{"x": "1"}]}, "properties[0].id"),
        (
            {"formula": "x * k", "properties": [{"id": "A", "x": "1"}], "parameters": {"k": "a"}},
            "parameters.k",
        ),
    ],
)
def test_document_errors(doc: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        run("impost", doc)
    assert err.value.field == field


cents = st.integers(min_value=0, max_value=10**11).map(lambda c: D(c) / 100)


@settings(max_examples=1000, deadline=None)
@given(
    budget=cents,
    weights=st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=20).filter(
        lambda ws: sum(ws) > 0
    ),
)
def test_apportionment_adds_up_to_the_budget(budget: Decimal, weights: list[int]) -> None:
    f = compile_formula("budget * value / sum(value)", parameters={"budget"})
    props = [{"id": str(i), "value": D(w)} for i, w in enumerate(weights)]
    result = evaluate(f, props, {"budget": budget})
    amounts = [p.amount for p in result.properties]
    assert sum(amounts, D(0)) == budget == result.total
    total_weight = sum(weights)
    for amount, w in zip(amounts, weights, strict=True):
        assert amount >= 0
        # Each share is within a cent of its exact value.
        assert abs(amount - budget * w / total_weight) < D("0.01")


@settings(max_examples=300, deadline=None)
@given(
    rate=st.integers(min_value=0, max_value=10**6).map(lambda n: D(n) / 10**5),
    value=cents,
    fee=cents,
    rooms=st.integers(min_value=0, max_value=5000),
)
def test_amount_is_the_exact_value_rounded_half_up(
    rate: Decimal, value: Decimal, fee: Decimal, rooms: int
) -> None:
    line = one(
        "rate * value + fee * rooms", {"rate": rate, "fee": fee}, value=value, rooms=D(rooms)
    )
    exact = rate * value + fee * rooms
    assert line.exact == exact
    assert line.amount == exact.quantize(D("0.01"), rounding=ROUND_HALF_UP)


def test_hundred_thousand_properties_well_under_two_seconds() -> None:
    props = [
        {"id": str(i), "assessed_value": D(100000 + i), "rooms": D(i % 50)} for i in range(100_000)
    ]
    start = time.process_time()
    f = compile_formula("0.0125 * assessed_value + 1.50 * rooms")
    result = evaluate(f, props)
    elapsed = time.process_time() - start  # CPU time: the machine may be shared
    assert len(result.properties) == 100_000
    # property 0: 0.0125 × 100,000 + 1.50 × 0 = 1,250.00
    assert result.properties[0].amount == D("1250.00")
    assert elapsed < 2.0, f"{elapsed:.2f} s"


def test_absurdly_large_amount_is_an_input_error() -> None:
    with pytest.raises(InputError) as err:
        evaluate(
            compile_formula("99999999999999999999 * 99999999999999999999 * x"),
            [{"id": "A", "x": D(1)}],
        )
    assert err.value.field == "properties[0]"
    assert "too large" in err.value.message


def test_the_explanation_in_spanish() -> None:
    """The notices speak Spanish first: the same arithmetic, the roll's names in Spanish."""
    formula = compile_formula(
        'max(75.00, 0.0125 * assessed_value) + if(use_class == "hotel", 15.00 * rooms, 0)'
    )
    result = evaluate(
        formula,
        [
            {
                "id": "p1",
                "assessed_value": Decimal("412000.00"),
                "rooms": Decimal(120),
                "use_class": "hotel",
            }
        ],
    )
    line = result.properties[0]
    # max(75, 0.0125 × 412,000 = 5,150) + 15 × 120 = 1,800 → 6,950.00
    assert line.explanation_es == (
        "max($75.00, 0.0125 × $412,000.00 de valor tasado) + ($15.00 × 120 habitaciones) "
        '(pues clase de uso "hotel" = "hotel" es cierto) = $6,950.00'
    )
    assert line.explanation.endswith("= $6,950.00")


# --------------------------------------------------------------------------- compiling cost


def _visits(text: str) -> int:
    """The nodes the compiler examines to build a formula's closures (no timing)."""
    formula = compile_formula(text, parameters=["budget"])
    compiler = _Compiler(formula, {"budget": D("500.00")})
    with localcontext(_CONTEXT):
        compiler.build(formula.tree, NUM)
    return compiler.visits


_LEAVES = st.sampled_from(["1", "2.5", "0", "x", "y", "budget", "(1 + 2)"])


def _combine(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner)
    return st.one_of(
        pair.map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        inner.map(lambda a: f"({a})"),
        inner.map(lambda a: f"-({a})"),
        st.tuples(inner, inner).map(lambda t: f"max({t[0]}, {t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"round({t[0]} * {t[1]}, 2)"),
        st.tuples(inner, inner, inner).map(lambda t: f"if({t[0]} > {t[1]}, {t[1]}, {t[2]})"),
    )


_RANDOM_FORMULAS = st.recursive(_LEAVES, _combine, max_leaves=60)


@settings(max_examples=300)
@given(_RANDOM_FORMULAS)
def test_doubling_a_formula_at_most_doubles_the_compilers_visits(text: str) -> None:
    once = _visits(text)
    twice = _visits(f"({text}) + ({text})")
    # The sum's chain node, its two operands and their constant parts are the only extra.
    assert twice <= 2 * once + 4
    assert once <= 3 * compile_formula(text, parameters=["budget"]).size


@pytest.mark.parametrize("terms", [10, 100, 1000])
def test_a_chain_of_constants_costs_in_proportion_to_its_terms(terms: int) -> None:
    # The report's attack: under the old compiler each added term doubled the work.
    small = _visits(" + ".join(["1"] * terms) + " + x")
    large = _visits(" + ".join(["1"] * (2 * terms)) + " + x")
    assert large <= 2 * small + 2
    nested = _visits("(1 + " * 60 + "x" + ")" * 60)
    assert nested <= 3 * compile_formula("(1 + " * 60 + "x" + ")" * 60).size
