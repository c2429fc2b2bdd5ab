"""Fixed-layout documents in two layers: a form laid out once, values drawn over it.

The notices (tid/render/notice.py) and the PS Form 3877 manifest (tid/render/manifest.py)
are printed by the thousand with the same frame. The **form layer** — what every page of a
batch shares — is laid out once by WeasyPrint (:func:`layout`, a plain Jinja environment
:func:`env` that needs no Flask app, so the pool's workers can render) and reused on every
page as a PDF Form XObject (:func:`form_xobjects`). The **fill layer** — the values of one
page — is a list of :class:`Text` items at fixed places, drawn by ReportLab (:func:`draw`) in
the faces of tid/render/fonts.py; :func:`composed_page` puts the two together on a new page,
each block and value the element it is.

A document never makes the server fetch: only ``data:`` URLs are read
(:func:`data_only_fetcher`).
"""

from __future__ import annotations

import functools
import io
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import jinja2

from tid.config import PROJECT_ROOT
from tid.render.fonts import ASCENT, DESCENT, fill_faces, text_runs, text_width, wrap_width

TEMPLATES = PROJECT_ROOT / "templates"
PDF_VARIANT = "pdf/a-2u"  # what WeasyPrint writes on its own (the flowing manifest, the baseline)


@functools.cache
def env() -> jinja2.Environment:
    # A plain Jinja environment (no Flask app): the pool's workers render without one.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def layout(html: str) -> Any:
    from weasyprint import HTML

    return HTML(string=html, base_url=str(TEMPLATES), url_fetcher=data_only_fetcher()).render()


def form_xobjects(writer: Any, form_pdf: bytes) -> list[Any]:
    """The form layer's pages as Form XObjects of ``writer`` (one per page, shared)."""
    from pypdf import PdfReader
    from pypdf.generic import DecodedStreamObject, NameObject

    refs = []
    for page in PdfReader(io.BytesIO(form_pdf)).pages:
        contents = page.get_contents()
        xobject = DecodedStreamObject()
        xobject.set_data(contents.get_data() if contents is not None else b"")
        xobject[NameObject("/Type")] = NameObject("/XObject")
        xobject[NameObject("/Subtype")] = NameObject("/Form")
        xobject[NameObject("/BBox")] = page.mediabox
        # the pages of one layout share their resources: one object, cloned once
        xobject[NameObject("/Resources")] = page.raw_get("/Resources")
        refs.append(writer._add_object(xobject.flate_encode().clone(writer)))
    return refs


def amount_text(amount: Decimal) -> str:
    """``$1,234.50``: the amount as printed on a notice and on the manifest."""
    return f"${amount:,.2f}" if amount >= 0 else f"-${-amount:,.2f}"


@dataclass(frozen=True)
class Text:
    left: float
    top: float  # of the first line box, points from the top of the page
    lines: tuple[str, ...]
    size: float = 8.2
    leading: float = 10.0
    font: str = "/TidH"
    max_lines: int = 0  # 0: no limit
    right: float | None = None  # right-aligned at this x instead of starting at ``left``


def block(
    left: float,
    top: float,
    text: str,
    width: float,
    size: float = 8.2,
    leading: float = 10.0,
    font: str = "/TidH",
    max_lines: int = 1,
) -> Text | None:
    lines = wrap_width(text, font, size, width)
    if lines is None:
        return None
    return Text(left, top, lines, size, leading, font, max_lines)


def fits_items(items: Sequence[Text | None]) -> bool:
    return all(
        item is not None and (not item.max_lines or len(item.lines) <= item.max_lines)
        for item in items
    )


def draw(canvas: Any, items: Sequence[Text], page_height: float) -> None:
    """Draw ``items`` on ``canvas``'s current page (ReportLab: origin at the bottom left)."""
    for item in items:
        # The first baseline where WeasyPrint puts it: the line box's top, half the leading
        # less the font's height, and the ascent.
        first = (
            page_height
            - item.top
            - (item.leading - (ASCENT + DESCENT) * item.size) / 2
            - ASCENT * item.size
        )
        text = canvas.beginText()
        for index, line in enumerate(item.lines):
            line = unicodedata.normalize("NFC", line)
            runs = text_runs(line, item.font)
            if runs is None:
                raise ValueError(f"not drawable on the fast path: {line!r}")
            left = item.left
            if item.right is not None:
                left = item.right - text_width(line, item.font, item.size)
            text.setTextOrigin(left, first - index * item.leading)
            for name, run in runs:
                text.setFont(name, item.size, item.leading)
                text.textOut(run)
        canvas.drawText(text)


# Marked content around the English side of a notice: the part's language (the document's
# is Spanish).
_ENGLISH_OPEN = b"/Span <</Lang (en)>> BDC\n"
_ENGLISH_CLOSE = b"\nEMC"


def composed_page(
    writer: Any,
    box: Any,
    resources: Any,
    parts: Sequence[Any],
    *,
    lang: str,
    english: bool = False,
    before: bytes = b"",
) -> Any:
    """A new page of ``writer`` drawing ``parts`` (tid/render/tagging.py ``Part``: pieces of
    the form layer and of the fill layer in reading order, each the element it is) with the
    shared ``resources``; ``before`` (drawing nothing, a layer's opening state) comes first
    as an artifact."""
    from pypdf.generic import DecodedStreamObject, NameObject

    from tid.render import tagging

    page = writer.add_blank_page(width=box.width, height=box.height)
    page[NameObject("/Resources")] = resources
    data = (b"/Artifact BMC\n" + before + b"\nEMC\n" if before else b"") + tagging.compose(
        page, lang, parts
    )
    if english:
        data = _ENGLISH_OPEN + data + _ENGLISH_CLOSE
    stream = DecodedStreamObject()
    stream.set_data(data)
    page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
    return page


def mark_english(writer: Any, page: Any) -> None:
    """Wrap a copied page's content in the English part's marked content."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, NameObject

    parts = []
    for data in (_ENGLISH_OPEN, _ENGLISH_CLOSE):
        stream = DecodedStreamObject()
        stream.set_data(data)
        parts.append(writer._add_object(stream))
    contents = page.raw_get("/Contents")
    inner = list(contents.get_object()) if isinstance(contents.get_object(), list) else [contents]
    page[NameObject("/Contents")] = ArrayObject([parts[0], *inner, parts[1]])


def new_canvas(buffer: io.BytesIO, page_size: tuple[float, float]) -> Any:
    from reportlab.pdfgen.canvas import Canvas

    return Canvas(
        buffer,
        pagesize=page_size,
        invariant=True,
        pageCompression=1,  # the embedded font programs too
        initialFontName=fill_faces()["/TidH"].name,
    )


def page_operators(drawn: Any, index: int) -> bytes:
    contents = drawn.pages[index].get("/Contents")
    if contents is None:
        return b""
    data: bytes = contents.get_object().get_data()
    return data


def data_only_fetcher() -> Any:
    """A URL fetcher for ``data:`` URLs only: a document never makes the server fetch."""
    import weasyprint

    class DataOnlyFetcher(weasyprint.URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:"):
                return super().fetch(url, headers)
            raise ValueError(f"resource not allowed in a notice: {url[:60]}")

    return DataOnlyFetcher(allowed_protocols={"data"})
