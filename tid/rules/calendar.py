"""The statutory deadlines of 21 LPRA § 6653, counted per 1 LPRA § 72.

Each deadline has one function here, and every place that shows or uses it (the calculator,
petitions, billing, notices, the digest, the iCal feed) calls that function without choosing
how Saturdays count: the setting ``deadline_skip_saturday`` (tid/rules/params/district.toml,
or the installation's ``TID_DEADLINE_SKIP_SATURDAY``) decides, so one deadline has one answer.
Only the public calculator takes an explicit ``skip_saturday`` (a what-if of its user).
Fiscal years and month parsing live in :mod:`tid.rules.periods`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import holidays

from tid.rules import params, readings
from tid.rules.errors import InputError, field_error, field_names
from tid.rules.messages import N_, Message, day_message, joined, render, render_all
from tid.rules.params import district_setting
from tid.rules.periods import beyond_calendar, parse_date
from tid.rules.trace import TraceStep

# Deadline has a field called ``date``; inside its class body the type is reached by this name.
_Date = date


def _setting_int(name: str, on: date, field: str) -> tuple[int, str]:
    s = district_setting(name, on, field=field)
    if not isinstance(s.value, int) or isinstance(s.value, bool):
        raise ValueError(f"district.toml: {name} must be a whole number")
    return s.value, s.citation


def _setting_bool(name: str, on: date, field: str) -> tuple[bool, str]:
    s = district_setting(name, on, field=field)
    if not isinstance(s.value, bool):
        raise ValueError(f"district.toml: {name} must be true or false")
    return s.value, s.citation


# ---------------------------------------------------------------------------------------------
# Deadlines — 21 LPRA § 6653(2), (5), (7), counted per 1 LPRA § 72
# ---------------------------------------------------------------------------------------------

COUNTING_CITATION = N_("1 LPRA § 72")

_WEEKDAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAYS = (
    N_("Monday"),
    N_("Tuesday"),
    N_("Wednesday"),
    N_("Thursday"),
    N_("Friday"),
    N_("Saturday"),
    N_("Sunday"),
)

ELECTION_DAY = "General Election Day"
OBSERVED = " (observed)"

# The names of the holidays the `holidays` package lists for Puerto Rico, as messages (the
# package has no Spanish for PR; the catalogs have it). A name missing here is shown as given.
HOLIDAY_LABELS: dict[str, str] = {
    name: name
    for name in (
        N_("Birthday of Eugenio María de Hostos"),
        N_("Christmas Day"),
        N_("Columbus Day"),
        N_("Discovery of Puerto Rico Day"),
        N_("Emancipation Day"),
        N_("Epiphany"),
        N_("George Washington Day"),
        N_(
            "George Washington Day, Presidents' Day, and the Day of the Hero and the "
            "Illustrious Woman of Puerto Rico"
        ),
        N_(
            "George Washington Day, Presidents' Day, and the Day of the Women and Men Heroes "
            "of Puerto Rico"
        ),
        N_("George Washington Day, Presidents' Day, and the Puerto Rican Heroes Day"),
        N_("Good Friday"),
        N_("Independence Day"),
        N_("José Celso Barbosa Day"),
        N_("José de Diego Day"),
        N_("Juneteenth National Independence Day"),
        N_("Labor Day"),
        N_("Luis Muñoz Rivera Day"),
        N_("Martin Luther King Jr. Day"),
        N_("Memorial Day"),
        N_("New Year's Day"),
        N_("Puerto Rican Culture and Discovery of Puerto Rico Day"),
        N_("Puerto Rican Identity Day"),
        N_("Puerto Rico Constitution Day"),
        N_("Thanksgiving Day"),
        N_("Veterans Day"),
        N_("General Election Day"),
    )
}
assert ELECTION_DAY in HOLIDAY_LABELS


def holiday_label(name_en: str) -> str:
    """A holiday's name (or several, "; "-joined, the package's "(observed)" kept) as a message."""
    parts: list[str] = []
    for part in name_en.split("; "):
        base = part.removesuffix(OBSERVED)
        label: str = Message(HOLIDAY_LABELS[base]) if base in HOLIDAY_LABELS else base
        parts.append(Message("%(holiday)s (observed)", holiday=label) if part != base else label)
    return joined(parts, "; ")


def period_label(period_en: str) -> str:
    """``"90 days"`` or ``"One year"`` as a message."""
    count = period_en.split()[0]
    return Message("%(days)s days", days=count) if count.isdigit() else Message("One year")


def weekday_label(day: date) -> str:
    return Message(WEEKDAYS[day.weekday()])


@functools.cache
def _pr_holidays() -> Any:
    # Built on first use (not at import); it fills in further years by itself as days are asked.
    return holidays.country_holidays("PR")


def general_election_day(year: int) -> date | None:
    """Puerto Rico's general election day in ``year`` (/readings#general-election-day: the first
    Tuesday after the first Monday of November, every fourth year from the setting
    ``general_election_day``), or ``None`` when there is none that year."""
    november_1 = date(year, 11, 1)
    first_monday = november_1 + timedelta(days=(0 - november_1.weekday()) % 7)
    day = first_monday + timedelta(days=1)
    setting = params.param_or_none("district.general_election_day", day)
    if setting is None or year < setting.integer or (year - setting.integer) % 4:
        return None
    return day


def holiday_name(day: date) -> str | None:
    """The name of Puerto Rico's legal holiday on ``day`` (English), or ``None``, under the
    overlay of the parameters in force, if any (:func:`tid.rules.params.overlaid`)."""
    return _holiday_name(day, params.active_overlay())


@functools.lru_cache(maxsize=4096)
def _holiday_name(day: date, overlay: params.Overlay | None) -> str | None:
    """The name of Puerto Rico's legal holiday on ``day`` (English), or ``None``.

    The `holidays` package's days, with two dated settings (/readings#observed-holidays): its
    *observed* days count (``observed_holidays``) and the general election day is added
    (``general_election_day``)."""
    names = [str(n) for n in str(_pr_holidays().get(day) or "").split("; ") if n]
    observed = params.param_or_none("district.observed_holidays", day)
    if observed is None or observed.value is not True:
        names = [n for n in names if not n.endswith(OBSERVED)]
    if day.month == 11 and general_election_day(day.year) == day:
        names.append(ELECTION_DAY)
    return "; ".join(names) or None


params.on_reload(_holiday_name.cache_clear)


def added_by_setting(name: str | None) -> list[str]:
    """The settings of /readings#observed-holidays that make ``name`` a holiday:
    ``district.observed_holidays`` for an observed day, ``district.general_election_day`` for the
    election."""
    parts = (name or "").split("; ")
    found = []
    if any(p.endswith(OBSERVED) for p in parts):
        found.append("district.observed_holidays")
    if ELECTION_DAY in parts:
        found.append("district.general_election_day")
    return found


def is_working_day(day: date, *, skip_saturday: bool) -> bool:
    """1 LPRA § 72: Sundays and legal holidays are not days on which a period can end;
    Saturdays neither when ``skip_saturday`` (setting ``deadline_skip_saturday``)."""
    if day.weekday() == 6 or (skip_saturday and day.weekday() == 5):
        return False
    return holiday_name(day) is None


@dataclass(frozen=True)
class SkippedDay:
    """A day the deadline could not end on, and why (for the UI to translate or show)."""

    day: date
    weekday: str  # English weekday name, e.g. "Sunday"
    holiday: str | None  # English holiday name from the `holidays` package, if one

    def clause(self) -> str:
        """Why the day is skipped, as a message."""
        weekend = self.weekday in ("Saturday", "Sunday")
        day = self.day
        if self.holiday and weekend:
            return Message(
                "%(day)s is a %(weekday)s and %(holiday)s",
                day=day,
                weekday=weekday_label(self.day),
                holiday=holiday_label(self.holiday),
            )
        if self.holiday:
            return Message("%(day)s is %(holiday)s", day=day, holiday=holiday_label(self.holiday))
        return Message("%(day)s is a %(weekday)s", day=day, weekday=weekday_label(self.day))

    def as_json(self) -> dict[str, str | None]:
        return {"date": self.day.isoformat(), "weekday": self.weekday, "holiday": self.holiday}


@dataclass(frozen=True)
class Deadline:
    """A statutory deadline: the day it falls on after moving past holidays, and why."""

    date: _Date
    nominal_date: _Date
    explanation: str
    explanation_es: str
    citation: str
    start: _Date
    skipped: tuple[SkippedDay, ...]
    skip_saturday: bool
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]

    @property
    def moved(self) -> bool:
        return self.date != self.nominal_date

    def as_json(self) -> dict[str, Any]:
        return {
            "date": self.date.isoformat(),
            "nominal_date": self.nominal_date.isoformat(),
            "explanation": self.explanation,
            "explanation_es": render_all([self.explanation], "es")[0],  # days ISO, as the JSON
            "citation": self.citation,
            "skipped": [s.as_json() for s in self.skipped],
        }


@dataclass(frozen=True)
class PublicationWindow:
    """The week following the mayor's approval in which the ordinance is published once."""

    start: date
    end: date
    approved: date
    explanation: str
    explanation_es: str
    citation: str
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end

    def as_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "explanation": self.explanation,
            "explanation_es": render_all([self.explanation], "es")[0],  # days ISO, as the JSON
            "citation": self.citation,
        }


