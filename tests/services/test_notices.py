"""Certified-mail notices of 21 LPRA § 6653(5): rendering, archive, article numbers, mailing
and the PS 3877 manifest, delivery reports and re-mailing, the 30-day clock."""

from __future__ import annotations

import hashlib
import io
import re
from datetime import date
from decimal import Decimal

import pytest
from flask import Flask
from hypothesis import given
from hypothesis import strategies as st
from pypdf import PdfReader
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.notice_support import (
    ACTOR,
    BASE_URL,
    SECRET,
    SENDER,
    article,
    make_ordinance,
    make_run,
    pdf_pages,
    pdf_text,
)
from tid import jobs
from tid.models import ArchivedDocument, AuditEvent, Bill, JobRun, Notice, NoticeBatch
from tid.render import manifest as manifest_render
from tid.render import notice as notice_pdf
from tid.render.layers import amount_text
from tid.rules.errors import FindingsError, InputError
from tid.services import audit, notices, portal

ISSUED = date(2026, 1, 20)


def _batch(session: Session, people: People, **kwargs: object) -> tuple[NoticeBatch, list[Notice]]:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, **kwargs)  # type: ignore[arg-type]
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=billed.run.id or 0,
        issued_on=ISSUED,
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **SENDER,
    )
    session.commit()
    return batch, notices.batch_notices(session, batch.id or 0)


def _code_in(text: str) -> str:
    match = re.search(r"([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})", text)
    assert match, "no access code printed"
    return match.group(1)


def _mail(session: Session, batch: NoticeBatch, found: list[Notice], seed: int = 100) -> None:
    for i, notice in enumerate(found):
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=notice.id or 0, article_number=article(seed + i)
        )
    notices.mail_batch(
        session=session,
        actor=ACTOR,
        batch_id=batch.id or 0,
        mailed_on=date(2026, 1, 22),
        postage="0.73",
        certified_fee="4.85",
        today=date(2026, 1, 22),
    )
    session.commit()


def test_each_owner_gets_a_bilingual_notice_with_the_lien_and_an_archived_pdf(
    session: Session, people: People
) -> None:
    batch, found = _batch(session, people)
    assert batch.notice_count == 2 and len(found) == 2
    assert batch.kind == "initial"  # FY 2025-26 is the ordinance's first year
    for notice in found:
        data = notices.notice_pdf_bytes(session, notice)
        assert hashlib.sha256(data).hexdigest() == notice.pdf_sha256
        assert pdf_pages(data) == notice.page_count == 2  # Spanish page, English page
        text = pdf_text(data)
        assert notice.number in text
        assert "$1,234.56" in text
        assert "30 de abril de 2026" in text and "April 30, 2026" in text
        # The lien of § 6653(8) in both languages, with what it does not secure.
        assert "gravamen legal tácito" in text and "tacit legal lien" in text
        assert "no están garantizados por este gravamen" in text
        assert "are not secured by this lien" in text
        assert "13 LPRA § 5924" in text
        assert "15 de enero de 2010" in text and "January 15, 2010" in text
        assert text.index("AVISO DE DERRAMA") < text.index("IMPOST NOTICE")  # Spanish first
        assert notice.owner_name in text and "URB EL VEDADO" in text
        assert "1% del valor tasado" in text  # the bill's explanation
        # One number for the owner to quote: the notice's (the payments desk finds it).
        assert f"Con su pago indique el número de aviso {notice.number}." in text
        assert f"With your payment quote the notice number {notice.number}." in text
        assert f"#{notice.bill_id}" not in text and "referencia de pago" not in text
        # Only the HMAC of the printed code is kept, and it matches the code on the paper.
        code = _code_in(text)
        assert code not in notice.access_code_hash
        assert notice.access_code_hash == notices.access_code_hash(SECRET, notice.number, code)
    texts = [pdf_text(notices.notice_pdf_bytes(session, n)) for n in found]
    assert found[1].number not in texts[0] and found[0].number not in texts[1]
    merged = notices.archived_bytes(session, batch.print_sha256)
    assert pdf_pages(merged) == 4 == batch.page_count
    # Every bill notified: a second run finds nothing to do.
    with pytest.raises(InputError) as err:
        notices.create_batch(
            session=session,
            actor=ACTOR,
            billing_run_id=batch.billing_run_id,
            issued_on=ISSUED,
            portal_base_url=BASE_URL,
            secret=SECRET,
            workers=1,
            **SENDER,
        )
    assert err.value.field == "billing_run"


