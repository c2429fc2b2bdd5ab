"""The compiler's work: in proportion to the formula's size, never exponential."""

from __future__ import annotations

from decimal import localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.rules.imposts.helpers import D
from tid.rules.imposts import NUM, compile_formula
from tid.rules.imposts.compiler import CONTEXT, Compiler


def compiler_visits(text: str) -> int:
    """The nodes the compiler examines to build a formula's closures (no timing)."""
    formula = compile_formula(text, parameters=["budget"])
    compiler = Compiler(formula, {"budget": D("500.00")})
    with localcontext(CONTEXT):
        compiler.build(formula.tree, NUM)
    return compiler.visits


LEAVES = st.sampled_from(["1", "2.5", "0", "x", "y", "budget", "(1 + 2)"])


def combine(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner)
    return st.one_of(
        pair.map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        inner.map(lambda a: f"({a})"),
        inner.map(lambda a: f"-({a})"),
        st.tuples(inner, inner).map(lambda t: f"max({t[0]}, {t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"round({t[0]} * {t[1]}, 2)"),
        st.tuples(inner, inner, inner).map(lambda t: f"if({t[0]} > {t[1]}, {t[1]}, {t[2]})"),
    )


RANDOM_FORMULAS = st.recursive(LEAVES, combine, max_leaves=60)


@settings(max_examples=examples(300))
@given(RANDOM_FORMULAS)
def test_doubling_a_formula_at_most_doubles_the_compilers_visits(text: str) -> None:
    once = compiler_visits(text)
    twice = compiler_visits(f"({text}) + ({text})")
    # The sum's chain node, its two operands and their constant parts are the only extra.
    assert twice <= 2 * once + 4
    assert once <= 3 * compile_formula(text, parameters=["budget"]).size


@pytest.mark.parametrize("terms", [10, 100, 1000])
def test_a_chain_of_constants_costs_in_proportion_to_its_terms(terms: int) -> None:
    # The report's attack: under the old compiler each added term doubled the work.
    small = compiler_visits(" + ".join(["1"] * terms) + " + x")
    large = compiler_visits(" + ".join(["1"] * (2 * terms)) + " + x")
    assert large <= 2 * small + 2
    nested = compiler_visits("(1 + " * 60 + "x" + ")" * 60)
    assert nested <= 3 * compile_formula("(1 + " * 60 + "x" + ")" * 60).size
