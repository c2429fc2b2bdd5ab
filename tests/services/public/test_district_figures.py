"""The public figures are the yearly statement's: for every district and fiscal year of the
demo, what the public page, its rows and its files say is what the account's statement, its
receivables and the billing run say — computed here from those services, not again; and once
computed for a version of the district, every worker reads them back without the journal."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from flask import Flask
from sqlalchemy import event
from sqlmodel import Session, select

from tid.demo import ACCOUNT_DISTRICT
from tid.models import Bill, BillStatus, District
from tid.rules.money import ZERO
from tid.services.account import audit_statement
from tid.services.audit_trail.audit import Actor
from tid.services.public import district_figures, open_data, publishing, versions

TODAY = date(2026, 12, 3)


def _every_year_public(session: Session) -> list[tuple[District, list]]:
    found = []
    for district in session.exec(select(District)).all():
        years = district_figures.fiscal_years(session=session, district_id=district.id or 0)
        for fy in years:
            publishing.choose(
                session=session, actor=Actor("test"), district=district, fy=fy, published=True
            )
        found.append((district, years))
    session.commit()
    return found


def test_every_demo_year_says_what_its_statement_says(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    checked = 0
    for district, years in _every_year_public(session):
        d = district.id or 0
        page = district_figures.district_page(session=session, district_id=d, today=TODAY)
        assert page is not None
        shown = {y["fiscal_year"]: y for y in page.years}
        assert set(shown) == {fy.label for fy in years}
        for fy in years:
            st = audit_statement.statement(session=session, district_id=d, fy=fy)
            aging = audit_statement.aging(session=session, district_id=d, as_of=fy.end)
            bills = session.exec(
                select(Bill).where(
                    Bill.district_id == d,
                    Bill.fiscal_year == fy.label,
                    Bill.status == BillStatus.ACTIVE.value,
                )
            ).all()
            figures = shown[fy.label]
            assert figures["collected"] == st.impost_revenue
            assert figures["opening_balance"] == st.opening_balance
            assert figures["closing_balance"] == st.closing_balance
            assert figures["admin_total"] == st.admin_total
            assert figures["cap"] == st.cap
            assert figures["program_total"] == st.program_total
            assert [(p["purpose"], p["amount"]) for p in figures["spent_by_purpose"]] == [
                (p.name, p.amount) for p in st.program
            ]
            assert figures["owed_at_year_end"] == sum((r.outstanding for r in aging), ZERO)
            assert figures["delinquent_at_year_end"] == sum(
                (r.outstanding for r in aging if r.days_past_due > 0), ZERO
            )
            assert figures["billed"] == sum((b.amount for b in bills), ZERO)
            year = district_figures.year_page(session=session, district_id=d, fy=fy, today=TODAY)
            assert year is not None and year.figures == figures
            assert sum((Decimal(m["collected"]) for m in year.months), ZERO) == st.impost_revenue
            checked += 1
    assert checked >= 1  # the Condado account's year at least
    # the API's and the files' rows are the same figures, every district and year
    rows = open_data.rows(session=session, table="fiscal_years", today=TODAY)
    assert len(rows) == checked
    for row in rows:
        page = district_figures.district_page(
            session=session, district_id=row["district_id"], today=TODAY
        )
        assert page is not None
        (shown,) = [y for y in page.years if y["fiscal_year"] == row["fiscal_year"]]
        assert row == {k: v for k, v in shown.items() if k != "spent_by_purpose"}


def test_a_year_is_public_once_locked_or_chosen(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    d = condado.id or 0
    fy = district_figures.fiscal_years(session=session, district_id=d)[0]
    assert publishing.is_public(session=session, district_id=d, fy=fy)  # the demo's choice
    before = district_figures.district_page(session=session, district_id=d, today=TODAY)
    assert before is not None and [y["fiscal_year"] for y in before.years] == [fy.label]
    publishing.choose(session=session, actor=Actor("t"), district=condado, fy=fy, published=False)
    session.commit()
    assert district_figures.year_page(session=session, district_id=d, fy=fy, today=TODAY) is None
    # not the copy kept before the withdrawal
    page = district_figures.district_page(session=session, district_id=d, today=TODAY)
    assert page is not None and page.years == [] and page.unpublished == [fy.label]


def test_a_public_page_reads_the_years_figures_kept_not_the_journal(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    d = condado.id or 0
    fy = district_figures.fiscal_years(session=session, district_id=d)[0]
    first = district_figures.district_page(session=session, district_id=d, today=TODAY)
    year = district_figures.year_page(session=session, district_id=d, fy=fy, today=TODAY)
    session.commit()
    versions.forget_all()  # another worker: nothing of its own kept
    asked: list[str] = []
    engine = session.get_bind()
    listen = lambda *args: asked.append(str(args[2]))  # noqa: E731
    event.listen(engine, "before_cursor_execute", listen)
    try:
        again = district_figures.district_page(session=session, district_id=d, today=TODAY)
        year_again = district_figures.year_page(session=session, district_id=d, fy=fy, today=TODAY)
    finally:
        event.remove(engine, "before_cursor_execute", listen)
    assert again == first and year_again == year
    heavy = re.compile(r"\b(journal_entry|journal_line|bill|bill_ledger|property_year)\b")
    assert asked and not [q for q in asked if heavy.search(q)]
    assert any("public_figures" in q for q in asked)