def test_the_pool_renders_chunks_and_splits_each_notice_at_its_own_pages() -> None:
    contents = [_content(i) for i in range(5)]
    # 2 workers, chunks of 2: three layouts (2+2+1 → four even chunks of the two workers)
    result = notice_pdf.render_notices(contents, workers=2, chunk_size=2)
    assert sum(result.chunk_sizes) == 5 and len(result.chunk_sizes) == 4
    assert len(result.notices) == 5
    for i, rendered in enumerate(result.notices):
        text = pdf_text(rendered.pdf)
        assert f"2026-{i:06d}" in text
        assert all(f"2026-{j:06d}" not in text for j in range(5) if j != i)
        assert rendered.pages == 2
        assert rendered.sha256 == hashlib.sha256(rendered.pdf).hexdigest()
    assert pdf_pages(result.merged) == 10 == result.merged_pages


def test_a_long_explanation_takes_more_pages_and_the_print_file_keeps_notices_apart() -> None:
    long = notice_pdf.NoticeContent(
        **{**_content(0).__dict__, "explanation": "\n".join(f"line {i}" for i in range(120))}
    )
    result = notice_pdf.render_notices([long, _content(1)], workers=1)
    first, second = result.notices
    assert first.pages >= 3 and second.pages == 2
    assert "2026-000001" in pdf_text(second.pdf) and "line 119" in pdf_text(first.pdf)
    # Each notice starts on a right-hand page of the print file (blank filler if needed).
    assert result.merged_pages % 2 == 0
    assert result.merged_pages >= first.pages + second.pages


def _content(i: int) -> notice_pdf.NoticeContent:
    return notice_pdf.NoticeContent(
        number=f"2026-{i:06d}",
        access_code="ABCD-EFGH-JKMN",
        portal_url=f"{BASE_URL}/portal?n=2026-{i:06d}",
        issued_on=ISSUED,
        kind="initial",
        sender_name="Asociación",
        sender_lines=("PO Box 1", "San Juan PR 00901"),
        association_name="Asociación",
        district_name="Distrito",
        municipality_name="San Juan",
        ordinance_number="12",
        ordinance_issued_on=date(2025, 11, 20),
        ordinance_approved_on=date(2025, 12, 1),
        term_years=5,
        period_label="2025-26",
        cadastral_number=f"040-012-001-{i:02d}",
        property_address="Calle Sol 1",
        owner_name=f"Owner {i}",
        mailing_lines=("Calle Luna 1", "San Juan PR 00901"),
        amount=Decimal("10.00"),
        explanation="1% × $1,000.00 = $10.00",
        due_on=date(2026, 4, 30),
        how_to_pay="Cheque.",
        lien_effective_on=date(2010, 1, 15),
    )


def test_article_numbers_are_validated_and_unique(session: Session, people: People) -> None:
    _, (first, second) = _batch(session, people)
    good = article(7)
    bad_check = good[:-1] + str((int(good[-1]) + 1) % 10)
    with pytest.raises(InputError) as err:
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=first.id or 0, article_number=bad_check
        )
    assert err.value.field == "article_number" and "check digit" in err.value.message
    spaced = " ".join(good[i : i + 4] for i in range(0, 22, 4))
    notices.set_article_number(
        session=session, actor=ACTOR, notice_id=first.id or 0, article_number=spaced
    )
    assert first.article_number == good
    with pytest.raises(InputError) as err:
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=second.id or 0, article_number=good
        )
    assert "already used" in err.value.message
    legacy = article(8, length=20)
    notices.set_article_number(
        session=session, actor=ACTOR, notice_id=second.id or 0, article_number=legacy
    )
    assert second.article_number == legacy


