"""The year's changes of a district's roll: this fiscal year's roll against last year's
(21 LPRA § 6653(3)(b), (3)(d); /readings#roll-yearly-check).

Pure: two mappings of cadastral number → :class:`RollLine` in, a list of :class:`Change`
out, each naming the numbers it concerns last year and this year. The kinds:

- ``new``: a number this year's roll lists and last year's did not (and no split or merge
  explains it);
- ``gone``: a number last year's roll listed and this year's does not;
- ``split``: one number gone and two or more new ones with its physical address or owner;
- ``merge``: two or more numbers gone and one new one with their address or owner;
- ``value``: the assessed value moved more than the threshold (a fraction, 0.25 by default);
- ``use_class`` and ``rooms``: the use class or the number of rooms changed;
- ``owner``: another owner;
- ``exemption_start`` and ``exemption_end``: an exemption (an extra column named like
  :data:`EXEMPTION_COLUMNS` with a number other than 0) appearing or ending.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from tid.rules.messages import N_

NEW = "new"
GONE = "gone"
SPLIT = "split"
MERGE = "merge"
VALUE = "value"
USE_CLASS = "use_class"
ROOMS = "rooms"
OWNER = "owner"
EXEMPTION_START = "exemption_start"
EXEMPTION_END = "exemption_end"

KINDS: dict[str, str] = {
    NEW: N_("New property"),
    GONE: N_("Property gone"),
    SPLIT: N_("Split"),
    MERGE: N_("Merge"),
    VALUE: N_("Assessed value moved"),
    USE_CLASS: N_("Use class changed"),
    ROOMS: N_("Rooms changed"),
    OWNER: N_("New owner"),
    EXEMPTION_START: N_("Exemption appears"),
    EXEMPTION_END: N_("Exemption ends"),
}

DEFAULT_THRESHOLD = Decimal("0.25")

# The extra columns (as their headers are normalized) that say a property is exempt.
EXEMPTION_COLUMNS = ("exemption", "exempt", "exencion", "exento", "exoneracion", "exonerado")


@dataclass(frozen=True)
class RollLine:
    """What the check reads of one property's row of a year's roll."""

    number: str
    owner: str
    address: str
    assessed_value: Decimal
    use_class: str = ""
    rooms: int | None = None
    exempt: bool = False


@dataclass(frozen=True)
class Change:
    """One change: the numbers it concerns last year and this year, and the figures said
    side by side (``before`` and ``after``, as text)."""

    kind: str
    numbers_before: tuple[str, ...]
    numbers_after: tuple[str, ...]
    before: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        return (self.kind, self.numbers_before, self.numbers_after)


def is_exempt(attributes: Mapping[str, Decimal]) -> bool:
    """Whether a row's extra columns say the property is exempt."""
    return any(attributes.get(name, 0) != 0 for name in EXEMPTION_COLUMNS)


def _words(text: str) -> str:
    return " ".join(text.upper().split())


def _figures(line: RollLine) -> dict[str, str]:
    return {
        "owner": line.owner,
        "address": line.address,
        "assessed_value": str(line.assessed_value),
        "use_class": line.use_class,
        "rooms": _count(line.rooms),
    }


def _count(value: int | None) -> str:
    return "" if value is None else str(value)


def moved(before: Decimal, after: Decimal, threshold: Decimal) -> bool:
    """Whether an assessed value moved by more than ``threshold`` (a fraction) of last
    year's; from zero, any value moved."""
    if before == 0:
        return after != 0
    return abs(after - before) > threshold * abs(before)


def _kin(lines: Iterable[RollLine]) -> dict[str, set[str]]:
    """Numbers by their physical address and by their owner (the keys told apart)."""
    by: dict[str, set[str]] = defaultdict(set)
    for line in lines:
        if _words(line.address):
            by["a:" + _words(line.address)].add(line.number)
        if _words(line.owner):
            by["o:" + _words(line.owner)].add(line.number)
    return by


def _keys(line: RollLine) -> list[str]:
    keys = []
    if _words(line.address):
        keys.append("a:" + _words(line.address))
    if _words(line.owner):
        keys.append("o:" + _words(line.owner))
    return keys


