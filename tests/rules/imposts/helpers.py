"""What the impost formula tests share: one property's impost by a formula, amounts in cents."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from tid.rules.imposts import compile_formula, evaluate

D = Decimal


def one(formula: str, params: dict[str, Any] | None = None, **attrs: Any) -> Any:
    f = compile_formula(formula, parameters=params or {})
    return evaluate(f, [{"id": "P1", **attrs}], params).properties[0]


cents = st.integers(min_value=0, max_value=10**11).map(lambda c: D(c) / 100)
