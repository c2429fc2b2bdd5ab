"""The calculators' warnings write amounts as the pages do — ``$735,000.00`` in English, the
Spanish pages' format in Spanish — never a raw decimal (``735000.0000``, ``5.50``)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import pytest

from tests.calc_documents import DOCUMENTS
from tests.rules.test_warnings_es import CASES, EXTRA
from tid.render.formats import money
from tid.rules.calculators import run
from tid.rules.errors import InputError
from tid.rules.messages import Amount, Message, render

# A decimal written without a dollar sign before it, or an amount of a thousand or more without
# its thousands separators: how a raw Decimal reads in a sentence.
RAW = re.compile(r"(?<![\d.,$])\d+\.\d{2,}(?![\d%])|\$\d{4,}")

# The 1994 Code in FY1998-99 (the worked example): 30 % of five sixths of the first six points
# is 315,000, the other 70 % 735,000, under the $3,000,000 of the Recreational Development Fund.
TOP_UP: dict[str, Any] = {
    "fiscal_year": "1998-99",
    "collections": {"hotel": "900000.00", "casino_hotel": "1100000.00", "motel": "70000"},
    "bond_fund_amount": "500000.00",
}


# A stay under the 1994 Code: its daily-rate test says the nightly rate.
STAY: dict[str, Any] = {
    "lodging_type": "hotel",
    "date": "1996-03-02",
    "nightly_rate": "1250.00",
    "nights": 2,
}


def _all() -> list[tuple[str, dict[str, Any]]]:
    extra = [("room-tax-distribution", TOP_UP), ("room-tax", STAY)]
    return [*DOCUMENTS.items(), *CASES, *EXTRA, *extra]


def test_an_amount_in_a_message_is_written_as_the_pages_write_it() -> None:
    said = Message("%(top_up)s moves", top_up=Amount(Decimal("735000.0000")))
    assert str(said) == "$735,000.00 moves"
    for lang in ("en", "es"):
        assert render(said, lang) == f"{money(Decimal('735000'), lang)} moves"
    assert str(Amount(Decimal("0.125"))) == "$0.13"  # half up, to the cent


def test_the_top_up_warning_writes_its_amounts_as_the_pages_do() -> None:
    result = run("room-tax-distribution", TOP_UP)
    warning = next(w for w in result["warnings"] if "Recreational Development Fund" in w)
    assert "($735,000.00)" in warning and "$315,000.00 moves" in warning, warning
    spanish = next(w for w in result["warnings_es"] if "Fondo de Desarrollo Recreativo" in w)
    assert f"({money(Decimal('735000'), 'es')})" in spanish, spanish


@pytest.mark.parametrize("name,document", _all(), ids=lambda v: v if isinstance(v, str) else "")
def test_no_warning_writes_a_raw_decimal(name: str, document: dict[str, Any]) -> None:
    try:
        result = run(name, document)
    except InputError:  # a refused document (a case of the refusals) has no warnings
        return
    given = json.dumps(document)
    for text in [*result.get("warnings", []), *result.get("warnings_es", [])]:
        raw = [m.group(0) for m in RAW.finditer(str(text)) if not _echoed(m.group(0), given)]
        assert not raw, (name, text)


def _echoed(figure: str, given: str) -> bool:
    """An amount of the input that is not whole cents, said as it was given (``100.005``)."""
    return f'"{figure}"' in given and len(figure.rpartition(".")[2]) > 2
