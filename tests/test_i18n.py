"""The pages' words and formats follow the request's language, and ``force_locale`` inside it."""

from __future__ import annotations

from decimal import Decimal

from flask import Flask
from flask_babel import force_locale, gettext

from tid.i18n import money


def test_pages_follow_force_locale_inside_one_request(app: Flask) -> None:
    """The catalogs kept per locale: a request that switches language (an email in the
    recipient's language, a notice's second page) gets each language's words."""
    with app.test_request_context("/?lang=es"):
        template = app.jinja_env.from_string("{{ _('Date') }}|{{ 1234.5|money }}")
        spanish = template.render()
        with force_locale("en"):
            english = template.render()
            assert english.split("|")[0] == gettext("Date")
        assert template.render() == spanish
    assert spanish.split("|")[0] != english.split("|")[0]
    assert spanish.endswith("$1,234.50") and english.endswith("$1,234.50")
    assert money(Decimal("-0.005")) == "-$0.00"
