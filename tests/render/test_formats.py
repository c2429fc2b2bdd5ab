"""The formats written directly for speed say exactly what Babel says; each language writes
its own dates and the same dollars."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from babel.dates import format_date
from babel.numbers import format_currency, format_decimal
from hypothesis import given
from hypothesis import strategies as st

from tid.render.formats import (
    FORMAT_LOCALE,
    date_text,
    day,
    grouped,
    money,
    number,
    percent,
    usd,
)


@given(
    st.decimals(min_value=Decimal("-1e12"), max_value=Decimal("1e12"), allow_nan=False, places=4)
)
def test_dollars_are_written_as_babel_writes_them_in_every_language(amount: Decimal) -> None:
    for locale in set(FORMAT_LOCALE.values()):
        assert usd(amount) == format_currency(amount, "USD", locale=locale)


@given(
    st.one_of(
        st.integers(min_value=-(10**18), max_value=10**18),
        # Babel itself cannot round a decimal of more than 28 digits: none is a page's.
        st.decimals(min_value=Decimal("-1e18"), max_value=Decimal("1e18"), places=6),
        st.decimals(min_value=Decimal("-1e16"), max_value=Decimal("1e16"), allow_nan=False),
        st.decimals(min_value=Decimal("-1e-3"), max_value=Decimal("1e-3"), allow_nan=False),
    )
)
def test_numbers_are_written_as_babel_writes_them_in_every_language(
    value: Decimal | int,
) -> None:
    for lang, locale in FORMAT_LOCALE.items():
        babel = format_decimal(value, locale=locale)
        assert grouped(value) == babel
        assert number(value, lang) == babel


def test_numbers_at_the_edges_of_the_direct_writing_are_babels() -> None:
    edges: list[Decimal | int] = [0, -1, Decimal("-0"), Decimal("-0.0001"), Decimal("0.0005")]
    edges += [Decimal("0.0015"), Decimal("1E+3"), Decimal("999999999999999.9999")]
    edges += [Decimal("1E+15"), Decimal("-1E+15"), Decimal("1.23E-7"), 10**20]
    for value in edges:
        assert grouped(value) == format_decimal(value, locale="es_PR"), value


@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31)))
def test_a_remembered_date_is_babels_date(value: date) -> None:
    for locale in ("es_PR", "en_US"):
        for pattern in ("d MMM y", "MMM d, y", "long"):
            assert date_text(value, pattern, locale) == format_date(value, pattern, locale=locale)


def test_each_language_writes_its_dates_and_the_same_dollars() -> None:
    assert day(date(2026, 3, 2), "es") == "2 mar 2026"
    assert day(date(2026, 3, 2), "en") == "Mar 2, 2026"
    assert day(None, "es") == "—"
    assert money(Decimal("1234.5"), "es") == money(Decimal("1234.5"), "en") == "$1,234.50"
    assert number(Decimal("1234.5"), "en") == "1,234.5"
    # Puerto Rico's Spanish writes numbers as its English does.
    assert number(Decimal("1234.5"), "es") == "1,234.5"
    assert percent(Decimal("0.065"), "es") == percent(Decimal("0.065"), "en") == "6.5%"