def saturday_warning(skip_saturday: bool) -> str:
    """The warning every deadline carries: how Saturdays were treated, and why it is a setting."""
    if skip_saturday:
        return Message(
            "Saturdays are treated like Sundays and holidays: a deadline falling on one "
            "moves to the next working day (the district setting “A deadline on a Saturday "
            "moves to the next working day” is on). The supplied text of 1 LPRA § 72 does "
            "not settle Saturdays (%(reading)s).",
            reading=readings.note("saturday-deadlines"),
        )
    return Message(
        "Saturdays count as working days: a deadline may fall on one (the district setting "
        "“A deadline on a Saturday moves to the next working day” is off). The supplied "
        "text of 1 LPRA § 72 does not settle Saturdays (%(reading)s).",
        reading=readings.note("saturday-deadlines"),
    )


PUBLICATION_WARNING = Message(
    "The publication window is the 7 days after the approval day (approval + 1 … approval + "
    "7) and its end does not move for a Sunday or holiday: the statute names a week (21 "
    "LPRA § 6653(7)), not a period counted under 1 LPRA § 72 (%(reading)s).",
    reading=readings.note("week-following-approval"),
)

YEARLY_NOTICE_WARNING = Message(
    "The statute asks for a certified-mail notice 'at least every year' and fixes no day; "
    "this date is one year after the previous notice, the latest a yearly notice can go out "
    "(21 LPRA § 6653(5))."
)


