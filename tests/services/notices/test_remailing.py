"""A returned notice mailed again with a new number and code, linked to the first."""

from __future__ import annotations

from datetime import date

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.pdf_checks import pdf_text
from tests.services.notice_support import ACTOR, BASE_URL, SECRET, mail_all
from tests.services.notices.helpers import make_batch
from tid.rules.errors import FindingsError, InputError
from tid.services import notices


def test_returned_notice_is_mailed_again_with_a_new_number(
    session: Session, people: People
) -> None:
    batch, found = make_batch(session, people)
    mail_all(session, batch, found)
    first, second = found
    data = (
        "article,status,date\n"
        f"{first.article_number},delivered,2026-01-25\n"
        f"{second.article_number},returned unclaimed,2026-02-10\n"
    ).encode()
    result = notices.import_deliveries(
        session=session, actor=ACTOR, data=data, today=date(2026, 2, 12), district_ids=None
    )
    assert (result.recorded, result.returned) == (2, [second.number])
    session.commit()
    again = notices.import_deliveries(
        session=session, actor=ACTOR, data=data, today=date(2026, 2, 12), district_ids=None
    )
    assert again.already == 2 and again.recorded == 0
    # Other districts' notices are out of reach of a scoped import.
    with pytest.raises(FindingsError):
        notices.import_deliveries(
            session=session,
            actor=ACTOR,
            data=data,
            today=date(2026, 2, 12),
            district_ids={people.other_district.id or 0},
        )
    session.rollback()
    with pytest.raises(InputError, match="returned"):
        notices.remail_notices(
            session=session,
            actor=ACTOR,
            notice_ids=[first.id or 0],
            issued_on=date(2026, 2, 12),
            portal_base_url=BASE_URL,
            secret=SECRET,
            workers=1,
        )
    remailing = notices.remail_notices(
        session=session,
        actor=ACTOR,
        notice_ids=[second.id or 0],
        issued_on=date(2026, 2, 12),
        portal_base_url=BASE_URL,
        secret=SECRET,
        new_address="Apartado 55\nPonce PR 00731",
        workers=1,
    )
    session.commit()
    (new,) = notices.batch_notices(session=session, batch_id=remailing.id or 0)
    assert new.remailing_of_id == second.id and new.bill_id == second.bill_id
    assert new.number != second.number and new.kind == "remailing"
    assert new.mailing_address == "Apartado 55\nPonce PR 00731"
    text = pdf_text(notices.notice_pdf_bytes(session=session, notice=new))
    assert second.number in text and "Apartado 55" in text
    with pytest.raises(InputError, match="already"):
        notices.remail_notices(
            session=session,
            actor=ACTOR,
            notice_ids=[second.id or 0],
            issued_on=date(2026, 2, 12),
            portal_base_url=BASE_URL,
            secret=SECRET,
            workers=1,
        )
