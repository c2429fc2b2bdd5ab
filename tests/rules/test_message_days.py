"""A day inside a sentence is written as the reader's pages write their days (``2 mar 2026``
/ ``Mar 2, 2026``); the English ``str`` the JSON interface reads, and the calculators'
``warnings_es``, keep it ISO."""

from __future__ import annotations

from datetime import date

from tid.documents.calc_text import step_value
from tid.render.formats import day
from tid.rules.messages import Message, from_json, render, render_all, render_json, to_json

DAY = date(2026, 3, 2)


def test_a_day_in_a_message() -> None:
    said = Message("moved to %(day)s", day=DAY)
    assert str(said) == "moved to 2026-03-02"
    assert render(said, "es") == "se traslada al 2 mar 2026"
    assert render(said, "en") == "moved to Mar 2, 2026"
    assert render(said, "es").endswith(day(DAY, "es"))  # as the pages' filter writes it
    assert render(from_json(to_json(said)), "en") == "moved to Mar 2, 2026"
    assert render_json(to_json(said), "es") == "se traslada al 2 mar 2026"
    assert render_all([said], "es") == ["se traslada al 2026-03-02"]


def test_a_trace_day_is_written_as_the_page_writes_days() -> None:
    assert step_value({"value": "2026-03-02"}) == "2 mar 2026"
    assert step_value({"value": "20.0000"}) == "20.0000"
