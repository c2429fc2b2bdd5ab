"""Server-side SVG charts: geometry that matches the figures, valid and escaped markup."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

from tid.render import charts

SVG = "{http://www.w3.org/2000/svg}"


def _waterfall(**overrides: object) -> charts.Chart:
    arguments: dict[str, object] = {
        "id": "w",
        "title": "Month by month",
        "description": "Stacked by recipient",
        "categories": ["2024-07", "2024-08"],
        "series": [("authority", "Authority"), ("bureau", "Bureau")],
        "values": {
            "2024-07": {"authority": Decimal("300.00"), "bureau": Decimal("100.00")},
            "2024-08": {"authority": Decimal("200.00")},
        },
    }
    arguments.update(overrides)
    return charts.stacked_bars(**arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("largest", "step"),
    [
        # 400 / 5 = 80 → the next round step is 100
        (Decimal("400"), Decimal("100")),
        # 950,000 / 5 = 190,000 → 200,000
        (Decimal("950000"), Decimal("200000")),
        # 12 / 5 = 2.4 → 5
        (Decimal("12"), Decimal("5")),
        # 1 / 5 = 0.2 → 0.2
        (Decimal("1"), Decimal("0.2")),
        (Decimal("0"), Decimal("1")),
    ],
)
def test_nice_step(largest: Decimal, step: Decimal) -> None:
    assert charts.nice_step(largest) == step


def test_stacked_bars_lengths_are_proportional_and_stack() -> None:
    chart = _waterfall()
    # One row per month: 300 and 100 in July, 200 in August, on one scale from zero.
    lengths = [Decimal(b.width) for b in chart.bars]
    july_authority, july_bureau, august = chart.bars
    assert lengths[0] == 3 * lengths[1] and lengths[2] == 2 * lengths[1]
    # The bureau follows the authority in the same row.
    assert Decimal(july_bureau.x) == Decimal(july_authority.x) + Decimal(july_authority.width)
    assert july_bureau.y == july_authority.y
    # Both rows start from the same zero line.
    assert august.x == july_authority.x
    assert july_authority.fill != july_bureau.fill
    assert july_bureau.label == "2024-07 · Bureau: 100.00"
    assert [s.text for s in chart.legend] == ["Authority", "Bureau"]
    # The table fallback: one row per month with the total.
    assert chart.table_rows == (
        ("2024-07", "300.00", "100.00", "400.00"),
        ("2024-08", "200.00", "0.00", "200.00"),
    )


def test_signed_bars_go_right_for_top_ups_and_left_for_deductions() -> None:
    chart = charts.signed_bars(
        id="e",
        title="Adjustments",
        description="By municipality",
        items=[("San Juan", Decimal("300")), ("Ponce", Decimal("-100")), ("Lares", Decimal("0"))],
    )
    zero = next(line for line in chart.lines if line.css == "axis")
    up, down = chart.bars  # no bar for a zero adjustment
    assert Decimal(up.x) == Decimal(zero.x1)
    assert Decimal(down.x) + Decimal(down.width) == Decimal(zero.x1)
    # 300 to the right is three times as long as 100 to the left.
    assert Decimal(up.width) == 3 * Decimal(down.width)
    assert up.fill == charts.POSITIVE and down.fill == charts.NEGATIVE
    assert chart.table_rows == (("San Juan", "300.00"), ("Ponce", "-100.00"), ("Lares", "0.00"))


def test_svg_is_valid_xml_with_title_and_description() -> None:
    root = ET.fromstring(charts.render_svg(_waterfall()))
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "w-title w-desc"
    assert root.find(f"{SVG}title").text == "Month by month"  # type: ignore[union-attr]
    assert root.find(f"{SVG}desc").text == "Stacked by recipient"  # type: ignore[union-attr]
    assert len(root.findall(f"{SVG}rect")) == 3 + 2  # bars and legend swatches


def test_every_text_is_escaped() -> None:
    hostile = '<script>alert("x")</script> & "quoted"'
    chart = charts.signed_bars(
        id="e",
        title=hostile,
        description=hostile,
        items=[(hostile, Decimal("5")), ("Ponce", Decimal("-5"))],
    )
    svg = charts.render_svg(chart)
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    root = ET.fromstring(svg)  # still well-formed
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert hostile in texts


def test_negative_amounts_are_not_drawn_in_a_stack() -> None:
    chart = _waterfall(values={"2024-07": {"authority": Decimal("-5"), "bureau": Decimal("10")}})
    assert len(chart.bars) == 1
    assert chart.table_rows[0][1] == "-5.00"
