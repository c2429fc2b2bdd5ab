"""The special account's documents of record: the delinquency list (PDF, CSV), the yearly
statement (PDF) and its parts as CSV (the statement's lines, the aging, the journal), and what
a property's liens page and its certificate (tid/documents/closing.py) show."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlmodel import Session

from tid.documents.base import CSV, PDF, Document, Reader, district_of
from tid.models import District
from tid.rules.errors import N_, InputError
from tid.rules.messages import render
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import account_reads, audit_statement, expenditures
from tid.services.audit_trail import record_names
from tid.services.liens import impost_lien as liens
from tid.services.public import versions

NO_PROPERTY = N_("There is no such property in this district.")
STATEMENT_PARTS = ("statement", "aging", "journal")


def _year(
    session: Session, district: District, year: FiscalYear | None, reader: Reader
) -> FiscalYear:
    return year or account_reads.default_fiscal_year(
        session=session, district_id=district.id or 0, today=reader.today
    )


def delinquency_pdf(session: Session, *, district: int, reader: Reader) -> Document:
    """Every bill owed past its due date, with its surcharge and interest (PDF); past
    ``liens.DETAIL_ROWS`` bills, their totals by days late and by fiscal year (the list is
    its CSV file). Kept on the reader's shelf by the district's version and the day, and
    laid out before it is asked for (tid/web/account/prepared.py)."""
    shown = district_of(session, district)
    on = reader.today

    def name() -> str:  # all it shows moves the district's version (versions.WATCHED)
        version = versions.version_of(session=session, district_id=district)
        return f"delinquency\x00{district}\x00{version}"

    def context() -> dict[str, Any]:
        count = liens.delinquency_page(
            session=session, district_id=district, today=on, per_page=1
        ).total
        if count <= liens.DETAIL_ROWS:
            rows = liens.delinquency(session=session, district_id=district, today=on)
            return {"district": shown, "rows": rows, "totals": None, "today": on}
        totals = liens.delinquency_totals(session=session, district_id=district, today=on)
        return {"district": shown, "rows": [], "totals": totals, "today": on}

    pdf = reader.shelved_pdf(name, "pdf/delinquency.html", context)
    return Document(pdf, PDF, f"delinquency-{district}-{on.isoformat()}.pdf")


def delinquency_csv(session: Session, *, district: int, reader: Reader) -> Document:
    """The delinquency list as CSV."""
    district_of(session, district)
    on = reader.today
    with reader.speaking():
        text = liens.delinquency_csv(
            liens.delinquency(session=session, district_id=district, today=on)
        )
    return Document(text.encode("utf-8"), CSV, f"delinquency-{district}-{on.isoformat()}.csv")


def statement_pdf(
    session: Session,
    *,
    district: int,
    reader: Reader,
    year: FiscalYear | None = None,
    booked_by: date | None = None,
) -> Document:
    """The yearly statement for audit (PDF): every receivable and journal entry of the year,
    as the journal stood at the end of ``booked_by`` when given. Kept on the reader's shelf
    by the district's version (every write it shows moves it), the year and ``booked_by``:
    it is laid out before it is asked for (tid/web/account/prepared.py)."""
    shown = district_of(session, district)
    fy = _year(session, shown, year, reader)

    def name() -> str:  # all it shows moves the district's version (versions.WATCHED)
        version = versions.version_of(session=session, district_id=district)
        return f"statement\x00{district}\x00{version}\x00{fy.label}\x00{booked_by}"

    def context() -> dict[str, Any]:
        with reader.speaking():
            return account_reads.statement_context(
                session=session, district=shown, fy=fy, booked_by=booked_by, today=reader.today
            )

    pdf = reader.shelved_pdf(name, "pdf/statement.html", context)
    return Document(pdf, PDF, f"statement-{district}-FY{fy.label}.pdf")


def published_statement_pdf(
    session: Session, *, district: int, reader: Reader, year: FiscalYear | None = None
) -> Document:
    """The yearly statement as a district publishes it (PDF/A): its figures — billed,
    collected, spent by purpose, the administrative cap, the bank — and the receivables by
    age in all, without any property's row (those stay in the statement for audit)."""
    from tid.services.public import district_figures

    shown = district_of(session, district)
    fy = _year(session, shown, year, reader)
    with reader.speaking():
        context = account_reads.statement_page_context(
            session=session, district=shown, fy=fy, booked_by=None, today=reader.today
        )
        figures = district_figures.year_figures(
            session=session, district=shown, fy=fy, today=reader.today
        )
    pdf = reader.pdf("pdf/published_statement.html", figures=figures, **context)
    return Document(pdf, PDF, f"published-statement-{district}-FY{fy.label}.pdf")


def statement_part_csv(
    session: Session,
    *,
    district: int,
    part: str,
    reader: Reader,
    year: FiscalYear | None = None,
    booked_by: date | None = None,
) -> Document:
    """A part of the yearly statement as CSV: its lines (``statement``), the aging of the
    receivables at the year's end (``aging``) or the year's journal (``journal``)."""
    if part not in STATEMENT_PARTS:
        raise InputError("part", N_("There is no such document."))
    shown = district_of(session, district)
    fy = _year(session, shown, year, reader)
    cut = account_reads.booked_cut(booked_by)
    with reader.speaking():
        text = _part_csv(session, district, fy, part, cut)
    return Document(text.encode("utf-8"), CSV, f"{part}-{district}-FY{fy.label}.csv")


def _part_csv(session: Session, district_id: int, fy: FiscalYear, part: str, cut: Any) -> str:
    if part == "aging":
        aging = audit_statement.aging(
            session=session, district_id=district_id, as_of=fy.end, booked_before=cut
        )
        return audit_statement.aging_csv(
            aging,
            fy.end,
            record_names.bill_names(session=session, bill_ids=[r.bill.id for r in aging]),
        )
    if part == "journal":
        purposes = {
            p.id: p.name
            for p in expenditures.purposes(session=session, district_id=district_id)
            if p.id
        }
        chunks = ledger.journal_chunks(
            session=session,
            district_id=district_id,
            since=fy.start,
            until=fy.end,
            booked_before=cut,
        )
        named = (
            (
                rows,
                record_names.bill_names(
                    session=session, bill_ids=record_names.journal_bill_ids(rows)
                ),
            )
            for rows in chunks
        )
        return audit_statement.journal_csv_of(named, purposes)
    return audit_statement.statement_csv(
        audit_statement.statement(
            session=session, district_id=district_id, fy=fy, booked_before=cut
        )
    )


def liens_context(
    session: Session, district: District, view: liens.LienPriority, on: date
) -> dict[str, Any]:
    """A property's liens as its page and its certificate show them (the reasons in the
    reader's language)."""
    return {
        "district": district,
        "prop": view.prop,
        "owners": liens.owner_names(session=session, property_id=view.prop.id or 0),
        "view": view,
        "today": on,
        "reasons": lien_reasons(view),
    }


def lien_reasons(view: liens.LienPriority) -> dict[tuple[Any, str], str]:
    """The reason for each rank of a property's liens, by (lien, part): the rule's own
    (tid/rules/liens.py), said in the reader's language."""
    return {(line.id, line.part): render(line.reason) for line in view.result.ranking}