def test_article_numbers_from_csv_all_or_nothing(session: Session, people: People) -> None:
    batch, (first, second) = _batch(session, people)
    bad = f"notice,article\n{first.number},{article(1)}\n{second.number},123\n".encode()
    with pytest.raises(FindingsError) as err:
        notices.import_article_numbers(
            session=session, actor=ACTOR, batch_id=batch.id or 0, data=bad
        )
    assert [f.row for f in err.value.findings] == [3]
    session.rollback()
    assert session.get(Notice, first.id).article_number is None  # nothing written
    twice = f"{first.number};{article(1)}\n{second.number};{article(1)}\n".encode()
    with pytest.raises(FindingsError):
        notices.import_article_numbers(
            session=session, actor=ACTOR, batch_id=batch.id or 0, data=twice
        )
    session.rollback()
    good = f"\ufeffnotice,article\n{first.number},{article(2)}\n{second.number},{article(1)}\n"
    result = notices.import_article_numbers(
        session=session, actor=ACTOR, batch_id=batch.id or 0, data=good.encode()
    )
    assert (result.rows, result.changed) == (2, 2)
    # The same file again changes nothing.
    again = notices.import_article_numbers(
        session=session, actor=ACTOR, batch_id=batch.id or 0, data=good.encode()
    )
    assert (again.changed, again.unchanged) == (0, 2)


def test_mailing_freezes_notices_and_archives_the_ps3877_manifest(
    session: Session, people: People
) -> None:
    batch, found = _batch(session, people, owners=["Ana", "Beto", "Carla"])
    with pytest.raises(InputError) as err:
        notices.mail_batch(
            session=session,
            actor=ACTOR,
            batch_id=batch.id or 0,
            mailed_on=date(2026, 1, 22),
            postage="0.73",
            certified_fee="4.85",
            today=date(2026, 1, 22),
        )
    assert err.value.field == "article_numbers"
    session.rollback()
    # Article numbers given in descending order: the manifest lists them ascending.
    for i, notice in enumerate(found):
        notices.set_article_number(
            session=session,
            actor=ACTOR,
            notice_id=notice.id or 0,
            article_number=article(900 - i),
        )
    notices.mail_batch(
        session=session,
        actor=ACTOR,
        batch_id=batch.id or 0,
        mailed_on=date(2026, 1, 22),
        postage="0.73",
        certified_fee="4.85",
        today=date(2026, 1, 22),
    )
    session.commit()
    assert all(session.get(Bill, n.bill_id).mailed_at is not None for n in found)  # type: ignore[union-attr]
    manifest = notices.archived_bytes(session, batch.manifest_sha256)
    text = pdf_text(manifest)
    assert "PS Form 3877" in text and "Asociación del Viejo San Juan, Inc." in text
    grouped = [" ".join(article(900 - i)[j : j + 4] for j in range(0, 22, 4)) for i in range(3)]
    positions = [text.index(g) for g in sorted(grouped)]
    assert positions == sorted(positions)  # ascending article numbers
    # 3 pieces × ($0.73 + $4.85 = $5.58) = $16.74; postage $2.19, fees $14.55.
    assert "$5.58" in text and "$16.74" in text and "$2.19" in text and "$14.55" in text
    # The grand total, then the pieces listed by the sender (the footer of the form).
    # (No return receipt asked for: its column adds $0.00.)
    # the form's captions are USPS's (English); our totals speak the printer's language
    # (Spanish outside a request)
    assert re.search(r"Total general \(3 piezas\) \$2\.19 \$14\.55 \$0\.00 \$16\.74 3$", text)
    assert "Total Number of Pieces Listed by Sender" in text
    # Frozen: the service refuses, and so does the database layer.
    with pytest.raises(InputError):
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=found[0].id or 0, article_number=article(5)
        )
    notice = session.get(Notice, found[0].id)
    assert notice is not None
    notice.owner_name = "Someone else"
    session.add(notice)
    with pytest.raises(ValueError, match="cannot be changed"):
        session.flush()
    session.rollback()


