"""Certified-mail article numbers of the owners' notices — 21 LPRA § 6653(5).

The association notifies every owner by certified mail (within 30 days of receiving the
ordinance, then at least every year); each notice is recorded with the USPS article number
of its certified-mail label. This module checks such a number before it is recorded:

- IMpb (Intelligent Mail package barcode) numbers of 22 digits, and the older 20-digit
  certified-mail numbers, spaces allowed between groups ("9400 1118 9922 3855 2170 67");
- the last digit is a mod-10 check digit: from the right, excluding the check digit, the
  digits are weighted 3, 1, 3, 1, …; the check digit brings the weighted sum to a multiple
  of 10 (USPS Publication 199, check digit of the package identification code).
"""

from __future__ import annotations

from dataclasses import dataclass

from tid.rules.errors import InputError, field_error
from tid.rules.messages import Message

IMPB_LENGTH = 22
LEGACY_LENGTH = 20
IMPB = "impb"
LEGACY = "legacy"


@dataclass(frozen=True)
class ArticleNumber:
    """A valid certified-mail article number: its digits (no spaces) and its format."""

    digits: str
    kind: str  # "impb" (22 digits) or "legacy" (20 digits)

    def grouped(self) -> str:
        """The digits in groups of four, as printed on the receipt."""
        return grouped_article_number(self.digits)

    def __str__(self) -> str:
        return self.digits


def grouped_article_number(number: str | None) -> str:
    """An article number as USPS prints it on the receipt and every page and PDF shows it:
    its digits in groups of four from the left (``9400 1118 9922 3855 2170 67``); the one
    way the screen, the PS Form 3877 and the history write it. A value that is not an article
    number's digits (none, or with other characters) is returned as it is."""
    if not number:
        return ""
    digits = "".join(number.split())
    if not digits.isdigit() or not digits.isascii():
        return number
    return " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))


def check_digit(body: str) -> int:
    """The mod-10 check digit of ``body`` (the number without its last digit): weights 3 and
    1 alternating from the right, starting with 3 on the rightmost digit."""
    if not body.isdigit() or not body.isascii():
        raise ValueError("the body of an article number is digits only")
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return (10 - total % 10) % 10


def parse_article_number(value: object, field: str = "article_number") -> ArticleNumber:
    """21 LPRA § 6653(5) (notice by certified mail): check a USPS article number, strictly.

    Spaces are removed; the number must be 22 digits (IMpb) or 20 (older labels) with a good
    check digit. Anything else is an :class:`InputError` naming ``field``.
    """
    if not isinstance(value, str):
        raise field_error(field, Message('write the article number as text, like "9400 1118 …"'))
    digits = "".join(value.split())
    if not digits:
        raise field_error(field, Message("the certified-mail article number is required"))
    bad = next((c for c in digits if not (c.isascii() and c.isdigit())), None)
    if bad is not None:
        raise field_error(
            field,
            Message("%(bad)s is not a digit; an article number has digits only", bad=repr(bad)),
        )
    if len(digits) not in (IMPB_LENGTH, LEGACY_LENGTH):
        raise field_error(
            field,
            Message(
                "an article number has %(impb)s digits (%(legacy)s on older labels); this one "
                "has %(count)s",
                impb=IMPB_LENGTH,
                legacy=LEGACY_LENGTH,
                count=len(digits),
            ),
        )
    expected = check_digit(digits[:-1])
    if int(digits[-1]) != expected:
        raise field_error(
            field,
            Message(
                "the last digit (check digit) should be %(expected)s, not %(last)s; check the "
                "number on the receipt for a typo",
                expected=expected,
                last=digits[-1],
            ),
        )
    return ArticleNumber(digits, IMPB if len(digits) == IMPB_LENGTH else LEGACY)


def is_valid_article_number(value: object) -> bool:
    """Whether ``value`` is a valid article number (for filters that must not raise)."""
    try:
        parse_article_number(value)
    except InputError:
        return False
    return True