def _pairs(
    gone: Mapping[str, RollLine], new: Mapping[str, RollLine]
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """For each gone number the new numbers sharing its address or owner, and back."""
    new_by = _kin(new.values())
    gone_by = _kin(gone.values())
    to_new = {g: {n for k in _keys(line) for n in new_by.get(k, ())} for g, line in gone.items()}
    to_gone = {n: {g for k in _keys(line) for g in gone_by.get(k, ())} for n, line in new.items()}
    return to_new, to_gone


def _summed(lines: Iterable[RollLine]) -> dict[str, str]:
    listed = list(lines)
    return {
        "numbers": ", ".join(line.number for line in listed),
        "owner": "; ".join(sorted({line.owner for line in listed})),
        "address": "; ".join(sorted({line.address for line in listed if line.address})),
        "assessed_value": str(sum((line.assessed_value for line in listed), Decimal(0))),
    }


def _splits_and_merges(
    last: Mapping[str, RollLine], this: Mapping[str, RollLine]
) -> tuple[list[Change], set[str], set[str]]:
    """The proposed splits and merges, and the gone and new numbers they explain."""
    gone = {n: line for n, line in last.items() if n not in this}
    new = {n: line for n, line in this.items() if n not in last}
    to_new, to_gone = _pairs(gone, new)
    changes: list[Change] = []
    used_gone: set[str] = set()
    used_new: set[str] = set()
    for g in sorted(to_new):
        parts = to_new[g]
        if len(parts) >= 2 and all(to_gone[n] == {g} for n in parts):
            after = tuple(sorted(parts))
            changes.append(
                Change(
                    SPLIT,
                    (g,),
                    after,
                    _summed([gone[g]]),
                    _summed(new[n] for n in after),
                )
            )
            used_gone.add(g)
            used_new.update(after)
    for n in sorted(to_gone):
        parts = to_gone[n]
        if len(parts) >= 2 and all(to_new[g] == {n} for g in parts):
            before = tuple(sorted(parts))
            changes.append(
                Change(MERGE, before, (n,), _summed(gone[g] for g in before), _summed([new[n]]))
            )
            used_gone.update(before)
            used_new.add(n)
    return changes, used_gone, used_new


def _kept(a: RollLine, b: RollLine, threshold: Decimal) -> list[Change]:
    """The changes of a number both years list."""
    found: list[Change] = []
    one = ((a.number,), (b.number,))
    if moved(a.assessed_value, b.assessed_value, threshold):
        found.append(
            Change(
                VALUE,
                *one,
                {"assessed_value": str(a.assessed_value)},
                {"assessed_value": str(b.assessed_value)},
            )
        )
    if _words(a.use_class) != _words(b.use_class):
        found.append(
            Change(USE_CLASS, *one, {"use_class": a.use_class}, {"use_class": b.use_class})
        )
    if a.rooms != b.rooms:
        found.append(Change(ROOMS, *one, {"rooms": _count(a.rooms)}, {"rooms": _count(b.rooms)}))
    if _words(a.owner) != _words(b.owner):
        found.append(Change(OWNER, *one, {"owner": a.owner}, {"owner": b.owner}))
    if a.exempt != b.exempt:
        kind = EXEMPTION_START if b.exempt else EXEMPTION_END
        found.append(
            Change(
                kind,
                *one,
                {"exempt": "yes" if a.exempt else "no"},
                {"exempt": "yes" if b.exempt else "no"},
            )
        )
    return found


def compare(
    last: Mapping[str, RollLine],
    this: Mapping[str, RollLine],
    *,
    threshold: Decimal = DEFAULT_THRESHOLD,
) -> list[Change]:
    """Every change from last year's roll to this year's, in the order of their numbers."""
    changes, used_gone, used_new = _splits_and_merges(last, this)
    for number, line in this.items():
        before = last.get(number)
        if before is None:
            if number not in used_new:
                changes.append(Change(NEW, (), (number,), {}, _figures(line)))
        else:
            changes.extend(_kept(before, line, threshold))
    for number, line in last.items():
        if number not in this and number not in used_gone:
            changes.append(Change(GONE, (number,), (), _figures(line), {}))
    changes.sort(key=lambda c: ((c.numbers_after or c.numbers_before), c.kind))
    return changes
