"""Geometry of the public pages' SVG charts (drawn by templates/account/_chart.html, every
text autoescaped, readable without script, each with a table of the same figures beside it):
bars grouped by period — a district's years (billed and collected), a year's months
(collected, spent on the authorized purposes, administrative). Takes plain values and the
reader's money format."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import ROUND_CEILING, Decimal

from tid.render.account_charts import COLORS, Shape, SvgChart
from tid.render.charts import nice_step

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
    left, top, bottom, width, height = 104, 10, 34, 660, 220
    plot_h = Decimal(height - top - bottom)
    largest = max([value for _label, series in groups for _key, value in series] + [Decimal(0)])
    step = nice_step(largest) if largest > 0 else Decimal(1)
    scale_max = max(step, (largest / step).to_integral_value(rounding=ROUND_CEILING) * step)

    def y_of(value: Decimal) -> Decimal:
        return Decimal(top) + plot_h - plot_h * value / scale_max

    shapes: list[Shape] = []
    tick = Decimal(0)
    while tick <= scale_max:
        y = _n(y_of(tick))
        shapes.append(
            Shape(
                "line",
                {"x1": str(left), "x2": str(width - 10), "y1": y, "y2": y, "stroke": "#d5dbe3"},
            )
        )
        shapes.append(
            Shape(
                "text",
                {"x": str(left - 4), "y": _n(y_of(tick) + 4), "text-anchor": "end"},
                money(tick),
            )
        )
        tick += step
    slot = Decimal(width - left - 10) / max(len(groups), 1)
    for i, (label, series) in enumerate(groups):
        bar_w = min(slot / (len(series) + 1), Decimal(40))
        x0 = Decimal(left) + slot * i + (slot - bar_w * len(series)) / 2
        for j, (key, value) in enumerate(series):
            if value <= 0:
                continue
            h = plot_h * value / scale_max
            shapes.append(
                Shape(
                    "rect",
                    {
                        "x": _n(x0 + bar_w * j),
                        "y": _n(Decimal(top) + plot_h - h),
                        "width": _n(bar_w),
                        "height": _n(h),
                        "fill": SERIES_COLORS.get(key, "#000000"),
                    },
                    f"{series_titles.get(key, key)}, {label}: {money(value)}",
                )
            )
        shapes.append(
            Shape(
                "text",
                {
                    "x": _n(Decimal(left) + slot * i + slot / 2),
                    "y": str(height - bottom + 14),
                    "text-anchor": "middle",
                },
                label,
            )
        )
    legend = tuple((SERIES_COLORS.get(k, "#000000"), t) for k, t in series_titles.items())
    return SvgChart(chart_id, title, width, height, tuple(shapes), legend)
