"""The charts' text is whole and readable: no name cut at the drawing's edge, none drawn
under 11 pixels on a 390-pixel phone or a 1280-pixel screen, and no empty frame for
differences that are all zero."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from tid.documents import reform_note
from tid.render import charts, public_charts
from tid.rules import fund_compare

ROOT = Path(__file__).resolve().parents[2]
LONG = "Autoridad del Distrito del Centro de Convenciones (servicio de la deuda)"
# A DejaVu Sans character is at most this wide on average, in ems (digits and capitals
# included); what a text of n characters needs at a size of s pixels is n × s × EM.
EM = Decimal("0.62")
# The column a 390-pixel phone leaves a chart (the page's padding on both sides).
PHONE_COLUMN = 350


def _usd(amount: Decimal) -> str:
    text = f"{amount:,.2f}"
    return f"-${text[1:]}" if text.startswith("-") else f"${text}"


def _extent(text: charts.Text, size: int) -> tuple[Decimal, Decimal]:
    width = len(text.text) * size * EM
    x = Decimal(text.x)
    if text.anchor == "end":
        return x - width, x
    if text.anchor == "middle":
        return x - width / 2, x + width / 2
    return x, x + width


def test_a_long_name_is_written_whole_inside_the_drawing() -> None:
    chart = charts.signed_bars(
        id="c",
        title="t",
        description="d",
        items=[(LONG, Decimal("-1250000.00")), ("Fondo General", Decimal("3000000.00"))],
        fmt=_usd,
    )
    for text in chart.texts:
        left, right = _extent(text, chart.font_size)
        assert left >= 0 and right <= chart.width, (text.text, left, right, chart.width)
    names = " ".join(t.text for t in chart.texts if t.css == "category")
    assert LONG in names  # whole, if on more than one line


def test_the_chart_is_drawn_at_eleven_pixels_or_more_on_a_phone_and_a_screen() -> None:
    chart = charts.signed_bars(
        id="c", title="t", description="d", items=[(LONG, Decimal("1.00"))], fmt=_usd
    )
    svg = charts.render_svg(chart)
    size = int(re.search(r'<svg[^>]* font-size="(\d+)"', svg).group(1))  # type: ignore[union-attr]
    for column in (PHONE_COLUMN, 1280):
        scale = min(Decimal(1), Decimal(column) / chart.width)  # drawn no wider than it is
        assert size * scale >= 11, (column, size * scale)


def test_the_public_charts_fit_a_phone_at_eleven_pixels_or_more() -> None:
    template = (ROOT / "templates/account/_chart.html").read_text()
    size = int(re.search(r'<svg[^>]* font-size="(\d+)"', template).group(1))  # type: ignore[union-attr]
    chart = public_charts.grouped_bars(
        [
            (month, [("billed", Decimal("1250000.00")), ("collected", Decimal("990000.00"))])
            for month in ("julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre")
        ],
        chart_id="p",
        title="t",
        series_titles={"billed": "Facturado", "collected": "Cobrado"},
        money=_usd,
    )
    for column in (PHONE_COLUMN, 1280):
        assert size * min(Decimal(1), Decimal(column) / chart.width) >= 11
    for shape in chart.shapes:
        if shape.kind == "text":
            text = charts.Text(
                shape.attrs["x"],
                shape.attrs["y"],
                shape.text,
                shape.attrs.get("text-anchor", "start"),
            )
            left, right = _extent(text, size)
            assert left >= 0 and right <= chart.width, (shape.text, left, right)


def test_differences_all_zero_draw_no_empty_frame() -> None:
    law = {"totals": {"mba": "800000.00", "prita": "3000000.00"}}
    comparison = fund_compare.side_by_side(law, law)
    assert comparison is not None and not any(r.difference for r in comparison.rows)
    assert reform_note.difference_chart(comparison, "excise-allocation", str) is None


def test_a_stacked_chart_fits_a_phone_with_its_names_whole() -> None:
    months = [f"2024-{m:02d}" for m in range(7, 13)] + [f"2025-{m:02d}" for m in range(1, 7)]
    chart = charts.stacked_bars(
        id="s",
        title="t",
        description="d",
        categories=months,
        series=[("authority", LONG), ("gf", "Fondo General")],
        values={m: {"authority": Decimal("100000.00"), "gf": Decimal("5000.00")} for m in months},
        fmt=_usd,
    )
    assert chart.font_size * min(Decimal(1), Decimal(PHONE_COLUMN) / chart.width) >= 11
    for text in chart.texts:
        left, right = _extent(text, chart.font_size)
        assert left >= 0 and right <= chart.width, (text.text, left, right, chart.width)
    for swatch in chart.legend:
        right = Decimal(swatch.text_x) + len(swatch.text) * chart.font_size * EM
        assert right <= chart.width, (swatch.text, right, chart.width)
    for line in (more for swatch in chart.legend for more in swatch.more):
        left, right = _extent(line, chart.font_size)
        assert left >= 0 and right <= chart.width, (line.text, left, right, chart.width)
    legend = [" ".join([s.text, *(m.text for m in s.more)]) for s in chart.legend]
    written = " ".join(legend + [t.text for t in chart.texts])
    assert all(word in written for word in LONG.split())  # the long name, whole
