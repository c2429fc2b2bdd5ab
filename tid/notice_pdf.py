"""The fast renderer of the certified-mail notices of 21 LPRA § 6653(5).

A notice run prints one notice per owner (thousands of them). Laid out one by one with
WeasyPrint, each notice pays for a whole document: style cascade, line breaking of two
pages of legal text, drawing, PDF writing and font subsetting (about 0.2 s of CPU). Here:

- the **form layer** — everything the notices of a batch share (labels, the association,
  the ordinance, how to pay, the lien of § 6653(8)) — is laid out ONCE per batch by WeasyPrint
  from ``templates/pdf/notice.html`` (mode "form", every block at a fixed place) and reused
  on every page as a PDF Form XObject;
- the **fill layer** — the owner's own values (number, access code, address, property,
  amount, due date, explanation) and the QR code — is written straight into each page as
  PDF text in the standard Helvetica/Courier faces (WinAnsi) and filled rectangles, at the
  places the template reserves for them;
- a notice whose texts do not fit those places (a long explanation or name, a character
  outside WinAnsi) is laid out by the flowing template ``pdf/notice_flow.html`` instead;
- chunks of notices are rendered in a process pool (both cores), and each chunk yields the
  per-notice PDFs (archived) and its part of the print-ready PDF (every notice starts on a
  right-hand page), merged at the end with pypdf.

``render_one_naive`` lays out one notice as its own WeasyPrint document (mode "full": the
same fixed layout, form and fill in one document), the baseline of benchmarks/notices.py.
The PS Form 3877 manifest is drawn the same way over its grid (``render_manifest``).

This module knows nothing of the database: it takes :class:`NoticeContent` values and
returns bytes. Its entry points are :func:`render_notices` and :func:`render_manifest`.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import os
import textwrap
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from multiprocessing import get_context
from typing import Any

import jinja2
from babel.dates import format_date

from tid.config import PROJECT_ROOT

TEMPLATES = PROJECT_ROOT / "templates"
DEFAULT_CHUNK = 200  # notices per WeasyPrint layout: ~2 pages each, bounded memory

KIND_LABELS = {
    "initial": ("Aviso inicial", "Initial notice"),
    "yearly": ("Aviso anual", "Yearly notice"),
    "remailing": ("Nuevo envío de un aviso devuelto", "Re-mailing of a returned notice"),
}


@dataclass(frozen=True)
class NoticeContent:
    """Everything printed on one notice (plain values; formatting happens here)."""

    number: str
    access_code: str  # printed once, never stored
    portal_url: str  # the portal with the notice number filled in (also the QR code)
    issued_on: date
    kind: str  # initial | yearly | remailing
    sender_name: str
    sender_lines: tuple[str, ...]
    association_name: str
    district_name: str
    municipality_name: str
    ordinance_number: str
    ordinance_issued_on: date
    ordinance_approved_on: date | None
    term_years: int
    period_label: str
    cadastral_number: str
    property_address: str
    owner_name: str
    mailing_lines: tuple[str, ...]
    amount: Decimal
    explanation: str
    due_on: date
    how_to_pay: str
    lien_effective_on: date
    article_number: str = ""
    remailing_of: str = ""
    payment_reference: str = ""  # what the payments desk looks a bill up by


@dataclass(frozen=True)
class RenderedNotice:
    """One notice's archived PDF."""

    number: str
    pdf: bytes
    sha256: str
    pages: int


@dataclass(frozen=True)
class RenderedBatch:
    """The per-notice PDFs (same order as given) and the print-ready merged PDF."""

    notices: list[RenderedNotice]
    merged: bytes
    merged_pages: int
    chunk_sizes: list[int] = field(default_factory=list)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def qr_svg_data_uri(url: str) -> str:
    """The QR code of ``url`` as an SVG data URI (segno: pure Python, drawn server-side)."""

    qr = _qr(url)
    buffer = io.BytesIO()
    qr.save(buffer, kind="svg", scale=1, border=4, omitsize=True, xmldecl=False, svgns=True)
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _qr(url: str) -> Any:
    """The QR code of ``url``. A fixed mask pattern (any of the eight is valid; choosing the
    "best" costs about ten times the rest of the encoding) keeps a run of thousands fast."""
    import segno

    return segno.make(url, error="m", micro=False, mask=4, boost_error=False)


