"""Server-side SVG charts (no JavaScript): the geometry here, the markup in a template.

Two charts serve the calculators: months stacked by recipient (the room-tax waterfall of Act
272-2003 § 31 and the excise allocations of 13 LPRA § 31751) and signed bars by
municipality (the Municipal Equalization Fund's hold-harmless adjustments).

This module only computes positions (with ``Decimal``: amounts never pass through floats)
and keeps every text as plain data; ``templates/calc/_chart.svg`` writes the SVG with Jinja's
autoescaping on, so a municipality called ``<script>`` is shown, never run.
:func:`render_svg` renders that same template outside a request (tests, other callers).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal

import jinja2

from tid.config import PROJECT_ROOT

ZERO = Decimal(0)
ONE_DECIMAL = Decimal("0.1")
# Colour-blind-safe palette (Okabe–Ito), one per recipient in the statute's order.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
)
POSITIVE = "#1e6b35"
NEGATIVE = "#a4161a"
TEMPLATE = "calc/_chart.svg"
TEMPLATES_DIR = PROJECT_ROOT / "templates"

Formatter = Callable[[Decimal], str]


def _plain(amount: Decimal) -> str:
    return f"{amount:,.2f}"


def _n(value: Decimal) -> str:
    """A coordinate for SVG: one decimal, no exponent."""
    return f"{value.quantize(ONE_DECIMAL):f}"


@dataclass(frozen=True)
class Bar:
    x: str
    y: str
    width: str
    height: str
    fill: str
    label: str  # shown as the bar's tooltip (<title>)


@dataclass(frozen=True)
class Text:
    x: str
    y: str
    text: str
    anchor: str = "start"
    css: str = ""


@dataclass(frozen=True)
class Line:
    x1: str
    y1: str
    x2: str
    y2: str
    css: str = "grid"


@dataclass(frozen=True)
class Swatch:
    x: str
    y: str
    fill: str
    text: str
    text_x: str
    text_y: str
    more: tuple[Text, ...] = ()  # the name's further lines, drawn right after its first


@dataclass(frozen=True)
class Chart:
    """Everything the template draws, plus the same figures as a table (the fallback)."""

    id: str
    title: str
    description: str
    width: int
    height: int
    bars: tuple[Bar, ...] = ()
    texts: tuple[Text, ...] = ()
    lines: tuple[Line, ...] = ()
    legend: tuple[Swatch, ...] = ()
    table_header: tuple[str, ...] = ()
    table_rows: tuple[tuple[str, ...], ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    font_size: int = 11


def nice_step(largest: Decimal, ticks: int = 5) -> Decimal:
    """A round step (1, 2 or 5 × a power of ten) so that ``ticks`` steps cover ``largest``."""
    if largest <= 0:
        return Decimal(1)
    raw = largest / ticks
    exponent = raw.adjusted()
    power = Decimal(10) ** exponent
    for multiple in (1, 2, 5, 10):
        step = power * multiple
        if step >= raw:
            return step
    return power * 10  # pragma: no cover - the loop always returns


def _ceil_to(value: Decimal, step: Decimal) -> Decimal:
    return (value / step).to_integral_value(rounding=ROUND_CEILING) * step


# Long: one drawing, top to bottom: scale, stacked bars, labels, legend and the table that reads it
# out.
# The bar charts' drawing: as wide as a phone shows it at its own size (a 390-pixel screen
# leaves about 350 for the page's column), so that no text is drawn smaller than
# SIGNED_FONT_SIZE pixels; each item's name is written whole above its bar, wrapped.
SIGNED_WIDTH = 340
SIGNED_FONT_SIZE = 12
# Characters of a name on one line: DejaVu Sans averages under 0.62 em a character.
SIGNED_LINE_CHARS = int((SIGNED_WIDTH - 8) / (SIGNED_FONT_SIZE * Decimal("0.62")))


def _ticks(
    scale: tuple[Decimal, Decimal, Decimal],
    zero_x: Decimal,
    unit: Decimal,
    rows: tuple[Decimal, Decimal],
    fmt: Formatter,
    texts: list[Text],
) -> list[Line]:
    """The vertical grid lines of a scale ``(low, high, step)`` over the rows' height, each
    with its figure below (added to ``texts``)."""
    low, high, step = scale
    top, bottom = rows
    lines: list[Line] = []
    tick = low
    while tick <= high:
        x = zero_x + tick * unit
        lines.append(Line(_n(x), _n(top), _n(x), _n(bottom)))
        texts.append(Text(_n(x), _n(bottom + 16), fmt(tick), "middle", "tick"))
        tick += step
    return lines


def _legend(labels: Sequence[str], y: Decimal) -> tuple[list[Swatch], Decimal]:
    """A swatch per series from ``y`` down, each name whole (wrapped, its further lines kept
    with its swatch, so the name reads as one); the swatches and the height reached."""
    margin, line_height = 4, 15
    legend: list[Swatch] = []
    for j, label in enumerate(labels):
        wrapped = textwrap.wrap(label, SIGNED_LINE_CHARS - 3) or [""]
        text_x = _n(Decimal(margin + 18))
        fill = PALETTE[j % len(PALETTE)]
        more = tuple(
            Text(text_x, _n(y + 10 + line_height * extra), line, "start")
            for extra, line in enumerate(wrapped[1:], 1)
        )
        legend.append(
            Swatch(_n(Decimal(margin)), _n(y), fill, wrapped[0], text_x, _n(y + 10), more)
        )
        y += line_height * (len(wrapped) - 1) + 20
    return legend, y


# Long: the rows, their bars, the scale and the legend share one running height, laid out
# together so that each name is whole and nothing overlaps.
def stacked_bars(
    *,
    id: str,
    title: str,
    description: str,
    categories: Sequence[str],
    series: Sequence[tuple[str, str]],
    values: Mapping[str, Mapping[str, Decimal]],
    fmt: Formatter = _plain,
    tick_fmt: Formatter | None = None,
    total_label: str = "Total",
) -> Chart:
    """One horizontal bar per category (a month), stacked by series (a recipient) in order
    from the left; the category's name above its bar, the series' names below, each whole
    (wrapped), on a drawing a phone shows at its own size (:data:`SIGNED_WIDTH`).

    ``series`` is ``[(key, label)]``; ``values[category][key]`` the amount (absent: zero;
    negative amounts are drawn as zero and still listed in the table).
    """
    margin, top, line_height, bar_height = 4, 8, 15, 14
    width = SIGNED_WIDTH
    plot_left, plot_right = Decimal(margin + 30), Decimal(width - margin - 54)
    totals = [
        sum((max(values.get(c, {}).get(k, ZERO), ZERO) for k, _ in series), ZERO)
        for c in categories
    ]
    largest = max(totals, default=ZERO)
    step = nice_step(largest if largest > 0 else Decimal(1), 2)
    scale_top = max(_ceil_to(largest, step), step)
    unit = (plot_right - plot_left) / scale_top

    texts: list[Text] = []
    bars: list[Bar] = []
    y = Decimal(top)
    for category in categories:
        y += line_height
        texts.append(Text(_n(Decimal(margin)), _n(y - 3), category, "start", "category"))
        x = plot_left
        for j, (key, label) in enumerate(series):
            amount = values.get(category, {}).get(key, ZERO)
            w = max(amount, ZERO) * unit
            if w > 0:
                bars.append(
                    Bar(
                        _n(x),
                        _n(y + 1),
                        _n(w),
                        _n(Decimal(bar_height - 2)),
                        PALETTE[j % len(PALETTE)],
                        f"{category} · {label}: {fmt(amount)}",
                    )
                )
                x += w
        y += bar_height + 6
    plot_bottom = y
    lines = _ticks(
        (ZERO, scale_top, step),
        plot_left,
        unit,
        (Decimal(top), plot_bottom),
        tick_fmt or fmt,
        texts,
    )
    lines.append(Line(_n(plot_left), _n(Decimal(top)), _n(plot_left), _n(plot_bottom), "axis"))

    legend, y = _legend([label for _k, label in series], plot_bottom + 30)
    header = ("", *(label for _k, label in series), total_label)
    rows = tuple(
        (
            c,
            *(fmt(values.get(c, {}).get(k, ZERO)) for k, _l in series),
            fmt(t),
        )
        for c, t in zip(categories, totals, strict=True)
    )
    return Chart(
        id=id,
        title=title,
        description=description,
        width=width,
        height=int(y) + 4,
        bars=tuple(bars),
        texts=tuple(texts),
        lines=tuple(lines),
        legend=tuple(legend),
        table_header=header,
        table_rows=rows,
        font_size=SIGNED_FONT_SIZE,
    )


def signed_bars(
    *,
    id: str,
    title: str,
    description: str,
    items: Sequence[tuple[str, Decimal]],
    fmt: Formatter = _plain,
    tick_fmt: Formatter | None = None,
    value_label: str = "",
) -> Chart:
    """One horizontal bar per item (a municipality), right of zero when positive, left when
    negative: the hold-harmless top-ups and what they were taken from. Each item's name is
    written whole above its bar (wrapped), so that a long name is never cut."""
    margin, top, bottom, line_height, bar_height = 4, 8, 28, 15, 14
    width = SIGNED_WIDTH
    # Room at both ends for the outer ticks' labels, centred on the plot's edges.
    plot_left, plot_right = Decimal(margin + 58), Decimal(width - margin - 58)
    plot_width = plot_right - plot_left
    largest_up = max((a for _n_, a in items if a > 0), default=ZERO)
    largest_down = max((-a for _n_, a in items if a < 0), default=ZERO)
    span = largest_up + largest_down
    step = nice_step(span if span > 0 else Decimal(1), 2)
    up = _ceil_to(largest_up, step) if largest_up > 0 else ZERO
    down = _ceil_to(largest_down, step) if largest_down > 0 else ZERO
    if up + down == 0:
        up = step
    unit = plot_width / (up + down)
    zero_x = plot_left + down * unit

    texts: list[Text] = []
    bars: list[Bar] = []
    y = Decimal(top)
    for name, amount in items:
        for line in textwrap.wrap(name, SIGNED_LINE_CHARS) or [""]:
            y += line_height
            texts.append(Text(_n(Decimal(margin)), _n(y - 3), line, "start", "category"))
        w = abs(amount) * unit
        if w > 0:
            x = zero_x if amount > 0 else zero_x - w
            bars.append(
                Bar(
                    _n(x),
                    _n(y + 1),
                    _n(w),
                    _n(Decimal(bar_height - 2)),
                    POSITIVE if amount > 0 else NEGATIVE,
                    f"{name}: {fmt(amount)}",
                )
            )
        y += bar_height + 6
    plot_bottom = y
    lines: list[Line] = []
    tick = -down
    while tick <= up:
        x = zero_x + tick * unit
        lines.append(Line(_n(x), _n(Decimal(top)), _n(x), _n(plot_bottom)))
        texts.append(Text(_n(x), _n(plot_bottom + 16), (tick_fmt or fmt)(tick), "middle", "tick"))
        tick += step
    lines.append(Line(_n(zero_x), _n(Decimal(top)), _n(zero_x), _n(plot_bottom), "axis"))
    return Chart(
        id=id,
        title=title,
        description=description,
        width=width,
        height=int(plot_bottom) + bottom,
        bars=tuple(bars),
        texts=tuple(texts),
        lines=tuple(lines),
        table_header=("", value_label),
        table_rows=tuple((name, fmt(amount)) for name, amount in items),
        font_size=SIGNED_FONT_SIZE,
    )


_environment: jinja2.Environment | None = None


def render_svg(chart: Chart) -> str:
    """The chart as a standalone SVG document (the template the pages include)."""
    global _environment
    if _environment is None:
        _environment = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
    return _environment.get_template(TEMPLATE).render(chart=chart, standalone=True)