def test_manifest_pages_have_page_totals_and_a_grand_total() -> None:
    rows = [
        manifest_render.ManifestRow(article(i), f"Owner {i}", "Calle 1, San Juan PR", f"N{i}")
        for i in (5, 3, 1, 4, 2)
    ]
    pages, grand = manifest_render.manifest_pages(
        rows, postage=Decimal("0.73"), fee=Decimal("4.85"), rows_per_page=2
    )
    assert [p["pieces"] for p in pages] == [2, 2, 1]
    assert [r["name"] for p in pages for r in p["rows"]] == [f"Owner {i}" for i in (1, 2, 3, 4, 5)]
    assert pages[0]["total"] == "$11.16"  # 2 × $5.58
    assert pages[2]["total"] == "$5.58"
    assert grand == {
        "pieces": 5,
        "postage": "$3.65",
        "fee": "$24.25",
        "rr": "$0.00",
        "total": "$27.90",
    }
    pdf = manifest_render.render_manifest(
        rows,
        sender_name="Asociación",
        sender_lines=["PO Box 1"],
        mailed_on=date(2026, 1, 22),
        postage=Decimal("0.73"),
        fee=Decimal("4.85"),
        batch_label="1",
        rows_per_page=2,
    )
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 3
    last = reader.pages[2].extract_text()
    assert "Total general (5 piezas)" in last and "$27.90" in last


def test_returned_notice_is_mailed_again_with_a_new_number(
    session: Session, people: People
) -> None:
    batch, found = _batch(session, people)
    _mail(session, batch, found)
    first, second = found
    data = (
        "article,status,date\n"
        f"{first.article_number},delivered,2026-01-25\n"
        f"{second.article_number},returned unclaimed,2026-02-10\n"
    ).encode()
    result = notices.import_deliveries(
        session=session, actor=ACTOR, data=data, today=date(2026, 2, 12), district_ids=None
    )
    assert (result.recorded, result.returned) == (2, [second.number])
    session.commit()
    again = notices.import_deliveries(
        session=session, actor=ACTOR, data=data, today=date(2026, 2, 12), district_ids=None
    )
    assert again.already == 2 and again.recorded == 0
    # Other districts' notices are out of reach of a scoped import.
    with pytest.raises(FindingsError):
        notices.import_deliveries(
            session=session,
            actor=ACTOR,
            data=data,
            today=date(2026, 2, 12),
            district_ids={people.other_district.id or 0},
        )
    session.rollback()
    with pytest.raises(InputError, match="returned"):
        notices.remail_notices(
            session=session,
            actor=ACTOR,
            notice_ids=[first.id or 0],
            issued_on=date(2026, 2, 12),
            portal_base_url=BASE_URL,
            secret=SECRET,
            workers=1,
        )
    remailing = notices.remail_notices(
        session=session,
        actor=ACTOR,
        notice_ids=[second.id or 0],
        issued_on=date(2026, 2, 12),
        portal_base_url=BASE_URL,
        secret=SECRET,
        new_address="Apartado 55\nPonce PR 00731",
        workers=1,
    )
    session.commit()
    (new,) = notices.batch_notices(session, remailing.id or 0)
    assert new.remailing_of_id == second.id and new.bill_id == second.bill_id
    assert new.number != second.number and new.kind == "remailing"
    assert new.mailing_address == "Apartado 55\nPonce PR 00731"
    text = pdf_text(notices.notice_pdf_bytes(session, new))
    assert second.number in text and "Apartado 55" in text
    with pytest.raises(InputError, match="already"):
        notices.remail_notices(
            session=session,
            actor=ACTOR,
            notice_ids=[second.id or 0],
            issued_on=date(2026, 2, 12),
            portal_base_url=BASE_URL,
            secret=SECRET,
            workers=1,
        )


