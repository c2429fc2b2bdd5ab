"""The impost lien's rank and the distribution of sale proceeds — 21 LPRA § 6653(8)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.rules import readings
from tid.rules.calculators import run
from tid.rules.errors import InputError
from tid.rules.liens import KINDS, Lien, rank_liens

CASE: list[dict[str, Any]] = [
    {"id": "M1", "kind": "mortgage", "constituted_on": "2015-06-01", "amount": "100000.00"},
    {"id": "M0", "kind": "mortgage", "constituted_on": "2005-03-01", "amount": "50000.00"},
    {
        "id": "T1",
        "kind": "tid_impost",
        "constituted_on": "2020-01-01",
        "amount": "3000.00",
        "unsecured_charges": "450.00",
    },
    {
        "id": "P1",
        "kind": "municipal_property_tax",
        "constituted_on": "2021-07-01",
        "amount": "2000",
    },
    {"id": "J1", "kind": "judgment", "constituted_on": "2012-05-05", "amount": "10000.00"},
    {
        "id": "F1",
        "kind": "fiscal_transferred_tax_debt",
        "constituted_on": "2019-01-01",
        "amount": "5000.00",
    },
]


def test_ranking_worked_example() -> None:
    out = run("liens", {"liens": CASE})
    # Group 1, oldest first: M0 (a mortgage of 2005, before 2010-01-15: (c)), F1 ((a), 2019),
    # P1 ((b), 2021). Group 2: T1's impost. Group 3: J1 (2012), M1 (2015), then T1's
    # unsecured charges after every lien.
    order = [(r["id"], r["group"], r["part"]) for r in out["ranking"]]
    assert order == [
        ("M0", 1, "secured"),
        ("F1", 1, "secured"),
        ("P1", 1, "secured"),
        ("T1", 2, "secured"),
        ("J1", 3, "secured"),
        ("M1", 3, "secured"),
        ("T1", 3, "unsecured_charges"),
    ]
    assert [r["rank"] for r in out["ranking"]] == [1, 2, 3, 4, 5, 6, 7]
    reasons = {(r["id"], r["part"]): r["reason"] for r in out["ranking"]}
    assert "§ 6653(8)(c)" in reasons[("M0", "secured")]
    assert "2010-01-15" in reasons[("M0", "secured")]
    assert "§ 6653(8)(a)" in reasons[("F1", "secured")]
    assert "§ 6653(8)(b)" in reasons[("P1", "secured")]
    assert "Ranks below the impost lien" in reasons[("M1", "secured")]
    assert "not secured" in reasons[("T1", "unsecured_charges")]
    t1 = out["ranking"][3]
    assert t1["secured_amount"] == "3000.00"  # only the impost, not the 450.00 charges
    assert out["ranking"][6]["secured_amount"] == "0.00"
    assert out["ranking"][6]["owed"] == "450.00"
    assert "distribution" not in out
    assert out["act_effective_date"] == "2010-01-15"
    assert any("only relative to the impost lien" in w for w in out["warnings"])
    assert any("“Effective date of the lien act” is 2010-01-15" in w for w in out["warnings"])
    assert any("owed by the owner but not secured" in w for w in out["warnings"])
    assert any("acción separada" in w for w in out["warnings_es"])


def test_a_ranking_names_the_reading_of_the_day_the_lien_act_took_effect() -> None:
    out = run("liens", {"liens": CASE})
    named = readings.cited_in([*out["warnings"], *(t["citation"] for t in out["trace"])])
    assert readings.READINGS["lien-act-effective-date"] in named
    step = next(t for t in out["trace"] if t.get("parameter") == "district.lien_act_effective_date")
    assert step["citation"].endswith("Project reading: The day the lien act took effect")
    said = next(w for w in out["warnings_es"] if "2010-01-15" in w)
    assert "El día en que entró en vigor la ley del gravamen" in said


def test_distribution_rank_by_rank_never_pro_rata() -> None:
    out = run("liens", {"liens": CASE, "sale_proceeds": "62500.00"})
    # 62,500.00 - 50,000.00 (M0) = 12,500.00 - 5,000.00 (F1) = 7,500.00 - 2,000.00 (P1)
    # = 5,500.00 - 3,000.00 (T1) = 2,500.00 -> J1 gets 2,500.00 of 10,000.00 (7,500.00 unpaid);
    # M1 and T1's unsecured charges get nothing; nothing to the owner.
    paid = [(p["id"], p["paid"], p["unpaid"]) for p in out["distribution"]]
    assert paid == [
        ("M0", "50000.00", "0.00"),
        ("F1", "5000.00", "0.00"),
        ("P1", "2000.00", "0.00"),
        ("T1", "3000.00", "0.00"),
        ("J1", "2500.00", "7500.00"),
        ("M1", "0.00", "100000.00"),
        ("T1", "0.00", "450.00"),
    ]
    assert out["to_owner"] == "0.00"


def test_the_owner_receives_the_whole_surplus() -> None:
    out = run("liens", {"liens": CASE, "sale_proceeds": "200000.00"})
    # Liens: 50,000 + 5,000 + 2,000 + 3,000 + 10,000 + 100,000 = 170,000.00; the 450.00 of
    # interest, surcharges and fees are unsecured: not paid from the proceeds
    # (/readings#unsecured-charges).
    # Owner: 200,000.00 − 170,000.00 = 30,000.00, the whole surplus.
    assert out["to_owner"] == "30000.00"
    unsecured = [p for p in out["distribution"] if p["part"] == "unsecured_charges"]
    assert unsecured == [
        {"id": "T1", "part": "unsecured_charges", "paid": "0.00", "unpaid": "450.00"}
    ]
    assert all(p["unpaid"] == "0.00" for p in out["distribution"] if p["part"] == "secured")
    assert any("separate action" in w for w in out["warnings"])


def test_unsecured_charges_are_never_paid_from_the_proceeds() -> None:
    # Proceeds 10,000.00: T's impost (3,000.00), then the judgment J (1,000.00); the 450.00 of
    # charges stay owed by the owner, who receives 10,000 − 4,000 = 6,000.00.
    liens = [
        {
            "id": "T",
            "kind": "tid_impost",
            "constituted_on": "2020-01-01",
            "amount": "3000.00",
            "unsecured_charges": "450.00",
        },
        {"id": "J", "kind": "judgment", "constituted_on": "2025-01-01", "amount": "1000.00"},
    ]
    out = run("liens", {"liens": liens, "sale_proceeds": "10000.00"})
    assert [(p["id"], p["part"], p["paid"], p["unpaid"]) for p in out["distribution"]] == [
        ("T", "secured", "3000.00", "0.00"),
        ("J", "secured", "1000.00", "0.00"),
        ("T", "unsecured_charges", "0.00", "450.00"),
    ]
    assert out["to_owner"] == "6000.00"
    assert any("owed by the owner" in s["value"] for s in out["trace"])


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(InputError, match="unknown field") as info:
        run("liens", {"liens": CASE, "sale_proceed": "1.00"})
    assert info.value.field == "sale_proceed"
    bad = [{**CASE[0], "ammount": "1.00"}]
    with pytest.raises(InputError, match="unknown field") as info:
        run("liens", {"liens": bad})
    assert info.value.field == "liens[0].ammount"


def test_act_date_boundary_and_setting() -> None:
    # Constituted the day before 2010-01-15: group 1 under (c); on the day itself: group 3.
    liens = [
        {"id": "A", "kind": "mortgage", "constituted_on": "2010-01-15", "amount": "1.00"},
        {"id": "B", "kind": "mortgage", "constituted_on": "2010-01-14", "amount": "1.00"},
        {"id": "I", "kind": "infrastructure_impost", "constituted_on": "2030-01-01", "amount": "1"},
        {"id": "T", "kind": "tid_impost", "constituted_on": "2011-01-01", "amount": "1.00"},
    ]
    out = run("liens", {"liens": liens})
    assert [(r["id"], r["group"]) for r in out["ranking"]] == [
        ("B", 1),
        ("I", 1),  # (d): above the impost lien whatever its date
        ("T", 2),
        ("A", 3),
    ]
    assert "§ 6653(8)(d)" in out["ranking"][1]["reason"]
    # With the act date set to 2010-01-16 by the input, A (2010-01-15) rises to group 1.
    moved = run("liens", {"liens": liens, "act_effective_date": "2010-01-16"})
    assert [(r["id"], r["group"]) for r in moved["ranking"]][:3] == [("B", 1), ("A", 1), ("I", 1)]
    assert any("given in the input" in w for w in moved["warnings"])


def test_same_day_liens_rank_in_the_listed_order_never_by_id() -> None:
    liens = [
        {"id": "b", "kind": "mortgage", "constituted_on": "2015-01-01", "amount": "1.00"},
        {"id": "a", "kind": "judgment", "constituted_on": "2015-01-01", "amount": "1.00"},
    ]
    out = run("liens", {"liens": liens})
    assert [r["id"] for r in out["ranking"]] == ["b", "a"]
    assert any("No impost lien" in w for w in out["warnings"])


def test_same_day_liens_with_numeric_ids_are_paid_in_the_listed_order() -> None:
    # "10" sorts before "9" as text; the order of recording puts "9" first.
    liens = [
        {"id": "9", "kind": "mortgage", "constituted_on": "2015-05-05", "amount": "10.00"},
        {"id": "10", "kind": "mortgage", "constituted_on": "2015-05-05", "amount": "20.00"},
    ]
    out = run("liens", {"liens": liens, "sale_proceeds": "15.00"})
    assert [r["id"] for r in out["ranking"]] == ["9", "10"]
    assert [(p["id"], p["paid"], p["unpaid"]) for p in out["distribution"]] == [
        ("9", "10.00", "0.00"),
        ("10", "5.00", "15.00"),
    ]
    assert out["to_owner"] == "0.00"
    (said,) = [w for w in out["warnings"] if w.startswith("The statute orders liens")]
    assert "in the order they are listed (the order they were recorded)" in said
    assert "never by their identifiers (Project reading: Liens of the same day)" in said
    (dicho,) = [w for w in out["warnings_es"] if w.startswith("La ley ordena los gravámenes")]
    assert "en el orden en que se listan (el orden en que se anotaron)" in dicho
    assert "nunca por sus identificadores (Lectura del proyecto: Gravámenes del mismo día)" in dicho


same_day_kinds = st.sampled_from(("mortgage", "judgment", "other"))


@settings(max_examples=examples(300), deadline=None)
@given(
    ids=st.lists(
        st.integers(min_value=0, max_value=10**6).map(str) | st.text(min_size=1, max_size=4),
        min_size=2,
        max_size=9,
        unique_by=lambda i: i.strip(),
    ).filter(lambda ids: all(i.strip() for i in ids)),
    kinds=st.lists(same_day_kinds, min_size=9, max_size=9),
    day=st.dates(min_value=date(1990, 1, 1), max_value=date(2040, 12, 31)),
    data=st.data(),
)
def test_any_permutation_of_same_day_liens_ranks_in_the_listed_order(
    ids: list[str], kinds: list[str], day: date, data: st.DataObject
) -> None:
    # Same day and same group (all before or all after the act): the listed order decides.
    listed = data.draw(st.permutations([i.strip() for i in ids]))
    liens = [
        {"id": i, "kind": kind, "constituted_on": day.isoformat(), "amount": "1.00"}
        for i, kind in zip(listed, kinds, strict=False)
    ]
    out = run("liens", {"liens": liens, "sale_proceeds": "1.00"})
    assert [r["id"] for r in out["ranking"]] == listed
    assert [r["rank"] for r in out["ranking"]] == list(range(1, len(listed) + 1))
    # The first listed is paid; no other is.
    assert [p["paid"] for p in out["distribution"]] == ["1.00"] + ["0.00"] * (len(listed) - 1)


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({}, "liens"),
        (
            {"liens": [{"id": "x", "kind": "lease", "constituted_on": "2020-01-01"}]},
            "liens[0].kind",
        ),
        (
            {
                "liens": [
                    {"id": "x", "kind": "mortgage", "constituted_on": "2020-01-01", "amount": 5.5}
                ]
            },
            "liens[0].amount",
        ),
        (
            {
                "liens": [
                    {"id": "x", "kind": "mortgage", "constituted_on": "1/2/2020", "amount": "1"}
                ]
            },
            "liens[0].constituted_on",
        ),
        (
            {
                "liens": [
                    {
                        "id": "x",
                        "kind": "mortgage",
                        "constituted_on": "2020-01-01",
                        "amount": "1",
                        "unsecured_charges": "2",
                    }
                ]
            },
            "liens[0].unsecured_charges",
        ),
        (
            {
                "liens": [
                    {"id": "x", "kind": "mortgage", "constituted_on": "2020-01-01", "amount": "1"},
                    {"id": "x", "kind": "judgment", "constituted_on": "2020-01-01", "amount": "1"},
                ]
            },
            "liens[1].id",
        ),
        ({"liens": [], "sale_proceeds": "-5.00"}, "sale_proceeds"),
        ({"liens": [], "sale_proceeds": "5.001"}, "sale_proceeds"),
    ],
)
def test_bad_input_names_the_field(doc: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        run("liens", doc)
    assert err.value.field == field


cents = st.integers(min_value=0, max_value=10**9).map(lambda c: Decimal(c) / 100)
lien_strategy = st.builds(
    lambda i, kind, day, amount, extra: Lien(
        id=f"L{i}",
        kind=kind,
        constituted_on=day,
        amount=amount,
        unsecured_charges=extra if kind == "tid_impost" else Decimal(0),
    ),
    st.integers(),
    st.sampled_from(KINDS),
    st.dates(min_value=date(1990, 1, 1), max_value=date(2040, 12, 31)),
    cents,
    cents,
)


@settings(max_examples=examples(300), deadline=None)
@given(liens=st.lists(lien_strategy, max_size=8, unique_by=lambda lien: lien.id), proceeds=cents)
def test_distribution_properties(liens: list[Lien], proceeds: Decimal) -> None:
    result = rank_liens(liens, sale_proceeds=proceeds)
    assert result.distribution is not None and result.to_owner is not None
    dist = result.distribution
    # Pays out exactly the proceeds, to the cent; no negatives.
    assert sum((p.paid for p in dist), Decimal(0)) + result.to_owner == proceeds
    assert result.to_owner >= 0
    assert all(p.paid >= 0 and p.unpaid >= 0 for p in dist)
    for line, pay in zip(result.ranking, dist, strict=True):
        assert pay.paid + pay.unpaid == line.owed
    # No line is paid anything while a higher rank is still unpaid.
    for i, pay in enumerate(dist):
        if pay.paid > 0:
            assert all(higher.unpaid == 0 for higher in dist[:i])
    if result.to_owner > 0:
        assert all(p.unpaid == 0 for p in dist if p.part == "secured")
    # Interest, surcharges and fees are never paid from the proceeds (/readings#unsecured-charges):
    # the
    # owner receives the whole surplus over the secured liens.
    assert all(p.paid == 0 for p in dist if p.part == "unsecured_charges")
    secured = sum((r.owed for r in result.ranking if r.part == "secured"), Decimal(0))
    assert result.to_owner == max(Decimal(0), proceeds - secured)
    # Groups in order; unsecured charges after every secured lien; dates in order in a group;
    # on the same day, the order of the list.
    place = {lien.id: i for i, lien in enumerate(liens)}
    keys = [(r.group, r.part != "secured", r.constituted_on, place[r.id]) for r in result.ranking]
    assert keys == sorted(keys)
    assert all(
        r.group == 2 for r in result.ranking if r.kind == "tid_impost" and r.part == "secured"
    )
