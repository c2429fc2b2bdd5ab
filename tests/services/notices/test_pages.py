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
    listing = notices.batch_page(session, batch.id or 0)
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
    listing = notices.batch_page(session, batch.id or 0)
    assert listing.counts == {
        "not_mailed": 0,
        "awaiting": 1,
        "delivered": 1,
        "returned": 3,
        "returned_unclaimed": 1,
        "refused": 2,
        "undeliverable": 0,
    }
    returned = notices.batch_page(session, batch.id or 0, status="returned")
    assert [n.number for n in returned.notices] == [n.number for n in found[1:4]]
    delivered = notices.batch_page(session, batch.id or 0, status="delivered")
    assert [n.id for n in delivered.notices] == [found[0].id]
    awaiting = notices.batch_page(session, batch.id or 0, status="awaiting")
    assert [n.id for n in awaiting.notices] == [found[4].id]
    # Pages of two: the returned three on two pages, in number order, nothing lost.
    one = notices.batch_page(session, batch.id or 0, status="returned", page=1, per_page=2)
    two = notices.batch_page(session, batch.id or 0, status="returned", page=2, per_page=2)
    assert (one.info.pages, len(one.notices), len(two.notices)) == (2, 2, 1)
    assert [n.id for n in one.notices + two.notices] == [n.id for n in returned.notices]
    # An unknown filter shows everything.
    assert len(notices.batch_page(session, batch.id or 0, status="bogus").notices) == 5
