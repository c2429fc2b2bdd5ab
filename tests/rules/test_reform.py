"""Reforms (tid/rules/reform.py, reform_compare.py): an overlay of the dated parameters,
checked strictly; a reform that changes nothing gives the law's result; every split under
any reform still adds up to its total to the cent."""

from __future__ import annotations

import threading
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.calc_documents import DOCUMENTS
from tid.rules import calculators, fund_compare, params
from tid.rules.errors import InputError
from tid.rules.reform import parse_reform
from tid.rules.reform_compare import compare, run_request

AVAILABLE = [n for n in sorted(calculators.CALCULATORS) if calculators.available(n)]


def _reform(*changes: tuple[str, str, object], base: object = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "title": "A reform",
        "changes": [{"parameter": p, "from": d, "value": v} for p, d, v in changes],
    }
    if base is not None:
        doc["base"] = base
    return doc


def _without_trace(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "trace"}


def test_a_request_without_a_reform_is_the_calculators_own() -> None:
    for name in AVAILABLE:
        assert run_request(name, DOCUMENTS[name]) == calculators.run(name, DOCUMENTS[name])


def test_the_lottery_share_changes_and_the_trace_says_whose_value() -> None:
    body = {
        **DOCUMENTS["equalization"],
        "reform": _reform(("equalization.lottery_share_rate", "2024-07-01", "0.40")),
    }
    out = run_request("equalization", body)
    assert out["under_law"]["lottery_share"] == "35000000.00"
    assert out["under_reform"]["lottery_share"] == "40000000.00"
    line = next(d for d in out["differences"] if d["field"] == "lottery_share")
    assert line == {
        "field": "lottery_share",
        "row": "",
        "law": "35000000.00",
        "reform": "40000000.00",
        "difference": "5000000.00",
        "changed": True,
    }
    sources = {
        s["parameter"]: s["source"] for s in out["under_reform"]["trace"] if "parameter" in s
    }
    assert sources["equalization.lottery_share_rate"] == "reform"
    assert sources["equalization.gf_share_rate"] == "law"
    assert all(s["source"] == "law" for s in out["under_law"]["trace"])
    assert out["reform"]["changes"][0]["law"] == "0.35"


