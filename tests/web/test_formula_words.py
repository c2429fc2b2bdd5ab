"""The forms' example formulas name the roll's columns as a formula in the reader's language
names them: ``valor_tasado`` on a Spanish page, ``assessed_value`` on an English one, whichever
language the template was first drawn in."""

from __future__ import annotations

from flask import Flask
from flask_babel import force_locale

EXAMPLE = "{{ 'max(250.00, 0.0035 * assessed_value) + budget'|formula_words }}"


def test_the_example_follows_the_page_language(app: Flask) -> None:
    with app.test_request_context("/"):
        template = app.jinja_env.from_string(EXAMPLE)  # drawn once, as a page's template is
        said: dict[str, set[str]] = {}
        for language in ("es", "en", "es"):
            with force_locale(language):
                said.setdefault(language, set()).add(template.render())
    assert said["es"] == {"max(250.00, 0.0035 * valor_tasado) + presupuesto"}
    assert said["en"] == {"max(250.00, 0.0035 * assessed_value) + budget"}
