"""The district's yearly report (PDF/A): the year against its approved budget, the
collections, the administrative cap, the carry-over, the next year's approved budget and how
an owner estimates the impost (tid/services/budget/report.py)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from tid.documents.base import PDF, Document, Reader, district_of
from tid.rules.errors import N_
from tid.rules.messages import Message, render
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services.budget import report
from tid.services.public import district_figures
from tid.services.public.declared import public_view

# The steps of a budget's history, as the report names them (the budget page's words).
STEPS = {
    "drafted": N_("drafted"),
    "revised": N_("draft revised"),
    "approved": N_("approved by the board"),
    "amended": N_("amended"),
    "carried": N_("carry-over entered"),
}


def budget_report_pdf(
    session: Session, *, district: int, reader: Reader, year: FiscalYear | None = None
) -> Document:
    """The yearly report of a closed year with an approved budget (by default last year)."""
    shown = district_of(session, district)
    fy = year or FiscalYear(fiscal_year_of(reader.today).start_year - 1)
    with reader.speaking():
        context = report.report_context(session=session, district=shown, fy=fy, today=reader.today)
        steps = {kind: render(Message(label)) for kind, label in STEPS.items()}
    # How an owner estimates the impost: the formula in words, as the public pages give it.
    ordinance = district_figures.ordinance_in_force(session=session, district_id=district)
    names: list[dict[str, Any]] = []
    if ordinance is not None:
        names = district_figures.formula_names(
            ordinance, district_figures.active_run_parameters(session=session, district_id=district)
        )
    pdf = reader.pdf(
        "pdf/budget_report.html",
        steps=steps,
        ordinance=public_view("ordinance", ordinance) if ordinance is not None else None,
        formula_names=names,
        **context,
    )
    return Document(pdf, PDF, f"yearly-report-{district}-FY{fy.label}.pdf")
