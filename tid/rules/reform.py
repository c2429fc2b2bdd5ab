"""Reforms: a named set of changes to the dated parameters (tid/rules/params/*.toml), each
from the day it would take effect, run beside the law in force.

A reform is read from a document (JSON or TOML)::

    {"title": "Lottery at 40 %", "description": "…", "base": <a reform or a saved one's id>,
     "changes": [{"parameter": "equalization.lottery_share_rate", "from": "2025-07-01",
                  "value": "0.40"}]}

It is checked strictly, each error naming the parameter: an unknown parameter, a value of
the wrong kind or out of the values its parameter declares, a date before the parameter
exists (or after it ended), and what would make a calculator impossible (shares that no
longer add up to the whole, the Bank's transfers outside the fiscal year, points out of
their order, a choice outside its years: tid/rules/reform_checks.py). A reform may start
from another (``base``): its changes are the base's, then its own (its own win where both
change a parameter from the same day). :meth:`Reform.overlay` is what
:func:`tid.rules.params.overlaid` reads in place of the law, so every rule runs under a
reform unchanged.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from tid.rules import params, reform_checks
from tid.rules.errors import InputError
from tid.rules.messages import N_, FieldRef, Figure, Message
from tid.rules.periods import FiscalYear, parse_fiscal_year

# How many reforms may stand on one another, and how many changes one may hold.
MAX_DEPTH = 8
MAX_CHANGES = 200
MAX_TEXT = 4000
MAX_TITLE = 200
_KEYS = frozenset({"title", "description", "base", "changes", "id"})
_CHANGE_KEYS = frozenset({"parameter", "from", "value"})

# A saved reform's document by its id (the caller's look-up: the rules read no database).
Resolver = Callable[[str], Mapping[str, Any] | None]


@dataclass(frozen=True, slots=True)
class Change:
    """A parameter's new value from ``start`` on."""

    parameter: str
    start: date
    value: params.Value
    text: str

    def as_json(self) -> dict[str, str]:
        return {"parameter": self.parameter, "from": self.start.isoformat(), "value": self.text}


@dataclass(frozen=True, slots=True)
class Reform:
    """A reform: its title, description, own changes and the reform it starts from."""

    title: str
    description: str
    changes: tuple[Change, ...]
    base: Reform | None = None
    ident: str | None = None

    @property
    def stack(self) -> tuple[Reform, ...]:
        """The reforms this one stands on, the first first, then itself."""
        return (*(self.base.stack if self.base else ()), self)

    @property
    def resolved(self) -> tuple[Change, ...]:
        """Every change in force, by parameter then date: the base's, then its own."""
        found: dict[tuple[str, date], Change] = {}
        for reform in self.stack:
            for change in reform.changes:
                found[(change.parameter, change.start)] = change
        return tuple(found[k] for k in sorted(found))

    def citation(self, change: Change) -> str:
        """What a trace step that used ``change`` cites: as a ``str`` (the JSON interface's)
        ``Reform “<title>”: <value> from <ISO day>``; on a page, in the reader's words, an
        amount as money and the day as the page writes days."""
        value: str = change.text
        if params.history(change.parameter).unit == "usd" and _CENTS.fullmatch(value):
            value = Figure(Decimal(value))
        return Message(
            "Reform “%(title)s”: %(value)s from %(day)s",
            title=self.title,
            value=value,
            day=change.start,
        )

    def overlay(self) -> params.Overlay:
        by_name: dict[str, list[params.OverlayValue]] = {}
        for change in self.resolved:
            by_name.setdefault(change.parameter, []).append(
                params.OverlayValue(change.start, change.value, change.text, self.citation(change))
            )
        return params.Overlay(tuple((k, tuple(v)) for k, v in sorted(by_name.items())))

    def as_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"title": self.title, "description": self.description}
        if self.base is not None:
            doc["base"] = self.base.ident or self.base.as_json()
        doc["changes"] = [c.as_json() for c in self.changes]
        return doc


