"""Postage and fees per piece: the ones in force on the run's date, changed before printing,
checked field by field; runs numbered from one in each district.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.pdf_checks import pdf_text
from tests.services.notice_support import ACTOR, article
from tests.services.notices.helpers import audit_history, make_batch
from tid.rules.errors import FindingsError, InputError
from tid.rules.messages import render
from tid.services import notices


def test_a_new_run_takes_the_postage_and_fees_in_force_and_is_numbered_in_its_district(
    session: Session, people: People
) -> None:
    batch, _found = make_batch(session, people)
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
    batch, found = make_batch(session, people, owners=["Ana", "Beto", "Carla"])
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
    text = pdf_text(notices.manifest_pdf(session=session, batch=batch))
    # Per piece $0.78 + $5.30 + $4.40 = $10.48; three pieces: $2.34, $15.90, $13.20, $31.44.
    assert text.count("$10.48") == 3
    assert re.search(
        r"Total general \(3 piezas\) \$2\.34 \$15\.90 \$13\.20 \$31\.44 "
        r"Total Number of Pieces Listed by Sender: 3 ",
        text,
    )
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
    archived = pdf_text(notices.archived_bytes(session=session, sha256=batch.manifest_sha256))
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
    first, _found = make_batch(session, people)
    assert first.number == 1
    # one name on its page, its PS Form 3877 and its history, in the reader's language
    assert notices.batch_label(first) == "Notice run 1"
    assert render(notices.batch_label(first), "es") == "Tanda de avisos 1"
    assert notices.next_batch_number(session=session, district_id=people.district.id or 0) == 2
    assert (
        notices.next_batch_number(session=session, district_id=(people.district.id or 0) + 1000)
        == 1
    )
