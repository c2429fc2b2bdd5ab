"""Dated parameters of the statutes: every rate, threshold, cap, floor and date as data.

The statutes (Act 272-2003 § 24 and § 31; IRC 1994 § 2051; 13 LPRA § 31751; the Municipal
Equalization Fund) change their figures over time. Each figure lives in
``tid/rules/params/*.toml`` as a list of dated values, each with the citation that sets it::

    [room_tax.act272.rate.hotel]
    description = "Room tax rate: hotel"
    [[room_tax.act272.rate.hotel.values]]
    from = 2003-09-09
    value = "0.09"
    unit = "rate"
    citation = "Act 272-2003 § 24(B)"

(``since`` may stand for ``from``, and ``unit`` may be set once on the parameter table.)

A number's table may narrow the values a reform may give it with ``min`` and ``max``
(written like its values; :data:`UNIT_BOUNDS` are its unit's otherwise), and a choice
(``code``) may be given only within the years the law gives it (:attr:`Parameter.choices`):
the project's reading ``reform-periods``, checked by tid/rules/reform_checks.py.

The dotted table name is the parameter's stable name (the UI links trace steps to it). The
files are read lazily with :mod:`tomllib`, validated strictly (unknown keys, a value without
a citation, an unknown unit, unsorted or overlapping dates are refused) and cached.

The English ``description``, ``citation`` and ``note`` of the files are msgids: ``make
messages`` extracts them (:func:`extract_messages`, named in tid/babel.cfg; a ``%`` is
written ``%%`` there, :func:`catalog_id`), so each is written once, in its file, and shown
in the reader's language from the catalogs. The JSON interface (``/api/v1/parameters``)
keeps them as written.
"""

from __future__ import annotations

import re
import tomllib
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from tid.rules import readings
from tid.rules.errors import InputError
from tid.rules.messages import N_, FieldRef, Message
from tid.rules.periods import FiscalYear, parse_fiscal_year

PARAMS_DIR = Path(__file__).with_name("params")

# unit -> the TOML type its value is written as.
UNITS: dict[str, str] = {
    "rate": "decimal",  # a fraction written as a decimal: "0.09" is 9 %
    "fraction": "fraction",  # an exact fraction: "5/6"
    "usd": "money",  # dollars, at most cents: "375000.00"
    "usd_per_gallon": "decimal",  # dollars a gallon: "0.04"
    "count": "integer",
    "fiscal_month": "integer",  # 1 (July) … 12 (June)
    "day_of_month": "integer",
    "date": "date",
    "fiscal_year": "fiscal_year",  # "2015-16"
    "code": "text",  # a symbolic value, e.g. the name of a regime
    "boolean": "boolean",
    "days": "integer",  # a count of calendar days
    "year": "integer",  # a calendar year: 2024
    "ratio": "decimal",  # same as "rate"
}

_PARAMETER_KEYS = frozenset({"description", "unit", "values", "min", "max"})
_VALUE_KEYS = frozenset({"from", "since", "until", "value", "unit", "citation", "note"})
_NAME_PART = re.compile(r"^[a-z][a-z0-9_]*$")
_FRACTION = re.compile(r"^(\d+)/(\d+)$")

Value = Decimal | Fraction | int | date | FiscalYear | str | bool


# How a reader names each unit (msgids), and the code values a parameter may hold.
UNIT_LABELS: dict[str, str] = {
    "rate": N_("rate"),
    "fraction": N_("fraction"),
    "usd": N_("dollars"),
    "usd_per_gallon": N_("dollars a gallon"),
    "count": N_("count"),
    "fiscal_month": N_("month of the fiscal year"),
    "day_of_month": N_("day of the month"),
    "date": N_("date"),
    "fiscal_year": N_("fiscal year"),
    "code": N_("choice"),
    "boolean": N_("yes or no"),
    "days": N_("days"),
    "year": N_("year"),
    "ratio": N_("ratio"),
}
CODE_LABELS: dict[str, str] = {
    "irc-1994": N_("Internal Revenue Code 1994 § 2051"),
    "act-272-2003": N_("Act 272-2003"),
    "not_named": N_("Recipient not named in the supplied text"),
    "special_accounts": N_("Special Accounts I and II"),
    "convention_center_account": N_("Tourism Company convention center account"),
    "recreational_development_fund": N_("Recreational Development Fund"),
    "special_reserve_account": N_("Special reserve account of the Tourism Company"),
    "treasury": N_("Department of the Treasury"),
    "reference_year_allocation": N_("No less than the allocation of the reference fiscal year"),
    "priority_month_by_month": N_("By priority, month by month"),
    "inversely_proportional_to_allocation_share_of_income": N_(
        "Inversely proportional to each municipality's allocation as a share of its income"
    ),
}


