"""Certified-mail article numbers: validated, unique, and from a CSV file all or nothing."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.notice_support import ACTOR, article
from tests.services.notices.helpers import make_batch
from tid.models import Notice
from tid.rules.errors import FindingsError, InputError
from tid.services import notices


def test_article_numbers_are_validated_and_unique(session: Session, people: People) -> None:
    _, (first, second) = make_batch(session, people)
    good = article(7)
    bad_check = good[:-1] + str((int(good[-1]) + 1) % 10)
    with pytest.raises(InputError) as err:
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=first.id or 0, article_number=bad_check
        )
    assert err.value.field == "article_number" and "check digit" in err.value.message
    spaced = " ".join(good[i : i + 4] for i in range(0, 22, 4))
    notices.set_article_number(
        session=session, actor=ACTOR, notice_id=first.id or 0, article_number=spaced
    )
    assert first.article_number == good
    with pytest.raises(InputError) as err:
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=second.id or 0, article_number=good
        )
    assert "already used" in err.value.message
    legacy = article(8, length=20)
    notices.set_article_number(
        session=session, actor=ACTOR, notice_id=second.id or 0, article_number=legacy
    )
    assert second.article_number == legacy


def test_article_numbers_from_csv_all_or_nothing(session: Session, people: People) -> None:
    batch, (first, second) = make_batch(session, people)
    bad = f"notice,article\n{first.number},{article(1)}\n{second.number},123\n".encode()
    with pytest.raises(FindingsError) as err:
        notices.import_article_numbers(
            session=session, actor=ACTOR, batch_id=batch.id or 0, data=bad
        )
    assert [f.row for f in err.value.findings] == [3]
    session.rollback()
    assert session.get(Notice, first.id).article_number is None  # nothing written
    twice = f"{first.number};{article(1)}\n{second.number};{article(1)}\n".encode()
    with pytest.raises(FindingsError):
        notices.import_article_numbers(
            session=session, actor=ACTOR, batch_id=batch.id or 0, data=twice
        )
    session.rollback()
    good = f"\ufeffnotice,article\n{first.number},{article(2)}\n{second.number},{article(1)}\n"
    result = notices.import_article_numbers(
        session=session, actor=ACTOR, batch_id=batch.id or 0, data=good.encode()
    )
    assert (result.rows, result.changed) == (2, 2)
    # The same file again changes nothing.
    again = notices.import_article_numbers(
        session=session, actor=ACTOR, batch_id=batch.id or 0, data=good.encode()
    )
    assert (again.changed, again.unchanged) == (0, 2)
