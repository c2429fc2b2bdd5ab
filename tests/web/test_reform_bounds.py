"""A saved reform's bounds and its cost to the public: a reform is refused when it is saved
past the bounds its page will be opened with (how many reforms stand on one another, how
many changes they hold together); its page and note are made once per reform, language
(and day, for the note), then kept; and whatever a saved reform's pages compute for an
anonymous reader runs within the calculators' bounds."""

from __future__ import annotations

import html
import json
import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import People, login, make_test_app
from tid.db import engine
from tid.documents import reform_note
from tid.rules import fund_example
from tid.rules.reform import MAX_CHANGES, MAX_DEPTH
from tid.services.limits import heavy_work
from tid.services.reform_library import MAX_STACK_CHANGES
from tid.web import reform_cache

LOTTERY = "equalization.lottery_share_rate"
THRESHOLD = "equalization.hold_harmless.threshold"


def _document(title: str, base: str | None = None, changes: int = 1, first: int = 0) -> Any:
    start = date(2024, 7, 1)
    document: dict[str, Any] = {
        "title": title,
        "changes": [
            {
                "parameter": LOTTERY,
                "from": (start + timedelta(days=first + i)).isoformat(),
                "value": "0.40",
            }
            for i in range(changes)
        ],
    }
    if base is not None:
        document["base"] = base
    return document


def _stack(client: FlaskClient, depth: int) -> list[str]:
    """``depth`` reforms saved one on another through the API: their ids, the first first."""
    ids: list[str] = []
    for n in range(depth):
        saved = client.post(
            "/api/v1/reforms", json=_document(f"R{n}", ids[-1] if ids else None, first=n)
        )
        assert saved.status_code == 201, saved.get_data(as_text=True)
        ids.append(saved.get_json()["id"])
    return ids


def _text(response: Any) -> str:
    page = re.sub(
        r"<(script|style)[^>]*>.*?</\1>", " ", response.get_data(as_text=True), flags=re.S
    )
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_a_reform_one_too_deep_is_refused_when_it_is_saved(
    client: FlaskClient, people: People, app: Flask
) -> None:
    login(client, people.clerk)
    ids = _stack(client, MAX_DEPTH)
    # The deepest reform the bound admits opens for anyone.
    assert app.test_client().get(f"/reforms/{ids[-1]}").status_code == 200
    # One more is refused at once, naming the base it would stand on (before: saved with
    # 201, then 404 at its own address).
    refused = client.post("/api/v1/reforms?lang=en", json=_document("One too many", ids[-1]))
    assert refused.status_code == 422
    assert refused.get_json()["field"] == "reform.base"
    assert f"At most {MAX_DEPTH} reforms may stand on one another" in refused.get_json()["error"]
    # The editor says so next to the field, in Spanish and in English.
    form = {
        "title": "Una de más",
        "base": ids[-1],
        "change-0-parameter": THRESHOLD,
        "change-0-from": "2024-07-01",
        "change-0-value": "0.45",
    }
    for lang, said in (
        ("es", f"A lo sumo {MAX_DEPTH} reformas pueden apoyarse unas en otras"),
        ("en", f"At most {MAX_DEPTH} reforms may stand on one another"),
    ):
        client.post(f"/lang/{lang}")
        page = client.post("/reforms/new", data=form)
        assert page.status_code == 422
        field_error = re.search(r'id="e-base">([^<]*)<', page.get_data(as_text=True))
        assert field_error and said in html.unescape(field_error.group(1))


def test_reforms_holding_too_many_changes_together_are_refused_when_saved(
    client: FlaskClient, people: People
) -> None:
    login(client, people.association)
    below = MAX_STACK_CHANGES // 4
    first = min(MAX_CHANGES, MAX_STACK_CHANGES - below)
    base = client.post("/api/v1/reforms", json=_document("Base", changes=first))
    assert base.status_code == 201
    middle = client.post(
        "/api/v1/reforms",
        json=_document("Middle", base.get_json()["id"], MAX_STACK_CHANGES - first, first),
    )
    assert middle.status_code == 201  # exactly the bound: saved
    top = client.post("/api/v1/reforms?lang=en", json=_document("Top", middle.get_json()["id"]))
    assert top.status_code == 422
    assert top.get_json()["field"] == "reform.changes"
    assert f"at most {MAX_STACK_CHANGES} changes" in top.get_json()["error"]
    assert f"would hold {MAX_STACK_CHANGES + 1}" in top.get_json()["error"]
    page = client.post(
        "/reforms/new?lang=es",
        data={
            "title": "Arriba",
            "base": middle.get_json()["id"],
            "change-0-parameter": THRESHOLD,
            "change-0-from": "2024-07-01",
            "change-0-value": "0.45",
        },
    )
    assert page.status_code == 422
    assert f"a lo sumo {MAX_STACK_CHANGES} cambios" in _text(page)


