"""The notice's two pages, read back from the PDF: the Spanish page in Spanish and the English
page in English (each its own computation line, fiscal year and "how to pay"), the ordinance
number written once ("Núm. 9", not "Núm. Ord. Núm. 9"), one number for the owner to quote
(the notice's), and the portal's address never broken inside that number — in the fixed
layout and in the flowing one."""

from __future__ import annotations

import html as html_lib
import io
import re
from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest
from pypdf import PdfReader

from tests.pdf_checks import assert_archival
from tid.render import notice as notice_pdf

NUMBER = "2026-000008"
ES_COMPUTED = "0.0035 × valor tasado $280,357.14 = $981.25"
EN_COMPUTED = "0.0035 × assessed value $280,357.14 = $981.25"
ES_PAY = "Cheque o giro a nombre de la Asociación, en su oficina."
EN_PAY = "Check or money order to the Association, at its office."

CONTENT = notice_pdf.NoticeContent(
    number=NUMBER,
    access_code="ABCD-EFGH-JKMN",
    portal_url=f"https://tid.sanjuan.pr.gov/portal?n={NUMBER}",
    issued_on=date(2025, 7, 18),
    kind="initial",
    sender_name="Asociación del Distrito de Condado, Inc.",
    sender_lines=("PO Box 19500", "San Juan PR 00910-1500"),
    association_name="Asociación del Distrito de Condado, Inc.",
    district_name="Distrito de Condado",
    municipality_name="San Juan",
    ordinance_number="Ord. Núm. 9",
    ordinance_issued_on=date(2025, 3, 1),
    ordinance_approved_on=date(2025, 3, 20),
    term_years=5,
    period_label="2025-26",
    cadastral_number="040-012-001-01",
    property_address="Ave. Ashford 1020",
    owner_name="Marta Ríos Colón",
    mailing_lines=("Calle Luna 12", "San Juan PR 00901"),
    amount=Decimal("981.25"),
    explanation=EN_COMPUTED,
    explanation_es=ES_COMPUTED,
    due_on=date(2025, 9, 30),
    how_to_pay=ES_PAY,
    how_to_pay_en=EN_PAY,
    lien_effective_on=date(2010, 1, 15),
)
# A name the fast drawing cannot set (right-to-left): the flowing layout.
FLOWING = replace(CONTENT, owner_name="محمد عبد الله")
# An address long enough to need several lines in the portal box.
LONG_ADDRESS = replace(
    CONTENT,
    portal_url="https://distritos-de-mejoramiento-turistico.municipio-autonomo-de-san-juan"
    f".pr.gov/servicios/portal?n={NUMBER}",
)


def _pages(content: notice_pdf.NoticeContent) -> tuple[str, str]:
    rendered = notice_pdf.render_notices([content], workers=1).notices[0]
    assert_archival(rendered.pdf, lang="es")
    reader = PdfReader(io.BytesIO(rendered.pdf))
    assert len(reader.pages) == 2
    spanish, english = (page.extract_text() or "" for page in reader.pages)
    return spanish, english


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    "content", [CONTENT, FLOWING, LONG_ADDRESS], ids=["fixed", "flowing", "long-address"]
)
def test_each_page_is_in_its_own_language(content: notice_pdf.NoticeContent) -> None:
    assert notice_pdf.fits_fixed_layout(content) is (content is not FLOWING)
    spanish, english = (_flat(t) for t in _pages(content))

    assert "Núm. 9, emitida el 1 de marzo de 2025" in spanish and "Ord." not in spanish
    assert "Año fiscal 2025-26" in spanish and "Fiscal year" not in spanish
    assert ES_COMPUTED in spanish and EN_COMPUTED not in spanish
    assert ES_PAY in spanish and EN_PAY not in spanish
    assert f"Con su pago indique el número de aviso {NUMBER}." in spanish
    for english_words in ("Notice", "Owner's portal", "Access code", "payment reference"):
        assert english_words not in spanish

    assert "No. 9, issued March 1, 2025" in english
    assert "Ord." not in english and "Núm." not in english
    assert "Fiscal year 2025-26" in english and "Año fiscal" not in english
    assert EN_COMPUTED in english and ES_COMPUTED not in english
    assert EN_PAY in english and ES_PAY not in english
    assert f"With your payment quote the notice number {NUMBER}." in english
    for spanish_words in ("Aviso", "Cómo", "Código", "referencia"):
        assert spanish_words not in english


