"""Hardening of the web: headers and caching, bad input answered with a clear error, exports
safe to open in a spreadsheet, uploads not kept, fiscal years locked by an administrator."""

from __future__ import annotations

import csv
import io
import os
import re
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, func, select

from tests.conftest import People, login, make_test_app
from tests.services.ledger_support import ACTOR, Scaffold
from tests.web.test_roll_billing import _upload
from tid import csv_safe
from tid.demo.roll import roll_csv
from tid.jobs import tasks
from tid.models import JournalEntry
from tid.rules.errors import InputError
from tid.rules.money import MAX_ACCOUNT_AMOUNT, parse_money
from tid.services import ledger
from tid.services.account import payments

INJECTION = "-2+3+cmd|' /C calc'!A0"


def _district_with_bill(session: Session, people: People, owner: str = "Ana") -> tuple[int, int]:
    s = Scaffold(session, people.district)
    bill = s.bill(s.property("123-456-789-01", owner=owner), "1000.00")
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    session.commit()
    return s.district_id, bill.id or 0


def _entries(session: Session) -> int:
    session.expire_all()
    return int(session.exec(select(func.count()).select_from(JournalEntry)).one())


# --------------------------------------------------------------------------- headers


def test_no_page_or_document_is_cached_and_hsts_comes_with_secure_cookies(
    client: FlaskClient, session: Session, people: People, database_url: str, tmp_path: Path
) -> None:
    d, _bill = _district_with_bill(session, people)
    login(client, people.auditor)
    for url in (
        f"/account/{d}",
        f"/account/{d}/statement.csv?fy=2025-26&part=journal",
        f"/account/{d}/delinquency.pdf",
        "/petitions/deadlines.pdf",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["Cache-Control"] == "no-store", url
        assert "Strict-Transport-Security" not in response.headers  # plain HTTP (development)
    static = client.get("/static/tid.css")
    assert "no-store" not in static.headers.get("Cache-Control", "")
    secure = make_test_app(database_url, tmp_path / "secure", SESSION_COOKIE_SECURE=True)
    try:
        answer = secure.test_client().get("/", base_url="https://localhost")
        assert answer.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
        assert answer.headers["Cache-Control"] == "no-store"
    finally:
        secure.extensions["tid.engine"].dispose()


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("typed", ["٥", "５", "5 000", "５.00", "1 234.50", "²", "5e3"])
def test_money_takes_only_the_documented_formats(typed: str) -> None:
    with pytest.raises(InputError):
        parse_money(typed, "amount")


@pytest.mark.parametrize(
    ("typed", "value"), [("5", "5"), ("1,234.50", "1234.50"), ("$1,234.5", "1234.5"), (" 7 ", "7")]
)
def test_money_documented_formats_still_read(typed: str, value: str) -> None:
    assert parse_money(typed, "amount") == Decimal(value)


def test_a_payment_form_refuses_foreign_digits_and_amounts_past_the_maximum(
    client: FlaskClient, session: Session, people: People
) -> None:
    d, bill = _district_with_bill(session, people)
    login(client, people.association)
    form = {"date": "2025-08-01", "notice_number": str(bill), "token": "a1"}
    for amount in ("５", "٥", "5 000", "1,000,000,000.00"):
        response = client.post(f"/account/{d}/payments", data={**form, "amount": amount})
        assert response.status_code == 422, amount
        assert 'id="e-amount"' in response.get_data(as_text=True)
    over = client.post(f"/account/{d}/payments", data={**form, "amount": "1,000,000,000.00"})
    assert "a lo sumo 999,999,999.99" in over.get_data(as_text=True)
    assert _entries(session) == 1  # the bill only


def test_a_hundred_largest_payments_add_up_exactly_on_every_page(
    client: FlaskClient, session: Session, people: People
) -> None:
    d, bill = _district_with_bill(session, people)
    for i in range(100):
        payments.record_payment(
            session=session,
            actor=ACTOR,
            district_id=d,
            paid_on=date(2025, 8, 1),
            amount=MAX_ACCOUNT_AMOUNT,
            today=date(2025, 8, 2),
            key=f"big-{i}",
            notice_number=str(bill),
        )
    session.commit()
    assert (
        ledger.balance(session=session, district_id=d, account=ledger.BANK)
        == MAX_ACCOUNT_AMOUNT * 100
    )
    login(client, people.auditor)
    for url in (
        f"/account/{d}?fy=2025-26",
        f"/account/{d}/statement?fy=2025-26",
        f"/account/{d}/statement.csv?fy=2025-26&part=statement",
        f"/account/{d}/bank",
        f"/account/{d}/delinquency",
        f"/account/{d}/properties/1/liens",
    ):
        assert client.get(url).status_code == 200, url
    with pytest.raises(InputError):
        ledger.post_entry(
            session=session,
            actor=ACTOR,
            district_id=d,
            entry_date=date(2025, 8, 1),
            kind="payment",
            memo="",
            key="too-big",
            lines=[
                ledger.Line(ledger.BANK, MAX_ACCOUNT_AMOUNT + Decimal("0.01")),
                ledger.Line(ledger.OWNER_CREDIT, -(MAX_ACCOUNT_AMOUNT + Decimal("0.01"))),
            ],
        )


def test_a_payment_sent_without_its_form_token_is_refused_every_time(
    client: FlaskClient, session: Session, people: People
) -> None:
    d, bill = _district_with_bill(session, people)
    login(client, people.association)
    form = {"date": "2025-08-01", "amount": "10.00", "notice_number": str(bill)}
    for _ in range(20):
        response = client.post(f"/account/{d}/payments", data=form)
        assert response.status_code == 422
    assert "código de un solo uso" in client.post(
        f"/account/{d}/payments", data=form, headers={"Accept-Language": "en"}
    ).get_data(as_text=True)
    expense = {"date": "2025-08-01", "amount": "10.00", "payee": "X", "category": "admin"}
    assert client.post(f"/account/{d}/expenditures", data=expense).status_code == 422
    assert _entries(session) == 1  # the bill only
    booked = client.post(f"/account/{d}/payments", data={**form, "token": "tok-1"})
    assert booked.status_code == 302 and _entries(session) == 2


def test_a_huge_csv_cell_is_a_row_error_in_every_file(
    client: FlaskClient, session: Session, people: People
) -> None:
    d, bill = _district_with_bill(session, people)
    login(client, people.association)
    huge = "x" * 140_000
    deposits = f"fecha,monto,referencia,aviso\n2025-08-01,1.00,{huge},{bill}\n".encode()
    response = client.post(
        f"/account/{d}/payments/import",
        data={"file": (io.BytesIO(deposits), "banco.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422 and "Fila 2" in response.get_data(as_text=True)
    delivery = f"article,status,date\n9400100000000000000001,{huge},2026-02-01\n".encode()
    response = client.post(
        "/notices/deliveries",
        data={"file": (io.BytesIO(delivery), "usps.csv")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert response.status_code == 422 and "CSV" in response.get_data(as_text=True)
    assert _entries(session) == 1


# --------------------------------------------------------------------------- exports


def test_csv_cells_are_escaped_by_column_not_by_pattern() -> None:
    body = csv_safe.write(
        ["memo", "amount"],
        [(INJECTION, "-2.50"), ("=1+1", "400.00"), ("@SUM(A1)", 7), ("\tx", None), ("ok", "-3")],
        numbers={"amount"},
    )
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[1] == ["'" + INJECTION, "-2.50"]  # a number column keeps its minus sign
    assert rows[2] == ["'=1+1", "400.00"]
    assert rows[3] == ["'@SUM(A1)", "7"]
    assert rows[4] == ["'\tx", ""]
    assert rows[5] == ["ok", "-3"]
    # A text cell that looks like a number is still text: "-5" in a memo is escaped.
    assert csv_safe.text_cell("-5") == "'-5"


def test_account_exports_escape_what_people_typed(
    client: FlaskClient, session: Session, people: People
) -> None:
    d, bill = _district_with_bill(session, people, owner=INJECTION)
    login(client, people.association)
    paid = client.post(
        f"/account/{d}/payments",
        data={"date": "2025-08-01", "amount": "400.00", "notice_number": str(bill), "token": "t9"},
    )
    assert paid.status_code == 302
    entry = session.exec(select(JournalEntry).where(JournalEntry.kind == "payment")).one()
    client.post(
        f"/account/{d}/entries/{entry.id}/reverse", data={"date": "2025-08-02", "reason": INJECTION}
    )
    journal = client.get(f"/account/{d}/statement.csv?fy=2025-26&part=journal")
    rows = list(csv.DictReader(io.StringIO(journal.get_data(as_text=True))))
    # headed and labelled in the reader's language (Spanish)
    memos = [r["Concepto"] for r in rows if r["Clase"] == "Reverso"]
    assert memos and all(m.startswith("Reversa el asiento") for m in memos)
    assert all(not m.startswith(("=", "+", "-", "@")) for m in (r["Concepto"] for r in rows))
    credits = [r["Crédito"] for r in rows if r["Crédito"]]
    assert "400.00" in credits and all(not c.startswith("'") for c in credits)
    delinquent = client.get(f"/account/{d}/delinquency.csv")
    owners = [r["Dueños"] for r in csv.DictReader(io.StringIO(delinquent.get_data(as_text=True)))]
    assert owners == ["'" + INJECTION]


def test_calculator_csv_escapes_text_columns_and_keeps_numbers(client: FlaskClient) -> None:
    from tid.documents import calc_tables as results

    result = {
        "liens": [
            {"holder": INJECTION, "amount": "-10.00", "rank": 1},
            {"holder": "Banco", "amount": "250.00", "rank": 2},
        ],
        "total": "240.00",
        "note": "=HYPERLINK()",
        "warnings": ["-careful"],
    }
    rows = list(csv.reader(io.StringIO(results.result_csv(result))))
    flat = [cell for row in rows for cell in row]
    assert "'" + INJECTION in flat and INJECTION not in flat
    assert "-10.00" in flat and "250.00" in flat and "240.00" in flat
    assert "'=HYPERLINK()" in flat and "'-careful" in flat


# --------------------------------------------------------------------------- keeping data


def test_an_imported_roll_file_is_deleted_and_a_stale_upload_expires(
    client: FlaskClient, people: People, app: Flask
) -> None:
    login(client, people.association)
    district_id = people.district.id or 0
    folder = Path(app.instance_path) / "uploads"
    token = _upload(client, district_id, roll_csv(5))
    assert (folder / f"{token}.csv").exists()
    assert client.post(f"/roll/{district_id}/import/{token}/commit").status_code == 302
    assert (folder / f"{token}.csv").exists()  # until the job has imported it
    assert tasks.run_pending(app) == 1
    assert list(folder.iterdir()) == []
    again = client.post(f"/roll/{district_id}/import/{token}/commit", follow_redirects=True)
    assert again.status_code == 200
    rejected = _upload(client, district_id, b"no,roll,here\n1,2,3\n")
    assert client.get(f"/roll/{district_id}/import/{rejected}").status_code == 422
    old = time.time() - 25 * 3600
    for path in folder.iterdir():
        os.utime(path, (old, old))
    assert client.get(f"/roll/{district_id}/import/{rejected}").status_code == 404
    assert list(folder.iterdir()) == []


def test_only_an_admin_locks_a_closed_year_and_then_it_takes_no_backdated_payment(
    client: FlaskClient, session: Session, people: People
) -> None:
    d, bill = _district_with_bill(session, people)
    login(client, people.admin)
    page = client.get(f"/account/{d}/statement?fy=2025-26").get_data(as_text=True)
    assert "year_lock" not in page and f"/account/{d}/years/2025-26/lock" in page
    assert client.post(f"/account/{d}/years/2025-26/lock").status_code == 302
    assert "bloqueado" in client.get(f"/account/{d}/statement?fy=2025-26").get_data(as_text=True)
    refused = client.post(
        f"/account/{d}/payments",
        data={"date": "2026-06-30", "amount": "5.00", "notice_number": str(bill), "token": "L1"},
    )
    assert refused.status_code == 422 and "bloqueó" in refused.get_data(as_text=True)
    assert _entries(session) == 1
    fresh = client.get(f"/account/{d}/statement?fy=2026-27").get_data(as_text=True)
    assert f"/account/{d}/years/2026-27/lock" not in fresh  # the open year cannot be locked
    client.post("/logout")
    login(client, people.association)
    assert client.post(f"/account/{d}/years/2025-26/lock", data={"unlock": "1"}).status_code == 403
    assert "bloqueado" in client.get(f"/account/{d}/statement?fy=2025-26").get_data(as_text=True)
    assert (
        re.search(
            r"years/2025-26/lock",
            client.get(f"/account/{d}/statement?fy=2025-26").get_data(as_text=True),
        )
        is None
    )


def test_a_huge_cell_in_the_article_number_file_names_its_row(
    session: Session, people: People
) -> None:
    from tests.services.notice_support import BASE_URL, SECRET, SENDER, make_ordinance, make_run
    from tid.rules.errors import FindingsError
    from tid.services import notices

    billed = make_run(session, people.district, make_ordinance(session, people.district))
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=billed.run.id or 0,
        issued_on=date(2026, 1, 20),
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **SENDER,
    )
    session.commit()
    (first, *_rest) = notices.batch_notices(session=session, batch_id=batch.id or 0)
    data = f"notice,article\n{first.number},{'9' * 140_000}\n".encode()
    with pytest.raises(FindingsError) as found:
        notices.import_article_numbers(
            session=session, actor=ACTOR, batch_id=batch.id or 0, data=data
        )
    assert [(f.field, f.row) for f in found.value.findings] == [("file", 2)]


def test_the_database_backups_uploads_and_mail_are_for_the_apps_user_alone(
    tmp_path: Path,
) -> None:
    """Files 0600 and folders 0700, even under a umask that would let everyone read them."""
    import stat

    from sqlmodel import SQLModel

    from tid import mail
    from tid.db import make_engine
    from tid.services.installation import backup
    from tid.services.roll import uploads

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    old = os.umask(0o022)
    try:
        instance = tmp_path / "fresh" / "instance"
        database = tmp_path / "data" / "tid.sqlite"
        app = make_test_app(f"sqlite:///{database}", tmp_path, INSTANCE_PATH=str(instance))
        engine = make_engine(f"sqlite:///{database}")
        SQLModel.metadata.create_all(engine)
        with engine.connect():
            assert mode(database) == 0o600 and mode(database.parent) == 0o700
            assert mode(Path(f"{database}-wal")) == 0o600
        target = tmp_path / "backups" / "tid.tar.gz"
        target.parent.mkdir()
        backup.backup(engine, f"sqlite:///{database}", target)
        assert mode(target) == 0o600
        engine.dispose()
        app.extensions["tid.engine"].dispose()
        assert mode(instance) == 0o700
        kept = instance / "uploads"
        token = uploads.store_upload(kept, b"a,b\n1,2\n", meta={"user_id": 1})
        assert mode(kept) == 0o700
        assert {mode(p) for p in kept.iterdir()} == {0o600} and (kept / f"{token}.csv").exists()
        message = mail.keep_message(instance / "mail", b"Subject: hi\r\n\r\nhello\r\n")
        assert mode(message) == 0o600 and mode(message.parent) == 0o700
    finally:
        os.umask(old)
