"""Numbers, amounts, rates and dates written in a reader's language (``es`` or ``en``), with
Puerto Rico's formats: ``$1,234.50``, ``2 mar 2026`` / ``Mar 2, 2026``. Plain functions of a
value and a language; the pages' filters (tid/i18n.py) call them with the request's language,
a document with its reader's."""

from __future__ import annotations

import functools
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal

from babel.dates import format_date
from babel.numbers import format_currency, format_decimal, format_percent

from tid.rules.messages import DAY_PATTERNS

# The territory whose formats we use for each language: Puerto Rico writes $1,234.50.
FORMAT_LOCALE = {"es": "es_PR", "en": "en_US"}

# The locales that write dollars as ``-$1,234.50``: Babel's currency format for them, written
# directly (a long page prints hundreds of amounts; tests/test_i18n.py checks that both give
# the same text for any amount).
_DOLLAR_LOCALES = frozenset({"es_PR", "en_US"})
_ONLY_DOLLAR_LOCALES = set(FORMAT_LOCALE.values()) <= _DOLLAR_LOCALES
# Whether every language writes amounts and numbers alike (the pages' filters then need not
# ask for the reader's language).
SAME_IN_EVERY_LANGUAGE = _ONLY_DOLLAR_LOCALES


def format_locale(lang: str) -> str:
    return FORMAT_LOCALE.get(lang, "es_PR")


def usd(amount: Decimal) -> str:
    """``amount`` in dollars and cents, rounded half to even as Babel does: ``-$1,234.50``."""
    text = f"{amount:,.2f}"
    return f"-${text[1:]}" if text.startswith("-") else f"${text}"


def money(amount: Decimal | int | None, lang: str) -> str:
    """``$1,234.50`` (negative amounts with a minus sign)."""
    if amount is None:
        return "—"
    if _ONLY_DOLLAR_LOCALES:
        return usd(Decimal(amount))
    return str(format_currency(Decimal(amount), "USD", locale=format_locale(lang)))


def whole_dollars(amount: Decimal, lang: str) -> str:
    """``$1,235``: an axis's or a chart's round amount."""
    return str(
        format_currency(amount, "USD", "¤#,##0", currency_digits=False, locale=format_locale(lang))
    )


# Babel's decimal format for both languages' locales is ``#,##0.###`` with ``,`` grouping and
# ``.`` for the fraction: written directly for whole numbers and ordinary decimals (a journal
# page numbers each of its entries; tests/render/test_formats.py checks that both give the same
# text). Anything else (a float, a decimal past a trillion) is Babel's to write.
_THOUSANDTH = Decimal("0.001")
_DIRECT_LIMIT = Decimal(10) ** 15


def grouped(value: Decimal | int) -> str:
    """``value`` as Babel's ``#,##0.###`` writes it in ``es_PR`` and ``en_US``: grouped by
    thousands, at most three decimals rounded half to even, no trailing zeros."""
    if type(value) is int:
        return f"{value:,}"
    if type(value) is Decimal and value.is_finite() and abs(value) < _DIRECT_LIMIT:
        text = f"{value.quantize(_THOUSANDTH, ROUND_HALF_EVEN):,f}"
        return text.rstrip("0").rstrip(".")
    return str(format_decimal(value, locale="en_US"))


def number(value: Decimal | int | None, lang: str) -> str:
    if value is None:
        return "—"
    if _ONLY_DOLLAR_LOCALES:
        return grouped(value)
    return str(format_decimal(value, locale=format_locale(lang)))


def percent(value: Decimal | None, lang: str, pattern: str = "#,##0.###%") -> str:
    """A fraction (``0.065``) as a percentage: ``6.5%``."""
    if value is None:
        return "—"
    return str(format_percent(value, pattern, locale=format_locale(lang)))


def day(value: date | None, lang: str, style: str = "medium") -> str:
    """A date: ``2 mar 2026`` / ``Mar 2, 2026`` (``medium``), or a Babel pattern."""
    if value is None:
        return "—"
    if style == "medium":
        style = DAY_PATTERNS["es" if lang == "es" else "en"]  # as a message writes a day
    return date_text(value, style, format_locale(lang))


@functools.lru_cache(maxsize=4096)
def date_text(value: date, pattern: str, locale: str) -> str:
    """A date formatted by Babel, remembered: a journal page shows the same few days often."""
    return str(format_date(value, pattern, locale=locale))