# Where the fill layer's QR code goes on page 1 (points, from the top left; see notice.html).
QR_BOX = (360.0, 78.0, 70.0)


def qr_pdf_operators(url: str, page_height: float) -> bytes:
    """PDF drawing operators for the QR code of ``url`` in ``QR_BOX`` (default user space:
    origin at the bottom left): one filled rectangle per run of dark modules in a row."""
    qr = _qr(url)
    matrix = qr.matrix
    count = len(matrix) + 8  # the quiet zone of four modules on each side
    left, top, size = QR_BOX
    module = size / count
    ops = ["q 0 g"]
    for r, row in enumerate(matrix):
        y = page_height - top - (r + 5) * module
        c = 0
        width = len(row)
        while c < width:
            if row[c]:
                start = c
                while c < width and row[c]:
                    c += 1
                x = left + (start + 4) * module
                ops.append(f"{x:.3f} {y:.3f} {(c - start) * module:.3f} {module:.3f} re")
            else:
                c += 1
    ops.append("f Q")
    return "\n".join(ops).encode("ascii")


def amount_text(amount: Decimal) -> str:
    """``$1,234.50``: the amount as printed on a notice and on the manifest."""
    return f"${amount:,.2f}" if amount >= 0 else f"-${-amount:,.2f}"


def _day(value: date | None, locale: str) -> str:
    if value is None:
        return ""
    return str(format_date(value, format="long", locale=locale))


def _form_context(n: NoticeContent) -> dict[str, Any]:
    """What every notice of a batch shares (the form layer)."""
    kind_es, kind_en = KIND_LABELS.get(n.kind, KIND_LABELS["yearly"])
    return {
        "kind_es": kind_es,
        "kind_en": kind_en,
        "issued_on_es": _day(n.issued_on, "es_PR"),
        "issued_on_en": _day(n.issued_on, "en_US"),
        "sender_name": n.sender_name,
        "sender_lines": n.sender_lines,
        "association_name": n.association_name,
        "district_name": n.district_name,
        "municipality_name": n.municipality_name,
        "ordinance_number": n.ordinance_number or "—",
        "ordinance_issued_es": _day(n.ordinance_issued_on, "es_PR"),
        "ordinance_issued_en": _day(n.ordinance_issued_on, "en_US"),
        "ordinance_approved_es": _day(n.ordinance_approved_on, "es_PR"),
        "ordinance_approved_en": _day(n.ordinance_approved_on, "en_US"),
        "term_years": n.term_years,
        "period_label": n.period_label,
        "how_to_pay": n.how_to_pay,
        "lien_effective_es": _day(n.lien_effective_on, "es_PR"),
        "lien_effective_en": _day(n.lien_effective_on, "en_US"),
        "portal_base": n.portal_url.split("?", 1)[0],
    }


def _fill_context(n: NoticeContent, *, qr: bool = True) -> dict[str, Any]:
    """What is the owner's own (the fill layer). The fill layer's QR code is drawn after the
    layout (``qr_pdf_operators``), so ``qr=False`` leaves it out of the HTML."""
    return {
        "number": n.number,
        "access_code": n.access_code,
        "portal_url": n.portal_url,
        "qr": qr_svg_data_uri(n.portal_url) if qr else "",
        "cadastral_number": n.cadastral_number,
        "property_address": n.property_address,
        "owner_name": n.owner_name,
        "mailing_lines": n.mailing_lines,
        "amount": amount_text(n.amount),
        "explanation_lines": n.explanation.splitlines() or [""],
        "due_es": _day(n.due_on, "es_PR"),
        "due_en": _day(n.due_on, "en_US"),
        "article_number": n.article_number,
        "remailing_of": n.remailing_of,
        "payment_reference": n.payment_reference or n.number,
        "association_name": n.association_name,
    }


def _context(n: NoticeContent) -> dict[str, Any]:
    return {**_form_context(n), **_fill_context(n)}


def form_key(n: NoticeContent) -> tuple[Any, ...]:
    """Notices with the same key share one form layer."""
    return tuple(sorted((k, str(v)) for k, v in _form_context(n).items()))


