"""Geometry of the public pages' SVG charts (drawn by templates/account/_chart.html, every
text autoescaped, readable without script, each with a table of the same figures beside it):
bars grouped by period — a district's years (billed and collected), a year's months
(collected, spent on the authorized purposes, administrative). Takes plain values and the
reader's money format."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import ROUND_CEILING, Decimal

from tid.render.account_charts import COLORS, Shape, SvgChart
from tid.render.charts import SIGNED_WIDTH, nice_step

ONE = Decimal("0.1")
# The series' colours (Okabe–Ito): what was billed, and the account's own.
SERIES_COLORS = {"billed": "#56B4E9", **COLORS}


def _n(value: Decimal) -> str:
    return f"{value.quantize(ONE):f}"


def grouped_bars(
    groups: Sequence[tuple[str, Sequence[tuple[str, Decimal]]]],
    *,
    chart_id: str,
    title: str,
    series_titles: dict[str, str],
    money: Callable[[Decimal], str],
) -> SvgChart:
    """A bar per series in each group (``(group label, [(series key, amount)])``), on one
    money scale from zero; each bar's tooltip says its series, group and amount, written by
    ``money`` (the reader's format: the caller's)."""
    # One row per group: its name above, a bar per series beneath it, from zero on the left;
    # as wide as a phone shows it at its own size, so that no text is under 12 pixels.
    margin, top, line_height, bar_height = 4, 6, 15, 9
    width = SIGNED_WIDTH
    left, right = Decimal(margin + 30), Decimal(width - margin - 54)
    largest = max([value for _label, series in groups for _key, value in series] + [Decimal(0)])
    step = nice_step(largest, 2) if largest > 0 else Decimal(1)
    scale_max = max(step, (largest / step).to_integral_value(rounding=ROUND_CEILING) * step)
    unit = (right - left) / scale_max
    shapes: list[Shape] = []
    y = Decimal(top)
    for label, series in groups:
        y += line_height
        shapes.append(Shape("text", {"x": str(margin), "y": _n(y - 3)}, label))
        for key, value in series:
            if value > 0:
                shapes.append(
                    Shape(
                        "rect",
                        {
                            "x": _n(left),
                            "y": _n(y),
                            "width": _n(value * unit),
                            "height": str(bar_height - 1),
                            "fill": SERIES_COLORS.get(key, "#000000"),
                        },
                        f"{series_titles.get(key, key)}, {label}: {money(value)}",
                    )
                )
            y += bar_height
        y += 6
    tick = Decimal(0)
    while tick <= scale_max:
        x = _n(left + tick * unit)
        shapes.insert(
            0, Shape("line", {"x1": x, "x2": x, "y1": str(top), "y2": _n(y), "stroke": "#d5dbe3"})
        )
        shapes.append(
            Shape("text", {"x": x, "y": _n(y + 16), "text-anchor": "middle"}, money(tick))
        )
        tick += step
    height = int(y) + 24
    legend = tuple((SERIES_COLORS.get(k, "#000000"), t) for k, t in series_titles.items())
    return SvgChart(chart_id, title, width, height, tuple(shapes), legend)
