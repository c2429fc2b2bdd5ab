"""The runs and bills read back for the pages: a district's runs, a run's bills page by
page, the bills whose owners need a corrected notice, a property's bills, a run's total."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col
from sqlmodel import select as sm_select

from tid.models import Bill, BillingRun, Property, PropertyYear
from tid.rules.money import money_str
from tid.services.paging import PER_PAGE, PageInfo, cadastral_or_owner, page_info


def runs(*, session: Session, district_id: int) -> list[BillingRun]:
    """Every billing run of the district, newest year and version first."""
    return list(
        session.exec(
            sm_select(BillingRun)
            .where(BillingRun.district_id == district_id)
            .order_by(col(BillingRun.fiscal_year).desc(), col(BillingRun.version).desc())
        )
    )


@dataclass(frozen=True)
class BillLine:
    bill: Bill
    cadastral_number: str
    owner_names: str
    replacement: Bill | None  # for a superseded bill: the bill that replaced it


@dataclass(frozen=True)
class BillPage(PageInfo):
    lines: list[BillLine] = field(default_factory=list)


def bills_page(
    *, session: Session, run_id: int, search: str = "", page: int = 1, per_page: int = PER_PAGE
) -> BillPage:
    """One page of a run's bills by cadastral number, optionally searched (plain text)."""
    where: list[Any] = [Bill.billing_run_id == run_id]
    matching = cadastral_or_owner(search)
    if matching is not None:
        where.append(matching)
    joined = (
        sm_select(Bill, Property.cadastral_number, PropertyYear.owner_names)
        .join(Property, col(Property.id) == col(Bill.property_id))
        .join(PropertyYear, col(PropertyYear.id) == col(Bill.property_year_id))
        .where(*where)
    )
    count = (
        sm_select(func.count())
        .select_from(Bill)
        .join(Property, col(Property.id) == col(Bill.property_id))
        .join(PropertyYear, col(PropertyYear.id) == col(Bill.property_year_id))
        .where(*where)
    )
    info = page_info(int(session.exec(count).one()), page, per_page)
    rows = session.exec(
        joined.order_by(col(Property.cadastral_number)).offset(info.offset).limit(per_page)
    ).all()
    replacement_ids = [b.superseded_by_id for b, _, _ in rows if b.superseded_by_id]
    replacements = (
        {b.id: b for b in session.exec(sm_select(Bill).where(col(Bill.id).in_(replacement_ids)))}
        if replacement_ids
        else {}
    )
    lines = [
        BillLine(b, number, owners, replacements.get(b.superseded_by_id))
        for b, number, owners in rows
    ]
    return BillPage(lines=lines, **info.position())


def corrected_notices_needed(*, session: Session, run: BillingRun) -> list[BillLine]:
    """The bills of the run this one superseded that were already mailed: their owners
    need a corrected notice (with the replacing bill, if the property is still billed)."""
    if run.supersedes_id is None:
        return []
    rows = session.exec(
        sm_select(Bill, Property.cadastral_number, PropertyYear.owner_names)
        .join(Property, col(Property.id) == col(Bill.property_id))
        .join(PropertyYear, col(PropertyYear.id) == col(Bill.property_year_id))
        .where(Bill.billing_run_id == run.supersedes_id, col(Bill.mailed_at).is_not(None))
        .order_by(col(Property.cadastral_number))
    ).all()
    replacements = {
        b.id: b
        for b in session.exec(
            sm_select(Bill).where(
                col(Bill.id).in_([b.superseded_by_id for b, _, _ in rows if b.superseded_by_id])
            )
        )
    }
    return [
        BillLine(b, number, owners, replacements.get(b.superseded_by_id))
        for b, number, owners in rows
    ]


def bills_of_property(*, session: Session, property_id: int) -> list[tuple[Bill, BillingRun]]:
    """Every bill of one property with its run, newest year and version first."""
    return list(
        session.exec(
            sm_select(Bill, BillingRun)
            .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
            .where(Bill.property_id == property_id)
            .order_by(col(Bill.fiscal_year).desc(), col(BillingRun.version).desc())
        ).all()
    )


def summary(run: BillingRun) -> dict[str, str]:
    """The run's total against the ordinance's expected amount (§ 6653(3)(b)), as text."""
    return {
        "total": money_str(run.total),
        "expected_amount": money_str(run.expected_amount),
        "difference": money_str(run.total - run.expected_amount),
    }