# The fixed layout (points from the top of a letter page). Rows of the facts table: (key,
# Spanish label, English label, height).
_ROWS = (
    ("district", "Distrito", "District", 26),
    ("ordinance", "Ordenanza municipal", "Municipal ordinance", 26),
    ("property", "Propiedad", "Property", 26),
    ("owner", "Dueño", "Owner", 26),
    ("period", "Periodo", "Period", 14),
    ("amount", "Cantidad a pagar", "Amount due", 17),
    ("due", "Fecha de vencimiento", "Due date", 17),
)
# What fits the fixed regions (characters per line, lines), measured with DejaVu Sans with a
# margin for wide letters; a notice that does not fit is laid out by the flowing template.
_FITS = {
    "addressee": (40, 6),
    "facts": (72, 2),
    "explanation": (100, 7),
    "title": (56, 2),
    "how_to_pay": (110, 3),
    "ordinance": (72, 2),
}


def _side(top: int, label_index: int) -> dict[str, Any]:
    title = top
    intro = title + 29
    remail = intro + 11
    rows = []
    positions: dict[str, int] = {}
    y = remail + 15
    for row in _ROWS:
        rows.append({"top": y, "height": row[3], "label": row[label_index]})
        positions[row[0]] = y
        y += row[3]
    explanation_head = y + 6
    explanation = explanation_head + 12
    pay_head = explanation + 70
    pay = pay_head + 12
    reference = pay + 31
    lien = reference + 13
    return {
        "title": title,
        "intro": intro,
        "remail": remail,
        "rows": rows,
        "row": positions,
        "explanation_head": explanation_head,
        "explanation": explanation,
        "pay_head": pay_head,
        "pay": pay,
        "reference": reference,
        "lien": lien,
        "foot": 748 if label_index == 1 else lien + 112,
        "number": 760 if label_index == 1 else lien + 146,
    }


@functools.cache
def geometry() -> dict[str, Any]:
    return {"es": _side(226, 1), "en": _side(43, 2)}


def _lines_needed(text: str, width: int) -> int:
    return sum(max(1, len(textwrap.wrap(line, width))) for line in text.splitlines() or [""])


def _fits(text: str, region: str) -> bool:
    width, lines = _FITS[region]
    return _lines_needed(text, width) <= lines


def fits_fixed_layout(n: NoticeContent) -> bool:
    """Whether the notice's texts fit the fixed regions of pdf/notice.html."""
    address = "\n".join((n.owner_name, *n.mailing_lines))
    owners_text = (
        address,
        n.cadastral_number,
        n.property_address,
        n.explanation,
        n.number,
        n.access_code,
        n.portal_url,
        n.payment_reference,
        n.remailing_of,
        n.association_name,
    )
    return (
        all(encodable(text) for text in owners_text)
        and len(n.mailing_lines) <= 5
        and _fits(address, "addressee")
        and _fits(n.owner_name, "facts")
        and _fits(f"Número de catastro {n.cadastral_number}\n{n.property_address}", "facts")
        and _fits(n.explanation, "explanation")
        and _fits(f"AVISO DE DERRAMA — {n.district_name}", "title")
        and _fits(n.how_to_pay, "how_to_pay")
        and _fits(f"{n.district_name} ({n.municipality_name})", "facts")
        and _fits(
            f"Núm. {n.ordinance_number}, emitida el 30 de septiembre de 2026, aprobada por el "
            f"alcalde el 30 de septiembre de 2026; vigencia de {n.term_years} años",
            "ordinance",
        )
    )


@functools.cache
def _env() -> jinja2.Environment:
    # A plain Jinja environment (no Flask app): the pool's workers render without one.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def notices_html(
    contents: Sequence[NoticeContent], *, mode: str = "full", flowing: bool = False
) -> str:
    """The HTML of a batch of notices: one document. ``mode``: full | form | fill (fixed
    layout); ``flowing``: the flowing layout instead (texts of any length)."""
    if flowing:
        template = _env().get_template("pdf/notice_flow.html")
        return template.render(notices=[_context(n) for n in contents], title="Avisos / Notices")
    make = {
        "form": _form_context,
        "fill": lambda n: _fill_context(n, qr=False),
        "full": _context,
    }[mode]
    return (
        _env()
        .get_template("pdf/notice.html")
        .render(
            notices=[make(n) for n in contents], mode=mode, g=geometry(), title="Avisos / Notices"
        )
    )


