"""Notices, their print file and the PS 3877 manifest are documents of record: PDF/A with
every font embedded, the language set (the English part of a notice marked), title and
author filled, and the owner's name, amount and access code read back exactly — for names
with accents, ñ, ü and characters outside WinAnsi, on the fast path."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from pypdf import PdfReader
from pypdf.generic import DictionaryObject, IndirectObject

from tests.pdf_checks import (
    assert_archival,
    page_text,
    pdf_pages,
    structure,
    structure_problems,
)
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


def _manifest(rows: list[manifest_render.ManifestRow], **layout: Any) -> bytes:
    """The manifest of ``rows`` mailed by the Peñuelas association on 2026-01-22."""
    return manifest_render.render_manifest(
        rows,
        sender_name="Asociación Peñuelas",
        sender_lines=("PO Box 1", "Cataño PR 00962"),
        mailed_on=date(2026, 1, 22),
        postage=Decimal("0.73"),
        fee=Decimal("4.85"),
        batch_label="7",
        **layout,
    )


@pytest.mark.parametrize("fast", [True, False])
def test_the_manifest_is_pdfa_in_english(fast: bool) -> None:
    name = "Şahin Nguyễn 王" if fast else " ".join(["Ñandú Güemes"] * 30)
    rows = [
        manifest_render.ManifestRow("9400100000000000000017", name, "Calle Luna 1, Cataño", "N1"),
        manifest_render.ManifestRow("9400100000000000000024", "José Peña", "Calle Sol 2", "N2"),
    ]
    data = _manifest(rows)
    reader = assert_archival(data, lang="en", author="Asociación Peñuelas")
    text = page_text(reader)
    assert "José Peña" in text and "$11.16" in text
    assert (name in text) if fast else ("Ñandú Güemes" in text)
    assert len(PdfReader(io.BytesIO(data)).pages) == 1
    # Tagged on both paths (its page a section in English, drawn; or WeasyPrint's tree): the
    # form's name its heading, the book a table with header cells.
    assert structure_problems(data) == []
    read = structure(data, text=fast)
    assert read and read[0].kind == "/Document"
    assert "/Table" in {e.kind for e in read} and "/H1" in {e.kind for e in read}
    if fast:
        assert [(e.kind, e.lang) for e in read if e.kind == "/Sect"] == [("/Sect", "en")]
        said = [(e.kind, e.text) for e in read if e.kind in ("/H1", "/TH", "/TD")]
        assert said[:3] == [("/H1", "PS Form 3877"), ("/TH", "No."), ("/TH", "Article Number")]
        # a row a piece of mail, a cell a value; the totals led by their label
        assert ("/TD", "9400 1000 0000 0000 0000 17") in said and ("/TD", "$11.16") in said
        assert ("/TH", "Total de la página (2 piezas)") in said  # our words: the reader's
        # the captions head their columns, a total's label its row
        assert _header_scopes(data) == ["/Column"] * 7 + ["/Row"] * 2


def _header_scopes(data: bytes) -> list[str]:
    """The scope of each header cell of a tagged PDF, in reading order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        node = node.get_object()
        if node.get("/S") == "/TH":
            found.append(str(node["/A"]["/Scope"]))
        kids = node.get("/K")
        for kid in kids if isinstance(kids, list) else [kids]:
            if isinstance(kid, IndirectObject) and isinstance(kid.get_object(), DictionaryObject):
                walk(kid)

    walk(PdfReader(io.BytesIO(data)).trailer["/Root"]["/StructTreeRoot"])
    return found


