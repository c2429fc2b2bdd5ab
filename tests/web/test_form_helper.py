"""The one submit helper of the pages' forms (tid/web/forms.py): every field's error kept
beside it, a refused write rolled back, a form without an error committed, said and left."""

from __future__ import annotations

from flask import Flask, get_flashed_messages
from sqlmodel import select

from tid.db import get_session
from tid.models import Municipality
from tid.rules.errors import Finding, FindingsError, InputError
from tid.web.forms import Form


def _refuse(exc: InputError) -> None:
    raise exc


def _count() -> int:
    return len(list(get_session().exec(select(Municipality))))


def test_every_field_keeps_its_first_error(app: Flask) -> None:
    with app.test_request_context("/"):
        form = Form(rename={"amount_due": "amount"})
        assert form.read(lambda: 7) == 7
        form.read(lambda: _refuse(InputError("date", "Write the date like 2026-03-10.")))
        form.read(lambda: _refuse(InputError("date", "second")))
        form.write(
            lambda: _refuse(FindingsError([Finding("amount_due", "Too much."), Finding("x", "y")]))
        )
        assert form.errors == {
            "date": "Write the date like 2026-03-10.",
            "amount": "Too much.",
            "x": "y",
        }
        assert form.refused is not None and form.refused.field == "date"


def test_a_refused_write_is_rolled_back_and_a_good_one_committed(app: Flask) -> None:
    with app.test_request_context("/"):
        before = _count()

        def write(name: str) -> Municipality:
            row = Municipality(name=name)
            get_session().add(row)
            get_session().flush()
            raise InputError("name", "No.")

        refused = Form()
        assert refused.write(lambda: write("Refused")) is None
        assert refused.saved("Saved.", "/next") is None and _count() == before

        done = Form()
        row = done.write(lambda: Municipality(name="Kept"))
        assert row is not None
        get_session().add(row)
        response = done.saved("Saved.", lambda: f"/municipality/{row.id}")
        assert response is not None and response.location == f"/municipality/{row.id}"
        assert get_flashed_messages() == ["Saved."] and _count() == before + 1


def test_a_buttons_refusal_is_said_in_a_flash(app: Flask) -> None:
    with app.test_request_context("/"):
        form = Form()
        form.write(lambda: _refuse(InputError("file", "Choose a CSV file.")))
        response = form.flashed("Done.", "/back", explain=lambda exc: f"Not saved: {exc.message}")
        assert response.location == "/back"
        assert get_flashed_messages(with_categories=True) == [
            ("error", "Not saved: Choose a CSV file.")
        ]

    with app.test_request_context("/"):
        form = Form(words=lambda exc: {"form": exc.message.upper()})
        form.write(lambda: _refuse(InputError("nowhere", "odd")))
        assert form.errors == {"form": "ODD"}
        assert form.refusal("/back").location == "/back"
        assert get_flashed_messages(with_categories=True) == [("error", "odd")]