def _page_ranges(pages: Sequence[Any], count: int) -> list[tuple[int, int]]:
    """(first, last) page index of each notice, from the anchors of its first and last page."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for index, page in enumerate(pages):
        for anchor in page.anchors:
            kind, _, number = anchor.partition("-")
            if kind == "n":
                first[int(number)] = index
            elif kind == "e":
                last[int(number)] = index
    ranges = []
    for i in range(count):
        if i not in first or i not in last or last[i] < first[i]:
            raise RuntimeError(f"notice {i} of the batch has no page range")  # pragma: no cover
        ranges.append((first[i], last[i]))
    return ranges


def _layout(html: str) -> Any:
    from weasyprint import HTML

    return HTML(string=html, base_url=str(TEMPLATES), url_fetcher=_data_only_fetcher()).render()


def _form_xobjects(writer: Any, form_pdf: bytes) -> list[Any]:
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
        xobject[NameObject("/Resources")] = page["/Resources"].get_object()
        refs.append(writer._add_object(xobject.flate_encode().clone(writer)))
    return refs


# --------------------------------------------------------------------------- the fill layer
# The owner's own values are written straight into the page as PDF text in the standard
# Helvetica and Courier faces (no embedding, WinAnsi encoding) at the fixed places of
# pdf/notice.html: laying out a few dozen short lines per notice with WeasyPrint would cost
# more than everything else of the run together.

_FONTS = {
    "/TidH": "/Helvetica",
    "/TidHB": "/Helvetica-Bold",
    "/TidCB": "/Courier-Bold",
}


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def encodable(text: str) -> bool:
    """Whether ``text`` can be written in the standard fonts' WinAnsi encoding."""
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class _Text:
    left: float
    top: float  # of the first line box, points from the top of the page
    lines: tuple[str, ...]
    size: float = 8.2
    leading: float = 10.0
    font: str = "/TidH"


def _text_ops(items: Sequence[_Text], page_height: float) -> bytes:
    out = [b"BT"]
    for item in items:
        out.append(f"{item.font} {item.size:g} Tf {item.leading:g} TL".encode())
        # The first baseline: the line box's top, half the leading less the size, and the
        # font's ascent (about 0.78 of the size for Helvetica).
        baseline = page_height - item.top - (item.leading - item.size) / 2 - 0.78 * item.size
        out.append(f"1 0 0 1 {item.left:.2f} {baseline:.2f} Tm".encode())
        for index, line in enumerate(item.lines):
            out.append(_pdf_string(line) + (b" Tj" if index == 0 else b" '"))
    out.append(b"ET")
    return b"\n".join(out)


def _wrap(text: str, width: int) -> tuple[str, ...]:
    lines: list[str] = []
    for line in text.splitlines() or [""]:
        lines.extend(textwrap.wrap(line, width) or [""])
    return tuple(lines)


def _fill_items(n: NoticeContent, side: str) -> list[_Text]:
    g = geometry()[side]
    row = g["row"]
    value_left = 197.0
    es = side == "es"
    items: list[_Text] = []
    portal = (
        *_wrap(n.portal_url, 34),
        f"Aviso / Notice: {n.number}",
        "Código de acceso / Access code:",
    )
    if es:
        items += [
            _Text(440, 62, (f"Aviso / Notice {n.number}",), 8.2, 10, "/TidHB"),
            _Text(436, 78, ("Portal del dueño / Owner's portal",), 7, 8.6, "/TidHB"),
            _Text(436, 86.6, portal, 7, 8.6),
            _Text(436, 88 + 8.6 * len(portal), (n.access_code,), 10, 12, "/TidCB"),
            _Text(65, 144, (*_wrap(n.owner_name, 40), *n.mailing_lines), 9.5, 12),
        ]
    if n.remailing_of:
        text = (
            f"Este aviso reemplaza el aviso {n.remailing_of}, que fue devuelto."
            if es
            else f"This notice replaces notice {n.remailing_of}, which was returned."
        )
        items.append(_Text(43, g["remail"], (text,), font="/TidHB"))
    label = "Número de catastro" if es else "Cadastral number"
    due = _day(n.due_on, "es_PR" if es else "en_US")
    reference = (
        f"Con su pago indique la referencia de pago {n.payment_reference or n.number} "
        f"(aviso {n.number})."
        if es
        else f"With your payment quote payment reference {n.payment_reference or n.number} "
        f"(notice {n.number})."
    )
    items += [
        _Text(
            value_left, row["property"] + 2, (f"{label} {n.cadastral_number}", n.property_address)
        ),
        _Text(value_left, row["owner"] + 2, _wrap(n.owner_name, 72)),
        _Text(value_left, row["amount"] + 2, (amount_text(n.amount),), 11, 13, "/TidHB"),
        _Text(value_left, row["due"] + 2, (due,), 11, 13, "/TidHB"),
        _Text(43, g["explanation"], _wrap(n.explanation, 100), 7.8, 9.6),
        _Text(43, g["reference"], (reference,)),
    ]
    if not es:
        items.append(_Text(43, g["number"], (f"{n.association_name} · {n.number}",), 7, 8.6))
    return items