@pytest.mark.parametrize(
    "content", [CONTENT, FLOWING, LONG_ADDRESS], ids=["fixed", "flowing", "long-address"]
)
def test_one_number_and_an_address_never_broken_inside_it(
    content: notice_pdf.NoticeContent,
) -> None:
    spanish, english = _pages(content)
    lines = spanish.splitlines()
    # The address, read back line by line, is the address (broken only between its parts),
    # and its last line holds the whole query with the notice's number.
    query = f"portal?n={NUMBER}"
    holding = [line for line in lines if "?n=" in line]
    assert holding and all(query in line for line in holding)
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("https://"))
    end = next(i for i in range(start, len(lines)) if query in lines[i])
    assert "".join(line.strip() for line in lines[start : end + 1]).endswith(content.portal_url)
    assert end > start or len(content.portal_url) < 60  # the long one did need lines
    # No other reference for the owner to choose from.
    assert not re.search(r"#\d+", spanish + english)


def test_an_ordinance_number_is_printed_without_a_second_prefix() -> None:
    for recorded, printed in (
        ("Ord. Núm. 9", "9"),
        ("Ordenanza Núm. 2025-07", "2025-07"),
        ("No. 14", "14"),
        ("14", "14"),
        ("Ord. 12, Serie 2025-2026", "12, Serie 2025-2026"),
        ("", "—"),
    ):
        assert notice_pdf.ordinance_number(recorded) == printed


def _unmarked(text: str, data: list[str], lang: str) -> str:
    """What ``text`` says outside the marked messages of ``lang`` and outside the data."""
    previous = None
    while previous != text:  # innermost first: a message's parameters may be messages
        previous = text
        text = re.sub(rf"⟦{lang}:[^⟦⟧]*⟧", " ", text)
    for value in sorted(data, key=len, reverse=True):
        text = text.replace(value, " ")
    return re.sub(r"[\W\d_]+", " ", text).strip()


def test_every_word_comes_from_the_catalog_of_its_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a catalog that marks every message with its language (⟦es:…⟧, ⟦en:…⟧), each page
    of a notice — fixed and flowing layouts, and the owner's values drawn over the fixed one —
    says nothing but its own language's messages and the notice's data; the Spanish page's
    only English is the mail's endorsement and the line that points to the English page."""
    monkeypatch.setattr(notice_pdf, "_lookup", lambda lang: lambda msgid: f"⟦{lang}:{msgid}⟧")
    notice_pdf.geometry.cache_clear()
    try:
        content = replace(CONTENT, remailing_of="2026-000001")
        context = notice_pdf._context(content)
        data = [
            str(item)
            for value in context.values()
            for item in (value if isinstance(value, list | tuple) else [value])
        ]
        for flowing, page in (
            (False, '<div class="page" lang="en">'),
            (True, '<div class="side" lang="en">'),
        ):
            html = notice_pdf.notices_html([content], mode="full", flowing=flowing)
            body = html.split("<body>", 1)[1]
            spanish, english = body.split(page, 1)
            for words in ("CERTIFIED MAIL", "English version on the next page."):
                assert spanish.count(f"⟦en:{words}⟧") == 1
                spanish = spanish.replace(f"⟦en:{words}⟧", " ")
            for lang, part in (("es", spanish), ("en", english)):
                text = html_lib.unescape(re.sub(r"<[^>]+>", " ", part))
                assert f"⟦{'en' if lang == 'es' else 'es'}:" not in text
                assert _unmarked(text, data, lang) == ""
        for side in ("es", "en"):
            items = notice_pdf._fill_items(content, side)
            assert None not in items
            drawn = [line for item in items if item is not None for line in item.lines]
            assert any(f"⟦{side}:" in line for line in drawn)
            assert _unmarked(" ".join(drawn), data, side) == ""
    finally:
        notice_pdf.geometry.cache_clear()