def test_a_reform_before_its_date_leaves_the_law() -> None:
    body = {
        **DOCUMENTS["equalization"],
        "reform": _reform(("equalization.lottery_share_rate", "2030-07-01", "0.40")),
    }
    out = run_request("equalization", body)
    assert not any(d["changed"] for d in out["differences"])


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (("equalization.lotery_share_rate", "2024-07-01", "0.4"), "parameter", "did you mean"),
        (("equalization.lottery_share_rate", "1980-07-01", "0.4"), "from", "before the parameter"),
        (("equalization.lottery_share_rate", "2024-07-01", "1.4"), "value", "out of range"),
        (("equalization.lottery_share_rate", "2024-07-01", "abc"), "value", "a rate"),
        (("equalization.lottery_share_rate", "2024-07-01", 0.4), "value", "a rate"),
        (("district.ordinance_days", "2024-07-01", "ninety"), "value", "days"),
        (("district.observed_holidays", "2024-07-01", "maybe"), "value", "yes or no"),
        (("room_tax.regime", "2024-07-01", "other"), "value", "choose one of"),
        (("distribution.irc1994.pool_named_part", "2030-07-01", "5/6"), "from", "last day"),
    ],
)
def test_bad_reforms_are_refused_naming_the_parameter(
    change: tuple[str, str, object], field: str, words: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_reform(_reform(change))
    assert caught.value.field == f"reform.changes[0].{field}"
    assert words in str(caught.value)
    assert change[0].split(".")[-1] in str(caught.value) or field == "parameter"


def test_shares_that_no_longer_add_up_are_refused() -> None:
    with pytest.raises(InputError) as caught:
        parse_reform(
            _reform(("distribution.irc1994.pool_general_fund_share", "2000-07-01", "0.40"))
        )
    assert "pool_general_fund_share" in str(caught.value)
    assert "add up to 1.1" in str(caught.value)
    # Both shares moved together still add up to the whole.
    parse_reform(
        _reform(
            ("distribution.irc1994.pool_general_fund_share", "2000-07-01", "0.40"),
            ("distribution.irc1994.pool_bond_fund_share", "2000-07-01", "0.60"),
        )
    )


def test_reforms_stack_and_the_later_wins() -> None:
    saved = {
        "base1": _reform(
            ("equalization.lottery_share_rate", "2024-07-01", "0.40"),
            ("equalization.gf_share_rate", "2024-07-01", "0.03"),
        )
    }
    top = _reform(("equalization.lottery_share_rate", "2024-07-01", "0.45"), base="base1")
    reform = parse_reform(top, resolve=saved.get)
    assert [r.ident for r in reform.stack] == ["base1", None]
    values = {c.parameter: c.text for c in reform.resolved}
    assert values == {
        "equalization.lottery_share_rate": "0.45",
        "equalization.gf_share_rate": "0.03",
    }
    with pytest.raises(InputError, match="no saved reform"):
        parse_reform(_reform(("equalization.gf_share_rate", "2024-07-01", "0.03"), base="nope"))
    loop = {"a": _reform(("equalization.gf_share_rate", "2024-07-01", "0.03"), base="a")}
    with pytest.raises(InputError, match="starts from itself"):
        parse_reform("a", resolve=loop.get)


def test_the_overlay_is_the_contexts_own() -> None:
    reform = parse_reform(_reform(("equalization.lottery_share_rate", "2024-07-01", "0.40")))
    seen: list[str] = []
    day = date(2024, 7, 1)

    def other_thread() -> None:
        seen.append(str(params.param("equalization.lottery_share_rate", day).value))

    with params.overlaid(reform.overlay()):
        assert params.param("equalization.lottery_share_rate", day).value == Decimal("0.40")
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert seen == ["0.35"]
    assert params.param("equalization.lottery_share_rate", day).value == Decimal("0.35")


# --- Properties -----------------------------------------------------------------------

_NAMES = sorted(p["name"] for p in params.all_parameters())


@st.composite
def _unchanged(draw: st.DrawFn) -> dict[str, Any]:
    """A reform that sets parameters to the values the law already has from their last
    value's first day on (so it changes nothing)."""
    names = draw(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=6, unique=True))
    changes = []
    for name in names:
        last = params.history(name).values[-1]
        changes.append((name, last.start.isoformat(), last.text))
    return _reform(*changes)


@settings(max_examples=40, deadline=None)
@given(reform=_unchanged(), name=st.sampled_from(AVAILABLE))
def test_a_reform_that_changes_nothing_gives_the_laws_result(
    reform: dict[str, Any], name: str
) -> None:
    out = compare(name, DOCUMENTS[name], parse_reform(reform))
    assert out["under_reform"] == out["under_law"]  # trace, citations and warnings too
    assert all(s["source"] == "law" for s in out["under_reform"]["trace"])
    assert not any(d["changed"] for d in out["differences"])


_RATE = st.decimals(min_value=0, max_value=1, places=4).map(str)


@settings(max_examples=60, deadline=None)
@given(
    lottery=_RATE,
    gf=_RATE,
    threshold=st.decimals(min_value=Decimal("0.01"), max_value=1, places=3).map(str),
    bases=st.lists(st.integers(min_value=1, max_value=10**9), min_size=2, max_size=12),
)
def test_the_fund_under_any_reform_adds_up_to_the_cent(
    lottery: str, gf: str, threshold: str, bases: list[int]
) -> None:
    municipalities = [
        {
            "name": f"M{i}",
            "base": f"{b / 100:.2f}",
            "allocation_2007_08": f"{(b * (i + 1)) % 10**8 / 100 + 1:.2f}",
            "income_2007_08": f"{(b * 7 + i) % 10**9 / 100 + 1:.2f}",
        }
        for i, b in enumerate(bases)
    ]
    document = {**DOCUMENTS["equalization"], "municipalities": municipalities}
    reform = _reform(
        ("equalization.lottery_share_rate", "2024-07-01", lottery),
        ("equalization.gf_share_rate", "2024-07-01", gf),
        ("equalization.hold_harmless.threshold", "2024-07-01", threshold),
    )
    try:
        out = compare("equalization", document, parse_reform(reform))
    except InputError as exc:
        assert exc.field == "municipalities"  # the hold-harmless cannot be met
        return
    for side in ("under_law", "under_reform"):
        rows = out[side]["municipalities"]
        assert sum(Decimal(r["final"]) for r in rows) == sum(Decimal(r["base"]) for r in rows)
        assert sum(Decimal(r["adjustment"]) for r in rows) == 0
    assert out["under_reform"]["lottery_share"] == str(
        (Decimal(lottery) * Decimal("100000000.00")).quantize(Decimal("0.01"))
    )