# The values a reform may give a parameter of each unit, when its table narrows them no
# further (``min`` / ``max``, written like its values): a rate is a part of the whole, a month
# of the fiscal year is 1–12, and a day of the month is one every month has.
UNIT_BOUNDS: dict[str, tuple[Value, Value | None]] = {
    "rate": (Decimal(0), Decimal(1)),
    "ratio": (Decimal(0), Decimal(1)),
    "fraction": (Fraction(0), Fraction(1)),
    "usd": (Decimal(0), Decimal("9999999999999.99")),
    "usd_per_gallon": (Decimal(0), Decimal("9999999999999.99")),
    "count": (0, 100000),
    "days": (0, 100000),
    "fiscal_month": (1, 12),
    "day_of_month": (1, 28),
    "year": (1900, 2200),
}


class ParameterFileError(ValueError):
    """A parameter file that breaks the rules of the format (a defect, not user input)."""


@dataclass(frozen=True, slots=True)
class DatedValue:
    """One value of a parameter, in force from ``start`` to ``end`` (inclusive; None: open)."""

    start: date
    end: date | None
    value: Value
    text: str
    unit: str
    citation: str
    note: str | None = None

    def as_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "from": self.start.isoformat(),
            "until": self.end.isoformat() if self.end else None,
            "value": self.text,
            "unit": self.unit,
            "citation": self.citation,
        }
        if self.note:
            doc["note"] = self.note
        return doc


@dataclass(frozen=True, slots=True)
class Parameter:
    """A named parameter with its full history of values, oldest first."""

    name: str
    description: str
    values: tuple[DatedValue, ...]
    source: str
    low: DatedValue | None = None
    high: DatedValue | None = None

    @property
    def unit(self) -> str:
        return self.values[0].unit

    @property
    def bounds(self) -> tuple[Value, Value | None] | None:
        """The least and the greatest value a reform may give it (None: not a number; a
        greatest of None: no bound above), its table's ``min`` / ``max`` or its unit's."""
        unit_bounds = UNIT_BOUNDS.get(self.unit)
        if unit_bounds is None:
            return None
        low, high = unit_bounds
        return (
            self.low.value if self.low is not None else low,
            self.high.value if self.high is not None else high,
        )

    @property
    def choices(self) -> tuple[tuple[str, date, date | None], ...]:
        """A choice's values with the years the law gives each (first and last day; None:
        open), in order: a reform may give a choice only within its years."""
        spans: list[tuple[str, date, date | None]] = []
        for v in self.values:
            last = spans[-1] if spans else None
            if last and last[0] == v.text and last[2] and last[2] + timedelta(days=1) == v.start:
                spans[-1] = (v.text, last[1], v.end)
                continue
            spans.append((v.text, v.start, v.end))
        return tuple(spans)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "unit": self.values[0].unit,
            "source": self.source,
            "values": [v.as_json() for v in self.values],
        }


@dataclass(frozen=True, slots=True)
class ParamValue:
    """The value of a parameter on a given day, with the citation that sets it."""

    name: str
    value: Value
    unit: str
    citation: str
    start: date
    end: date | None
    # True when the value is a reform's (an :class:`Overlay`), not the law's.
    reformed: bool = False

    @property
    def decimal(self) -> Decimal:
        if not isinstance(self.value, Decimal):
            raise TypeError(f"parameter {self.name} is not a decimal")
        return self.value

    @property
    def ratio(self) -> tuple[int, int]:
        """The value as an exact integer ratio (rates, fractions, amounts)."""
        if isinstance(self.value, Decimal | Fraction):
            n, d = self.value.as_integer_ratio()
            return int(n), int(d)
        raise TypeError(f"parameter {self.name} is not a number")

    @property
    def integer(self) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise TypeError(f"parameter {self.name} is not an integer")
        return self.value

    @property
    def cents(self) -> int:
        """A dollar amount as integer cents."""
        if self.unit != "usd":
            raise TypeError(f"parameter {self.name} is not an amount of dollars")
        return int(self.decimal * 100)