def test_dashboard_counts_owners_not_notified_and_marks_overdue(
    session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    make_run(session, people.district, ordinance, owners=["A", "B", "C"])
    session.commit()
    # Received 2026-01-05 + 30 days = 2026-02-04, a Wednesday: the deadline.
    (row,) = notices.dashboard(
        session, district_ids={people.district.id or 0}, today=date(2026, 1, 20)
    )
    assert row.kind == "initial" and row.bills == 3 and row.not_notified == 3
    assert row.deadline is not None and row.deadline.date == date(2026, 2, 4)
    assert row.days_left == 15 and not row.overdue
    (late,) = notices.dashboard(
        session, district_ids={people.district.id or 0}, today=date(2026, 2, 6)
    )
    assert late.days_left == -2 and late.overdue
    assert (
        notices.dashboard(
            session, district_ids={people.other_district.id or 0}, today=date(2026, 2, 6)
        )
        == []
    )


def test_yearly_notices_are_scheduled_one_year_after_the_last_mailing(
    session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    first = make_run(session, people.district, ordinance, owners=["A", "B"])
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=first.run.id or 0,
        issued_on=ISSUED,
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **SENDER,
    )
    _mail(session, batch, notices.batch_notices(session, batch.id or 0))
    props = [session.get(Bill, b.id).property_id for b in first.bills]  # type: ignore[union-attr]
    from tid.models import Property

    second = make_run(
        session,
        people.district,
        ordinance,
        fiscal_year="2026-27",
        owners=["A", "B"],
        properties=[session.get(Property, p) for p in props],  # type: ignore[misc]
        due=date(2027, 3, 31),
    )
    session.commit()
    # Mailed 2026-01-22; one year later is 2027-01-22, a Friday: the yearly deadline.
    (row,) = [
        r
        for r in notices.dashboard(session, district_ids=None, today=date(2026, 12, 1))
        if r.run.id == second.run.id
    ]
    assert row.kind == "yearly" and row.deadline is not None
    assert row.deadline.date == date(2027, 1, 22)
    too_early = notices.schedule_yearly_notices(
        session=session, today=date(2026, 12, 1), portal_base_url=BASE_URL, secret=SECRET, workers=1
    )
    assert too_early == []  # 52 days ahead, more than the 30-day lead
    made = notices.schedule_yearly_notices(
        session=session,
        today=date(2026, 12, 28),
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
    )
    session.commit()
    assert len(made) == 1 and made[0].kind == "yearly" and made[0].notice_count == 2
    assert made[0].sender_name == SENDER["sender_name"]
    again = notices.schedule_yearly_notices(
        session=session,
        today=date(2026, 12, 29),
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
    )
    assert again == []  # idempotent: every bill has its notice


def test_balance_for_bill_without_journal_is_the_billed_amount(
    session: Session, people: People
) -> None:
    _, found = _batch(session, people)
    bill = session.get(Bill, found[0].bill_id)
    assert bill is not None
    balance = portal.balance_for_bill(session, bill)
    assert (balance.billed, balance.paid, balance.balance) == (
        Decimal("1234.56"),
        Decimal("0.00"),
        Decimal("1234.56"),
    )
    assert not balance.from_ledger


def test_archive_is_content_addressed(session: Session) -> None:
    digest = notices.archive(session, b"%PDF-1.7 test")
    assert notices.archive(session, b"%PDF-1.7 test") == digest
    session.commit()
    rows = session.exec(select(ArchivedDocument).where(ArchivedDocument.sha256 == digest)).all()
    assert len(rows) == 1
    assert notices.archived_bytes(session, digest) == b"%PDF-1.7 test"


def test_the_daily_job_claims_its_day_once(app: Flask, session: Session, people: People) -> None:
    ordinance = make_ordinance(session, people.district)
    first = make_run(session, people.district, ordinance, owners=["A"])
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=first.run.id or 0,
        issued_on=ISSUED,
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **SENDER,
    )
    _mail(session, batch, notices.batch_notices(session, batch.id or 0))
    from tid.models import Property

    prop = session.get(Property, first.bills[0].property_id)
    make_run(
        session,
        people.district,
        ordinance,
        fiscal_year="2026-27",
        owners=["A"],
        properties=[prop],  # type: ignore[list-item]
        due=date(2027, 3, 31),
    )
    session.commit()
    engine = app.extensions["tid.engine"]
    config = {**app.config, "BASE_URL": BASE_URL, "SECRET_KEY": SECRET}
    made = jobs.run_yearly_notices(engine, config, date(2027, 1, 4))
    assert len(made) == 1
    assert jobs.run_yearly_notices(engine, config, date(2027, 1, 4)) == []  # claimed
    session.expire_all()
    run = session.exec(select(JobRun).where(JobRun.job == "yearly_notices")).one()
    assert run.status == "ok" and str(made[0]) in run.detail


