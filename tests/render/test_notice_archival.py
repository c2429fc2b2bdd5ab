"""Notices, their print file and the PS 3877 manifest are documents of record: PDF/A with
every font embedded, the language set (the English part of a notice marked), title and
author filled, and the owner's name, amount and access code read back exactly — for names
with accents, ñ, ü and characters outside WinAnsi, on the fast path."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import pytest
from pypdf import PdfReader

from tests.pdf_checks import assert_archival, page_text, pdf_pages, structure
from tests.services.notices.helpers import sample_content as _content
from tid.render import manifest as manifest_render
from tid.render import notice as notice_pdf
from tid.render.layers import amount_text

NAMES = [
    "José Muñoz Peña",
    "Jürgen Müller Güell",
    "Şahin Yılmaz",
    "Nguyễn Văn Thành",
    "王小明",
    "Zoë Ñáñez-Ortíz d'Œuvre",
    "Łukasz Ćwikliński",
]
CODES = ["ABCD-EFGH-JKMN", "PQRS-TUVW-XYZ2", "3456-789A-BCDE", "FGHJ-KMNP-QRST"]


def _notices() -> list[notice_pdf.NoticeContent]:
    return [
        notice_pdf.NoticeContent(
            **{
                **_content(i).__dict__,
                "owner_name": name,
                "association_name": "Asociación Peñuelas Ñ, Inc.",
                "access_code": CODES[i % len(CODES)],
                "amount": Decimal("1234.56") + i,
                "mailing_lines": (f"Calle Muñoz Rivera {i}", "Cataño PR 00962"),
            }
        )
        for i, name in enumerate(NAMES)
    ]


def _english_marked(reader: PdfReader, index: int) -> bool:
    contents = reader.pages[index].get_contents()
    return contents is not None and b"/Lang (en)" in contents.get_data()


def test_every_name_prints_on_the_fast_path_and_reads_back_exactly() -> None:
    contents = _notices()
    assert all(notice_pdf.fits_fixed_layout(c) for c in contents)
    result = notice_pdf.render_notices(contents, workers=1)
    for content, rendered in zip(contents, result.notices, strict=True):
        reader = assert_archival(rendered.pdf, lang="es", author=content.association_name)
        assert reader.metadata is not None and content.number in str(reader.metadata.title)
        text = page_text(reader)
        assert content.owner_name in text
        assert amount_text(content.amount) in text
        assert content.access_code in text
        assert "Cataño PR 00962" in text
        # Spanish page first, then the English one, marked as such.
        assert not _english_marked(reader, 0) and _english_marked(reader, 1)
        assert "IMPOST NOTICE" in reader.pages[1].extract_text()
    merged = assert_archival(result.merged, lang="es", author="Asociación Peñuelas Ñ, Inc.")
    text = page_text(merged)
    assert all(name in text for name in NAMES)


def test_the_print_file_of_several_chunks_is_pdfa_too() -> None:
    contents = _notices()[:4]
    result = notice_pdf.render_notices(contents, workers=1, chunk_size=2)
    assert len(result.chunk_sizes) == 2
    reader = assert_archival(result.merged, lang="es")
    assert len(reader.pages) == result.merged_pages == 8


def test_a_notice_that_flows_is_pdfa_with_its_english_part_marked() -> None:
    long_name = " ".join(["Ñandú Güemes Şahin"] * 12)  # more than its two lines
    content = notice_pdf.NoticeContent(**{**_content(0).__dict__, "owner_name": long_name})
    assert not notice_pdf.fits_fixed_layout(content)
    rendered = notice_pdf.render_notices([content], workers=1).notices[0]
    reader = assert_archival(rendered.pdf, lang="es")
    assert long_name in page_text(reader)
    marks = [_english_marked(reader, i) for i in range(len(reader.pages))]
    assert not marks[0] and marks[-1]
    assert all(marks[marks.index(True) :])  # once English, the rest is English


def test_the_naive_baseline_is_pdfa_as_well() -> None:
    content = _notices()[1]
    reader = assert_archival(notice_pdf.render_one_naive(content), lang="es")
    assert content.owner_name in page_text(reader)


@pytest.mark.parametrize("fast", [True, False])
def test_the_manifest_is_pdfa_in_english(fast: bool) -> None:
    name = "Şahin Nguyễn 王" if fast else " ".join(["Ñandú Güemes"] * 30)
    rows = [
        manifest_render.ManifestRow("9400100000000000000017", name, "Calle Luna 1, Cataño", "N1"),
        manifest_render.ManifestRow("9400100000000000000024", "José Peña", "Calle Sol 2", "N2"),
    ]
    data = manifest_render.render_manifest(
        rows,
        sender_name="Asociación Peñuelas",
        sender_lines=("PO Box 1", "Cataño PR 00962"),
        mailed_on=date(2026, 1, 22),
        postage=Decimal("0.73"),
        fee=Decimal("4.85"),
        batch_label="7",
    )
    reader = assert_archival(data, lang="en", author="Asociación Peñuelas")
    text = page_text(reader)
    assert "José Peña" in text and "$11.16" in text
    assert (name in text) if fast else ("Ñandú Güemes" in text)
    assert len(PdfReader(io.BytesIO(data)).pages) == 1
    # Tagged on both paths: its page a section in English (drawn), or WeasyPrint's tree.
    read = structure(data)
    assert read and read[0].kind == "/Document"
    if fast:
        assert [(e.kind, e.lang) for e in read if e.kind == "/Sect"] == [("/Sect", "en")]
    else:
        assert "/Table" in {e.kind for e in read}


def test_each_owners_notice_is_tagged_in_its_languages_with_the_qr_codes_text() -> None:
    fits = _notices()[0]
    flowing = notice_pdf.NoticeContent(
        **{**_content(1).__dict__, "explanation": "\n".join(f"línea {i}" for i in range(80))}
    )
    assert not notice_pdf.fits_fixed_layout(flowing)
    result = notice_pdf.render_notices([fits, flowing], workers=1)
    assert_archival(result.notices[0].pdf, lang="es")
    fixed = structure(result.notices[0].pdf)
    # A section a page in its language; the owner's values first, the QR code with words a
    # screen reader says, then the form's text.
    sections = [e for e in fixed if e.kind == "/Sect"]
    assert [s.lang for s in sections] == ["es", "en"]
    assert [e.kind for e in fixed if e.depth == 2] == ["/P", "/Figure", "/Div", "/P", "/Div"]
    (figure,) = [e for e in fixed if e.kind == "/Figure"]
    assert figure.alt == f"Código QR del portal del dueño: {fits.portal_url}"
    # The flowing layout: every page a section, the English ones in English.
    pages = pdf_pages(result.notices[1].pdf)
    flowed = [e for e in structure(result.notices[1].pdf) if e.kind == "/Sect"]
    assert len(flowed) == pages and {s.lang for s in flowed} == {"es", "en"}
    assert flowed[0].lang == "es" and flowed[-1].lang == "en"
    # The print file, joined a slice at a time, is not tagged.
    assert structure(result.merged) == []