def test_each_owners_notice_is_tagged_in_its_languages_with_the_qr_codes_text() -> None:
    fits = _notices()[0]
    flowing = notice_pdf.NoticeContent(
        **{**_content(1).__dict__, "explanation": "\n".join(f"línea {i}" for i in range(80))}
    )
    assert not notice_pdf.fits_fixed_layout(flowing)
    result = notice_pdf.render_notices([fits, flowing], workers=1)
    assert_archival(result.notices[0].pdf, lang="es")
    fixed = structure(result.notices[0].pdf)
    sections = [e for e in fixed if e.kind == "/Sect"]
    assert [s.lang for s in sections] == ["es", "en"]
    (figure,) = [e for e in fixed if e.kind == "/Figure"]
    assert figure.alt == f"Código QR del portal del dueño: {fits.portal_url}"
    # The flowing layout: every page a section, the English ones in English.
    pages = pdf_pages(result.notices[1].pdf)
    flowed = [e for e in structure(result.notices[1].pdf) if e.kind == "/Sect"]
    assert len(flowed) == pages and {s.lang for s in flowed} == {"es", "en"}
    assert flowed[0].lang == "es" and flowed[-1].lang == "en"
    # ... whose structure follows its content, as the flowing layout tagged it: the title
    # and the sections' headings in each language, the facts as a table whose labels are its
    # header cells, the QR code a figure with its text; not a block a page.
    assert structure_problems(result.notices[1].pdf) == []
    read = structure(result.notices[1].pdf, text=True)
    said = " ".join(e.text for e in read)
    headings = [e.kind for e in read if e.kind in ("/H1", "/H2")]
    assert headings.count("/H1") == 2 and headings.count("/H2") == 4, headings
    assert "AVISO DE DERRAMA" in said and "IMPOST NOTICE" in said and "línea 79" in said
    cells = [e.kind for e in read if e.kind in ("/TH", "/TD")]
    assert cells and cells == ["/TH", "/TD"] * (len(cells) // 2)
    (qr,) = [e for e in read if e.kind == "/Figure"]
    assert qr.alt == f"Código QR del portal del dueño: {flowing.portal_url}"
    assert not [e for e in read if e.kind == "/Div" and e.depth == 2 and e.mcids == (0,)]


def _sides(data: bytes) -> list[list[tuple[str, int, str, str]]]:
    """Each page's elements under its section, in reading order: (kind, depth below the
    section, language, the words of its marked content)."""
    sides: list[list[tuple[str, int, str, str]]] = []
    for element in structure(data, text=True):
        if element.kind == "/Sect":
            sides.append([])
        elif element.depth > 1:
            sides[-1].append((element.kind, element.depth - 2, element.lang, element.text))
    return sides


def _table(side: list[tuple[str, int, str, str]]) -> list[tuple[str, str]]:
    """The table's rows read back: (header cell, cell)."""
    cells = [(kind, text) for kind, _depth, _lang, text in side if kind in ("/TH", "/TD")]
    assert [kind for kind, _text in cells] == ["/TH", "/TD"] * (len(cells) // 2)
    return [(cells[i][1], cells[i + 1][1]) for i in range(0, len(cells), 2)]


def test_a_notice_reads_in_order_its_title_table_sections_and_qr_code_in_both_languages() -> None:
    """A screen reader reads an owner's notice as it is laid out: on the Spanish page the
    sender, the owner's number, the QR code (its words), the portal and the address, then the
    title, the facts as a table whose labels are its header cells, each section under its
    heading, the lien and the foot; the English page likewise, in English."""
    content = notice_pdf.NoticeContent(**{**_notices()[0].__dict__, "remailing_of": "2025-000001"})
    assert notice_pdf.fits_fixed_layout(content)
    data = notice_pdf.render_notices([content], workers=1).notices[0].pdf
    spanish, english = _sides(data)
    depth_zero = [(kind, lang) for kind, depth, lang, _text in spanish if depth == 0]
    assert depth_zero == [
        ("/P", ""),
        ("/P", ""),
        ("/P", "en"),
        ("/P", ""),
        ("/Figure", ""),
        ("/P", ""),
        ("/P", ""),
        ("/H1", ""),
        ("/P", ""),
        ("/P", ""),
        ("/Table", ""),
        ("/H2", ""),
        ("/P", ""),
        ("/H2", ""),
        ("/P", ""),
        ("/P", ""),
        ("/P", ""),
        ("/P", ""),
        ("/P", "en"),
    ]
    said = {i: text for i, (_k, depth, _l, text) in enumerate(spanish) if depth == 0}
    words = [said[i] for i in sorted(said)]
    assert words[0].startswith(content.sender_name)
    assert (words[1], words[2]) == ("CORREO CERTIFICADO", "CERTIFIED MAIL")
    assert words[3] == f"Aviso {content.number}"
    assert "Portal del dueño" in words[5] and content.access_code in words[5]
    assert words[6].startswith(content.owner_name) and "Cataño PR 00962" in words[6]
    assert words[7] == "AVISO DE DERRAMA — Distrito"
    assert words[9] == "Este aviso reemplaza el aviso 2025-000001, que fue devuelto."
    assert (words[11], words[12]) == ("Cómo se calculó la cantidad", content.explanation)
    assert (words[13], words[14]) == ("Cómo pagar", content.how_to_pay)
    assert words[15] == f"Con su pago indique el número de aviso {content.number}."
    assert words[18] == "English version on the next page."
    assert _table(spanish) == [
        ("Distrito", "Distrito (San Juan)"),
        (
            "Ordenanza municipal",
            "Núm. 12, emitida el 20 de noviembre de 2025, aprobada por el alcalde el 1 de "
            "diciembre de 2025; vigencia de 5 años",
        ),
        ("Propiedad", f"Número de catastro {content.cadastral_number} {content.property_address}"),
        ("Dueño", content.owner_name),
        ("Periodo", "Año fiscal 2025-26"),
        ("Cantidad a pagar", amount_text(content.amount)),
        ("Fecha de vencimiento", "30 de abril de 2026"),
    ]
    kinds = [kind for kind, depth, _lang, _text in english if depth == 0]
    assert kinds == ["/H1", "/P", "/P", "/Table", "/H2", "/P", "/H2", "/P", "/P", "/P", "/P", "/P"]
    said = {i: text for i, (_k, depth, _l, text) in enumerate(english) if depth == 0}
    words = [said[i] for i in sorted(said)]
    assert words[0] == "IMPOST NOTICE — Distrito"
    assert words[2] == "This notice replaces notice 2025-000001, which was returned."
    assert (words[4], words[6]) == ("How the amount was computed", "How to pay")
    assert words[-1] == f"{content.association_name} · {content.number}"
    assert [row[0] for row in _table(english)] == [
        "District",
        "Municipal ordinance",
        "Property",
        "Owner",
        "Period",
        "Amount due",
        "Due date",
    ]
    assert _table(english)[5:] == [
        ("Amount due", amount_text(content.amount)),
        ("Due date", "April 30, 2026"),
    ]


def test_the_print_file_is_untagged_and_each_owners_notice_across_its_chunks_is_tagged() -> None:
    """The print file of a run of several chunks goes to the printer untagged; each owner's
    own notice, the document a reader opens, reads in its languages with its title."""
    contents = _notices()[:3]
    result = notice_pdf.render_notices(contents, workers=1, chunk_size=1)
    assert result.chunk_sizes == [1, 1, 1]
    assert_archival(result.merged, lang="es")
    assert structure(result.merged) == []
    for single, content in zip(result.notices, contents, strict=True):
        read = structure(single.pdf, text=True)
        assert [e.lang for e in read if e.kind == "/Sect"] == ["es", "en"]
        assert [e.text for e in read if e.kind == "/H1"] == [
            "AVISO DE DERRAMA — Distrito",
            "IMPOST NOTICE — Distrito",
        ]
        assert [e.alt for e in read if e.kind == "/Figure"] == [
            f"Código QR del portal del dueño: {content.portal_url}"
        ]


def test_a_long_manifest_drawn_in_slices_reads_as_the_one_drawn_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A manifest past ``_SLICE_PAGES`` pages is drawn a slice at a time and joined: the
    same document of record, page for page and element for element, as drawn whole."""
    rows = [
        manifest_render.ManifestRow(
            f"94001000000000000{i:05d}", f"Dueño Núñez {i}", f"Calle {i}, Cataño PR", f"N{i}"
        )
        for i in range(1, 12)
    ]

    whole = _manifest(rows, rows_per_page=2)  # 6 pages, one drawing
    monkeypatch.setattr(manifest_render, "_SLICE_PAGES", 4)
    sliced = _manifest(rows, rows_per_page=2)  # slices of 4 and 2 pages, joined
    reader = assert_archival(sliced, lang="en", author="Asociación Peñuelas")
    drawn_whole = PdfReader(io.BytesIO(whole))
    assert len(reader.pages) == len(drawn_whole.pages) == 6
    assert [p.extract_text() for p in reader.pages] == [p.extract_text() for p in drawn_whole.pages]
    assert "Dueño Núñez 11" in reader.pages[5].extract_text()
    assert structure_problems(sliced) == []
    # each slice's pages under its own document element (the tree's roots, a slice each),
    # and under them the same elements in the same order, each reading the same words
    read_sliced, read_whole = structure(sliced, text=True), structure(whole, text=True)
    roots = [e for e in read_sliced if e.kind == "/Document"]
    assert len(roots) == 2 and all(e.depth == 0 for e in roots)
    assert [e for e in read_sliced if e.kind != "/Document"] == [
        e for e in read_whole if e.kind != "/Document"
    ]
    assert [e.kind for e in read_sliced].count("/Table") == 6