def _fonts_resource(writer: Any) -> Any:
    from pypdf.generic import DictionaryObject, NameObject

    fonts = DictionaryObject()
    for name, base in _FONTS.items():
        font = DictionaryObject()
        font[NameObject("/Type")] = NameObject("/Font")
        font[NameObject("/Subtype")] = NameObject("/Type1")
        font[NameObject("/BaseFont")] = NameObject(base)
        font[NameObject("/Encoding")] = NameObject("/WinAnsiEncoding")
        fonts[NameObject(name)] = writer._add_object(font)
    return writer._add_object(fonts)


def _filled_page(writer: Any, form: tuple[str, Any], box: Any, fonts: Any, operators: bytes) -> Any:
    """A new page of ``writer``: the form XObject, then the fill operators over it."""
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    page = writer.add_blank_page(width=box.width, height=box.height)
    name, xobject = form
    xobjects = DictionaryObject()
    xobjects[NameObject(name)] = xobject
    resources = DictionaryObject()
    resources[NameObject("/XObject")] = xobjects
    resources[NameObject("/Font")] = fonts
    page[NameObject("/Resources")] = resources
    stream = DecodedStreamObject()
    stream.set_data(f"q {name} Do Q\n".encode() + operators)
    page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
    return page


def render_chunk(contents: Sequence[NoticeContent]) -> tuple[list[bytes], bytes, int]:
    """Render ``contents``: per-notice PDFs, the chunk's print PDF and its page count. Runs in
    a worker process.

    A notice whose texts fit the fixed layout is two pages, each the batch's form layer (laid
    out once by WeasyPrint, shared as a Form XObject) with the owner's values and the QR code
    drawn over it; any other notice is laid out by the flowing template. The print PDF keeps
    the given order and starts every notice on a right-hand page (a blank page after a notice
    with an odd number of pages)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    fonts = _fonts_resource(writer)
    fixed_set = {i for i, n in enumerate(contents) if fits_fixed_layout(n)}
    flowing = [i for i in range(len(contents)) if i not in fixed_set]
    forms: dict[tuple[Any, ...], tuple[list[tuple[str, Any]], Any]] = {}
    flowing_pages: dict[int, tuple[Any, list[int]]] = {}
    if flowing:
        doc = _layout(notices_html([contents[i] for i in flowing], flowing=True))
        ranges = _page_ranges(doc.pages, len(flowing))
        reader = PdfReader(io.BytesIO(doc.write_pdf()))
        del doc
        for i, (first, last) in zip(flowing, ranges, strict=True):
            flowing_pages[i] = (reader, list(range(first, last + 1)))

    placed: list[list[Any]] = []
    for i, content in enumerate(contents):
        if i in flowing_pages:
            reader, indexes = flowing_pages[i]
            pages = [writer.add_page(reader.pages[k]) for k in indexes]
        else:
            key = form_key(content)
            if key not in forms:
                form_pdf = _layout(notices_html([content], mode="form")).write_pdf()
                refs = _form_xobjects(writer, form_pdf)
                box = PdfReader(io.BytesIO(form_pdf)).pages[0].mediabox
                forms[key] = ([(f"/TidForm{len(forms)}x{k}", r) for k, r in enumerate(refs)], box)
            xobjects, box = forms[key]
            height = float(box.height)
            spanish = _text_ops(_fill_items(content, "es"), height) + b"\n"
            spanish += qr_pdf_operators(content.portal_url, height)
            english = _text_ops(_fill_items(content, "en"), height)
            pages = [
                _filled_page(writer, xobjects[0], box, fonts, spanish),
                _filled_page(writer, xobjects[1], box, fonts, english),
            ]
        placed.append(pages)
        if len(pages) % 2:
            last_box = pages[-1].mediabox
            writer.add_blank_page(width=last_box.width, height=last_box.height)
    singles: list[bytes] = []
    for content, pages in zip(contents, placed, strict=True):
        one = PdfWriter()
        for page in pages:
            one.add_page(page)
        one.add_metadata({"/Title": f"Aviso / Notice {content.number}"})
        out = io.BytesIO()
        one.write(out)
        singles.append(out.getvalue())
    writer.add_metadata({"/Title": "Avisos / Notices"})
    merged = io.BytesIO()
    writer.write(merged)
    return singles, merged.getvalue(), len(writer.pages)


def _merge(parts: Sequence[bytes]) -> bytes:
    if len(parts) == 1:
        return parts[0]
    from pypdf import PdfWriter

    writer = PdfWriter()
    for part in parts:
        writer.append(io.BytesIO(part))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def render_notices(
    contents: Sequence[NoticeContent],
    *,
    workers: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    progress: Callable[[int, int], None] | None = None,
) -> RenderedBatch:
    """Render a batch of notices: per-notice PDFs (in the given order) and one print PDF.

    ``workers`` > 1 renders chunks in a process pool (fresh processes, so no database
    connection or app is inherited); 1 renders in this process.
    """
    if not contents:
        return RenderedBatch(notices=[], merged=b"", merged_pages=0)
    workers = workers if workers is not None else default_workers()
    chunk_size = max(1, chunk_size)
    # Even chunks, so both workers finish together.
    n_chunks = max(1, -(-len(contents) // chunk_size))
    if workers > 1:
        n_chunks = max(n_chunks, workers)
        n_chunks = -(-n_chunks // workers) * workers  # a multiple of the workers
    n_chunks = min(n_chunks, len(contents))
    size, extra = divmod(len(contents), n_chunks)
    chunks: list[list[NoticeContent]] = []
    start = 0
    for i in range(n_chunks):
        end = start + size + (1 if i < extra else 0)
        chunks.append(list(contents[start:end]))
        start = end
    results: list[tuple[list[bytes], bytes, int]] = []

    def _done(result: tuple[list[bytes], bytes, int]) -> None:
        results.append(result)
        if progress is not None:
            progress(sum(len(singles) for singles, _m, _p in results), len(contents))

    if workers > 1 and len(chunks) > 1:
        # The renderers die with the process that started them (a killed worker leaves none).
        from tid.proc import die_with_parent

        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=get_context("spawn"),
            initializer=die_with_parent,
            initargs=(os.getpid(),),
        ) as pool:
            for result in pool.map(render_chunk, chunks):
                _done(result)
    else:
        for chunk in chunks:
            _done(render_chunk(chunk))
    notices: list[RenderedNotice] = []
    for chunk, (singles, _merged, _pages) in zip(chunks, results, strict=True):
        for content, pdf in zip(chunk, singles, strict=True):
            notices.append(
                RenderedNotice(
                    number=content.number,
                    pdf=pdf,
                    sha256=sha256_hex(pdf),
                    pages=_count_pages(pdf),
                )
            )
    merged = _merge([merged for _singles, merged, _pages in results])
    return RenderedBatch(
        notices=notices,
        merged=merged,
        merged_pages=sum(pages for _s, _m, pages in results),
        chunk_sizes=[len(c) for c in chunks],
    )


def _count_pages(pdf: bytes) -> int:
    # The page tree's /Count is cheap to read and pypdf writes exactly one.
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(pdf)).pages)


def render_one_naive(content: NoticeContent) -> bytes:
    """One notice as its own WeasyPrint document (the fixed layout with form and fill in one
    document; the flowing one when it does not fit): the benchmark's baseline."""
    from weasyprint import HTML

    flowing = not fits_fixed_layout(content)
    result: bytes = HTML(
        string=notices_html([content], mode="full", flowing=flowing),
        base_url=str(TEMPLATES),
        url_fetcher=_data_only_fetcher(),
    ).write_pdf()
    return result


