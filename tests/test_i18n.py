"""The page formats written directly for speed say exactly what Babel says."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from babel.dates import format_date
from babel.numbers import format_currency
from flask import Flask
from flask_babel import force_locale, gettext
from hypothesis import given
from hypothesis import strategies as st

from tid.i18n import _FORMAT_LOCALE, _date_text, money, usd


@given(
    st.decimals(min_value=Decimal("-1e12"), max_value=Decimal("1e12"), allow_nan=False, places=4)
)
def test_dollars_are_written_as_babel_writes_them_in_every_language(amount: Decimal) -> None:
    for locale in set(_FORMAT_LOCALE.values()):
        assert usd(amount) == format_currency(amount, "USD", locale=locale)


@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31)))
def test_a_remembered_date_is_babels_date(value: date) -> None:
    for locale in ("es_PR", "en_US"):
        for pattern in ("d MMM y", "MMM d, y", "long"):
            assert _date_text(value, pattern, locale) == format_date(value, pattern, locale=locale)


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
