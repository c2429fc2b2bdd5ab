"""A billing run's notices (21 LPRA § 6653(5)): one bilingual notice per owner with the lien,
its archived PDF, its access code; the owner's balance before any payment.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.pdf_checks import pdf_pages, pdf_text
from tests.services.notice_support import ACTOR, BASE_URL, ISSUED, SECRET, SENDER
from tests.services.notices.helpers import code_in, make_batch
from tid.models import Bill
from tid.rules.errors import InputError
from tid.services import notices
from tid.services.owners import portal


def test_each_owner_gets_a_bilingual_notice_with_the_lien_and_an_archived_pdf(
    session: Session, people: People
) -> None:
    batch, found = make_batch(session, people)
    assert batch.notice_count == 2 and len(found) == 2
    assert batch.kind == "initial"  # FY 2025-26 is the ordinance's first year
    for notice in found:
        data = notices.notice_pdf_bytes(session=session, notice=notice)
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
        code = code_in(text)
        assert code not in notice.access_code_hash
        assert notice.access_code_hash == notices.access_code_hash(SECRET, notice.number, code)
    texts = [pdf_text(notices.notice_pdf_bytes(session=session, notice=n)) for n in found]
    assert found[1].number not in texts[0] and found[0].number not in texts[1]
    merged = notices.archived_bytes(session=session, sha256=batch.print_sha256)
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


def test_balance_for_bill_without_journal_is_the_billed_amount(
    session: Session, people: People
) -> None:
    _, found = make_batch(session, people)
    bill = session.get(Bill, found[0].bill_id)
    assert bill is not None
    balance = portal.balance_for_bill(session=session, bill=bill)
    assert (balance.billed, balance.paid, balance.balance) == (
        Decimal("1234.56"),
        Decimal("0.00"),
        Decimal("1234.56"),
    )
    assert not balance.from_ledger
