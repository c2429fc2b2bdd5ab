"""Every number a page shows is one its reader can use: a bill by the number of its notice
(or, before it has one, its property and fiscal year), a notice run by one name on its page,
its PS Form 3877 and its history, the owner's payment reference by the notice's number; and
the history shows labels and formatted values, never a field's key or a database id."""

from __future__ import annotations

import io
import re

from flask import Flask
from pypdf import PdfReader
from sqlmodel import Session, select

from tests.conftest import login
from tests.pdf_checks import page_text
from tests.web.test_crawl import demo  # noqa: F401 - the demo, loaded
from tests.web.test_pseudo_locale import html_texts
from tid.demo import DEMO_PASSWORD
from tid.models import Bill, District, JournalEntry, Notice, NoticeBatch
from tid.services.audit_trail.record_names import bill_name, bill_names

TREASURER = "asociacion.condado@demo.tid.pr"
AUDITOR = "auditor@demo.tid.pr"


def _text(page: str) -> str:
    return " | ".join(t.strip() for t in html_texts(page) if t.strip())


def test_a_bill_is_named_by_its_notice_or_its_property_and_year(demo: Flask) -> None:  # noqa: F811
    with Session(demo.extensions["tid.engine"]) as session:
        notice = session.exec(select(Notice).order_by(Notice.id)).first()  # type: ignore[arg-type]
        assert notice is not None
        names = bill_names(session=session, bill_ids=[notice.bill_id, None, 10**9])
        assert names == {notice.bill_id: notice.number}
        unmailed = session.exec(
            select(Bill).where(Bill.id.not_in(select(Notice.bill_id)))  # type: ignore[union-attr]
        ).first()
        if unmailed is not None:
            name = bill_names(session=session, bill_ids=[unmailed.id])[unmailed.id or 0]
            assert unmailed.fiscal_year in name and str(unmailed.id) != name
    assert str(bill_name("2026-27", "040-010-000-48")) == "040-010-000-48, FY 2026-27"
    assert "billing 2" in bill_name("2026-27", "040-010-000-48", 2)


def test_pages_name_bills_and_runs_as_people_do(demo: Flask) -> None:  # noqa: F811
    with Session(demo.extensions["tid.engine"]) as session:
        condado = session.exec(select(District).where(District.name.contains("Condado"))).one()  # type: ignore[attr-defined]
        batch = session.exec(
            select(NoticeBatch).where(NoticeBatch.district_id == condado.id)
        ).first()
        assert batch is not None
        payment = session.exec(
            select(JournalEntry).where(
                JournalEntry.district_id == condado.id, JournalEntry.kind == "payment"
            )
        ).first()
        assert payment is not None
    district = condado.id
    treasurer = demo.test_client()
    login(treasurer, TREASURER, DEMO_PASSWORD)

    journal = _text(treasurer.get(f"/account/{district}/journal").get_data(as_text=True))
    # the Bill column and the memos: the notice's number, never the bill's id
    assert re.search(r"Imposición del año fiscal 2025-26, factura 2025-0000\d\d", journal)
    assert not re.search(r"factura \d{1,4}(?![\d-])", journal)
    assert "Datos de demostración" in journal and "demo loader" not in journal
    payments = _text(treasurer.get(f"/account/{district}/payments").get_data(as_text=True))
    assert re.search(r"Pago de \$[\d,]+\.\d\d, ref\. CDO-", payments), payments[:3000]

    delinquency = treasurer.get(f"/account/{district}/delinquency").get_data(as_text=True)
    cells = re.findall(r'data-label="Factura">([^<]*)<', delinquency)
    assert cells and all(re.fullmatch(r"\d{4}-\d{6}", c) for c in cells), cells
    pdf = treasurer.get(f"/account/{district}/delinquency.pdf")
    text = page_text(PdfReader(io.BytesIO(pdf.get_data())))
    assert all(c in text for c in cells)

    run = treasurer.get(f"/notices/batches/{batch.id}").get_data(as_text=True)
    assert f"Tanda de avisos {batch.number}" in _text(run)
    # the association reads no history: its page offers none
    assert "/audit/" not in run
    manifest = treasurer.get(f"/notices/batches/{batch.id}/manifest.pdf")
    if manifest.status_code == 200 and manifest.mimetype == "application/pdf":
        # the PS Form 3877 as archived when the run was mailed, in its mailer's language
        assert f"Tanda de avisos {batch.number}" in page_text(
            PdfReader(io.BytesIO(manifest.get_data()))
        )

    auditor = demo.test_client()
    login(auditor, AUDITOR, DEMO_PASSWORD)
    history = _text(auditor.get(f"/audit/notice_batch/{batch.id}").get_data(as_text=True))
    assert f"Registro de auditoría: Tanda de avisos {batch.number}" in history
    for key in ("how_to_pay_en", "print_sha256", "manifest_sha256", "yearly", "demo loader"):
        assert key not in history, key
    assert "Cómo pagar (en inglés)" in history and "Datos de demostración" in history
    assert re.search(r"Franqueo \| \$0\.\d\d", history)
    assert "Facturación 2025-26, versión 1" in history  # the run it issued, by its name
    entry = _text(auditor.get(f"/audit/journal_entry/{payment.id}").get_data(as_text=True))
    assert "Asiento anotado: Pago" in entry and "Cuenta: Banco" in entry
    for key in ("idempotency_key", "impost_revenue", "None", "bill_id", "1580.00"):
        assert key not in entry, key
