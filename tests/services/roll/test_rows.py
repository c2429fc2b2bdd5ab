"""A roll row checked: each kind of bad cell named with its row and column, a refused cell
not also reported missing, and any owner and value either read back or a finding.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlmodel import Session

from tests.conftest import People
from tests.services.roll.helpers import roll_errors
from tid.services import roll


@pytest.mark.parametrize(
    ("cells", "row", "column", "msgid_start"),
    [
        # a bad cadastral number
        ("040-10-001-01,Ana,,1 Calle,SJ,00901,,100.00", 2, "cadastral_number", "A cadastral"),
        # a bad number
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,12abc", 2, "assessed_value", "This is not a num"),
        # a negative value ("-5" in a numeric column is not a formula injection)
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,-5", 2, "assessed_value", "A negative value"),
        # a missing owner mailing address
        ("040-010-001-09,Ana,,,SJ,00901,,100.00", 2, "mailing_address", "The owner's mailing"),
        # a missing owner
        ("040-010-001-09,,,1 Calle,SJ,00901,,100.00", 2, "owner", "The owner is missing"),
        # a bad ZIP code
        ("040-010-001-09,Ana,,1 Calle,SJ,9010,,100.00", 2, "zip", "A ZIP code"),
        # formula injection in text cells
        ("040-010-001-09,=HYPERLINK(1),,1 Calle,SJ,00901,,100.00", 2, "owner", "This cell starts"),
        ("040-010-001-09,Ana,@SUM(A1),1 Calle,SJ,00901,,100.00", 2, "urbanization", "This cell"),
        ("040-010-001-09,Ana,,+1 Calle,SJ,00901,,100.00", 2, "mailing_address", "This cell"),
        ("040-010-001-09,Ana,,1 Calle,-SJ,00901,,100.00", 2, "city", "This cell starts"),
        # formula injection in a numeric cell
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,=1+2", 2, "assessed_value", "This cell starts"),
        # cents beyond two decimals
        ("040-010-001-09,Ana,,1 Calle,SJ,00901,,10.005", 2, "assessed_value", "An amount of"),
    ],
)
def test_each_bad_row_kind_is_named_with_row_and_column(
    session: Session, people: People, cells: str, row: int, column: str, msgid_start: str
) -> None:
    header = "cadastral_number,owner,urbanization,mailing_address,city,zip,use,assessed_value\n"
    errors = roll_errors(session, people, header + cells + "\n")
    assert [(r, c) for r, c, m in errors if m.startswith(msgid_start)] == [(row, column)], errors


def test_a_refused_cell_is_not_also_reported_missing(session: Session, people: People) -> None:
    header = "cadastral_number,owner,urbanization,mailing_address,city,zip,use,assessed_value\n"
    errors = roll_errors(session, people, header + "040-010-001-09,=cmd,,-,SJ,00901,,1.00\n")
    assert {(r, c) for r, c, _ in errors} == {(2, "owner"), (2, "mailing_address")}
    assert all(m.startswith("This cell starts") for _, _, m in errors)


OWNER_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30
).filter(lambda t: t.strip() == t and "," not in t and '"' not in t)


@given(owner=OWNER_TEXT, cents=st.integers(min_value=-(10**9), max_value=10**11))
def test_any_owner_and_value_either_round_trips_or_is_a_finding(owner: str, cents: int) -> None:
    value = f"{'-' if cents < 0 else ''}{abs(cents) // 100}.{abs(cents) % 100:02d}"
    text = (
        "cadastral_number,owner,mailing_address,zip,assessed_value\n"
        f"040-010-001-01,{owner},1 Calle Sol,00901,{value}\n"
    )
    parsed = roll.parse_roll(text.encode())
    fields = {f.field for f in parsed.findings}
    if owner.startswith(("=", "+", "-", "@")):
        assert "owner" in fields  # a formula is never kept
    if cents < 0:
        assert "assessed_value" in fields  # a negative value is never kept
    if not parsed.findings:
        [row] = parsed.rows
        assert row.owner_names == " ".join(owner.split())
        assert row.assessed_value == Decimal(cents) / 100  # exact, to the cent
    else:
        assert parsed.rows == ()
