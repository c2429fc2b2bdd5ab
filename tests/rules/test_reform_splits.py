"""Reforms, as properties, beside tests/rules/test_reform.py: a reform that changes nothing
(alone, stacked on one that it undoes, or on the fund municipality by municipality) gives
exactly the law's result; the excise allocations and the 1994 room-tax distribution under
any reform of their caps and shares still pay out every cent collected."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.calc_documents import DOCUMENTS
from tests.conftest import examples
from tid.rules import fund_compare, fund_example, params
from tid.rules.errors import InputError
from tid.rules.reform import parse_reform
from tid.rules.reform_compare import compare

EQUALIZATION = sorted(
    p["name"] for p in params.all_parameters() if p["name"].startswith("equalization.")
)
FY_START = "2024-07-01"


def _reform(changes: list[tuple[str, str, object]], base: object = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "title": "A reform",
        "changes": [{"parameter": p, "from": d, "value": v} for p, d, v in changes],
    }
    if base is not None:
        doc["base"] = base
    return doc


def _law_from(name: str, day: str) -> str:
    """The text of the law's value of ``name`` in force on ``day``."""
    from datetime import date

    found = params.param(name, date.fromisoformat(day))
    return next(v.text for v in params.history(name).values if v.start == found.start)


_money = st.integers(min_value=0, max_value=10**12).map(lambda c: f"{Decimal(c) / 100:.2f}")


@settings(max_examples=examples(25), deadline=None)
@given(
    names=st.lists(st.sampled_from(EQUALIZATION), min_size=1, max_size=4, unique=True),
    moved=st.lists(st.decimals(min_value=0, max_value=1, places=3), min_size=4, max_size=4),
)
def test_a_reform_that_undoes_its_base_gives_the_laws_result_everywhere(
    names: list[str], moved: list[Decimal]
) -> None:
    """A base that moves the fund's rates, and a reform on it that puts back the law's
    values from the same days: the result is the law's exactly, municipality by
    municipality (the 78 of the demo), the bases as given and moved with the General Fund."""
    rates = ["equalization.lottery_share_rate"]
    rates += [n for n in names if params.history(n).values[-1].unit == "rate" and n not in rates]
    base = _reform([(n, FY_START, str(v)) for n, v in zip(rates, moved, strict=False)])
    undone = list(dict.fromkeys([*rates, *names]))
    undo = _reform([(n, FY_START, _law_from(n, FY_START)) for n in undone], base="base")
    reform = parse_reform(undo, resolve={"base": base}.get)
    assert len(reform.stack) == 2
    document = fund_example.document()
    for scale in (True, False):
        compared, comparison = fund_compare.compare_fund(document, reform, scale=scale)
        assert compared["under_reform"] == compared["under_law"]
        assert comparison is not None and len(comparison.rows) == len(document["municipalities"])
        assert comparison.winners == comparison.losers == 0
        assert comparison.reform_total == comparison.law_total
    plain = compare("equalization", DOCUMENTS["equalization"], reform)
    assert not any(d["changed"] for d in plain["differences"])