# An amount of the JSON: digits and two decimals (``45000000.00``).
_CENTS = re.compile(r"-?\d+\.\d{2}")

# A saved reform's id at the end of its shareable address (``https://…/reforms/<id>``).
_ADDRESS = re.compile(r"([A-Za-z0-9_-]{6,24})/?$")


def reference_id(text: str) -> str:
    """A saved reform's id from its id or its whole shareable address."""
    match = _ADDRESS.search(text.strip())
    return match.group(1) if match else text.strip()


def _error(path: str, msgid: str, /, **values: Any) -> InputError:
    return InputError(path, Message(msgid, **values))


def _text(doc: Mapping[str, Any], key: str, field: str, *, required: bool) -> str:
    value = doc.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise _error(f"{field}.{key}", N_("Give the reform a title."), field=field)
        return ""
    if not isinstance(value, str):
        raise _error(f"{field}.{key}", N_("Write the %(key)s as text."), field=field, key=key)
    if len(value) > MAX_TEXT:
        raise _error(
            f"{field}.{key}",
            N_("The %(key)s has at most %(n)s characters."),
            field=field,
            key=key,
            n=MAX_TEXT,
        )
    return value.strip()


def parse_reform(
    doc: object,
    *,
    field: str = "reform",
    resolve: Resolver | None = None,
    seen: tuple[str, ...] = (),
    depth: int = 1,
) -> Reform:
    """The reform a document stands for, checked; a string is a saved reform's id. ``depth``
    counts the reforms of the stack down to this one, itself included: the reform being
    saved counts as much as the saved ones beneath it."""
    ident: str | None = None
    if depth > MAX_DEPTH:
        # Named at the first base: the one field the writer of the reform chose.
        raise _error(
            field.removesuffix(".base" * (depth - 2)),
            N_("At most %(n)s reforms may stand on one another."),
            field=field,
            n=MAX_DEPTH,
        )
    if isinstance(doc, str):
        ident = doc.strip()
        if ident in seen:
            raise _error(field, N_("The reform %(id)s starts from itself."), field=field, id=ident)
        found = resolve(ident) if resolve is not None and ident else None
        if found is None:
            raise _error(field, N_("There is no saved reform %(id)s."), field=field, id=ident)
        doc, seen = found, (*seen, ident)
    if not isinstance(doc, Mapping):
        raise _error(field, N_("A reform is an object with its title and changes."), field=field)
    unknown = sorted(set(doc) - _KEYS)
    if unknown:
        raise _error(
            f"{field}.{unknown[0]}",
            N_("A reform has no field %(key)s."),
            field=field,
            key=unknown[0],
        )
    base = None
    if doc.get("base") not in (None, ""):
        base = parse_reform(
            doc["base"], field=f"{field}.base", resolve=resolve, seen=seen, depth=depth + 1
        )
    raw = doc.get("changes")
    if not isinstance(raw, list) or not raw:
        raise _error(f"{field}.changes", N_("Give at least one change."), field=field)
    if len(raw) > MAX_CHANGES:
        raise _error(
            f"{field}.changes",
            N_("A reform holds at most %(n)s changes."),
            field=field,
            n=MAX_CHANGES,
        )
    changes = tuple(parse_change(c, f"{field}.changes[{i}]") for i, c in enumerate(raw))
    seen_keys: dict[tuple[str, date], int] = {}
    for i, change in enumerate(changes):
        key = (change.parameter, change.start)
        if key in seen_keys:
            raise _error(
                f"{field}.changes[{i}]",
                N_("%(name)s is changed twice from %(day)s."),
                where=f"{field}.changes[{i}]",
                name=FieldRef(change.parameter),
                day=change.start,
            )
        seen_keys[key] = i
    title = _text(doc, "title", field, required=True)
    if len(title) > MAX_TITLE:
        raise _error(f"{field}.title", N_("The title has at most %(n)s characters."), n=MAX_TITLE)
    reform = Reform(
        title,
        _text(doc, "description", field, required=False),
        changes,
        base,
        ident,
    )
    reform_checks.check(reform, field)
    return reform


