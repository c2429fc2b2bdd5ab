"""Geometry of the special account's two SVG charts (drawn by templates/account/_chart.html,
where every text is autoescaped): revenue, program and administrative spending by month, and
the running administrative ratio against the cap's line of 21 LPRA § 6653(6)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal

from tid.render import formats
from tid.render.charts import nice_step
from tid.rules import admin_cap
from tid.rules.account_months import Month
from tid.rules.messages import current_language

ONE = Decimal("0.1")
COLORS = {"revenue": "#0072B2", "program": "#009E73", "admin": "#E69F00", "cap": "#a4161a"}


def _n(value: Decimal) -> str:
    return f"{value.quantize(ONE):f}"


@dataclass(frozen=True)
class Shape:
    kind: str  # rect, line, text, polyline
    attrs: dict[str, str]
    text: str = ""


@dataclass(frozen=True)
class SvgChart:
    id: str
    title: str
    width: int
    height: int
    shapes: tuple[Shape, ...] = ()
    legend: tuple[tuple[str, str], ...] = field(default_factory=tuple)


def _grid(
    left: int,
    width: int,
    step: Decimal,
    scale_max: Decimal,
    y_of: Callable[[Decimal], Decimal],
    label: Callable[[Decimal], str],
) -> list[Shape]:
    """The scale's lines from zero up, a ``step`` apart, each labelled at the left."""
    shapes: list[Shape] = []
    tick = Decimal(0)
    while tick <= scale_max:
        y = y_of(tick)
        shapes.append(
            Shape(
                "line",
                {
                    "x1": str(left),
                    "x2": str(width - 10),
                    "y1": _n(y),
                    "y2": _n(y),
                    "stroke": "#d5dbe3",
                },
            )
        )
        shapes.append(
            Shape("text", {"x": str(left - 4), "y": _n(y + 4), "text-anchor": "end"}, label(tick))
        )
        tick += step
    return shapes


def _money(amount: Decimal) -> str:
    return formats.money(amount, current_language())


def money_bars(months: Sequence[Month], *, title: str) -> SvgChart:
    """Three bars per month: revenue collected, program and administrative spending."""
    left, top, bottom, width, height = 104, 10, 40, 660, 220
    plot_h = Decimal(height - top - bottom)
    largest = max([max(m.revenue, m.program, m.admin, Decimal(0)) for m in months] + [Decimal(0)])
    step = nice_step(largest)
    scale_max = max(step, (largest / step).to_integral_value(rounding=ROUND_CEILING) * step)
    slot = Decimal(width - left - 10) / max(len(months), 1)
    bar_w = slot / 4

    def y_of(value: Decimal) -> Decimal:
        return Decimal(top) + plot_h - plot_h * value / scale_max

    shapes = _grid(left, width, step, scale_max, y_of, _money)
    for i, m in enumerate(months):
        x0 = Decimal(left) + slot * i + bar_w / 2
        for j, (key, value) in enumerate(
            (("revenue", m.revenue), ("program", m.program), ("admin", m.admin))
        ):
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
                        "fill": COLORS[key],
                    },
                    f"{m.label}: {_money(value)}",
                )
            )
        shapes.append(
            Shape(
                "text",
                {
                    "x": _n(x0 + bar_w * Decimal("1.5")),
                    "y": str(height - bottom + 14),
                    "text-anchor": "middle",
                },
                f"{m.month:02d}",
            )
        )
    return SvgChart("account-bars", title, width, height, tuple(shapes))


def ratio_chart(months: Sequence[Month], rate: Decimal, *, title: str) -> SvgChart:
    """The running ratio of administrative spending to revenue collected in the FY, month by
    month, against the cap rate (a horizontal line)."""
    left, top, bottom, width, height = 50, 10, 30, 640, 180
    plot_h = Decimal(height - top - bottom)
    ratios = [
        admin_cap.measure(rate=rate, revenue=m.revenue_to_date, admin=m.admin_to_date).ratio
        for m in months
    ]
    largest = max([r for r in ratios if r is not None] + [rate * 2])
    step = nice_step(largest)
    scale_max = max(step, (largest / step).to_integral_value(rounding=ROUND_CEILING) * step)
    slot = Decimal(width - left - 10) / max(len(months), 1)

    def y_of(value: Decimal) -> Decimal:
        return Decimal(top) + plot_h - plot_h * value / scale_max

    shapes = _grid(left, width, step, scale_max, y_of, admin_cap.rate_text)
    cap_y = _n(y_of(rate))
    shapes.append(
        Shape(
            "line",
            {
                "x1": str(left),
                "x2": str(width - 10),
                "y1": cap_y,
                "y2": cap_y,
                "stroke": COLORS["cap"],
                "stroke-dasharray": "6 3",
            },
        )
    )
    shapes.append(
        Shape(
            "text",
            {
                "x": str(width - 12),
                "y": _n(y_of(rate) - 4),
                "text-anchor": "end",
                "fill": COLORS["cap"],
            },
            admin_cap.rate_text(rate),
        )
    )
    points = []
    for i, (m, r) in enumerate(zip(months, ratios, strict=True)):
        x = Decimal(left) + slot * i + slot / 2
        shapes.append(
            Shape(
                "text",
                {"x": _n(x), "y": str(height - bottom + 14), "text-anchor": "middle"},
                f"{m.month:02d}",
            )
        )
        if r is None:
            continue
        points.append(f"{_n(x)},{_n(y_of(r))}")
        shapes.append(
            Shape(
                "circle",
                {"cx": _n(x), "cy": _n(y_of(r)), "r": "3", "fill": COLORS["admin"]},
                f"{m.label}: {admin_cap.ratio_percent(r)}%",
            )
        )
    if len(points) > 1:
        shapes.insert(
            0,
            Shape(
                "polyline",
                {
                    "points": " ".join(points),
                    "fill": "none",
                    "stroke": COLORS["admin"],
                    "stroke-width": "2",
                },
            ),
        )
    return SvgChart("account-ratio", title, width, height, tuple(shapes))