# ---------------------------------------------------------------------------------------
# Loading and validation


def _fail(source: str, where: str, message: str) -> ParameterFileError:
    return ParameterFileError(f"{source}: {where}: {message}")


def _parse_value(source: str, where: str, unit: str, raw: object) -> tuple[Value, str]:
    kind = UNITS[unit]
    if kind in ("decimal", "money"):
        if not isinstance(raw, str):
            raise _fail(source, where, f'a {unit} value is written as text, like "0.09"')
        try:
            number = Decimal(raw)
        except InvalidOperation:
            raise _fail(source, where, f"{raw!r} is not a number") from None
        if not number.is_finite() or number < 0:
            raise _fail(source, where, f"{raw!r} is not a non-negative number")
        if kind == "money" and number != number.quantize(Decimal("0.01")):
            raise _fail(source, where, f"{raw!r} has more than two decimals")
        return number, raw
    if kind == "fraction":
        match = _FRACTION.match(raw) if isinstance(raw, str) else None
        if not match or int(match.group(2)) == 0:
            raise _fail(source, where, f'a fraction is written as text, like "5/6", not {raw!r}')
        return Fraction(int(match.group(1)), int(match.group(2))), match.group(0)
    if kind == "integer":
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise _fail(source, where, f"{raw!r} is not a whole number")
        if unit == "fiscal_month" and not 1 <= raw <= 12:
            raise _fail(source, where, f"{raw} is not a fiscal month (1–12)")
        if unit == "day_of_month" and not 1 <= raw <= 31:
            raise _fail(source, where, f"{raw} is not a day of the month")
        return raw, str(raw)
    if kind == "date":
        if not isinstance(raw, date):
            raise _fail(source, where, f"{raw!r} is not a TOML date")
        return raw, raw.isoformat()
    if kind == "fiscal_year":
        try:
            return parse_fiscal_year(raw), str(raw)
        except InputError as exc:
            raise _fail(source, where, exc.message) from None
    if kind == "text":
        if not isinstance(raw, str) or not raw:
            raise _fail(source, where, "a code value is non-empty text")
        return raw, raw
    if not isinstance(raw, bool):
        raise _fail(source, where, f"{raw!r} is not true or false")
    return raw, "true" if raw else "false"


def _parse_parameter(source: str, name: str, table: Mapping[str, Any]) -> Parameter:
    unknown = set(table) - _PARAMETER_KEYS
    if unknown:
        raise _fail(source, name, f"unknown key(s) {', '.join(sorted(unknown))}")
    description = table.get("description")
    if not isinstance(description, str) or not description.strip():
        raise _fail(source, name, "a parameter needs a description")
    default_unit = table.get("unit")
    raw_values = table["values"]
    if not isinstance(raw_values, list) or not raw_values:
        raise _fail(source, name, "values must be a non-empty list of [[…values]] tables")
    values: list[DatedValue] = []
    for i, raw in enumerate(raw_values):
        where = f"{name}.values[{i}]"
        if not isinstance(raw, dict):
            raise _fail(source, where, "each value is a table")
        unknown = set(raw) - _VALUE_KEYS
        if unknown:
            raise _fail(source, where, f"unknown key(s) {', '.join(sorted(unknown))}")
        if ("from" in raw) == ("since" in raw):
            raise _fail(source, where, "give the first day as 'from' (or 'since'), once")
        for key in ("value", "citation"):
            if key not in raw:
                raise _fail(source, where, f"missing {key!r}")
        citation = raw["citation"]
        if not isinstance(citation, str) or not citation.strip():
            raise _fail(source, where, "every value needs a citation")
        unit = raw.get("unit", default_unit)
        if unit is None:
            raise _fail(source, where, "missing 'unit' (on the value or on the parameter)")
        if default_unit is not None and unit != default_unit:
            raise _fail(source, where, f"unit {unit!r} differs from {default_unit!r}")
        if unit not in UNITS:
            known = ", ".join(sorted(UNITS))
            raise _fail(source, where, f"unknown unit {unit!r} (known: {known})")
        if values and unit != values[0].unit:
            raise _fail(source, where, f"unit {unit!r} differs from {values[0].unit!r}")
        start, end = raw.get("from", raw.get("since")), raw.get("until")
        if not isinstance(start, date) or (end is not None and not isinstance(end, date)):
            raise _fail(source, where, "'from' and 'until' are TOML dates (2003-09-09)")
        if end is not None and end < start:
            raise _fail(source, where, f"'until' {end} is before 'from' {start}")
        if values:
            previous = values[-1]
            if start <= previous.start:
                raise _fail(source, where, f"dates not sorted: {start} after {previous.start}")
            if previous.end is not None and start <= previous.end:
                raise _fail(source, where, f"overlaps the value in force until {previous.end}")
        note = raw.get("note")
        if note is not None and not isinstance(note, str):
            raise _fail(source, where, "'note' is text")
        value, text = _parse_value(source, where, unit, raw["value"])
        values.append(DatedValue(start, end, value, text, unit, citation.strip(), note))
    bounds = [_parse_bound(source, name, key, table.get(key), values) for key in ("min", "max")]
    return Parameter(name, description.strip(), tuple(values), source, *bounds)


