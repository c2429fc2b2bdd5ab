"""The print file of a run in several slices, joined a slice at a time: every page of every
slice in order, with its own text, fonts, marks and link, and the whole a document of record
(PDF/A-2u) with the print file's title, language and author."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.pdf_checks import assert_archival
from tests.render.test_notice_archival import _english_marked, _notices
from tid.render import notice as notice_pdf
from tid.render.concat import concatenate

AUTHOR = "Asociación Peñuelas Ñ, Inc."


@pytest.fixture(scope="module")
def slices(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three slices of a run's print file (3, 1 and 3 notices), rendered once."""
    tmp_path = tmp_path_factory.mktemp("slices")
    contents = _notices()
    paths = []
    for n, (start, end) in enumerate([(0, 3), (3, 4), (4, 7)]):
        rendered = notice_pdf.render_notices(contents[start:end], workers=1, chunk_size=2)
        path = tmp_path / f"slice-{n}.pdf"
        path.write_bytes(rendered.merged)
        paths.append(path)
    return paths


def test_the_joined_print_file_has_every_page_of_every_slice_in_order(
    slices: list[Path], tmp_path: Path
) -> None:
    out = io.BytesIO()
    pages = concatenate(slices, out, title=notice_pdf.print_title(), author=AUTHOR)
    data = out.getvalue()
    reader = assert_archival(data, lang="es", author=AUTHOR)
    assert reader.metadata is not None and reader.metadata.title == notice_pdf.print_title()
    originals = [page for path in slices for page in PdfReader(str(path)).pages]
    assert pages == len(reader.pages) == len(originals) == 14
    for n, (joined, original) in enumerate(zip(reader.pages, originals, strict=True)):
        assert joined.extract_text() == original.extract_text(), n
        assert joined.mediabox == original.mediabox
        assert _english_marked(reader, n) == (n % 2 == 1)  # Spanish page, then English
        links = [a.get_object().get("/A", {}).get("/URI") for a in joined.get("/Annots", [])]
        assert links == [
            a.get_object().get("/A", {}).get("/URI") for a in original.get("/Annots", [])
        ]
    strict = PdfReader(io.BytesIO(data), strict=True)  # a sound cross-reference table
    assert len(strict.pages) == 14 and strict.trailer["/Size"] == len(strict.xref[0]) + 1
    # poppler reads it as well, page by page, with nothing to complain about.
    path = tmp_path / "joined.pdf"
    path.write_bytes(data)
    run = subprocess.run(
        ["pdftotext", "-f", "13", "-l", "14", str(path), "-"], capture_output=True, text=True
    )
    assert run.returncode == 0 and run.stderr == "" and "Łukasz Ćwikliński" in run.stdout


def test_the_same_slices_give_the_same_file(slices: list[Path]) -> None:
    first, second = io.BytesIO(), io.BytesIO()
    concatenate(slices, first, title="Avisos / Notices", author=AUTHOR)
    concatenate(slices, second, title="Avisos / Notices", author=AUTHOR)
    assert first.getvalue() == second.getvalue()
    third = io.BytesIO()
    concatenate(slices[::-1], third, title="Avisos / Notices", author=AUTHOR)
    assert PdfReader(third).trailer["/ID"] != PdfReader(first).trailer["/ID"]


def test_nothing_of_the_slices_page_trees_is_left_behind(slices: list[Path]) -> None:
    """Every object written is reached from the catalog or the information dictionary: the
    slices' own page trees and catalogs are not copied."""
    out = io.BytesIO()
    concatenate(slices, out, title="Avisos / Notices", author=AUTHOR)
    reader = PdfReader(io.BytesIO(out.getvalue()))
    reached: set[int] = set()
    waiting = [reader.trailer.raw_get("/Root"), reader.trailer.raw_get("/Info")]
    while waiting:
        value = waiting.pop()
        if hasattr(value, "idnum"):
            if value.idnum in reached:
                continue
            reached.add(value.idnum)
            value = value.get_object()
        if hasattr(value, "items"):
            waiting.extend(v for _k, v in value.items())
        elif isinstance(value, list):
            waiting.extend(value)
    assert reached == set(reader.xref[0])
    objects = [reader.get_object(n) for n in reached]
    assert sum(1 for o in objects if isinstance(o, dict) and o.get("/Type") == "/Pages") == 1


def test_a_tagged_part_keeps_its_structure_and_an_untagged_one_is_read_as_figures(
    slices: list[Path], tmp_path: Path
) -> None:
    from tests.pdf_checks import structure
    from tid.render.layers import layout
    from tid.render.pdf import _made

    html = (
        '<html lang="es"><head><title>Carta</title></head><body><h1>Carta al CRIM</h1>'
        "<table><thead><tr><th>Ordenanza</th><th>Fecha</th></tr></thead>"
        "<tbody><tr><td>Núm. 12</td><td>1 jul 2025</td></tr></tbody></table>"
        '<p><a href="https://example.org/">enlace</a></p></body></html>'
    )
    letter = tmp_path / "letter.pdf"
    letter.write_bytes(_made(html, tmp_path.as_uri() + "/"))
    said = structure(letter.read_bytes())
    # The signed ordinance: an untagged PDF of two pages (a scan, say).
    signed = tmp_path / "signed.pdf"
    signed.write_bytes(
        layout(
            '<html><body><p>Ordenanza</p><p style="break-before: page">Firma</p></body></html>'
        ).write_pdf()
    )
    assert structure(signed.read_bytes()) == []
    out = io.BytesIO()
    pages = concatenate(
        [letter, letter, signed],
        out,
        title="Carta",
        author=AUTHOR,
        figure_alt=lambda n: f"Ordenanza firmada, página {n}",
    )
    data = out.getvalue()
    assert_archival(data, lang="es", author=AUTHOR)
    joined = structure(data)  # checks every page's marked content is in the parent tree
    kinds = [e.kind for e in joined]
    # Both letters' trees, whole and in order, then a figure a page of the untagged part.
    assert kinds[: 2 * len(said)] == [e.kind for e in said] * 2
    assert "/H1" in kinds and "/TH" in kinds and "/Table" in kinds
    figures = [e for e in joined if e.kind == "/Figure"]
    assert pages == 2 + 2 and [f.alt for f in figures] == [
        "Ordenanza firmada, página 1",
        "Ordenanza firmada, página 2",
    ]
    # The link's annotation keeps its place in the joined parent tree.
    reader = PdfReader(io.BytesIO(data))
    keys = sorted(int(p["/StructParents"]) for p in reader.pages)
    assert len(set(keys)) == len(keys) == 4
    # Untagged slices without figures' words: the print file stays untagged.
    plain = io.BytesIO()
    concatenate(slices, plain, title="x", author=AUTHOR)
    assert structure(plain.getvalue()) == []
