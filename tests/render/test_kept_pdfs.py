"""A PDF whose HTML was laid out before in this process is given again at once; another HTML
(another figure, another day) is laid out anew; the kept PDFs stay within their bytes."""

from __future__ import annotations

import pytest

from tid.render import pdf


def test_the_same_html_is_laid_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def lay_out(html: str, base: str) -> bytes:
        made.append(html)
        return f"%PDF {len(made)}".encode()

    monkeypatch.setattr(pdf, "_made", lay_out)
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(1000))
    first = pdf.html_to_pdf("<p>Total $100.00</p>")
    assert pdf.html_to_pdf("<p>Total $100.00</p>") == first and len(made) == 1
    assert pdf.html_to_pdf("<p>Total $100.01</p>") != first and len(made) == 2
    assert pdf.html_to_pdf("<p>Total $100.00</p>", base_url="file:///elsewhere/") != first


def test_the_kept_pdfs_stay_within_their_bytes() -> None:
    kept = pdf._Kept(400)
    for i in range(10):
        kept.put(str(i), bytes(90))
    assert kept.size <= 400 and kept.get("0") is None and kept.get("9") is not None
    kept.put("huge", bytes(200))  # more than a quarter of the budget: not kept
    assert kept.get("huge") is None


def test_a_real_statement_pdf_made_twice_is_the_same_document() -> None:
    html = '<!doctype html><html lang="es"><title>Estado</title><p>Estado anual</p></html>'
    pdf._kept.clear()
    assert pdf.html_to_pdf(html) == pdf.html_to_pdf(html)
