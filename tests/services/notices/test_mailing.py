"""Mailing a run: the notices frozen, the PS 3877 manifest archived, its page totals adding up
to its grand total.
"""

from __future__ import annotations

import io
import re
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pypdf import PdfReader
from sqlmodel import Session

from tests.conftest import People
from tests.pdf_checks import pdf_text
from tests.services.notice_support import ACTOR, article
from tests.services.notices.helpers import make_batch
from tid.models import Bill, Notice
from tid.render import manifest as manifest_render
from tid.render.layers import amount_text
from tid.rules.errors import InputError
from tid.services import notices


def test_mailing_freezes_notices_and_archives_the_ps3877_manifest(
    session: Session, people: People
) -> None:
    batch, found = make_batch(session, people, owners=["Ana", "Beto", "Carla"])
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
    manifest = notices.archived_bytes(session=session, sha256=batch.manifest_sha256)
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
    # (the text in reading order: the count after the foot's caption that asks for it)
    assert re.search(
        r"Total general \(3 piezas\) \$2\.19 \$14\.55 \$0\.00 \$16\.74 "
        r"Total Number of Pieces Listed by Sender: 3 ",
        text,
    )
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