def test_texts_that_do_not_fit_the_fixed_layout_flow_and_keep_every_fact() -> None:
    fits = _content(0)
    # A name longer than its places (two lines in the table) takes the flowing layout; so
    # does right-to-left text, which needs pango's shaping.
    long_name = " ".join(["Łukasz Ωmega Ćwik"] * 12)
    odd = notice_pdf.NoticeContent(**{**_content(1).__dict__, "owner_name": long_name})
    assert notice_pdf.fits_fixed_layout(fits) and not notice_pdf.fits_fixed_layout(odd)
    arabic = notice_pdf.NoticeContent(**{**_content(2).__dict__, "owner_name": "محمد عبد الله"})
    assert not notice_pdf.fits_fixed_layout(arabic)
    result = notice_pdf.render_notices([fits, odd], workers=1)
    for content, rendered in zip((fits, odd), result.notices, strict=True):
        text = pdf_text(rendered.pdf)
        naive = pdf_text(notice_pdf.render_one_naive(content))
        for fact in (
            content.number,
            content.owner_name,
            "$10.00",
            "30 de abril de 2026",
            "April 30, 2026",
            "ABCD-EFGH-JKMN",
            "gravamen legal tácito",
            "are not secured by this lien",
        ):
            assert fact in text and fact in naive, (content.number, fact)


@given(
    count=st.integers(min_value=0, max_value=60),
    per_page=st.integers(min_value=1, max_value=20),
    postage=st.integers(min_value=0, max_value=2000),
    fee=st.integers(min_value=0, max_value=2000),
    receipt=st.none() | st.integers(min_value=0, max_value=2000),
)
def test_manifest_page_totals_add_up_to_the_grand_total(
    count: int, per_page: int, postage: int, fee: int, receipt: int | None
) -> None:
    rows = [manifest_render.ManifestRow(article(i), f"O{i}", "A", f"N{i}") for i in range(count)]
    p, f = Decimal(postage) / 100, Decimal(fee) / 100
    r = Decimal(receipt) / 100 if receipt is not None else None
    pages, grand = manifest_render.manifest_pages(
        rows, postage=p, fee=f, return_receipt_fee=r, rows_per_page=per_page
    )

    def amount(text: str) -> Decimal:
        return Decimal(text.replace("$", "").replace(",", ""))

    assert sum(page["pieces"] for page in pages) == grand["pieces"] == count
    for key in ("postage", "fee", "rr", "total"):
        assert sum((amount(page[key]) for page in pages), Decimal(0)) == amount(grand[key])
    assert amount(grand["total"]) == (p + f + (r or 0)) * count
    # Each column's total is its piece amount times the pieces; the columns add to the total.
    assert amount(grand["postage"]) + amount(grand["fee"]) + amount(grand["rr"]) == amount(
        grand["total"]
    )
    for page in pages:
        for row in page["rows"]:
            assert row["rr"] == ("" if r is None else amount_text(r))
    articles = [row["article"] for page in pages for row in page["rows"]]
    assert articles == sorted(articles)


def test_an_archived_document_cannot_be_rewritten(session: Session) -> None:
    digest = notices.archive(session, b"%PDF-1.7 one")
    session.commit()
    document = session.get(ArchivedDocument, digest)
    assert document is not None
    document.content = b"%PDF-1.7 two"
    session.add(document)
    with pytest.raises(ValueError, match="cannot be changed"):
        session.flush()
    session.rollback()


