"""Reads for the notice pages: the runs of a district, and one run's notices by delivery
standing, a page at a time.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from tid.models import DeliveryEvent, DeliveryStatus, Notice, NoticeBatch
from tid.services.notices.deliveries import RETURNED, latest_delivery
from tid.services.paging import PER_PAGE


def batches(*, session: Session, district_ids: Collection[int] | None) -> list[NoticeBatch]:
    stmt = select(NoticeBatch).order_by(col(NoticeBatch.created_at).desc())
    if district_ids is not None:
        stmt = stmt.where(col(NoticeBatch.district_id).in_(list(district_ids)))
    return list(session.exec(stmt))


# Where a notice stands in the mail, as the run's page filters it: not yet mailed; mailed
# with no report yet; or the latest delivery report (DeliveryStatus).
NOT_MAILED = "not_mailed"
AWAITING = "awaiting"
RETURNED_ANY = "returned"  # any of RETURNED
DELIVERY_FILTERS = (
    NOT_MAILED,
    AWAITING,
    DeliveryStatus.DELIVERED.value,
    RETURNED_ANY,
    DeliveryStatus.RETURNED_UNCLAIMED.value,
    DeliveryStatus.REFUSED.value,
    DeliveryStatus.UNDELIVERABLE.value,
)


def _mail_status() -> Any:
    """SQL: the notice's standing (``NOT_MAILED``, ``AWAITING`` or its latest report)."""
    from sqlalchemy import case

    latest = (
        select(DeliveryEvent.status)
        .where(DeliveryEvent.notice_id == Notice.id)
        .order_by(col(DeliveryEvent.occurred_on).desc(), col(DeliveryEvent.id).desc())
        .limit(1)
        .correlate(Notice)
        .scalar_subquery()
    )
    return case(
        (col(Notice.mailed_on).is_(None), NOT_MAILED), else_=func.coalesce(latest, AWAITING)
    )


@dataclass(frozen=True)
class BatchPage:
    """One page of a run's notices under a delivery filter, with the count of each status."""

    notices: list[Notice]
    counts: dict[str, int]  # every DELIVERY_FILTERS key (RETURNED_ANY: the three returns)
    info: Any  # paging.PageInfo
    status: str  # the filter ("" for all)


def batch_page(
    *, session: Session, batch_id: int, status: str = "", page: int = 1, per_page: int = 0
) -> BatchPage:
    """The run's notices (by number) with the delivery ``status`` asked for, one page."""
    from tid.services.paging import page_info

    per_page = per_page or PER_PAGE
    standing = _mail_status()
    inner: Any = select(col(Notice.id).label("id"), standing.label("st")).where(
        Notice.batch_id == batch_id
    )
    sub = inner.subquery()
    counts = {key: 0 for key in DELIVERY_FILTERS}
    for key, n in session.exec(select(sub.c.st, func.count()).group_by(sub.c.st)).all():
        counts[str(key)] = int(n)
    counts[RETURNED_ANY] = sum(counts[k] for k in RETURNED)
    wanted = status if status in DELIVERY_FILTERS else ""
    where: list[Any] = [Notice.batch_id == batch_id]
    if wanted == RETURNED_ANY:
        where.append(standing.in_(sorted(RETURNED)))
    elif wanted:
        where.append(standing == wanted)
    total = sum(counts[k] for k in DELIVERY_FILTERS if k != RETURNED_ANY)
    shown = counts[wanted] if wanted else total
    info = page_info(shown, page, per_page)
    rows = list(
        session.exec(
            select(Notice)
            .where(*where)
            .order_by(col(Notice.number))
            .offset(info.offset)
            .limit(info.per_page)
        )
    )
    return BatchPage(notices=rows, counts=counts, info=info, status=wanted)


def batch_notices(*, session: Session, batch_id: int) -> list[Notice]:
    return list(
        session.exec(select(Notice).where(Notice.batch_id == batch_id).order_by(col(Notice.number)))
    )


def batch(*, session: Session, batch_id: int) -> NoticeBatch | None:
    """The notice run with this id (None: there is none)."""
    return session.get(NoticeBatch, batch_id)


def notice(*, session: Session, notice_id: int) -> Notice | None:
    """The notice with this id (None: there is none)."""
    return session.get(Notice, notice_id)


def sender_defaults(*, session: Session, district_id: int, association_name: str) -> dict[str, str]:
    """A new run's sender and payment instructions: those of the district's latest run, or
    the association's name alone for its first."""
    previous = session.exec(
        select(NoticeBatch)
        .where(NoticeBatch.district_id == district_id)
        .order_by(col(NoticeBatch.id).desc())
    ).first()
    return {
        "sender_name": previous.sender_name if previous else association_name,
        "sender_address": previous.sender_address if previous else "",
        "how_to_pay": previous.how_to_pay if previous else "",
        "how_to_pay_en": previous.how_to_pay_en if previous else "",
    }


@dataclass(frozen=True)
class BatchView:
    """A run's page: one page of its notices, each one's latest delivery report, those that
    came back and are not yet mailed again (``remailable``), and how many notices have their
    article number."""

    listing: BatchPage
    delivery: dict[int, DeliveryEvent]
    remailable: set[int]
    with_articles: int


def batch_view(*, session: Session, batch_id: int, status: str, page: int) -> BatchView:
    listing = batch_page(session=session, batch_id=batch_id, status=status, page=page)
    found = listing.notices
    replaced = {
        n.remailing_of_id
        for n in session.exec(
            select(Notice).where(col(Notice.remailing_of_id).in_([n.id for n in found]))
        )
    }
    with_articles = session.exec(
        select(func.count())
        .select_from(Notice)
        .where(Notice.batch_id == batch_id, col(Notice.article_number).is_not(None))
    ).one()
    delivery = latest_delivery(session=session, notice_ids=[n.id or 0 for n in found])
    remailable = {
        n.id
        for n in found
        if n.id is not None
        and n.id in delivery
        and delivery[n.id].status in RETURNED
        and n.id not in replaced
    }
    return BatchView(
        listing=listing,
        delivery=delivery,
        remailable=remailable,
        with_articles=int(with_articles),
    )
