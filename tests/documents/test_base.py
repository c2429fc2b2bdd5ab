"""The reader a document is written for, without the app: its language, today and a template
renderer passed in."""

from __future__ import annotations

from datetime import date
from typing import Any

from tid.documents.base import NO_DISTRICT, Reader


def _reader(locale: str, rendered: list[tuple[str, dict[str, Any]]]) -> Reader:
    def render(template_name: str, /, **context: Any) -> str:
        rendered.append((template_name, context))
        return f'<html lang="{locale}"><title>t</title><p>{context["text"]}</p></html>'

    return Reader(locale=locale, today=date(2026, 3, 2), render=render)


def test_a_reader_says_a_msgid_in_its_language() -> None:
    assert _reader("es", []).say(NO_DISTRICT) == "No existe ese distrito."
    assert _reader("en", []).say(NO_DISTRICT) == "There is no such district."


def test_a_reader_makes_a_pdf_with_its_own_renderer() -> None:
    rendered: list[tuple[str, dict[str, Any]]] = []
    data = _reader("es", rendered).pdf("pdf/any.html", text="Hola")
    assert data.startswith(b"%PDF")
    assert rendered == [("pdf/any.html", {"text": "Hola"})]