def parse_change(raw: object, where: str) -> Change:
    """One change ``{parameter, from, value}``, checked against the parameter's history."""
    if not isinstance(raw, Mapping):
        raise _error(where, N_("Each change is an object {parameter, from, value}."), where=where)
    unknown = sorted(set(raw) - _CHANGE_KEYS)
    if unknown:
        raise _error(
            f"{where}.{unknown[0]}",
            N_("A change has no field %(key)s."),
            where=where,
            key=unknown[0],
        )
    name = raw.get("parameter")
    if not isinstance(name, str) or not name.strip():
        raise _error(f"{where}.parameter", N_("Name the parameter."), where=where)
    name = name.strip()
    try:
        parameter = params.history(name)
    except KeyError:
        close = difflib.get_close_matches(name, known_parameters(), n=1)
        if close:
            raise _error(
                f"{where}.parameter",
                N_("%(name)s is not a parameter; did you mean %(close)s?"),
                name=name,
                close=FieldRef(close[0]),
            ) from None
        raise _error(f"{where}.parameter", N_("%(name)s is not a parameter"), name=name) from None
    start = _day(raw.get("from"), f"{where}.from", name)
    first, last = parameter.values[0], parameter.values[-1]
    if start < first.start:
        raise _error(
            f"{where}.from",
            N_(
                "%(name)s: %(day)s is before the parameter exists (its first value is in force "
                "from %(first)s, %(citation)s)"
            ),
            name=FieldRef(name),
            day=start,
            first=first.start,
            citation=first.citation,
        )
    if last.end is not None and start > last.end:
        raise _error(
            f"{where}.from",
            N_("%(name)s: %(day)s is after the parameter's last day in the law (%(end)s)"),
            name=FieldRef(name),
            day=start,
            end=last.end,
        )
    value, text = parse_value(raw.get("value"), f"{where}.value", parameter)
    return Change(name, start, value, text)


def _day(raw: object, field: str, name: str) -> date:
    if isinstance(raw, date):
        return raw
    if isinstance(raw, str):
        try:
            return date.fromisoformat(raw.strip())
        except ValueError:
            pass
    raise _error(
        field, N_("%(name)s: give the day it takes effect as 2025-07-01"), name=FieldRef(name)
    )


def _unit_error(field: str, name: str, unit: str, example: str) -> InputError:
    return _error(
        field,
        N_("%(name)s: the value is a %(unit)s, written like %(example)s"),
        name=FieldRef(name),
        unit=Message(params.UNIT_LABELS.get(unit, unit)),
        example=example,
    )


def _allowed(parameter: params.Parameter) -> Message:
    """The values a reform may give ``parameter`` (a number), said."""
    bounds = parameter.bounds
    assert bounds is not None
    low, high = bounds
    if parameter.unit in ("rate", "ratio") and (low, high) == (0, 1):
        return Message("from 0 to 1, 0.25 being a quarter")
    if high is None:
        return Message("%(low)s or more", low=str(low))
    return Message("from %(low)s to %(high)s", low=str(low), high=str(high))


def _check_bounds(value: params.Value, text: str, field: str, parameter: params.Parameter) -> None:
    """Refuse a number outside the values ``parameter`` declares it may take."""
    bounds = parameter.bounds
    if bounds is None:
        return
    low, high = bounds
    if value < low or (high is not None and value > high):  # type: ignore[operator]
        raise _range_error(field, parameter.name, text, _allowed(parameter))


def _range_error(field: str, name: str, text: str, allowed: Message | str) -> InputError:
    return _error(
        field,
        N_("%(name)s: %(value)s is out of range (%(allowed)s)"),
        name=FieldRef(name),
        value=text,
        allowed=allowed,
    )


