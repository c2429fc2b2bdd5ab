"""A file's type read from its bytes, never from its name; its words for the search."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests import legislature_files as files
from tid.rules import file_content, file_text
from tid.rules.errors import InputError


def _zip(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (files.pdf(), "pdf"),
        (files.png(), "png"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 20, "jpeg"),
        (b"II*\x00" + b"\x00" * 20, "tiff"),
        (files.docx(), "docx"),
        (files.odt(), "odt"),
        (_zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<w/>"}), "xlsx"),
        (
            _zip(
                {
                    "mimetype": b"application/vnd.oasis.opendocument.spreadsheet",
                    "content.xml": b"<table:table-row>1</table:table-row>",
                }
            ),
            "ods",
        ),
        ("catastro;dueño\n123;José\n".encode("cp1252"), "csv"),
    ],
)
def test_each_accepted_type_is_read_from_its_content(data: bytes, code: str) -> None:
    assert file_content.file_type(data).code == code


@pytest.mark.parametrize(
    "data",
    [
        b"MZ\x90\x00\x03\x00",
        b"<!doctype html><script>alert(1)</script>",
        b"<svg onload=alert(1)>",
        _zip({"a.txt": b"hello"}),
        _zip({"[Content_Types].xml": b"<Types/>"}),
        b"PK\x03\x04broken",
    ],
)
def test_anything_else_is_refused(data: bytes) -> None:
    with pytest.raises(InputError):
        file_content.file_type(data)


def test_the_words_inside_each_kind_are_read() -> None:
    assert "comisión" in file_text.extract(files.pdf("Informe de la comisión"), "pdf").text
    assert file_text.extract(files.docx("Plano"), "docx").text == "Plano"
    assert file_text.extract(files.odt("Carta"), "odt").text == "Carta"
    scan = file_text.extract(files.png(), "png")
    assert not scan.has_text


@pytest.mark.parametrize("name", ["a/b.pdf", "..", "c:\\x.pdf", "x\x00.pdf", "r\u202efdp.exe", ""])
def test_a_bad_name_is_refused(name: str) -> None:
    with pytest.raises(InputError):
        file_content.clean_name(name)


def test_a_good_name_is_kept() -> None:
    assert file_content.clean_name("  Ordenanza núm. 14 (firmada).pdf ") == (
        "Ordenanza núm. 14 (firmada).pdf"
    )


def test_the_upload_check_counts_a_package_without_holding_its_parts() -> None:
    """A DOCX of some tens of KB holding 20 MB of XML: the check inflates every part
    within its bound a megabyte at a time, and holds none of it whole."""
    import tracemalloc

    data = files.docx_of_words(20)
    tracemalloc.start()
    try:
        assert file_content.file_type(data).code == "docx"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20, peak


def test_a_file_is_named_with_the_extension_of_its_content() -> None:
    csv, pdf, jpeg = (file_content.TYPES[c] for c in ("csv", "pdf", "jpeg"))
    assert file_content.named_for("falso.pdf", csv) == "falso.csv"
    assert file_content.named_for("acta", pdf) == "acta.pdf"
    assert file_content.named_for("acta.final", pdf) == "acta.final.pdf"
    assert file_content.named_for("foto.JPEG", jpeg) == "foto.JPEG"
    assert file_content.named_for("datos.txt", csv) == "datos.csv"
    long = file_content.named_for("a" * 200, pdf)
    assert len(long) == file_content.MAX_NAME and long.endswith(".pdf")
