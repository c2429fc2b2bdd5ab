"""The yearly statement's PDF at any district's size: past a hundred rows it holds the year's
figures, the receivables by age and the journal's totals by month and by account — the control
totals of the statement's CSV files, which list the detail — and says so."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader
from sqlmodel import Session

from tests.conftest import People, login
from tests.pdf_checks import assert_archival
from tests.web.account.support import paid_account
from tid.render import pdf
from tid.services.account import account_reads
from tid.services.liens import impost_lien as liens


def _text(data: bytes) -> str:
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages).split())


def _journal_csv(client: FlaskClient, d: int) -> list[dict[str, str]]:
    answer = client.get(f"/account/{d}/statement.csv?fy=2025-26&part=journal")
    assert answer.status_code == 200
    return list(csv.DictReader(io.StringIO(answer.get_data(as_text=True).lstrip("\ufeff"))))


def _layouts(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The HTML of every PDF laid out from here on (none kept from before)."""
    for kept in (Path(app.instance_path) / "prepared").glob("*.pdf"):
        kept.unlink()
    laid_out, made = pdf._made, []

    def counted(html: str, base: str) -> bytes:
        made.append(html)
        return laid_out(html, base)

    monkeypatch.setattr(pdf, "_made", counted)
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))
    return made


def test_a_long_statement_gives_its_totals_and_leaves_the_detail_to_its_csv(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s, _bill = paid_account(session, people, "400.00")
    d = s.district_id
    login(client, people.auditor)
    client.post("/lang/en", data={"next": "/"})
    short = _text(client.get(f"/account/{d}/statement.pdf?fy=2025-26").data)
    assert "Payment $400.00" in short and "Journal by month" in short
    assert "too many to list" not in short
    monkeypatch.setattr(account_reads, "DETAIL_ROWS", 1)  # a district of thousands, say
    made = _layouts(app, monkeypatch)
    page = client.get(f"/account/{d}/statement?fy=2025-26").get_data(as_text=True)
    assert "the statement’s CSV files" in page  # the page says what the PDF holds
    answer = client.get(f"/account/{d}/statement.pdf?fy=2025-26")
    assert answer.status_code == 200 and len(made) == 1  # in the request: it is short
    assert_archival(answer.data, lang="en", tagged=True)
    text = _text(answer.data)
    assert "Payment $400.00" not in text  # no entry listed one by one
    assert "too many to list" in text and "Receivables at" in text and "by age" in text
    # The month's and the year's totals are those of the journal's CSV file.
    rows = _journal_csv(client, d)
    entries = {r[next(iter(r))] for r in rows}
    debit_column = next(k for k in rows[0] if k.lower().startswith("debit"))
    debits = sum((Decimal(r[debit_column] or "0") for r in rows), Decimal("0.00"))
    assert debits > 0 and f"${debits:,.2f}" in text
    assert f"Total {len(entries)} ${debits:,.2f} ${debits:,.2f}" in text


def test_a_long_delinquency_list_gives_its_totals_and_leaves_the_list_to_its_csv(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s, _bill = paid_account(session, people, "400.00")
    d = s.district_id
    login(client, people.auditor)
    client.post("/lang/en", data={"next": "/"})
    short = _text(client.get(f"/account/{d}/delinquency.pdf").data)
    assert "123-456-789-01" in short and "too many to list" not in short
    monkeypatch.setattr(liens, "DETAIL_ROWS", 0)
    made = _layouts(app, monkeypatch)
    page = client.get(f"/account/{d}/delinquency").get_data(as_text=True)
    assert "the bill-by-bill list is the CSV file" in page
    answer = client.get(f"/account/{d}/delinquency.pdf")
    assert answer.status_code == 200 and len(made) == 1
    assert_archival(answer.data, lang="en", tagged=True)
    text = _text(answer.data)
    assert "123-456-789-01" not in text and "too many to list" in text
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(f"/account/{d}/delinquency.csv").get_data(as_text=True))
        )
    )
    owed_column = next(k for k in rows[0] if "impost" in k.lower() or "owed" in k.lower())
    owed = sum((Decimal(r[owed_column]) for r in rows), Decimal("0.00"))
    assert owed == Decimal("600.00")
    assert f"Total {len(rows)} ${owed:,.2f}" in text
    assert "By days late" in text and "By fiscal year" in text
    assert f"2025-26 {len(rows)} ${owed:,.2f}" in text


def test_the_delinquency_is_summed_a_chunk_at_a_time_as_its_rows_add_up(
    session: Session, people: People
) -> None:
    s, _bill = paid_account(session, people, "400.00")
    on = date(2026, 12, 1)
    every = liens.delinquency(session=session, district_id=s.district_id, today=on)
    assert every
    for chunk in (1, 2, 1000):
        totals = liens.delinquency_totals(
            session=session, district_id=s.district_id, today=on, chunk=chunk
        )
        assert totals.total.bills == len(every)
        assert totals.total.owed == sum((r.outstanding for r in every), Decimal("0.00"))
        assert sum(g.bills for g in totals.by_age) == sum(g.bills for g in totals.by_year)
        assert [g.label for g in totals.by_year] == ["2025-26"]
        assert [g.bills for g in totals.by_age if g.label == "over 365"] == [len(every)]
