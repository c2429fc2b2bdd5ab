"""Who wins and who loses under a reform: each recipient of a split under the law and under
the reform, side by side (the Equalization Fund's municipalities; the room-tax
distribution's and the excise allocation's recipients over the months given).

Built from :func:`tid.rules.reform_compare.compare`'s two results; amounts exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tid.rules.messages import N_
from tid.rules.money import ZERO

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
