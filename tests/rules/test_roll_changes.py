"""The year's changes of a roll, worked out from two years' lines (pure)."""

from __future__ import annotations

from decimal import Decimal

from tid.rules.roll_changes import RollLine, compare, is_exempt, moved


def _line(number: str, value: str = "1000.00", **kw: object) -> RollLine:
    fields: dict[str, object] = {"owner": "Ana", "address": f"{number} Calle Sol", **kw}
    return RollLine(number, assessed_value=Decimal(value), **fields)  # type: ignore[arg-type]


def test_a_value_moves_past_the_threshold_only() -> None:
    assert moved(Decimal(100), Decimal(125), Decimal("0.25")) is False
    assert moved(Decimal(100), Decimal("125.01"), Decimal("0.25")) is True
    assert moved(Decimal(100), Decimal("74.99"), Decimal("0.25")) is True
    assert moved(Decimal(0), Decimal(1), Decimal("0.25")) is True
    assert moved(Decimal(0), Decimal(0), Decimal("0.25")) is False


def test_nothing_changed_is_no_change() -> None:
    lines = {"1": _line("1"), "2": _line("2")}
    assert compare(lines, dict(lines)) == []


def test_a_split_is_proposed_by_address_with_the_summed_values() -> None:
    last = {"1": _line("1", "300.00", address="Calle Luna 1", owner="Ana")}
    this = {
        "1-1": _line("1-1", "100.00", address="Calle Luna 1", owner="Ana"),
        "1-2": _line("1-2", "200.00", address="Calle Luna 1", owner="Ana"),
    }
    (split,) = compare(last, this)
    assert split.kind == "split"
    assert split.numbers_before == ("1",) and split.numbers_after == ("1-1", "1-2")
    assert split.after["assessed_value"] == "300.00" == split.before["assessed_value"]


def test_unrelated_new_and_gone_properties_stay_new_and_gone() -> None:
    last = {"1": _line("1", owner="Ana", address="A")}
    this = {"2": _line("2", owner="Luis", address="B")}
    assert sorted(c.kind for c in compare(last, this)) == ["gone", "new"]


def test_an_address_shared_by_two_gone_and_two_new_is_not_guessed() -> None:
    last = {n: _line(n, owner="X", address="A") for n in ("1", "2")}
    this = {n: _line(n, owner="X", address="A") for n in ("3", "4")}
    assert sorted(c.kind for c in compare(last, this)) == ["gone", "gone", "new", "new"]


def test_owner_use_rooms_and_exemption_each_their_own_change() -> None:
    last = {"1": _line("1", owner="Ana", use_class="residencial", rooms=None)}
    this = {
        "1": _line("1", owner="ANA  ", use_class="hotel", rooms=4, exempt=True),
    }
    assert sorted(c.kind for c in compare(last, this)) == [
        "exemption_start",
        "rooms",
        "use_class",
    ]  # the same owner written otherwise is no new owner
    assert is_exempt({"exencion": Decimal(1)}) and not is_exempt({"exencion": Decimal(0)})