def _resolve_skip_saturday(skip_saturday: bool | None, on: date, field: str) -> bool:
    if skip_saturday is not None:
        return skip_saturday
    return _setting_bool("deadline_skip_saturday", on, field)[0]


# Long: the deadline, its explanation and its trace are built together, day by day.
def _moved_past_holidays(
    *,
    start: date,
    nominal: date,
    period_en: str,
    citation: str,
    skip_saturday: bool,
    extra_warnings: tuple[str, ...] = (),
    parameter: str | None = None,
) -> Deadline:
    """Move ``nominal`` to the next working day (1 LPRA § 72) and explain each step."""
    skipped: list[SkippedDay] = []
    day = nominal
    while not is_working_day(day, skip_saturday=skip_saturday):
        skipped.append(SkippedDay(day, _WEEKDAYS_EN[day.weekday()], holiday_name(day)))
        day += timedelta(days=1)
    clauses: list[str] = [
        Message(
            "%(period)s from %(start)s is %(nominal)s, a %(weekday)s",
            period=period_label(period_en),
            start=start,
            nominal=nominal,
            weekday=weekday_label(nominal),
        )
    ]
    for i, s in enumerate(skipped):
        if i == 0:
            # The weekday of the nominal day is already in the head; name only its holiday.
            if s.holiday:
                clauses.append(
                    Message(
                        "%(day)s is %(holiday)s",
                        day=s.day,
                        holiday=holiday_label(s.holiday),
                    )
                )
            continue
        clauses.append(s.clause())
    if skipped:
        clauses.append(Message("moved to %(day)s", day=day))
    explanation = joined(clauses, "; ")
    trace = [
        TraceStep(
            Message("start (the first day is excluded)"), start.isoformat(), COUNTING_CITATION
        ),
        TraceStep(
            Message(
                "%(period)s later (the last day is included)",
                period=period_label(period_en),
            ),
            nominal.isoformat(),
            citation,
            parameter,
        ),
        TraceStep(
            Message("Saturdays"),
            (Message("do not end a period") if skip_saturday else Message("count as working days")),
            district_setting("deadline_skip_saturday").citation,
            "district.deadline_skip_saturday",
        ),
    ]
    settings_used: list[str] = []
    for s in skipped:
        added = added_by_setting(s.holiday)
        trace.append(
            TraceStep(
                Message("not a day a period can end on"),
                s.clause(),
                district_setting(added[0].removeprefix("district.")).citation
                if added
                else COUNTING_CITATION,
                added[0] if added else None,
            )
        )
        settings_used += [a for a in added if a not in settings_used]
    holiday_warnings = [_holiday_setting_warning(name, skipped) for name in settings_used]
    trace.append(
        TraceStep(Message("deadline"), day.isoformat(), f"{citation}; {COUNTING_CITATION}")
    )
    return Deadline(
        date=day,
        nominal_date=nominal,
        explanation=explanation,
        explanation_es=render(explanation, "es"),
        citation=f"{citation}; {COUNTING_CITATION}",
        start=start,
        skipped=tuple(skipped),
        skip_saturday=skip_saturday,
        warnings=(saturday_warning(skip_saturday), *holiday_warnings, *extra_warnings),
        trace=tuple(trace),
    )