# --------------------------------------------------------------------------- the manifest

MANIFEST_ROWS_PER_PAGE = 14


@dataclass(frozen=True)
class ManifestRow:
    """One piece of certified mail: its article number and addressee."""

    article_number: str
    name: str
    address: str  # one line
    notice_number: str


def manifest_pages(
    rows: Sequence[ManifestRow],
    *,
    postage: Decimal,
    fee: Decimal,
    rows_per_page: int = MANIFEST_ROWS_PER_PAGE,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The manifest's pages (rows in ascending article-number order, numbered, with page
    totals) and the grand total. Every piece pays ``postage`` + ``fee``."""
    ordered = sorted(rows, key=lambda r: r.article_number)
    per_piece = postage + fee
    pages: list[dict[str, Any]] = []
    for start in range(0, len(ordered), rows_per_page):
        chunk = ordered[start : start + rows_per_page]
        count = len(chunk)
        pages.append(
            {
                "number": len(pages) + 1,
                "rows": [
                    {
                        "line": start + i + 1,
                        "article": _grouped(r.article_number),
                        "name": r.name,
                        "address": r.address,
                        "notice": r.notice_number,
                        "postage": amount_text(postage),
                        "fee": amount_text(fee),
                        "total": amount_text(per_piece),
                    }
                    for i, r in enumerate(chunk)
                ],
                "pieces": count,
                "postage": amount_text(postage * count),
                "fee": amount_text(fee * count),
                "total": amount_text(per_piece * count),
            }
        )
    n = len(ordered)
    grand = {
        "pieces": n,
        "postage": amount_text(postage * n),
        "fee": amount_text(fee * n),
        "total": amount_text(per_piece * n),
    }
    return pages, grand


def _grouped(digits: str) -> str:
    return " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))


def render_manifest(
    rows: Sequence[ManifestRow],
    *,
    sender_name: str,
    sender_lines: Sequence[str],
    mailed_on: date | None,
    postage: Decimal,
    fee: Decimal,
    batch_label: str,
    rows_per_page: int = MANIFEST_ROWS_PER_PAGE,
) -> bytes:
    """The certified-mail manifest (PS Form 3877 layout) as a PDF: the form's grid laid out
    once, the rows and totals written over it on every page (the flowing layout when a row
    does not fit its cell)."""
    pages, grand = manifest_pages(rows, postage=postage, fee=fee, rows_per_page=rows_per_page)
    mailed = mailed_on.isoformat() if mailed_on else "____________"
    texts = [f"{r.name} — {r.address} ({r.notice_number})" for r in rows]
    if not all(encodable(t) and _lines_needed(t, _MANIFEST_WRAP) <= 3 for t in texts) or not all(
        encodable(t) for t in (sender_name, *sender_lines)
    ):
        return _render_manifest_flowing(
            pages, grand, sender_name, sender_lines, mailed, batch_label
        )
    from pypdf import PdfReader, PdfWriter

    g = manifest_geometry(rows_per_page)
    form_pdf = _layout(
        _env()
        .get_template("pdf/manifest_form.html")
        .render(g=g, sender_name=sender_name, sender_lines=list(sender_lines))
    ).write_pdf()
    writer = PdfWriter()
    fonts = _fonts_resource(writer)
    (form_ref,) = _form_xobjects(writer, form_pdf)[:1]
    box = PdfReader(io.BytesIO(form_pdf)).pages[0].mediabox
    height = float(box.height)
    for page in pages or [
        {"number": 1, "rows": [], "pieces": 0, "postage": "$0.00", "fee": "$0.00", "total": "$0.00"}
    ]:
        last = page["number"] == max(1, len(pages))
        ops = _text_ops(
            _manifest_items(g, page, grand, last, len(pages), mailed, batch_label), height
        )
        _filled_page(writer, ("/TidManifest", form_ref), box, fonts, ops)
    writer.add_metadata({"/Title": f"PS Form 3877 — {sender_name}"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


_MANIFEST_WRAP = 78
# Helvetica's advance widths (thousandths of the size) of what amounts are written with.
_AMOUNT_WIDTHS = {**dict.fromkeys("0123456789$", 556), ",": 278, ".": 278, "-": 333, " ": 278}


def _amount_width(text: str, size: float) -> float:
    return sum(_AMOUNT_WIDTHS.get(ch, 556) for ch in text) * size / 1000


@functools.cache
def manifest_geometry(rows_per_page: int = MANIFEST_ROWS_PER_PAGE) -> dict[str, Any]:
    """Where the grid of the PS 3877 form lies on a landscape letter page (points)."""
    left, width, top, head_h = 32, 728, 28, 64
    labels = (
        ("No.", 30),
        ("Article Number", 140),
        ("Name of Addressee, Street, and Post Office Address", 318),
        ("Postage", 78),
        ("Fee (Certified)", 78),
        ("Total (Postage + Fee)", 84),
    )
    columns = []
    x = left
    for label, w in labels:
        columns.append({"label": label, "x": x, "w": w})
        x += w
    table_top, header_h, row_h, total_h = top + head_h + 10, 20, 26, 16
    first_row = table_top + header_h
    row_tops = [first_row + i * row_h for i in range(rows_per_page)]
    totals = first_row + rows_per_page * row_h
    foot_top = totals + 2 * total_h + 12
    foot_w = (width - 20) // 3
    return {
        "left": left,
        "top": top,
        "head_h": head_h,
        "sender_w": 260,
        "type_x": left + 272,
        "type_w": 200,
        "stamp_x": left + width - 220,
        "stamp_w": 220,
        "columns": columns,
        "money_columns": columns[3:],
        "table_top": table_top,
        "header_h": header_h,
        "row_h": row_h,
        "row_tops": row_tops,
        "total_h": total_h,
        "total_tops": [totals, totals + total_h],
        "totals_label_w": sum(c["w"] for c in columns[:3]),
        "foot_top": foot_top,
        "foot_h": 34,
        "foot_w": foot_w,
        "foot2_x": left + foot_w + 10,
        "foot3_x": left + 2 * (foot_w + 10),
    }


def _manifest_items(
    g: dict[str, Any],
    page: dict[str, Any],
    grand: dict[str, Any],
    last: bool,
    page_count: int,
    mailed: str,
    batch_label: str,
) -> list[_Text]:
    cols = g["columns"]
    items = [
        _Text(
            g["type_x"],
            g["top"] + 46,
            (
                f"Mailing date: {mailed} · batch {batch_label}",
                f"Page {page['number']} of {max(1, page_count)}",
            ),
            7,
            8.4,
        )
    ]

    def right(col: int, top: float, text: str, font: str = "/TidH", size: float = 7) -> _Text:
        c = cols[col]
        return _Text(c["x"] + c["w"] - 3 - _amount_width(text, size), top, (text,), size, 8.4, font)

    for row, top in zip(page["rows"], g["row_tops"], strict=False):
        text = f"{row['name']} — {row['address']} ({row['notice']})"
        items += [
            right(0, top + 2, str(row["line"])),
            _Text(cols[1]["x"] + 3, top + 2, (row["article"],), 7.2, 8.4, "/TidCB"),
            _Text(cols[2]["x"] + 3, top + 1, _wrap(text, _MANIFEST_WRAP), 7, 8),
            right(3, top + 2, row["postage"]),
            right(4, top + 2, row["fee"]),
            right(5, top + 2, row["total"]),
        ]
    totals = [(g["total_tops"][0], f"Page total ({page['pieces']} pieces)", page)]
    if last:
        totals.append((g["total_tops"][1], f"Grand total ({grand['pieces']} pieces)", grand))
    for top, label, figures in totals:
        items += [
            _Text(g["left"] + 3, top + 3, (label,), 7, 8.4, "/TidHB"),
            right(3, top + 3, figures["postage"], "/TidHB"),
            right(4, top + 3, figures["fee"], "/TidHB"),
            right(5, top + 3, figures["total"], "/TidHB"),
        ]
    listed = (
        f"{grand['pieces']}"
        if last and page_count <= 1
        else (f"{page['pieces']} (all pages: {grand['pieces']})" if last else f"{page['pieces']}")
    )
    items.append(_Text(g["left"] + 4, g["foot_top"] + 12, (listed,), 9, 11, "/TidHB"))
    return items


def _render_manifest_flowing(
    pages: list[dict[str, Any]],
    grand: dict[str, Any],
    sender_name: str,
    sender_lines: Sequence[str],
    mailed: str,
    batch_label: str,
) -> bytes:
    from weasyprint import HTML

    html = (
        _env()
        .get_template("pdf/manifest.html")
        .render(
            pages=pages,
            grand=grand,
            sender_name=sender_name,
            sender_lines=list(sender_lines),
            mailed_on=mailed,
            batch_label=batch_label,
        )
    )
    result: bytes = HTML(
        string=html, base_url=str(TEMPLATES), url_fetcher=_data_only_fetcher()
    ).write_pdf()
    return result


def _data_only_fetcher() -> Any:
    """A URL fetcher for ``data:`` URLs only: a document never makes the server fetch."""
    import weasyprint

    class DataOnlyFetcher(weasyprint.URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:"):
                return super().fetch(url, headers)
            raise ValueError(f"resource not allowed in a notice: {url[:60]}")

    return DataOnlyFetcher(allowed_protocols={"data"})
