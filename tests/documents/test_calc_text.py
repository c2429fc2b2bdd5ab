"""How a result's figures are shown to a reader (tid/documents/calc_text.py): a ratio keeps
the digits that decide the verdict beside it."""

from __future__ import annotations

import pytest

from tid.documents import calc_text


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        # 0.49999999 beside "not protected": never "50%".
        ("municipalities[0].ratio_2007_08", "0.49999999", "49.999999%"),
        ("municipalities[0].ratio_2007_08", "0.500000", "50%"),
        ("municipalities[0].ratio_2007_08", "0.123457", "12.3457%"),
        ("rate", "0.09", "9%"),
        ("gf_rate", "0.0202", "2.02%"),
    ],
)
def test_a_ratio_is_shown_with_the_digits_it_has(key: str, value: str, shown: str) -> None:
    assert calc_text.show(key, value) == shown


def test_a_months_figure_is_labelled_by_the_month_as_the_pages_write_it() -> None:
    # Spanish outside a request, as every document's words
    assert calc_text.label("bank_transfers.2024-07") == "Transferencias del Banco: jul 2024"
    assert calc_text.label("2025-12") == "dic 2025"
    assert calc_text.label("2025-13") == "2025-13"  # not a month: as it is
