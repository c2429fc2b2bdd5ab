"""The special account's demo: deposits of a month imported, expenditures within the cap, a
delinquent property with other liens; a second load changes nothing (tests/demo/test_load.py)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from flask import Flask
from sqlmodel import Session, select

from tid.demo import ACCOUNT_DISTRICT, ACCOUNT_USER, demo_deposits_path
from tid.models import District, PropertyLien, User
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import audit_statement
from tid.services.liens import impost_lien as liens


def test_the_account_demo_books_a_month_within_the_cap(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    config = app.config
    district = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    d = district.id or 0
    path = demo_deposits_path(config)
    assert path == Path(app.instance_path) / "demo" / "deposits-condado-2025-09.csv"
    assert path.read_text().startswith("fecha,monto,referencia")
    # a deposit names its bill by the notice's number, as the owner quotes it, never an id
    quoted = [line.split(",")[4] for line in path.read_text().splitlines()[1:]]
    assert quoted and all(re.fullmatch(r"\d{4}-\d{6}|", q) for q in quoted), quoted
    figures = ledger.cap_figures(session=session, district_id=d, fy=FiscalYear(2025))
    assert figures.revenue > 0 and 0 < figures.admin <= figures.rate * figures.revenue
    late = liens.delinquency(session=session, district_id=d, today=date(2025, 12, 1))
    assert len(late) == 2
    assert session.exec(select(User).where(User.email == ACCOUNT_USER)).one().district_id == d
    assert len(session.exec(select(PropertyLien)).all()) == 3
    check = audit_statement.bank_checks(session=session, district_id=d)[0]
    assert check.difference == -35  # the bank's fee, not booked: reported − booked