def _holiday_setting_warning(setting: str, skipped: Sequence[SkippedDay]) -> str:
    """The warning that a § 1.1 setting moved a deadline, naming the days it added."""
    if setting == "district.observed_holidays":
        days = joined(
            [
                day_message(s.day)
                for s in skipped
                if "district.observed_holidays" in added_by_setting(s.holiday)
            ],
            ", ",
        )
        return Message(
            "The deadline moved past a day on which a holiday is observed (%(days)s): "
            "observed days count as holidays, since the offices are closed (the district "
            "setting “The day a holiday is observed counts as a holiday”).",
            days=days,
        )
    hit = [s.day for s in skipped if setting in added_by_setting(s.holiday)]
    first = params.param(setting, hit[0]).integer
    days = joined([day_message(d) for d in hit], ", ")
    return Message(
        "The deadline moved past Puerto Rico's general election day (%(days)s), a holiday "
        "the holiday calendar lacks: the first Tuesday after the first Monday of November "
        "every fourth year from %(first)s (the district setting “General election day”; 1 "
        "LPRA § 72).",
        days=days,
        first=first,
    )


def deadline_after(
    start: date,
    days: int,
    *,
    citation: str,
    skip_saturday: bool = True,
    parameter: str | None = None,
) -> Deadline:
    """A period of ``days`` days from ``start`` (1 LPRA § 72: exclude the first day, include
    the last; a last day that is a Sunday, a legal holiday or — per the setting — a Saturday
    moves to the next day that is none of these)."""
    if days < 0:
        raise ValueError("a period cannot have a negative number of days")
    return _moved_past_holidays(
        start=start,
        nominal=start + timedelta(days=days),
        period_en=f"{days} days",
        citation=citation,
        skip_saturday=skip_saturday,
        parameter=parameter,
    )


def _statutory_deadline(
    setting: str, start: date, skip_saturday: bool | None, field: str
) -> Deadline:
    days, citation = _setting_int(setting, start, field)
    skip = _resolve_skip_saturday(skip_saturday, start, field)
    try:
        return deadline_after(
            start, days, citation=citation, skip_saturday=skip, parameter=f"district.{setting}"
        )
    except OverflowError:
        raise beyond_calendar(field, start, f"the deadline {days} days later") from None