def test_a_new_run_takes_the_postage_and_fees_in_force_and_is_numbered_in_its_district(
    session: Session, people: People
) -> None:
    batch, _found = _batch(session, people)
    # ISSUED 2026-01-20: the USPS prices of 2025-07-13 (district.toml), no return receipt.
    assert (batch.postage, batch.certified_fee, batch.return_receipt_fee) == (
        Decimal("0.78"),
        Decimal("5.30"),
        None,
    )
    assert batch.number == 1
    assert notices.default_fees(date(2025, 1, 1)).certified_fee == Decimal("4.85")
    # Before the first listed price: the first one, not an error.
    assert notices.default_fees(date(2020, 1, 1)).postage == Decimal("0.73")


def test_postage_and_fees_set_before_printing_are_on_the_draft_manifest_with_totals(
    session: Session, people: People
) -> None:
    batch, found = _batch(session, people, owners=["Ana", "Beto", "Carla"])
    for i, notice in enumerate(found):
        notices.set_article_number(
            session=session, actor=ACTOR, notice_id=notice.id or 0, article_number=article(300 + i)
        )
    fees = notices.parse_fees(
        postage="0.78", certified_fee="$5.30", return_receipt=True, return_receipt_fee="4.40"
    )
    notices.set_batch_fees(session=session, actor=ACTOR, batch_id=batch.id or 0, fees=fees)
    session.commit()
    assert fees.per_piece == Decimal("10.48") and fees.total(3) == Decimal("31.44")
    text = pdf_text(notices.manifest_pdf(session, batch))
    # Per piece $0.78 + $5.30 + $4.40 = $10.48; three pieces: $2.34, $15.90, $13.20, $31.44.
    assert text.count("$10.48") == 3
    assert re.search(r"Total general \(3 piezas\) \$2\.34 \$15\.90 \$13\.20 \$31\.44 3$", text)
    # The audit trail has the change with before and after.
    events = [e for e in audit_history(session, batch) if e.action == "notice_batch.fees"]
    assert len(events) == 1 and '"return_receipt_fee": "4.40"' in (events[0].after or "")
    assert '"return_receipt_fee": null' in (events[0].before or "")
    # Mailing keeps them (none given on the mailing form) and archives that manifest.
    notices.mail_batch(
        session=session,
        actor=ACTOR,
        batch_id=batch.id or 0,
        mailed_on=date(2026, 1, 22),
        today=date(2026, 1, 22),
    )
    session.commit()
    archived = pdf_text(notices.archived_bytes(session, batch.manifest_sha256))
    assert "$31.44" in archived and "2026-01-22" in archived
    # Once mailed, the fees cannot change.
    with pytest.raises(InputError):
        notices.set_batch_fees(session=session, actor=ACTOR, batch_id=batch.id or 0, fees=fees)


def test_bad_postage_and_fees_are_named_field_by_field() -> None:
    with pytest.raises(FindingsError) as err:
        notices.parse_fees(
            postage="abc", certified_fee="-1", return_receipt=True, return_receipt_fee="250"
        )
    assert [f.field for f in err.value.findings] == [
        "postage",
        "certified_fee",
        "return_receipt_fee",
    ]
    # Without a return receipt its fee is not read at all.
    fees = notices.parse_fees(
        postage="0.78", certified_fee="5.30", return_receipt=False, return_receipt_fee="x"
    )
    assert fees.return_receipt_fee is None and fees.per_piece == Decimal("6.08")


def test_runs_are_numbered_from_one_in_each_district(session: Session, people: People) -> None:
    first, _found = _batch(session, people)
    assert first.number == 1 and notices.batch_label(first) == "1"
    assert notices.next_batch_number(session, people.district.id or 0) == 2
    assert notices.next_batch_number(session, (people.district.id or 0) + 1000) == 1


def test_the_run_page_filters_by_delivery_status_and_counts_each(
    session: Session, people: People
) -> None:
    batch, found = _batch(session, people, owners=["Ana", "Beto", "Carla", "Dora", "Eva"])
    listing = notices.batch_page(session, batch.id or 0)
    assert listing.counts[notices.NOT_MAILED] == 5 and len(listing.notices) == 5
    _mail(session, batch, found)
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


def audit_history(session: Session, batch: NoticeBatch) -> list[AuditEvent]:
    return audit.history(session, "notice_batch", batch.id)
