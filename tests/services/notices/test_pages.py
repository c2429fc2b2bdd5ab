"""The run's page: its notices filtered by delivery standing, each standing counted."""

from __future__ import annotations

from datetime import date

from sqlmodel import Session

from tests.conftest import People
from tests.services.notice_support import ACTOR, mail_all
from tests.services.notices.helpers import make_batch
from tid.services import notices


def test_the_run_page_filters_by_delivery_status_and_counts_each(
    session: Session, people: People
) -> None:
    batch, found = make_batch(session, people, owners=["Ana", "Beto", "Carla", "Dora", "Eva"])
    listing = notices.batch_page(session=session, batch_id=batch.id or 0)
    assert listing.counts[notices.NOT_MAILED] == 5 and len(listing.notices) == 5
    mail_all(session, batch, found)
    for notice, status in zip(
        found[:4], ("delivered", "returned unclaimed", "refused", "delivered"), strict=True
    ):
        notices.record_delivery(
            session=session,
            actor=ACTOR,
            notice_id=notice.id or 0,
            status=status,
            occurred_on=date(2026, 1, 27),
            today=date(2026, 1, 28),
        )
    # A later report wins: the last "delivered" notice came back refused after all.
    notices.record_delivery(
        session=session,
        actor=ACTOR,
        notice_id=found[3].id or 0,
        status="refused",
        occurred_on=date(2026, 1, 28),
        today=date(2026, 1, 28),
    )
    session.commit()
    listing = notices.batch_page(session=session, batch_id=batch.id or 0)
    assert listing.counts == {
        "not_mailed": 0,
        "awaiting": 1,
        "delivered": 1,
        "returned": 3,
        "returned_unclaimed": 1,
        "refused": 2,
        "undeliverable": 0,
    }
    returned = notices.batch_page(session=session, batch_id=batch.id or 0, status="returned")
    assert [n.number for n in returned.notices] == [n.number for n in found[1:4]]
    delivered = notices.batch_page(session=session, batch_id=batch.id or 0, status="delivered")
    assert [n.id for n in delivered.notices] == [found[0].id]
    awaiting = notices.batch_page(session=session, batch_id=batch.id or 0, status="awaiting")
    assert [n.id for n in awaiting.notices] == [found[4].id]
    # Pages of two: the returned three on two pages, in number order, nothing lost.
    one = notices.batch_page(
        session=session, batch_id=batch.id or 0, status="returned", page=1, per_page=2
    )
    two = notices.batch_page(
        session=session, batch_id=batch.id or 0, status="returned", page=2, per_page=2
    )
    assert (one.info.pages, len(one.notices), len(two.notices)) == (2, 2, 1)
    assert [n.id for n in one.notices + two.notices] == [n.id for n in returned.notices]
    # An unknown filter shows everything.
    assert (
        len(notices.batch_page(session=session, batch_id=batch.id or 0, status="bogus").notices)
        == 5
    )


def test_the_run_view_says_which_returned_notices_may_be_mailed_again(
    session: Session, people: People
) -> None:
    first = notices.sender_defaults(
        session=session, district_id=people.district.id or 0, association_name="Asociación"
    )
    assert first == {
        "sender_name": "Asociación",
        "sender_address": "",
        "how_to_pay": "",
        "how_to_pay_en": "",
    }
    batch, found = make_batch(session, people, owners=["Ana", "Beto"])
    mail_all(session, batch, found)
    notices.record_delivery(
        session=session,
        actor=ACTOR,
        notice_id=found[0].id or 0,
        status="refused",
        occurred_on=date(2026, 1, 27),
        today=date(2026, 1, 28),
    )
    session.commit()
    view = notices.batch_view(session=session, batch_id=batch.id or 0, status="", page=1)
    assert view.remailable == {found[0].id} and view.with_articles == 2
    assert set(view.delivery) == {found[0].id}
    assert notices.batch(session=session, batch_id=batch.id or 0) == batch
    assert notices.notice(session=session, notice_id=found[1].id or 0) == found[1]
    later = notices.sender_defaults(
        session=session, district_id=people.district.id or 0, association_name="Asociación"
    )
    assert later["sender_name"] == batch.sender_name and later["how_to_pay"] == batch.how_to_pay
