"""USPS certified-mail article numbers of the § 6653(5) notices."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.rules.certified_mail import (
    check_digit,
    is_valid_article_number,
    parse_article_number,
)
from tid.rules.errors import InputError

# IMpb, hand-computed. Body (21 digits) 940011189922385521706, read from the right:
#   weight 3: 6, 7, 2, 5, 3, 2, 9, 1, 1, 0, 9 -> 45 × 3 = 135
#   weight 1: 0, 1, 5, 8, 2, 9, 8, 1, 0, 4    -> 38
#   135 + 38 = 173; (10 - 3) mod 10 = 7 -> check digit 7.
IMPB = "9400111899223855217067"

# Legacy 20 digits, hand-computed. Body (19 digits) 7001206000001234567, from the right:
#   weight 3: 7, 5, 3, 1, 0, 0, 6, 2, 0, 7 -> 31 × 3 = 93
#   weight 1: 6, 4, 2, 0, 0, 0, 0, 1, 0    -> 13
#   93 + 13 = 106; (10 - 6) mod 10 = 4 -> check digit 4.
LEGACY = "70012060000012345674"

# Check digit 0: body of nineteen zeros then 9, 7; from the right 7 × 3 + 9 × 1 = 30 -> 0.
ZERO_CHECK = "0" * 19 + "97" + "0"


def test_hand_computed_check_digits() -> None:
    assert check_digit(IMPB[:-1]) == 7
    assert check_digit(LEGACY[:-1]) == 4
    assert check_digit(ZERO_CHECK[:-1]) == 0


def test_valid_numbers_with_spaces() -> None:
    number = parse_article_number("9400 1118 9922 3855 2170 67")
    assert number.digits == IMPB and number.kind == "impb"
    assert number.grouped() == "9400 1118 9922 3855 2170 67"
    legacy = parse_article_number(" 7001 2060 0000 1234 5674 ")
    assert legacy.digits == LEGACY and legacy.kind == "legacy"
    assert parse_article_number(ZERO_CHECK).kind == "impb"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("9400111899223855217068", "should be 7, not 8"),
        ("70012060000012345675", "should be 4, not 5"),
        ("940011189922385521706", "this one has 21"),
        ("94001118992238552170677", "this one has 23"),
        ("9400-1118-9922-3855-2170-67", "'-' is not a digit"),
        ("9400111899223855217O67", "'O' is not a digit"),
        ("９４００１１１８９９２２３８５５２１７０６７", "is not a digit"),
        ("", "is required"),
        (9400111899223855217067, "as text"),
    ],
)
def test_invalid_numbers_name_the_field(value: object, words: str) -> None:
    with pytest.raises(InputError) as err:
        parse_article_number(value, "notices[2].article_number")
    assert err.value.field == "notices[2].article_number"
    assert words in err.value.message
    assert not is_valid_article_number(value)


@settings(max_examples=examples(300), deadline=None)
@given(body=st.text(alphabet="0123456789", min_size=21, max_size=21), position=st.integers(0, 21))
def test_any_single_digit_change_is_caught(body: str, position: int) -> None:
    number = body + str(check_digit(body))
    assert is_valid_article_number(number)
    changed = str((int(number[position]) + 1) % 10)
    typo = number[:position] + changed + number[position + 1 :]
    # Weights 3 and 1 are prime to 10: one wrong digit always changes the sum mod 10.
    assert not is_valid_article_number(typo)
