"""A study's figures: every split adds up to its total, and an apportionment meets its amount
to the cent."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.services import studio

_VALUES = st.lists(
    st.tuples(
        st.decimals(min_value=0, max_value=3_000_000, places=2),
        st.sampled_from(["hotel", "residencial", "comercial", ""]),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=examples(40), deadline=None)
@given(rows=_VALUES, budget=st.decimals(min_value=0, max_value=2_000_000, places=2))
def test_every_split_adds_up_to_its_total(rows: list[tuple[Decimal, str]], budget: Decimal) -> None:
    assume(sum(v for v, _c in rows) > 0)
    roll = studio.StudyRoll(
        properties=[
            {"id": f"040-010-{i:03d}-01", "assessed_value": v, "use_class": c}
            for i, (v, c) in enumerate(rows)
        ],
        classes=[c for _v, c in rows],
        assessed=[v for v, _c in rows],
        attributes=["assessed_value", "use_class"],
        owners={},
    )
    base = studio.evaluate_variant(
        studio.Variant("a", "max(75.00, 0.0125 * assessed_value)", {}), roll, budget, "v1"
    )
    shared = studio.evaluate_variant(
        studio.Variant("b", "expected_amount * assessed_value / sum(assessed_value)", {}),
        roll,
        budget,
        "v2",
    )
    assert shared.total == int(budget * 100)  # the apportionment meets it to the cent
    for evaluated in (base, shared):
        summary = studio.summarize(evaluated, roll, budget)
        assert sum(s.total for s in summary.by_class) == summary.total == evaluated.total
        assert sum(s.total for s in summary.by_band) == summary.total
        assert sum(s.count for s in summary.by_band) == len(rows)
    comparison = studio.compare(base, shared, roll)
    assert comparison.more + comparison.less + comparison.same == len(rows)
    assert comparison.net == shared.total - base.total
    assert sum(after - before for _k, before, after in comparison.by_class) == comparison.net
    same = studio.compare(base, base, roll)
    assert (same.more, same.less, same.raised, same.lowered) == (0, 0, 0, 0)