@settings(max_examples=examples(40), deadline=None)
@given(
    caps=st.lists(
        st.integers(min_value=0, max_value=5 * 10**9).map(lambda c: f"{Decimal(c) / 100:.2f}"),
        min_size=6,
        max_size=6,
    ),
    diesel=st.decimals(min_value=0, max_value=Decimal("0.5"), places=4).map(str),
    months=st.lists(
        st.tuples(_money, _money, st.integers(min_value=0, max_value=10**8), _money),
        min_size=1,
        max_size=12,
    ),
)
def test_the_excise_allocations_under_any_reform_pay_out_every_cent(
    caps: list[str], diesel: str, months: list[tuple[str, str, int, str]]
) -> None:
    """Under any caps and any diesel cents, each month pays out exactly what it takes in:
    the fuel to the Highways Authority (the gasoline tax, the crude oil excise and the
    reform's cents a gallon of diesel, rounded half up), the cigarette tax among the
    authorities and the General Fund, no cap passed."""
    names = [
        f"excise.cigarette.{who}.{cap}"
        for who in ("hta", "mba", "prita")
        for cap in ("monthly_cap", "annual_cap")
    ]
    reform = parse_reform(
        _reform(
            [
                *zip(names, [FY_START] * 6, caps, strict=True),
                ("excise.fuel.diesel_cents_to_hta", FY_START, diesel),
            ]
        )
    )
    labels = [f"{2024 + (m > 6)}-{(m + 5) % 12 + 1:02d}" for m in range(1, 13)]
    document = {
        "fiscal_year": "2024-25",
        "months": [
            {
                "month": labels[i],
                "gasoline_tax": gasoline,
                "diesel_gallons": str(gallons),
                "crude_oil_excise": crude,
                "reimbursements": "0.00",
                "cigarette_tax": cigarette,
            }
            for i, (gasoline, cigarette, gallons, crude) in enumerate(months)
        ],
    }
    out = compare("excise-allocation", document, reform)["under_reform"]
    limit = dict(zip(names, (Decimal(c) for c in caps), strict=True))
    paid = {"hta_cigarette": Decimal(0), "mba": Decimal(0), "prita": Decimal(0)}
    who = {"hta_cigarette": "hta", "mba": "mba", "prita": "prita"}
    for number, (row, (gasoline, cigarette, gallons, crude)) in enumerate(
        zip(out["months"], months, strict=True), start=1
    ):
        alloc = {k: Decimal(v) for k, v in row["allocations"].items()}
        assert all(v >= 0 for v in alloc.values())
        cents = (Decimal(gallons) * Decimal(diesel)).quantize(Decimal("0.01"), ROUND_HALF_UP)
        assert alloc["hta_fuel"] == Decimal(gasoline) + Decimal(crude) + cents
        assert sum(alloc.values()) - alloc["hta_fuel"] == Decimal(cigarette)
        for key in paid:
            paid[key] += alloc[key]
            cap = f"excise.cigarette.{who[key]}"
            assert paid[key] <= min(
                limit[f"{cap}.annual_cap"], limit[f"{cap}.monthly_cap"] * number
            )


@settings(max_examples=examples(40), deadline=None)
@given(
    general=st.integers(min_value=0, max_value=100),
    minimum=_money,
    collections=st.dictionaries(
        st.sampled_from(["hotel", "casino_hotel", "parador", "guest_house"]),
        _money,
        min_size=1,
    ),
    bond=_money,
)
def test_the_1994_distribution_under_any_reform_pays_out_every_cent(
    general: int, minimum: str, collections: dict[str, str], bond: str
) -> None:
    """The 5/6 of the first points split between the General Fund and the bond fund in any
    shares that still make the whole, and any Recreational Development Fund minimum: the
    recipients receive exactly what was collected."""
    share = Decimal(general) / 100
    reform = parse_reform(
        _reform(
            [
                ("distribution.irc1994.pool_general_fund_share", "2000-07-01", str(share)),
                ("distribution.irc1994.pool_bond_fund_share", "2000-07-01", str(1 - share)),
                ("distribution.irc1994.recreational_minimum", "2000-07-01", minimum),
            ]
        )
    )
    document = {"fiscal_year": "2001-02", "collections": collections, "bond_fund_amount": bond}
    try:
        both = compare("room-tax-distribution", document, reform)
    except InputError:
        return  # a document the law's own reading refuses (checked in its own tests)
    for side in ("under_law", "under_reform"):
        out = both[side]
        total = sum(Decimal(v) for v in out["allocations"].values())
        assert total == Decimal(out["collected"]) == sum(Decimal(v) for v in collections.values())
        assert all(Decimal(v) >= 0 for v in out["allocations"].values())
