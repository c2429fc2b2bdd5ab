"""Exact shares in cents and rates (``Fraction``), and how a distribution's trace shows
them: dollars to 4 decimals, percentage points, percentages."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from tid.rules.params import ParamValue
from tid.rules.trace import TraceStep


def _frac(pv: ParamValue) -> Fraction:
    n, d = pv.ratio
    return Fraction(n, d)


def _dollars(cents: Fraction) -> str:
    """An exact amount of cents shown in dollars to 4 decimals (before rounding to cents)."""
    return f"{Decimal(cents.numerator) / Decimal(cents.denominator) / 100:.4f}"


def _points(rate: Fraction) -> str:
    """A rate shown in percentage points: 17/200 -> "8.5"."""
    return f"{(Decimal(rate.numerator) * 100 / Decimal(rate.denominator)).normalize():f}"


def _pct(pv: ParamValue) -> str:
    """A rate parameter shown as a percentage: 0.02 -> "2%"."""
    return f"{(pv.decimal * 100).normalize():f}%"


def _step(text: str, cents: Fraction, pv: ParamValue) -> TraceStep:
    return TraceStep(text, _dollars(cents), pv.citation, pv.name)