def _parse_bound(
    source: str, name: str, key: str, raw: object, values: list[DatedValue]
) -> DatedValue | None:
    """A parameter's ``min`` or ``max``: a number of its unit that every value keeps."""
    if raw is None:
        return None
    unit = values[0].unit
    if unit not in UNIT_BOUNDS:
        raise _fail(source, name, f"{key!r} bounds a number, not a {unit}")
    value, text = _parse_value(source, f"{name}.{key}", unit, raw)
    for v in values:
        if (v.value < value) if key == "min" else (v.value > value):  # type: ignore[operator]
            raise _fail(source, name, f"the value {v.text} from {v.start} is outside {key}")
    first = values[0]
    return DatedValue(first.start, None, value, text, unit, first.citation)


def _walk(source: str, prefix: str, table: Mapping[str, Any]) -> Iterable[Parameter]:
    if "values" in table:
        yield _parse_parameter(source, prefix, table)
        return
    if not table:
        raise _fail(source, prefix or "(top)", "an empty table")
    for key, sub in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if not _NAME_PART.match(key):
            raise _fail(source, name, f"{key!r} is not a lower-case parameter name part")
        if not isinstance(sub, dict):
            raise _fail(source, name, "unknown key (a parameter is a table with 'values')")
        yield from _walk(source, name, sub)


def load_file(path: Path) -> dict[str, Parameter]:
    """Load and strictly validate one parameter file."""
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ParameterFileError(f"{path.name}: not valid TOML: {exc}") from None
    found: dict[str, Parameter] = {}
    for parameter in _walk(path.name, "", document):
        found[parameter.name] = parameter
    return found


def load_parameters(paths: Iterable[Path]) -> dict[str, Parameter]:
    """Load several files; a name defined twice is refused."""
    registry: dict[str, Parameter] = {}
    for path in sorted(paths):
        for name, parameter in load_file(path).items():
            if name in registry:
                raise ParameterFileError(
                    f"{path.name}: {name}: already defined in {registry[name].source}"
                )
            registry[name] = parameter
    if not registry:
        raise ParameterFileError("no parameters found")
    return registry


def catalog_id(text: str) -> str:
    """The msgid of a description, citation or note of the files: ``%`` written ``%%``."""
    return text.replace("%", "%%")


