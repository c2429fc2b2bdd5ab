"""A document's first page as a small picture: a PDF's and a scan's are PNGs at most the
thumbnail's width; a DOCX has none, and a file that cannot be drawn gives none."""

from __future__ import annotations

import io

from PIL import Image

from tests import legislature_files as files
from tid.render.thumbnails import WIDTH, first_page_png


def _size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as picture:
        assert picture.format == "PNG"
        return picture.size


def test_a_pdf_and_a_scan_give_a_small_png_of_their_first_page() -> None:
    for data, media_type in ((files.pdf("Acta"), "application/pdf"), (files.png(), "image/png")):
        png = first_page_png(data, media_type)
        assert png is not None, media_type
        width, _height = _size(png)
        assert 0 < width <= WIDTH


def test_a_file_without_a_picture_or_that_cannot_be_drawn_gives_none() -> None:
    assert first_page_png(b"PK\x03\x04", "application/vnd.oasis.opendocument.text") is None
    assert first_page_png(b"%PDF-1.4 broken", "application/pdf") is None
    assert first_page_png(b"\x89PNG\r\n\x1a\n broken", "image/png") is None