@settings(max_examples=60, deadline=None)
@given(
    admin=st.decimals(min_value=0, max_value=Decimal("0.3"), places=3).map(str),
    general=st.decimals(min_value=0, max_value=Decimal("0.3"), places=3).map(str),
    bureau=st.decimals(min_value=0, max_value=Decimal("0.3"), places=3).map(str),
    collected=st.lists(st.integers(min_value=0, max_value=10**10), min_size=1, max_size=12),
)
def test_the_room_tax_split_under_any_reform_adds_up_to_the_cent(
    admin: str, general: str, bureau: str, collected: list[int]
) -> None:
    months = [
        {"month": f"{2024 + (6 + i) // 12}-{(6 + i) % 12 + 1:02d}", "collected": f"{c / 100:.2f}"}
        for i, c in enumerate(collected)
    ]
    document = {**DOCUMENTS["room-tax-distribution"], "months": months}
    reform = _reform(
        ("distribution.act272.tourism_company_admin_share", "2024-07-01", admin),
        ("distribution.act272.general_fund_share", "2024-07-01", general),
        ("distribution.act272.convention_bureau_share", "2024-07-01", bureau),
    )
    out = compare("room-tax-distribution", document, parse_reform(reform))
    for side in ("under_law", "under_reform"):
        for month in out[side]["months"]:
            total = sum(Decimal(v) for v in month["allocations"].values())
            assert total == Decimal(month["collected"]), month


@settings(max_examples=60, deadline=None)
@given(
    gf=st.decimals(min_value=Decimal("0.001"), max_value=Decimal("0.2"), places=4).map(str),
    threshold=st.decimals(min_value=Decimal("0.3"), max_value=1, places=3).map(str),
    bases=st.lists(st.integers(min_value=1, max_value=10**9), min_size=2, max_size=20),
)
def test_the_bases_moved_with_the_general_fund_share_keep_every_cent(
    gf: str, threshold: str, bases: list[int]
) -> None:
    municipalities = [
        {
            "name": f"M{i}",
            "base": f"{b / 100:.2f}",
            "allocation_2007_08": f"{(b * (i + 3)) % 10**7 / 100 + 1:.2f}",
            "income_2007_08": f"{(b * 11 + i) % 10**9 / 100 + 100:.2f}",
        }
        for i, b in enumerate(bases)
    ]
    document = {**DOCUMENTS["equalization"], "municipalities": municipalities}
    reform = parse_reform(
        _reform(
            ("equalization.gf_share_rate", "2024-07-01", gf),
            ("equalization.hold_harmless.threshold", "2024-07-01", threshold),
        )
    )
    shares = {**DOCUMENTS["equalization"], "municipalities": []}
    both = compare("equalization", shares, reform)
    law = Decimal(both["under_law"]["gf_share"])
    new = Decimal(both["under_reform"]["gf_share"])
    moved = fund_compare.scaled_bases(document, law, new)
    total = sum(Decimal(m["base"]) for m in municipalities)
    expected = (total * new / law).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert sum(Decimal(m["base"]) for m in moved["municipalities"]) == expected
    try:
        _compared, comparison = fund_compare.compare_fund(document, reform, scale=True)
    except InputError as exc:
        assert exc.field == "municipalities"
        return
    assert comparison is not None
    assert comparison.reform_total == expected
    assert comparison.winners + comparison.losers + comparison.unchanged == len(bases)