def extract_messages(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extractor for the parameter files: every description, citation and note."""
    document = tomllib.loads(fileobj.read().decode("utf-8"))

    def walk(table: Mapping[str, Any]) -> Iterator[str]:
        for key, item in table.items():
            if key in ("description", "citation", "note") and isinstance(item, str):
                yield item.strip()
            elif isinstance(item, dict):
                yield from walk(item)
            elif isinstance(item, list):
                for entry in item:
                    if isinstance(entry, dict):
                        yield from walk(entry)

    for message in walk(document):
        # A literal % is written %% in the catalogs (the python-format convention), so that
        # "30 % share" is not taken for a placeholder: :func:`catalog_id`.
        yield 1, "_", catalog_id(message), []


@cache
def _registry() -> dict[str, Parameter]:
    return load_parameters(PARAMS_DIR.glob("*.toml"))


# Values the installation sets in its configuration (``TID_DEADLINE_SKIP_SATURDAY``): name ->
# (value, the setting's name). They replace the file's value on every day the file has one.
_installation: dict[str, tuple[Value, str]] = {}


def set_installation_value(name: str, value: Value | None, *, setting: str) -> None:
    """Make ``value`` the parameter's value on every day it has one (``None``: the file's
    again). One installation, one value: the app applies its configuration here when it
    starts, so that every computation of the process (pages, jobs, calculators) reads it."""
    history(name)  # an unknown name is refused
    if value is None:
        _installation.pop(name, None)
    else:
        _installation[name] = (value, setting)
    for hook in _reload_hooks:
        hook()


def reload(directory: Path | None = None) -> None:
    """Read the parameter files again, from ``directory`` (``None``: the shipped ones).

    For a change of the files while the process runs, and for tests that load a fixture."""
    global PARAMS_DIR
    PARAMS_DIR = directory or Path(__file__).with_name("params")
    _registry.cache_clear()
    _index.cache_clear()
    for hook in _reload_hooks:
        hook()


# Caches elsewhere in the core that hold values read from the parameters (cleared by reload).
_reload_hooks: list[Any] = []


def on_reload(hook: Any) -> None:
    """Register a cache-clearing function that :func:`reload` calls."""
    _reload_hooks.append(hook)


@cache
def _index(name: str) -> tuple[list[date], Parameter]:
    try:
        parameter = _registry()[name]
    except KeyError:
        raise KeyError(f"no parameter named {name!r}") from None
    return [v.start for v in parameter.values], parameter


# ---------------------------------------------------------------------------------------
# Public API


class NotInForceError(LookupError):
    """The parameter has no value on the day asked (before the statute, or after it ended)."""

    def __init__(self, name: str, on: date, parameter: Parameter) -> None:
        first = parameter.values[0]
        super().__init__(
            f"{parameter.description} ({name}) has no value on {on.isoformat()}; "
            f"the first value is in force from {first.start.isoformat()} ({first.citation})"
        )
        self.name = name
        self.on = on
        self.first = first.start


# ---------------------------------------------------------------------------------------
# Overlays: the values of a reform, read in place of the law's within a context


@dataclass(frozen=True, slots=True)
class OverlayValue:
    """A value a reform gives a parameter from ``start`` on (wherever the law has one)."""

    start: date
    value: Value
    text: str
    citation: str


@dataclass(frozen=True, slots=True)
class Overlay:
    """Values read in place of the law's: parameter name -> its values, oldest first.

    Hashable, so that a cache of values read from the parameters can key on it."""

    values: tuple[tuple[str, tuple[OverlayValue, ...]], ...]

    def on(self, name: str, day: date) -> OverlayValue | None:
        for key, found in self.values:
            if key == name:
                hit = None
                for value in found:
                    if value.start <= day:
                        hit = value
                return hit
        return None

    @property
    def names(self) -> frozenset[str]:
        return frozenset(key for key, _values in self.values)

    @property
    def citations(self) -> frozenset[str]:
        return frozenset(v.citation for _key, found in self.values for v in found)


# The overlay in force in this context (a thread, a request): each has its own.
_OVERLAY: ContextVar[Overlay | None] = ContextVar("tid_params_overlay", default=None)


@contextmanager
def overlaid(overlay: Overlay | None) -> Iterator[None]:
    """Within the block, every lookup of this context reads ``overlay``'s values in place of
    the law's (other threads and contexts keep the law)."""
    token = _OVERLAY.set(overlay)
    try:
        yield
    finally:
        _OVERLAY.reset(token)


def active_overlay() -> Overlay | None:
    """The overlay in force in this context (None: the law)."""
    return _OVERLAY.get()


def param_or_none(name: str, on: date) -> ParamValue | None:
    """The value of parameter ``name`` in force on ``on``, or None when none is.

    Under an overlay (:func:`overlaid`), its value from its date on replaces the law's on
    every day the law has one (and a different one)."""
    starts, parameter = _index(name)
    i = bisect_right(starts, on) - 1
    if i < 0:
        return None
    v = parameter.values[i]
    if v.end is not None and on > v.end:
        return None
    overlay = _OVERLAY.get()
    if overlay is not None:
        changed = overlay.on(name, on)
        law = _installation[name][0] if name in _installation else v.value
        # A change to the value the law already has changes nothing: the law stands.
        if changed is not None and changed.value != law:
            return ParamValue(
                name, changed.value, v.unit, changed.citation, changed.start, v.end, True
            )
    if name in _installation:
        value, setting = _installation[name]
        citation = f"{v.citation}; set for this installation ({setting})"
        return ParamValue(name, value, v.unit, citation, v.start, v.end)
    return ParamValue(name, v.value, v.unit, v.citation, v.start, v.end)