def test_a_saved_reforms_page_and_note_are_made_once_per_language(
    client: FlaskClient, people: People, app: Flask, monkeypatch: Any
) -> None:
    login(client, people.clerk)
    public_id = _stack(client, 2)[-1]
    made: list[str] = []
    page_context, note_pdf = reform_note.page_context, reform_note.reform_note_pdf

    def counted_page(reform: Any) -> Any:
        made.append("page")
        return page_context(reform)

    def counted_note(*args: Any, **kwargs: Any) -> Any:
        made.append("note")
        return note_pdf(*args, **kwargs)

    monkeypatch.setattr(reform_note, "page_context", counted_page)
    monkeypatch.setattr(reform_note, "reform_note_pdf", counted_note)
    anonymous = app.test_client()
    first = anonymous.get(f"/reforms/{public_id}?lang=es")
    again = anonymous.get(f"/reforms/{public_id}?lang=es")
    assert first.status_code == again.status_code == 200
    assert _text(first) == _text(again)
    assert made == ["page"]
    english = anonymous.get(f"/reforms/{public_id}?lang=en")
    assert "What it changes, from when" in _text(english)
    assert made == ["page", "page"]
    # What is the reader's own is written around the kept part: the signed-in see their link.
    assert "Escribir una reforma que parta de esta" in _text(client.get(f"/reforms/{public_id}"))
    assert "parta de esta" not in _text(anonymous.get(f"/reforms/{public_id}"))
    assert made == ["page", "page"]
    notes = [anonymous.get(f"/reforms/{public_id}/note.pdf?lang=es") for _ in range(2)]
    assert [n.status_code for n in notes] == [200, 200] and notes[0].data == notes[1].data
    assert made == ["page", "page", "note"]
    # An unknown reform is not kept, and still 404.
    assert anonymous.get("/reforms/nothinghere").status_code == 404
    assert anonymous.get("/reforms/nothinghere/note.pdf").status_code == 404


def test_a_reform_page_not_yet_made_runs_within_the_calculators_bounds(
    database_url: str, tmp_path: Path, people: People
) -> None:
    app = make_test_app(database_url, tmp_path / "one", CALC_CONCURRENCY=1)
    clerk = app.test_client()
    login(clerk, people.clerk)
    public_id = _stack(clerk, 3)[-1]
    reform_cache.forget_all()
    with app.app_context(), Session(engine()) as db:
        held = heavy_work.begin(
            session=db, client="198.51.100.7", most=1, hold=timedelta(seconds=60)
        )
    anonymous = app.test_client()
    anonymous.environ_base["REMOTE_ADDR"] = "203.0.113.9"
    try:
        for path in (
            f"/reforms/{public_id}",
            f"/reforms/{public_id}/note.pdf",
            f"/reforms/{public_id}/fund",
        ):
            busy = anonymous.get(path)
            assert busy.status_code == 503, path
            assert busy.headers["Retry-After"]
        assert reform_cache.found(("page", public_id, "es")) is None
    finally:
        with app.app_context(), Session(engine()) as db:
            heavy_work.end(session=db, place=held)
    assert anonymous.get(f"/reforms/{public_id}").status_code == 200
    # Made and kept, the page costs nothing more: it opens while every place is taken.
    with app.app_context(), Session(engine()) as db:
        held = heavy_work.begin(
            session=db, client="198.51.100.7", most=1, hold=timedelta(seconds=60)
        )
    try:
        assert anonymous.get(f"/reforms/{public_id}").status_code == 200
    finally:
        with app.app_context(), Session(engine()) as db:
            heavy_work.end(session=db, place=held)
    app.extensions["tid.engine"].dispose()


def test_the_kept_copies_are_bounded_in_bytes(monkeypatch: Any) -> None:
    reform_cache.forget_all()
    monkeypatch.setattr(reform_cache, "MOST_BYTES", 1000)
    for n in range(10):
        reform_cache.keep(("page", str(n), "es"), n, 200)
    count, held = reform_cache.held()
    assert held <= 1000 and count == 5
    assert reform_cache.found(("page", "0", "es")) is None  # the oldest dropped first
    assert reform_cache.found(("page", "9", "es")) == 9
    reform_cache.keep(("note", "big", "es"), "big", 251)  # over a quarter: not kept
    assert reform_cache.found(("note", "big", "es")) is None
    reform_cache.forget_all()


def test_the_fund_on_the_example_figures_is_computed_once_per_reform(
    client: FlaskClient, people: People, app: Flask, monkeypatch: Any
) -> None:
    login(client, people.clerk)
    public_id = _stack(client, 2)[-1]
    computed: list[bool] = []
    comparison = reform_note.fund_comparison

    def counted(*args: Any, **kwargs: Any) -> Any:
        computed.append(True)
        return comparison(*args, **kwargs)

    monkeypatch.setattr(reform_note, "fund_comparison", counted)
    anonymous = app.test_client()
    pages = [anonymous.get(f"/reforms/{public_id}/fund?by=name-asc") for _ in range(2)]
    assert [p.status_code for p in pages] == [200, 200] and _text(pages[0]) == _text(pages[1])
    assert len(computed) == 1
    english = anonymous.get(f"/reforms/{public_id}/fund?lang=en")
    assert english.status_code == 200 and "Equalization Fund" in _text(english)
    assert len(computed) == 1  # the comparison is the same in every language
    csvs = [anonymous.get(f"/reforms/{public_id}/fund?format=csv") for _ in range(2)]
    assert [c.status_code for c in csvs] == [200, 200] and csvs[0].data == csvs[1].data
    assert len(computed) == 2
    # Figures of the reader's own are computed for the reader, and kept for no one.
    figures = fund_example.document()
    mine = {**figures, "municipalities": figures["municipalities"][:-1]}
    posted = anonymous.post(
        f"/reforms/{public_id}/fund", data={"document": json.dumps(mine), "example": "1"}
    )
    assert posted.status_code == 200
    assert len(computed) == 3
    again = anonymous.get(f"/reforms/{public_id}/fund?by=name-asc")
    assert _text(again) == _text(pages[0]) and len(computed) == 3
