"""Records made directly, without the services that check and audit them: what the demo's
older districts, the large district, the tests' scaffolding and the benchmarks start from (a
petition with its ordinance, a roll import, a billing run)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from sqlmodel import Session, SQLModel

from tid.models import BillingRun, Ordinance, Petition, RollImport

Row = TypeVar("Row", bound=SQLModel)


def add(session: Session, row: Row) -> Row:
    """Add ``row`` and flush it, so that it has its id."""
    session.add(row)
    session.flush()
    return row


def ordinance(
    session: Session,
    *,
    municipality_id: int,
    district_id: int,
    district_name: str,
    petitioner: str,
    received_on: date,
    petition: Mapping[str, Any] | None = None,
    **fields: Any,
) -> Ordinance:
    """An ordinance (``fields``: its number, amount, term, formula, dates…) and the petition
    it answers (received on ``received_on``; ``petition``: its other fields), both flushed."""
    asked = add(
        session,
        Petition(
            municipality_id=municipality_id,
            district_name=district_name,
            petitioner=petitioner,
            received_on=received_on,
            **(petition or {}),
        ),
    )
    return add(
        session,
        Ordinance(
            petition_id=asked.id or 0,
            municipality_id=municipality_id,
            district_id=district_id,
            district_name=district_name,
            **fields,
        ),
    )


def roll_import(
    session: Session,
    *,
    district_id: int,
    fiscal_year: str,
    sha256: str,
    rows: int,
    actor: str,
    file_name: str = "roll.csv",
    **fields: Any,
) -> RollImport:
    """A roll file's import record (its property-years are the caller's), flushed."""
    return add(
        session,
        RollImport(
            district_id=district_id,
            fiscal_year=fiscal_year,
            file_name=file_name,
            sha256=sha256,
            rows=rows,
            actor=actor,
            **fields,
        ),
    )


def billing_run(
    session: Session,
    of: Ordinance,
    *,
    fiscal_year: str,
    run_on: date,
    due_date: date,
    fingerprint: str,
    actor: str,
    total: Decimal = Decimal("0"),
    **fields: Any,
) -> BillingRun:
    """The first billing run of ``fiscal_year`` under ordinance ``of`` (its formula and
    expected amount), flushed; the bills are the caller's."""
    return add(
        session,
        BillingRun(
            district_id=of.district_id,
            ordinance_id=of.id or 0,
            fiscal_year=fiscal_year,
            version=1,
            formula=of.formula,
            total=total,
            expected_amount=of.expected_amount,
            run_on=run_on,
            due_date=due_date,
            fingerprint=fingerprint,
            actor=actor,
            **fields,
        ),
    )
