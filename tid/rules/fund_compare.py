"""Who wins and who loses under a reform: each recipient of a split under the law and under
the reform, side by side (the Equalization Fund's municipalities; the room-tax
distribution's and the excise allocation's recipients over the months given).

Built from :func:`tid.rules.reform_compare.compare`'s two results; amounts exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tid.rules import reform_compare
from tid.rules.messages import N_
from tid.rules.money import ZERO, allocate, money_str
from tid.rules.reform import Reform

SORTS = ("name", "law", "reform", "difference", "percent")
# Lines of a result's totals that are no recipient's.
_NOT_RECIPIENTS = frozenset({"collected"})


@dataclass(frozen=True, slots=True)
class SideBySide:
    """One recipient: what it receives under the law and under the reform."""

    name: str
    law: Decimal
    reform: Decimal
    # The equalization's hold-harmless: protected under the law, under the reform.
    law_protected: bool = False
    reform_protected: bool = False

    @property
    def difference(self) -> Decimal:
        return self.reform - self.law

    @property
    def percent(self) -> Decimal | None:
        """The difference as a share of the law's amount (None: the law gives nothing)."""
        if not self.law:
            return None
        return (self.difference * 100 / self.law).quantize(Decimal("0.01"))


@dataclass(frozen=True, slots=True)
class Comparison:
    """Every recipient side by side, with the winners and losers counted."""

    kind: str  # "municipalities" or "recipients"
    rows: tuple[SideBySide, ...]

    @property
    def law_total(self) -> Decimal:
        return sum((r.law for r in self.rows), ZERO)

    @property
    def reform_total(self) -> Decimal:
        return sum((r.reform for r in self.rows), ZERO)

    @property
    def difference(self) -> Decimal:
        return self.reform_total - self.law_total

    @property
    def winners(self) -> int:
        return sum(1 for r in self.rows if r.difference > 0)

    @property
    def losers(self) -> int:
        return sum(1 for r in self.rows if r.difference < 0)

    @property
    def unchanged(self) -> int:
        return sum(1 for r in self.rows if r.difference == 0)

    @property
    def protected(self) -> tuple[int, int]:
        """How many are held harmless under the law and under the reform."""
        return (
            sum(1 for r in self.rows if r.law_protected),
            sum(1 for r in self.rows if r.reform_protected),
        )

    def sorted(self, key: str, descending: bool) -> list[SideBySide]:
        """The rows sorted by ``key`` (one of :data:`SORTS`; the name breaks ties)."""
        if key not in SORTS:
            key = "name"
        rows = sorted(self.rows, key=lambda r: r.name)
        if key == "name":
            return list(reversed(rows)) if descending else rows
        if key == "percent":
            return sorted(rows, key=lambda r: r.percent or ZERO, reverse=descending)
        return sorted(rows, key=lambda r: getattr(r, key), reverse=descending)


TITLES = {
    "municipalities": N_("Every municipality under the law and under the reform"),
    "recipients": N_("Every recipient over the months given, under the law and under the reform"),
}


def _amount(value: object) -> Decimal:
    return Decimal(str(value)) if value is not None else ZERO


def municipalities(law: Mapping[str, Any], reform: Mapping[str, Any]) -> Comparison | None:
    """The Equalization Fund's municipalities: each one's final amount (c)(2)."""
    before = law.get("municipalities")
    after = reform.get("municipalities")
    if not isinstance(before, list) or not isinstance(after, list) or not before:
        return None
    rows = tuple(
        SideBySide(
            str(a["name"]),
            _amount(a["final"]),
            _amount(b["final"]),
            bool(a.get("protected")),
            bool(b.get("protected")),
        )
        for a, b in zip(before, after, strict=True)
    )
    return Comparison("municipalities", rows)


def recipients(law: Mapping[str, Any], reform: Mapping[str, Any]) -> Comparison | None:
    """A split's recipients (the result's ``totals``: what each received over the months)."""
    before = law.get("totals")
    after = reform.get("totals")
    if not isinstance(before, Mapping) or not isinstance(after, Mapping) or not before:
        return None
    names: Sequence[str] = list(dict.fromkeys([*before, *after]))
    rows = tuple(
        SideBySide(name, _amount(before.get(name)), _amount(after.get(name)))
        for name in names
        if name not in _NOT_RECIPIENTS
        and (_is_amount(before.get(name)) or _is_amount(after.get(name)))
    )
    return Comparison("recipients", rows) if rows else None


def _is_amount(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        Decimal(value)
    except ArithmeticError:
        return False
    return True


def side_by_side(law: Mapping[str, Any], reform: Mapping[str, Any]) -> Comparison | None:
    """The side-by-side view a result has: its municipalities, or its recipients' totals."""
    return municipalities(law, reform) or recipients(law, reform)


def scaled_bases(
    document: Mapping[str, Any], law_share: Decimal, reform_share: Decimal
) -> dict[str, Any]:
    """The document with every municipality's base moved pro rata with the General Fund
    share (law's → reform's), split to the cent by largest remainder so the bases keep their
    sum exactly in step. The text gives no formula for the bases (§ 5817 is not in it): this
    is the comparison's stated assumption, offered beside the bases as given."""
    rows = document.get("municipalities")
    if not isinstance(rows, list) or not rows or not law_share or law_share == reform_share:
        return dict(document)
    bases = [Decimal(str(r.get("base"))) for r in rows]
    total = sum(bases, ZERO)
    if not total:
        return dict(document)
    new_total = (total * reform_share / law_share).quantize(Decimal("0.01"), ROUND_HALF_UP)
    moved = allocate(new_total, bases)
    return {
        **document,
        "municipalities": [
            {**row, "base": money_str(base)} for row, base in zip(rows, moved, strict=True)
        ],
    }


def compare_fund(
    document: Mapping[str, Any], reform: Reform, *, scale: bool
) -> tuple[dict[str, Any], Comparison | None]:
    """The Equalization Fund under the law and the reform (the bases as given, or moved with
    the General Fund share when ``scale``), and its municipalities side by side."""
    compared = reform_compare.compare("equalization", document, reform)
    if scale:
        law_share = Decimal(compared["under_law"]["gf_share"])
        reform_share = Decimal(compared["under_reform"]["gf_share"])
        moved = scaled_bases(document, law_share, reform_share)
        if moved != document:
            reformed = reform_compare.run_under("equalization", moved, reform)
            compared = {
                **compared,
                "under_reform": reformed,
                "differences": reform_compare.differences(compared["under_law"], reformed),
            }
    return compared, municipalities(compared["under_law"], compared["under_reform"])