def parse_value(raw: object, field: str, parameter: params.Parameter) -> tuple[params.Value, str]:
    """A change's value for ``parameter``: of its unit's kind and within its range."""
    name, unit = parameter.name, parameter.values[0].unit
    kind = params.UNITS[unit]
    if kind in ("decimal", "money"):
        if isinstance(raw, bool) or not isinstance(raw, str | int):
            raise _unit_error(field, name, unit, '"0.09"')
        try:
            number = Decimal(str(raw).strip())
        except InvalidOperation:
            raise _unit_error(field, name, unit, '"0.09"') from None
        if not number.is_finite() or number < 0:
            raise _range_error(field, name, str(raw), _allowed(parameter))
        _check_bounds(number, str(raw).strip(), field, parameter)
        if kind == "money" and number != number.quantize(Decimal("0.01")):
            raise _error(
                field,
                N_("%(name)s: %(value)s has more than two decimals"),
                name=FieldRef(name),
                value=str(raw),
            )
        return number, str(raw).strip()
    if kind == "fraction":
        text = str(raw).strip() if isinstance(raw, str) else ""
        parts = text.split("/")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts) or int(parts[1]) == 0:
            raise _unit_error(field, name, unit, '"5/6"')
        value = Fraction(int(parts[0]), int(parts[1]))
        _check_bounds(value, text, field, parameter)
        return value, f"{int(parts[0])}/{int(parts[1])}"
    if kind == "integer":
        number_value = _integer(raw, field, name, unit)
        _check_bounds(number_value, str(number_value), field, parameter)
        return number_value, str(number_value)
    if kind == "date":
        return (day := _day(raw, field, name)), day.isoformat()
    if kind == "fiscal_year":
        try:
            fy: FiscalYear = parse_fiscal_year(raw)
        except InputError:
            raise _unit_error(field, name, unit, '"2007-08"') from None
        return fy, fy.label
    if kind == "text":
        choices = list(dict.fromkeys(str(v.value) for v in parameter.values))
        if not isinstance(raw, str) or raw.strip() not in choices:
            raise _error(
                field,
                N_("%(name)s: choose one of %(choices)s"),
                name=FieldRef(name),
                choices=", ".join(choices),
            )
        return raw.strip(), raw.strip()
    if isinstance(raw, bool):
        return raw, "true" if raw else "false"
    if raw in ("true", "false"):
        return raw == "true", str(raw)
    raise _unit_error(field, name, unit, "true")


def _integer(raw: object, field: str, name: str, unit: str) -> int:
    if isinstance(raw, bool):
        raise _unit_error(field, name, unit, "12")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().isdigit():
        return int(raw.strip())
    raise _unit_error(field, name, unit, "12")


def known_parameters() -> list[str]:
    """Every parameter's name, in order."""
    return [p["name"] for p in params.all_parameters()]


@dataclass(frozen=True, slots=True)
class ChangeLine:
    """A change described: the parameter, the law's value that day and the reform's."""

    parameter: str
    description: str
    unit: str
    start: date
    law: str | None
    law_citation: str
    reform: str


def describe(reform: Reform) -> list[ChangeLine]:
    """Each change in force, with the value the law has on its day."""
    lines = []
    for change in reform.resolved:
        law = params.param_or_none(change.parameter, change.start)
        parameter = params.history(change.parameter)
        shown = None
        if law is not None:
            shown = next(v.text for v in parameter.values if v.start == law.start)
        lines.append(
            ChangeLine(
                change.parameter,
                parameter.description,
                parameter.values[0].unit,
                change.start,
                shown,
                law.citation if law else "",
                change.text,
            )
        )
    return lines


def reforms_in(stack: Sequence[Reform]) -> list[dict[str, str]]:
    """The title and description of each reform of a stack, the first first."""
    return [{"title": r.title, "description": r.description, "id": r.ident or ""} for r in stack]
