"""Deadlines of 21 LPRA § 6653(2), (5), (7), counted per 1 LPRA § 72
(/readings#saturday-deadlines)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.rules.calculators import run
from tid.rules.calendar import (
    days_left,
    deadline_after,
    deadlines_document,
    general_election_day,
    initial_notice_due,
    is_working_day,
    mayor_decision_due,
    ordinance_due,
    publication_window,
    yearly_notice_due,
)
from tid.rules.errors import InputError
from tid.rules.messages import render


def test_ordinance_due_rules_example_sunday_moves_to_monday() -> None:
    # 2026-03-02 + 90 days: 29 days left in March (3..31) + 30 (April) + 31 (May) = 90
    # -> 2026-05-31, a Sunday -> Monday 2026-06-01 (not a holiday).
    d = ordinance_due(date(2026, 3, 2))
    assert d.nominal_date == date(2026, 5, 31)
    assert d.date == date(2026, 6, 1)
    assert d.explanation == "90 days from 2026-03-02 is 2026-05-31, a Sunday; moved to 2026-06-01"
    # The Spanish the pages show writes its days as the pages do; the JSON keeps them ISO.
    assert d.explanation_es == (
        "90 días a partir del 2 mar 2026 es el 31 may 2026, domingo; se traslada al 1 jun 2026"
    )
    assert render(d.explanation, "en") == (
        "90 days from Mar 2, 2026 is May 31, 2026, a Sunday; moved to Jun 1, 2026"
    )
    assert d.as_json()["explanation_es"] == (
        "90 días a partir del 2026-03-02 es el 2026-05-31, domingo; se traslada al 2026-06-01"
    )
    assert d.moved
    assert "21 LPRA § 6653(2)" in d.citation and "1 LPRA § 72" in d.citation


def test_mayor_decision_saturday_holiday_then_sunday() -> None:
    # 2026-06-04 + 30: 26 days left in June (5..30) + 4 -> 2026-07-04, a Saturday and
    # Independence Day; 07-05 is a Sunday; Monday 07-06 is a working day.
    d = mayor_decision_due(date(2026, 6, 4))
    assert d.nominal_date == date(2026, 7, 4)
    assert d.date == date(2026, 7, 6)
    assert d.explanation == (
        "30 days from 2026-06-04 is 2026-07-04, a Saturday; 2026-07-04 is Independence Day; "
        "2026-07-05 is a Sunday; moved to 2026-07-06"
    )
    assert [s.day for s in d.skipped] == [date(2026, 7, 4), date(2026, 7, 5)]
    assert d.skipped[0].holiday == "Independence Day"


def test_chain_saturday_sunday_holiday_monday() -> None:
    # 2026-08-06 + 30: 25 days left in August (7..31) + 5 -> Saturday 2026-09-05;
    # Sunday 09-06; Monday 09-07 is Labor Day -> Tuesday 2026-09-08.
    d = initial_notice_due(date(2026, 8, 6))
    assert d.nominal_date == date(2026, 9, 5)
    assert d.date == date(2026, 9, 8)
    assert d.explanation == (
        "30 days from 2026-08-06 is 2026-09-05, a Saturday; 2026-09-06 is a Sunday; "
        "2026-09-07 is Labor Day; moved to 2026-09-08"
    )
    assert d.explanation_es == (
        "30 días a partir del 6 ago 2026 es el 5 sep 2026, sábado; el 6 sep 2026 es domingo; "
        "el 7 sep 2026 es Día del Trabajo; se traslada al 8 sep 2026"
    )
    assert "21 LPRA § 6653(5)" in d.citation


def test_saturday_setting_off_keeps_a_saturday_and_says_so() -> None:
    # Same period as above: 2026-09-05 is a Saturday, not a holiday: it stands.
    d = initial_notice_due(date(2026, 8, 6), skip_saturday=False)
    assert d.date == d.nominal_date == date(2026, 9, 5)
    assert d.explanation == "30 days from 2026-08-06 is 2026-09-05, a Saturday"
    # the setting by its label, never by its key
    label = "“A deadline on a Saturday moves to the next working day”"
    assert any(f"{label} is off" in w for w in d.warnings)
    on = initial_notice_due(date(2026, 8, 6))
    assert any(f"{label} is on" in w for w in on.warnings)
    assert not any("deadline_skip_saturday" in w or "RULES.md" in w for w in d.warnings)


def test_saturday_holiday_moves_even_with_saturdays_counted() -> None:
    # A legal holiday on a Saturday is still a holiday: 2026-07-04 -> Sunday -> 07-06.
    d = mayor_decision_due(date(2026, 6, 4), skip_saturday=False)
    assert d.date == date(2026, 7, 6)


def test_weekday_holiday_moves_one_day() -> None:
    # 2026-10-27 + 30: 4 days left in October (28..31) + 26 -> Thursday 2026-11-26,
    # Thanksgiving Day -> Friday 2026-11-27.
    d = initial_notice_due(date(2026, 10, 27))
    assert d.date == date(2026, 11, 27)
    assert d.explanation == (
        "30 days from 2026-10-27 is 2026-11-26, a Thursday; 2026-11-26 is Thanksgiving Day; "
        "moved to 2026-11-27"
    )


def test_holiday_on_sunday_and_its_observed_monday() -> None:
    # 2025-12-22 + 90: 9 days left in December (23..31) + 31 (January) + 28 (February) + 22
    # = 90 -> Sunday 2026-03-22, Emancipation Day; Monday 03-23 is its observed day
    # -> Tuesday 2026-03-24.
    d = ordinance_due(date(2025, 12, 22))
    assert d.nominal_date == date(2026, 3, 22)
    assert d.date == date(2026, 3, 24)
    assert "2026-03-23 is Emancipation Day (observed)" in d.explanation
    assert "(día feriado trasladado)" in d.explanation_es


def test_no_move_on_a_working_day() -> None:
    # 2026-03-02 + 30: 29 days left in March + 1 -> Wednesday 2026-04-01.
    d = mayor_decision_due(date(2026, 3, 2))
    assert d.date == d.nominal_date == date(2026, 4, 1)
    assert d.explanation == "30 days from 2026-03-02 is 2026-04-01, a Wednesday"
    assert not d.skipped and not d.moved


def test_publication_window_is_the_seven_days_after_approval_without_moving() -> None:
    # Approved Saturday 2026-06-27: window 06-28 (approval + 1) .. 07-04 (approval + 7),
    # and 07-04 (a Saturday and Independence Day) is kept as the end.
    w = publication_window(date(2026, 6, 27))
    assert (w.start, w.end) == (date(2026, 6, 28), date(2026, 7, 4))
    assert w.contains(date(2026, 7, 4)) and not w.contains(date(2026, 6, 27))
    assert not w.contains(date(2026, 7, 5))
    assert "does not move" in w.warnings[0]
    assert "21 LPRA § 6653(7)" in w.citation


def test_yearly_notice_one_year_later_with_a_warning() -> None:
    # 2028-02-29 + one year: 2029 has no February 29 -> 2029-02-28, a Wednesday.
    d = yearly_notice_due(date(2028, 2, 29))
    assert d.date == date(2029, 2, 28)
    assert any("at least every year" in w for w in d.warnings)
    # 2025-07-04 + one year -> 2026-07-04 (Saturday, Independence Day) -> Monday 07-06.
    assert yearly_notice_due(date(2025, 7, 4)).date == date(2026, 7, 6)


def test_days_left() -> None:
    d = ordinance_due(date(2026, 3, 2))  # due 2026-06-01
    assert days_left(d, date(2026, 5, 31)) == 1
    assert days_left(d, date(2026, 6, 1)) == 0
    assert days_left(d, date(2026, 6, 3)) == -2
    w = publication_window(date(2026, 3, 2))  # ends 2026-03-09
    assert days_left(w, date(2026, 3, 2)) == 7
    assert days_left(date(2026, 1, 31), date(2026, 1, 1)) == 30


def test_before_the_statute_is_an_input_error() -> None:
    with pytest.raises(InputError) as err:
        ordinance_due(date(1997, 1, 1))
    assert err.value.field == "petition_received"
    assert "1998-08-08" in err.value.message


def test_document_all_four() -> None:
    out = run(
        "deadlines",
        {
            "petition_received": "2026-03-02",
            "ordinance_received_by_mayor": "2026-06-04",
            "mayor_approved": "2026-06-27",
            "ordinance_received_by_association": "2026-08-06",
            "today": "2026-06-01",
        },
    )
    assert out["ordinance_due"]["date"] == "2026-06-01"
    assert out["ordinance_due"]["nominal_date"] == "2026-05-31"
    assert out["ordinance_due"]["days_left"] == 0
    assert out["mayor_decision_due"]["date"] == "2026-07-06"
    assert out["publication_window"] == {
        **out["publication_window"],
        "start": "2026-06-28",
        "end": "2026-07-04",
    }
    assert out["initial_notice_due"]["date"] == "2026-09-08"
    assert out["skip_saturday"] is True
    assert len(out["warnings"]) == 2  # the Saturday setting and the publication reading
    assert out["trace"] and all({"step", "value", "citation"} <= set(t) for t in out["trace"])


def test_document_only_what_applies_and_the_setting() -> None:
    out = deadlines_document(
        {"ordinance_received_by_association": "2026-08-06", "skip_saturday": False}
    )
    assert set(out) == {"initial_notice_due", "skip_saturday", "warnings", "warnings_es", "trace"}
    assert out["initial_notice_due"]["date"] == "2026-09-05"
    assert out["skip_saturday"] is False


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({}, "petition_received"),
        ({"petition_received": "2026-02-30"}, "petition_received"),
        ({"mayor_approved": 20260302}, "mayor_approved"),
        ({"petition_received": "2026-03-02", "skip_saturday": "yes"}, "skip_saturday"),
        ({"petition_recieved": "2026-03-02"}, "petition_recieved"),
        ({"petition_received": "2026-03-02", "today": "tomorrow"}, "today"),
    ],
)
def test_document_bad_input_names_the_field(doc: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as err:
        deadlines_document(doc)
    assert err.value.field == field


@settings(max_examples=examples(300), deadline=None)
@given(
    start=st.dates(min_value=date(1998, 8, 8), max_value=date(2060, 12, 31)),
    days=st.integers(min_value=0, max_value=400),
    skip_saturday=st.booleans(),
)
def test_deadline_is_the_first_working_day_on_or_after_the_nominal_day(
    start: date, days: int, skip_saturday: bool
) -> None:
    d = deadline_after(start, days, citation="test", skip_saturday=skip_saturday)
    assert d.nominal_date == start + timedelta(days=days)
    assert d.date >= d.nominal_date
    assert is_working_day(d.date, skip_saturday=skip_saturday)
    between = [d.nominal_date + timedelta(days=i) for i in range((d.date - d.nominal_date).days)]
    assert [s.day for s in d.skipped] == between
    assert not any(is_working_day(day, skip_saturday=skip_saturday) for day in between)
    assert d.explanation.endswith(f"moved to {d.date.isoformat()}") == d.moved


# ---------------------------------------------------------------------------------------------
# /readings#general-election-day and /readings#observed-holidays: the general election day and
# observed days, dated settings with a warning


def test_general_election_day_moves_a_deadline_and_says_so() -> None:
    # 90 days from 2028-08-09 is 2028-11-07: the first Tuesday after the first Monday of
    # November 2028 (2024 + 4), the general election day the holiday calendar lacks.
    due = ordinance_due(date(2028, 8, 9), skip_saturday=True)
    assert due.nominal_date == date(2028, 11, 7)
    assert due.date == date(2028, 11, 8)
    assert "General Election Day" in due.explanation
    assert "Día de las Elecciones Generales" in due.explanation_es
    assert any("general election day (2028-11-07)" in w for w in due.warnings)
    assert any("elecciones generales" in render(w, "es") for w in due.warnings)
    assert any(s.parameter == "district.general_election_day" for s in due.trace)


def test_no_election_holiday_between_election_years() -> None:
    # 2026-11-03 is the first Tuesday after the first Monday, but 2026 is not an election
    # year (2024, 2028, …): 90 days from 2026-08-05 end on it, a working day.
    due = ordinance_due(date(2026, 8, 5), skip_saturday=True)
    assert due.date == due.nominal_date == date(2026, 11, 3)
    assert not any("election" in w for w in due.warnings)
    assert general_election_day(2024) == date(2024, 11, 5)
    assert general_election_day(2032) == date(2032, 11, 2)
    assert general_election_day(2020) is None  # the setting runs from 2024


def test_an_observed_holiday_moves_a_deadline_and_says_so() -> None:
    # 90 days from 2026-04-04 is Friday 2026-07-03, the day Independence Day (Saturday) is
    # observed: the offices are closed; then Saturday and Sunday -> Monday 2026-07-06.
    due = ordinance_due(date(2026, 4, 4), skip_saturday=True)
    assert due.date == date(2026, 7, 6)
    assert "Independence Day (observed)" in due.explanation
    assert any("observed days count as holidays" in w for w in due.warnings)
    assert any("se observa un feriado" in render(w, "es") for w in due.warnings)
    # A deadline no observed day touches carries no such warning.
    plain = ordinance_due(date(2026, 3, 2), skip_saturday=True)
    assert not any("observed" in w for w in plain.warnings)