def param(name: str, on: date) -> ParamValue:
    """The value of parameter ``name`` in force on ``on`` (value + citation).

    Raises :class:`NotInForceError` when the parameter has no value that day.
    """
    found = param_or_none(name, on)
    if found is None:
        raise NotInForceError(name, on, _index(name)[1])
    return found


# ---------------------------------------------------------------------------------------
# Periods: a calculator that works month by month reads a month's values on its first day,
# one that works by fiscal year reads the year's on its first day (the project's reading
# ``reform-periods``). A change dated inside such a period is not used by it: noted.

# The notes gathered in this context (None: none is gathered: the law alone is computed).
_NOTES: ContextVar[list[Message] | None] = ContextVar("tid_params_notes", default=None)


@contextmanager
def noting() -> Iterator[list[Message]]:
    """Within the block, :func:`note_period` gathers its notes into the list it yields."""
    notes: list[Message] = []
    token = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(token)


def note_period(names: Iterable[str], first: date, last: date, period: str) -> None:
    """Note each change of the overlay in force to one of ``names`` dated inside the period
    from ``first`` to ``last`` (named ``period``), which reads the value in force on
    ``first``: the period does not use it (when it would give the value another). A name
    that ends with a dot stands for every parameter whose name begins with it."""
    overlay, notes = _OVERLAY.get(), _NOTES.get()
    if overlay is None or notes is None:
        return
    wanted = set(names)
    prefixes = tuple(n for n in wanted if n.endswith("."))
    for name, found in overlay.values:
        if name not in wanted and not name.startswith(prefixes):
            continue
        for change in found:
            if not first < change.start <= last:
                continue
            used, then = param_or_none(name, first), param_or_none(name, change.start)
            if then is None or (used is not None and used.value == then.value):
                continue
            note = Message(
                "The change to %(name)s from %(day)s is not used in %(period)s: the period "
                "uses the values in force on its first day, %(first)s, so the change applies "
                "from the next period, from %(next)s (%(reading)s).",
                name=name,
                day=change.start,
                period=period,
                first=first,
                next=last + timedelta(days=1),
                reading=readings.note("reform-periods"),
            )
            if note not in notes:
                notes.append(note)


def history(name: str) -> Parameter:
    """The parameter with its full history of values."""
    return _index(name)[1]


def all_parameters() -> list[dict[str, Any]]:
    """Every parameter with its full value history and citations (JSON-ready, by name)."""
    return [_registry()[name].as_json() for name in sorted(_registry())]


# ---------------------------------------------------------------------------------------
# The district's settings (district.toml): the value in force on a day, or a user error


@dataclass(frozen=True)
class Setting:
    """One dated setting of the district rules: the value in force on a day, with its citation.

    ``name`` is the short name (``admin_cap_rate``); the parameter is ``district.<name>``.
    """

    name: str
    value: object
    since: date
    citation: str

    @property
    def parameter(self) -> str:
        return f"district.{self.name}"


def district_setting(name: str, on: date | None = None, *, field: str = "") -> Setting:
    """The setting ``district.<name>`` in force on ``on`` (``None``: the latest value).

    A day before the first value is a user error about ``field``: the rule was not yet law.
    """
    full = f"district.{name}"
    if on is None:
        last = history(full).values[-1]
        found = param_or_none(full, last.start)
        assert found is not None
        return Setting(name, found.value, found.start, found.citation)
    found = param_or_none(full, on)
    if found is None:
        first = history(full).values[0]
        raise InputError(
            field,
            Message(
                "%(field)s: %(reason)s",
                field=FieldRef(field or "date"),
                reason=Message(
                    N_("%(on)s is before %(start)s, when the rule (%(citation)s) took effect"),
                    on=on,
                    start=first.start,
                    citation=first.citation,
                ),
            ),
        )
    return Setting(name, found.value, found.start, found.citation)