def ordinance_due(petition_received: date, *, skip_saturday: bool | None = None) -> Deadline:
    """21 LPRA § 6653(2): the municipal legislature issues the ordinance within 90 days of
    receiving the mayor's petition."""
    return _statutory_deadline(
        "ordinance_days", petition_received, skip_saturday, "petition_received"
    )


def mayor_decision_due(
    ordinance_received_by_mayor: date, *, skip_saturday: bool | None = None
) -> Deadline:
    """21 LPRA § 6653(2): the mayor approves or denies the ordinance within 30 days of
    receiving it."""
    return _statutory_deadline(
        "mayor_decision_days",
        ordinance_received_by_mayor,
        skip_saturday,
        "ordinance_received_by_mayor",
    )


def initial_notice_due(
    ordinance_received_by_association: date, *, skip_saturday: bool | None = None
) -> Deadline:
    """21 LPRA § 6653(5): the association notifies every owner by certified mail within 30
    days of receiving the ordinance."""
    return _statutory_deadline(
        "initial_notice_days",
        ordinance_received_by_association,
        skip_saturday,
        "ordinance_received_by_association",
    )


def yearly_notice_due(previous_notice: date, *, skip_saturday: bool | None = None) -> Deadline:
    """21 LPRA § 6653(5): in later years of the term, the association notifies every owner
    by certified mail 'at least every year' of that year's amount and due date.

    The statute fixes no day: this is one year after the previous notice (February 29 gives
    February 28), moved past holidays like any period; the result warns of the reading.
    """
    field = "previous_notice"
    skip = _resolve_skip_saturday(skip_saturday, previous_notice, field)
    # The notices' paragraph (§ 6653(5)); this also refuses a day before the statute.
    _, citation = _setting_int("initial_notice_days", previous_notice, field)
    if previous_notice.year >= date.max.year:
        raise beyond_calendar(field, previous_notice, "the notice a year later")
    try:
        nominal = previous_notice.replace(year=previous_notice.year + 1)
    except ValueError:  # February 29
        nominal = date(previous_notice.year + 1, 2, 28)
    try:
        return _moved_past_holidays(
            start=previous_notice,
            nominal=nominal,
            period_en="One year",
            citation=citation,
            skip_saturday=skip,
            extra_warnings=(YEARLY_NOTICE_WARNING,),
        )
    except OverflowError:
        raise beyond_calendar(field, previous_notice, "the notice a year later") from None


def publication_window(mayor_approved: date) -> PublicationWindow:
    """21 LPRA § 6653(7): the ordinance is published once in a newspaper of general
    circulation during the week following the mayor's approval.

    /readings#week-following-approval: "the week following approval" = the 7 days after the approval
    day (approval + 1 … approval + 7). The window is a calendar week, not a period counted to a last
    day, so its end is kept as it is even when it falls on a Sunday or holiday (the result warns of
    this reading)."""
    field = "mayor_approved"
    days, citation = _setting_int("publication_week_days", mayor_approved, field)
    if (date.max - mayor_approved).days < days:
        raise beyond_calendar(field, mayor_approved, "the week following it")
    start = mayor_approved + timedelta(days=1)
    end = mayor_approved + timedelta(days=days)
    explanation = Message(
        "The week following the approval on %(approved)s: the %(days)s days from %(start)s "
        "(%(start_weekday)s) to %(end)s (%(end_weekday)s); the end does not move for holidays",
        approved=mayor_approved,
        days=days,
        start=start,
        start_weekday=weekday_label(start),
        end=end,
        end_weekday=weekday_label(end),
    )
    trace = (
        TraceStep(Message("mayor's approval (excluded)"), mayor_approved.isoformat(), citation),
        TraceStep(Message("window opens (approval + 1)"), start.isoformat(), citation),
        TraceStep(
            Message(
                "window closes (approval + %(days)s)",
                days=days,
            ),
            end.isoformat(),
            citation,
            "district.publication_week_days",
        ),
    )
    return PublicationWindow(
        start=start,
        end=end,
        approved=mayor_approved,
        explanation=explanation,
        explanation_es=render(explanation, "es"),
        citation=citation,
        warnings=(PUBLICATION_WARNING,),
        trace=trace,
    )


