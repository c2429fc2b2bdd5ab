"""An article number is written one way wherever a person reads it: the run's page, the PS
Form 3877, the notices' flow sheet and the history all group its digits by four."""

from __future__ import annotations

from tid.rules.certified_mail import grouped_article_number, parse_article_number
from tid.services.audit_trail.audit_words import shown_value

IMPB = "9400111899223855217067"


def test_groups_of_four_from_the_left() -> None:
    assert grouped_article_number(IMPB) == "9400 1118 9922 3855 2170 67"
    assert grouped_article_number("9400 1118 9922 3855 217067") == "9400 1118 9922 3855 2170 67"
    assert grouped_article_number(IMPB[:20]) == "9400 1118 9922 3855 2170"
    assert parse_article_number(IMPB).grouped() == grouped_article_number(IMPB)
    assert grouped_article_number(None) == ""
    assert grouped_article_number("n/a") == "n/a"


def test_the_history_shows_it_grouped() -> None:
    assert shown_value("article_number", IMPB) == "9400 1118 9922 3855 2170 67"