def days_left(deadline: Deadline | PublicationWindow | date, today: date) -> int:
    """Days from ``today`` to the deadline (0 on the day itself, negative once it has passed);
    for a publication window, to its last day."""
    if isinstance(deadline, Deadline):
        end = deadline.date
    elif isinstance(deadline, PublicationWindow):
        end = deadline.end
    else:
        end = deadline
    return (end - today).days


# The deadlines' names as a reader sees them (the trace's steps start with them).
_LABELS = {
    "ordinance_due": Message("Ordinance due"),
    "mayor_decision_due": Message("Mayor's decision due"),
    "publication_window": Message("Publication window"),
    "initial_notice_due": Message("Initial notice due"),
}

_DEADLINE_INPUTS = (
    "petition_received",
    "ordinance_received_by_mayor",
    "mayor_approved",
    "ordinance_received_by_association",
)


def deadlines_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """docs/calculators.md `deadlines`: the § 6653(2), (5), (7) deadlines of the dates given.

    In: any of ``petition_received``, ``ordinance_received_by_mayor``, ``mayor_approved``,
    ``ordinance_received_by_association``; optional ``skip_saturday`` (true/false) and
    ``today`` (adds ``days_left`` to each deadline).
    """
    known = {*_DEADLINE_INPUTS, "skip_saturday", "today"}
    for key in document:
        if key not in known:
            raise field_error(
                str(key),
                Message(
                    "not an input of this calculator; known: %(known)s",
                    known=field_names(sorted(known)),
                ),
            )
    skip_saturday: bool | None = None
    if document.get("skip_saturday") not in (None, ""):
        value = document["skip_saturday"]
        if not isinstance(value, bool):
            raise field_error("skip_saturday", Message("write true or false"))
        skip_saturday = value
    dates = {
        key: parse_date(document[key], key)
        for key in _DEADLINE_INPUTS
        if document.get(key) not in (None, "")
    }
    if not dates:
        raise InputError(
            "petition_received",
            Message(
                "give at least one of the dates: %(fields)s",
                fields=field_names(_DEADLINE_INPUTS),
            ),
        )
    today = parse_date(document["today"], "today") if document.get("today") else None

    results: dict[str, Deadline | PublicationWindow] = {}
    if "petition_received" in dates:
        results["ordinance_due"] = ordinance_due(
            dates["petition_received"], skip_saturday=skip_saturday
        )
    if "ordinance_received_by_mayor" in dates:
        results["mayor_decision_due"] = mayor_decision_due(
            dates["ordinance_received_by_mayor"], skip_saturday=skip_saturday
        )
    if "mayor_approved" in dates:
        results["publication_window"] = publication_window(dates["mayor_approved"])
    if "ordinance_received_by_association" in dates:
        results["initial_notice_due"] = initial_notice_due(
            dates["ordinance_received_by_association"], skip_saturday=skip_saturday
        )

    out: dict[str, Any] = {}
    warnings: list[str] = []
    trace: list[dict[str, str]] = []
    for name, result in results.items():
        entry = result.as_json()
        if today is not None:
            entry["days_left"] = days_left(result, today)
        out[name] = entry
        for w in result.warnings:
            if w not in warnings:
                warnings.append(w)
        trace.extend(
            {
                **t.as_json(),
                "step": Message("%(deadline)s: %(step)s", deadline=_LABELS[name], step=t.step),
            }
            for t in result.trace
        )
    # The publication window alone does not use the Saturday setting; name it only if used.
    used = [r.skip_saturday for r in results.values() if isinstance(r, Deadline)]
    if used:
        out["skip_saturday"] = used[0]
    out["warnings"] = warnings
    out["warnings_es"] = render_all(warnings, "es")
    out["trace"] = trace
    return out
