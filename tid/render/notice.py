"""The fast renderer of the certified-mail notices of 21 LPRA § 6653(5).

A notice run prints one notice per owner (thousands of them). Laid out one by one with
WeasyPrint, each notice pays for a whole document: style cascade, line breaking of two
pages of legal text, drawing, PDF writing and font subsetting (about 0.2 s of CPU). Here:

- the **form layer** — everything the notices of a batch share (labels, the association,
  the ordinance, how to pay, the lien of § 6653(8)) — is laid out ONCE per batch by WeasyPrint
  from ``templates/pdf/notice.html`` (mode "form", every block at a fixed place) and reused
  on every page as a PDF Form XObject;
- the **fill layer** — the owner's own values (number, access code, address, property,
  amount, due date, explanation) and the QR code — is drawn by ReportLab in the form layer's
  faces (DejaVu Sans, Sans Bold, Sans Mono Bold; Droid Sans Fallback for Chinese, Japanese and
  Korean), embedded as TrueType subsets with their Unicode maps, at the places the template
  reserves for them, and the QR code as filled rectangles; any name, address or explanation
  in a script drawn glyph after glyph (Latin with every accent, Vietnamese, Turkish, Greek,
  Cyrillic, CJK) stays on this path;
- a notice whose texts do not fit those places (measured in the embedded faces), or that
  needs shaping (right-to-left scripts, combining marks) or a character no face has, is laid
  out by the flowing template ``pdf/notice_flow.html`` instead (pango shapes it);
- chunks of notices are rendered in a process pool (both cores), and each chunk yields the
  per-notice PDFs (archived) and its part of the print-ready PDF (every notice starts on a
  right-hand page), merged at the end with pypdf;
- every PDF is PDF/A-2u (tid/render/pdfa.py): Spanish (``/Lang es``), the English page marked as
  English (marked content with ``/Lang (en)``), the association as author. Notices are not
  tagged (the two layers are drawn apart; the reports, certificate and statement are).

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
import re
import textwrap
import unicodedata
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import jinja2
from babel.dates import format_date

from tid.config import PROJECT_ROOT
from tid.rules.messages import Message, render

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
    period_label: str  # the fiscal year billed: "2025-26"
    cadastral_number: str
    property_address: str
    owner_name: str
    mailing_lines: tuple[str, ...]
    amount: Decimal
    explanation: str  # how the amount was computed, in English (the English page)
    due_on: date
    how_to_pay: str  # in Spanish (the Spanish page)
    lien_effective_on: date
    article_number: str = ""
    remailing_of: str = ""
    explanation_es: str = ""  # the same in Spanish; empty: the one text on both pages
    how_to_pay_en: str = ""  # the same in English; empty: the one text on both pages
    # The owner quotes the notice number with a payment (the payments desk finds the bill
    # by it): the notice prints no other reference.


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


_ORDINANCE_PREFIX = re.compile(
    r"^(?:(?:ord(?:enanza|inance)?|n[úu]m(?:ero)?|no|number|#)\.?\s*)+", re.IGNORECASE
)


def ordinance_number(text: str) -> str:
    """The ordinance's number as the notice prints it after its own "Núm." / "No.": what the
    clerk recorded without a leading "Ord.", "Ordenanza", "Núm." or "No." ("Ord. Núm. 9" →
    "9"), so that neither page reads "Núm. Ord. Núm. 9"."""
    bare = _ORDINANCE_PREFIX.sub("", text.strip())
    return bare or text.strip() or "—"


def url_parts(url: str) -> tuple[str, ...]:
    """The portal's address in the pieces a line may break between: after a "/" (not inside
    "//"), or after a "." or "-" of the host and path, and never inside the last piece, which
    holds the notice's number ("portal?n=2026-000008"). Lines are filled greedily, so a short
    address stays whole."""
    head, sep, last = url.rpartition("/")
    if not sep:
        return (url,)
    pieces = re.split(r"(?<=[^/]/)(?!/)|(?<=[.-])", head + sep)
    return (*(piece for piece in pieces if piece), last)


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
        "ordinance_number": ordinance_number(n.ordinance_number),
        "ordinance_issued_es": _day(n.ordinance_issued_on, "es_PR"),
        "ordinance_issued_en": _day(n.ordinance_issued_on, "en_US"),
        "ordinance_approved_es": _day(n.ordinance_approved_on, "es_PR"),
        "ordinance_approved_en": _day(n.ordinance_approved_on, "en_US"),
        "term_years": n.term_years,
        "period_label": n.period_label,
        "how_to_pay": n.how_to_pay,
        "how_to_pay_en": n.how_to_pay_en or n.how_to_pay,
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
        "explanation_lines_es": (n.explanation_es or n.explanation).splitlines() or [""],
        "portal_url_parts": url_parts(n.portal_url),
        "due_es": _day(n.due_on, "es_PR"),
        "due_en": _day(n.due_on, "en_US"),
        "article_number": n.article_number,
        "remailing_of": n.remailing_of,
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
# What fits the form layer's fixed regions (characters per line, lines), measured with DejaVu
# Sans with a margin for wide letters; a notice that does not fit is laid out by the flowing
# template. The owner's texts are measured in points (``_fill_items``).
_FITS = {
    "facts": (72, 2),
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


def _form_fits(n: NoticeContent) -> bool:
    """Whether the batch's texts fit the form layer's fixed regions (WeasyPrint lays them
    out in any script; these only have so many lines)."""
    return (
        len(n.mailing_lines) <= 5
        and _fits(f"AVISO DE DERRAMA — {n.district_name}", "title")
        and _fits(n.how_to_pay, "how_to_pay")
        and _fits(n.how_to_pay_en or n.how_to_pay, "how_to_pay")
        and _fits(f"{n.district_name} ({n.municipality_name})", "facts")
        and _fits(
            f"Núm. {ordinance_number(n.ordinance_number)}, emitida el 30 de septiembre de 2026, "
            f"aprobada por el alcalde el 30 de septiembre de 2026; vigencia de {n.term_years} años",
            "ordinance",
        )
    )


def fits_fixed_layout(n: NoticeContent) -> bool:
    """Whether the notice's texts fit the fixed regions of pdf/notice.html: the form layer's
    by their lines, the owner's measured in the embedded faces and drawable by them."""
    return _form_fits(n) and _fits_items(_fill_items(n, "es")) and _fits_items(_fill_items(n, "en"))


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
        return template.render(
            notices=[_context(n) for n in contents], title=PRINT_TITLE, author=_author(contents)
        )
    make = {
        "form": _form_context,
        "fill": lambda n: _fill_context(n, qr=False),
        "full": _context,
    }[mode]
    return (
        _env()
        .get_template("pdf/notice.html")
        .render(
            notices=[make(n) for n in contents],
            mode=mode,
            g=geometry(),
            title=PRINT_TITLE,
            author=_author(contents),
        )
    )


def _author(contents: Sequence[NoticeContent]) -> str:
    return contents[0].association_name if contents else ""


def _page_ranges(pages: Sequence[Any], count: int, *, english: bool = False) -> list[Any]:
    """(first, last) page index of each notice, from the anchors of its first and last page;
    with ``english``, (first, last, first page of the English part)."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    part: dict[int, int] = {}
    for index, page in enumerate(pages):
        for anchor in page.anchors:
            kind, _, number = anchor.partition("-")
            if kind == "n":
                first[int(number)] = index
            elif kind == "e":
                last[int(number)] = index
            elif kind == "l":
                part[int(number)] = index
    ranges: list[Any] = []
    for i in range(count):
        if i not in first or i not in last or last[i] < first[i]:
            raise RuntimeError(f"notice {i} of the batch has no page range")  # pragma: no cover
        if english:
            ranges.append((first[i], last[i], part.get(i, last[i] + 1)))
        else:
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
# The owner's own values are drawn straight onto each page at the fixed places of
# pdf/notice.html by ReportLab, in the same faces as the form layer (DejaVu Sans, Sans Bold,
# Sans Mono Bold), embedded as TrueType subsets with their Unicode maps: laying out a few
# dozen short lines per notice with WeasyPrint would cost more than everything else of the
# run together. A character the face lacks is drawn in the fallback face (Droid Sans
# Fallback: Chinese, Japanese, Korean), when installed. Text that needs shaping or runs
# right to left (Arabic, Hebrew, combining marks, Indic scripts) and characters no face has
# send the notice to the flowing layout, which pango shapes.

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
_FACE_FILES = {
    "/TidH": "DejaVuSans.ttf",
    "/TidHB": "DejaVuSans-Bold.ttf",
    "/TidCB": "DejaVuSansMono-Bold.ttf",
}
FALLBACK_FILE = "DroidSansFallbackFull.ttf"  # Debian: fonts-droid-fallback
# DejaVu's vertical metrics (hhea, of the 2048-unit em): where WeasyPrint puts a baseline in
# a line box of a given height.
_ASCENT, _DESCENT = 1901 / 2048, 483 / 2048
_NO_FAST_BIDI = frozenset({"R", "AL", "AN", "RLE", "RLO", "RLI"})
_MARKS = frozenset({"Mn", "Mc", "Me"})  # combining marks: placed by shaping


@dataclass(frozen=True)
class _Face:
    name: str  # as registered with ReportLab
    covers: frozenset[int]


def _font_file(file_name: str) -> Path | None:
    for folder in FONT_DIRS:
        if folder.is_dir():
            for path in sorted(folder.rglob(file_name)):
                return path
    return None


@functools.cache
def _faces() -> dict[str, _Face]:
    """The fill layer's faces by font key, and the fallback ("*") when it is installed;
    registered with ReportLab once per process."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    files = {**_FACE_FILES, "*": FALLBACK_FILE}
    faces: dict[str, _Face] = {}
    for key, file_name in files.items():
        path = _font_file(file_name)
        if path is None:
            if key == "*":
                continue
            raise RuntimeError(f"font {file_name} is missing (install fonts-dejavu-core)")
        name = "Tid-" + Path(file_name).stem
        font = TTFont(name, str(path))
        pdfmetrics.registerFont(font)
        faces[key] = _Face(name, frozenset(font.face.charToGlyph))
    return faces


def _shapes_simply(ch: str) -> bool:
    """Whether ``ch`` can be drawn glyph after glyph, left to right (no shaping)."""
    if unicodedata.bidirectional(ch) in _NO_FAST_BIDI:
        return False
    return unicodedata.category(ch) not in _MARKS


def _runs(text: str, font: str) -> list[tuple[str, str]] | None:
    """``text`` cut into (ReportLab face, text) runs: the font's own face, the fallback for
    what it lacks; None when some character cannot be drawn on the fast path."""
    faces = _faces()
    primary = faces[font]
    if text.isascii() or all(ord(ch) in primary.covers for ch in text):
        if text.isascii() or all(_shapes_simply(ch) for ch in set(text)):
            return [(primary.name, text)] if text else []
        return None
    fallback = faces.get("*")
    runs: list[tuple[str, str]] = []
    for ch in text:
        if not _shapes_simply(ch):
            return None
        if ord(ch) in primary.covers:
            name = primary.name
        elif fallback is not None and ord(ch) in fallback.covers:
            name = fallback.name
        else:
            return None
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1] + ch)
        else:
            runs.append((name, ch))
    return runs


def drawable(text: str, font: str = "/TidH") -> bool:
    """Whether the fast path can draw ``text`` in ``font`` (its face or the fallback)."""
    return _runs(unicodedata.normalize("NFC", text), font) is not None


def text_width(text: str, font: str, size: float) -> float:
    """The advance width of ``text`` in points (ReportLab's metrics of the embedded faces)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    runs = _runs(text, font)
    if runs is None:
        raise ValueError(f"not drawable on the fast path: {text!r}")
    return float(sum(stringWidth(run, name, size) for name, run in runs))


def _wrap_width(text: str, font: str, size: float, width: float) -> tuple[str, ...] | None:
    """``text`` broken into lines of at most ``width`` points (at spaces; a word wider than
    the line is cut); None when it cannot be drawn on the fast path."""
    lines: list[str] = []
    for paragraph in unicodedata.normalize("NFC", text).splitlines() or [""]:
        if _runs(paragraph, font) is None:
            return None
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, font, size) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word
            while text_width(line, font, size) > width and len(line) > 1:
                cut = len(line) - 1
                while cut > 1 and text_width(line[:cut], font, size) > width:
                    cut -= 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line)
    return tuple(lines)


def _wrap_parts(
    parts: Sequence[str], font: str, size: float, width: float
) -> tuple[str, ...] | None:
    """``parts`` joined into lines of at most ``width`` points, breaking only between parts
    (``url_parts``); None when a part cannot be drawn or is wider than a line."""
    lines: list[str] = []
    line = ""
    for part in parts:
        if _runs(part, font) is None or text_width(part, font, size) > width:
            return None
        if line and text_width(line + part, font, size) > width:
            lines.append(line)
            line = ""
        line += part
    return (*lines, line)


@dataclass(frozen=True)
class _Text:
    left: float
    top: float  # of the first line box, points from the top of the page
    lines: tuple[str, ...]
    size: float = 8.2
    leading: float = 10.0
    font: str = "/TidH"
    max_lines: int = 0  # 0: no limit
    right: float | None = None  # right-aligned at this x instead of starting at ``left``


def _block(
    left: float,
    top: float,
    text: str,
    width: float,
    size: float = 8.2,
    leading: float = 10.0,
    font: str = "/TidH",
    max_lines: int = 1,
) -> _Text | None:
    lines = _wrap_width(text, font, size, width)
    if lines is None:
        return None
    return _Text(left, top, lines, size, leading, font, max_lines)


def _fits_items(items: Sequence[_Text | None]) -> bool:
    return all(
        item is not None and (not item.max_lines or len(item.lines) <= item.max_lines)
        for item in items
    )


def _draw(canvas: Any, items: Sequence[_Text], page_height: float) -> None:
    """Draw ``items`` on ``canvas``'s current page (ReportLab: origin at the bottom left)."""
    for item in items:
        # The first baseline where WeasyPrint puts it: the line box's top, half the leading
        # less the font's height, and the ascent.
        first = (
            page_height
            - item.top
            - (item.leading - (_ASCENT + _DESCENT) * item.size) / 2
            - _ASCENT * item.size
        )
        text = canvas.beginText()
        for index, line in enumerate(item.lines):
            line = unicodedata.normalize("NFC", line)
            runs = _runs(line, item.font)
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


def _fill_items(n: NoticeContent, side: str) -> list[_Text | None]:
    """What the owner's notice prints on one side, wrapped to its places; an item that cannot
    be drawn is None, and one that needs more lines than its place holds does not fit."""
    g = geometry()[side]
    row = g["row"]
    value_left, value_width = 197.0, 368.0
    es = side == "es"
    items: list[_Text | None] = []
    if es:
        url_lines = _wrap_parts(url_parts(n.portal_url), "/TidH", 7, 133)
        portal = (*(url_lines or ()), f"Aviso: {n.number}", "Código de acceso:")
        mailing = [_wrap_width(line, "/TidH", 9.5, 274) for line in n.mailing_lines]
        name = _wrap_width(n.owner_name, "/TidH", 9.5, 274)
        address = (
            None
            if name is None or any(m is None for m in mailing)
            else _Text(
                65, 144, (*name, *(x for m in mailing for x in m or ())), 9.5, 12, max_lines=6
            )
        )
        items += [
            _block(440, 62, f"Aviso {n.number}", 129, 8.2, 10, "/TidHB"),
            _Text(436, 78, ("Portal del dueño",), 7, 8.6, "/TidHB"),
            None if url_lines is None else _Text(436, 86.6, portal, 7, 8.6, max_lines=7),
            _block(436, 88 + 8.6 * len(portal), n.access_code, 133, 10, 12, "/TidCB"),
            address,
        ]
    if n.remailing_of:
        text = (
            f"Este aviso reemplaza el aviso {n.remailing_of}, que fue devuelto."
            if es
            else f"This notice replaces notice {n.remailing_of}, which was returned."
        )
        items.append(_block(43, g["remail"], text, 526, font="/TidHB"))
    label = "Número de catastro" if es else "Cadastral number"
    due = _day(n.due_on, "es_PR" if es else "en_US")
    reference = (
        f"Con su pago indique el número de aviso {n.number}."
        if es
        else f"With your payment quote the notice number {n.number}."
    )
    explanation = (n.explanation_es or n.explanation) if es else n.explanation
    items += [
        _block(
            value_left,
            row["property"] + 2,
            f"{label} {n.cadastral_number}\n{n.property_address}",
            value_width,
            max_lines=2,
        ),
        _block(value_left, row["owner"] + 2, n.owner_name, value_width, max_lines=2),
        _block(value_left, row["amount"] + 2, amount_text(n.amount), value_width, 11, 13, "/TidHB"),
        _block(value_left, row["due"] + 2, due, value_width, 11, 13, "/TidHB"),
        _block(43, g["explanation"], explanation, 526, 7.8, 9.6, max_lines=7),
        _block(43, g["reference"], reference, 526),
    ]
    if not es:
        items.append(_block(43, g["number"], f"{n.association_name} · {n.number}", 526, 7, 8.6))
    return items


def _fonts_resource(writer: Any, drawn: Any) -> Any:
    """The embedded fonts of the ReportLab document ``drawn`` (a reader), added to
    ``writer`` once, as one /Font resource dictionary for its pages."""
    from pypdf.generic import DictionaryObject, NameObject

    fonts = DictionaryObject()
    seen: set[int] = set()
    for page in drawn.pages:
        resources = page.get("/Resources")
        font_dict = resources.get_object().get("/Font") if resources is not None else None
        if font_dict is None:
            continue
        ref = font_dict.indirect_reference if hasattr(font_dict, "indirect_reference") else None
        key = ref.idnum if ref is not None else id(font_dict)
        if key in seen:
            continue
        seen.add(key)
        font_dict = font_dict.get_object()
        for name in font_dict:
            if name not in fonts:
                source = font_dict.raw_get(name)
                ref = source.clone(writer, ignore_fields=("/FontFile2",))
                _unhint(writer, source.get_object(), ref.get_object())
                fonts[NameObject(name)] = ref
    return writer._add_object(fonts)


def _unhint(writer: Any, source: Any, font: Any) -> None:
    """Embed ``source``'s font program in its clone ``font`` without the TrueType hinting
    (instructions and their tables), as WeasyPrint does for its subsets: a third of the
    size, the same outlines, glyph ids, widths and character map."""
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.tables import ttProgram
    from pypdf.generic import DecodedStreamObject, NameObject, NumberObject

    original = source.get("/FontDescriptor")
    if original is None or "/FontFile2" not in original.get_object():
        return
    descriptor = font["/FontDescriptor"].get_object()
    program = TTFont(io.BytesIO(original.get_object()["/FontFile2"].get_object().get_data()))
    for tag in ("fpgm", "prep", "cvt ", "hdmx", "VDMX", "LTSH"):
        if tag in program:
            del program[tag]
    glyf = program["glyf"]
    for glyph_name in program.getGlyphOrder():
        glyph = glyf[glyph_name]
        if hasattr(glyph, "program"):
            glyph.program = ttProgram.Program()
            glyph.program.fromBytecode(b"")
    out = io.BytesIO()
    program.save(out)
    stream = DecodedStreamObject()
    stream.set_data(out.getvalue())
    stream[NameObject("/Length1")] = NumberObject(len(out.getvalue()))
    descriptor[NameObject("/FontFile2")] = writer._add_object(stream.flate_encode())


# Marked content around the English side of a notice: the part's language (the document's
# is Spanish).
_ENGLISH_OPEN = b"/Span <</Lang (en)>> BDC\n"
_ENGLISH_CLOSE = b"\nEMC"


def _filled_page(
    writer: Any,
    form: tuple[str, Any],
    box: Any,
    fonts: Any,
    operators: bytes,
    *,
    english: bool = False,
) -> Any:
    """A new page of ``writer``: the form XObject, then the fill operators over it."""
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    page = writer.add_blank_page(width=box.width, height=box.height)
    name, xobject = form
    xobjects = DictionaryObject()
    xobjects[NameObject(name)] = xobject
    resources = DictionaryObject()
    resources[NameObject("/XObject")] = xobjects
    if fonts is not None:
        resources[NameObject("/Font")] = fonts
    page[NameObject("/Resources")] = resources
    data = f"q {name} Do Q\n".encode() + operators
    if english:
        data = _ENGLISH_OPEN + data + _ENGLISH_CLOSE
    stream = DecodedStreamObject()
    stream.set_data(data)
    page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
    return page


def _mark_english(writer: Any, page: Any) -> None:
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


def _canvas(buffer: io.BytesIO, page_size: tuple[float, float]) -> Any:
    from reportlab.pdfgen.canvas import Canvas

    return Canvas(
        buffer,
        pagesize=page_size,
        invariant=True,
        pageCompression=1,  # the embedded font programs too
        initialFontName=_faces()["/TidH"].name,
    )


def _page_operators(drawn: Any, index: int) -> bytes:
    contents = drawn.pages[index].get("/Contents")
    if contents is None:
        return b""
    data: bytes = contents.get_object().get_data()
    return data


# Long: the steps of one chunk's two-layer rendering (layout, form, fill, split, merge) share the
# layout's objects.
def render_chunk(contents: Sequence[NoticeContent]) -> tuple[list[bytes], bytes, int]:
    """Render ``contents``: per-notice PDFs, the chunk's print PDF and its page count. Runs in
    a worker process.

    A notice whose texts fit the fixed layout is two pages, each the batch's form layer (laid
    out once by WeasyPrint, shared as a Form XObject) with the owner's values (drawn by
    ReportLab, fonts embedded) and the QR code over it; any other notice is laid out by the
    flowing template. The print PDF keeps the given order and starts every notice on a
    right-hand page (a blank page after a notice with an odd number of pages). Every PDF is
    PDF/A-2u in Spanish with its English part marked."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    fill: dict[int, tuple[list[_Text], list[_Text]]] = {}
    for i, n in enumerate(contents):
        if _form_fits(n):
            es, en = _fill_items(n, "es"), _fill_items(n, "en")
            if _fits_items(es) and _fits_items(en):
                fill[i] = ([x for x in es if x], [x for x in en if x])
    flowing = [i for i in range(len(contents)) if i not in fill]
    forms: dict[tuple[Any, ...], tuple[list[tuple[str, Any]], Any]] = {}
    flowing_pages: dict[int, tuple[Any, list[int], int]] = {}
    if flowing:
        doc = _layout(notices_html([contents[i] for i in flowing], flowing=True))
        ranges = _page_ranges(doc.pages, len(flowing), english=True)
        reader = PdfReader(io.BytesIO(doc.write_pdf()))
        del doc
        for i, (first, last, english) in zip(flowing, ranges, strict=True):
            flowing_pages[i] = (reader, list(range(first, last + 1)), english)

    drawn: Any = None
    fonts: Any = None
    fill_page: dict[int, int] = {}
    if fill:
        buffer = io.BytesIO()
        canvas = _canvas(buffer, (612, 792))
        for i, sides in fill.items():
            fill_page[i] = canvas.getPageNumber() - 1
            for items in sides:
                _draw(canvas, items, 792)
                canvas.showPage()
        canvas.save()
        drawn = PdfReader(buffer)
        fonts = _fonts_resource(writer, drawn)

    placed: list[list[Any]] = []
    for i, content in enumerate(contents):
        if i in flowing_pages:
            reader, indexes, english_from = flowing_pages[i]
            pages = [writer.add_page(reader.pages[k]) for k in indexes]
            for k, page in zip(indexes, pages, strict=True):
                if k >= english_from:
                    _mark_english(writer, page)
        else:
            key = form_key(content)
            if key not in forms:
                form_pdf = _layout(notices_html([content], mode="form")).write_pdf()
                refs = _form_xobjects(writer, form_pdf)
                box = PdfReader(io.BytesIO(form_pdf)).pages[0].mediabox
                forms[key] = ([(f"/TidForm{len(forms)}x{k}", r) for k, r in enumerate(refs)], box)
            xobjects, box = forms[key]
            height = float(box.height)
            first = fill_page[i]
            spanish = _page_operators(drawn, first) + b"\n"
            spanish += qr_pdf_operators(content.portal_url, height)
            english = _page_operators(drawn, first + 1)
            pages = [
                _filled_page(writer, xobjects[0], box, fonts, spanish),
                _filled_page(writer, xobjects[1], box, fonts, english, english=True),
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
        finish_notice_pdf(one, f"Aviso / Notice {content.number}", content.association_name)
        out = io.BytesIO()
        one.write(out)
        singles.append(out.getvalue())
    finish_notice_pdf(writer, PRINT_TITLE, contents[0].association_name if contents else "")
    merged = io.BytesIO()
    writer.write(merged)
    return singles, merged.getvalue(), len(writer.pages)


PRINT_TITLE = "Avisos / Notices"
PDF_VARIANT = "pdf/a-2u"  # what WeasyPrint writes on its own (the flowing manifest, the baseline)


def finish_notice_pdf(writer: Any, title: str, author: str) -> None:
    """A notice's (or the print file's) PDF/A identification: Spanish, with English."""
    from tid.render import pdfa

    pdfa.finish(writer, title=title, author=author or "tid", lang="es", languages=("es", "en"))


def _merge(parts: Sequence[bytes], author: str) -> bytes:
    if len(parts) == 1:
        return parts[0]
    from pypdf import PdfWriter

    writer = PdfWriter()
    for part in parts:
        writer.append(io.BytesIO(part))
    finish_notice_pdf(writer, PRINT_TITLE, author)
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
    merged = _merge([merged for _singles, merged, _pages in results], contents[0].association_name)
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
    ).write_pdf(pdf_variant=PDF_VARIANT)
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
    return_receipt_fee: Decimal | None = None,
    rows_per_page: int = MANIFEST_ROWS_PER_PAGE,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The manifest's pages (rows in ascending article-number order, numbered, with page
    totals) and the grand total. Every piece pays ``postage`` + ``fee`` (+ the return-receipt
    fee when the run asks for one: ``None`` leaves its cells empty). Totals are exact:
    the per-piece amounts times the pieces, so the pages add up to the grand total."""
    ordered = sorted(rows, key=lambda r: r.article_number)
    rr = return_receipt_fee if return_receipt_fee is not None else Decimal("0.00")
    per_piece = postage + fee + rr
    rr_text = amount_text(rr) if return_receipt_fee is not None else ""
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
                        "rr": rr_text,
                        "total": amount_text(per_piece),
                    }
                    for i, r in enumerate(chunk)
                ],
                "pieces": count,
                "postage": amount_text(postage * count),
                "fee": amount_text(fee * count),
                "rr": amount_text(rr * count),
                "total": amount_text(per_piece * count),
            }
        )
    n = len(ordered)
    grand = {
        "pieces": n,
        "postage": amount_text(postage * n),
        "fee": amount_text(fee * n),
        "rr": amount_text(rr * n),
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
    return_receipt_fee: Decimal | None = None,
    rows_per_page: int = MANIFEST_ROWS_PER_PAGE,
) -> bytes:
    """The certified-mail manifest (PS Form 3877 layout) as a PDF: the form's grid laid out
    once, the rows and totals written over it on every page (the flowing layout when a row
    does not fit its cell)."""
    pages, grand = manifest_pages(
        rows,
        postage=postage,
        fee=fee,
        return_receipt_fee=return_receipt_fee,
        rows_per_page=rows_per_page,
    )
    mailed = mailed_on.isoformat() if mailed_on else "____________"
    g = manifest_geometry(rows_per_page)
    page_items = [
        _manifest_items(
            g, page, grand, page["number"] == max(1, len(pages)), len(pages), mailed, batch_label
        )
        for page in pages
        or [
            {
                "number": 1,
                "rows": [],
                "pieces": 0,
                "postage": "$0.00",
                "fee": "$0.00",
                "rr": "$0.00",
                "total": "$0.00",
            }
        ]
    ]
    if not all(_fits_items(items) for items in page_items):
        return _render_manifest_flowing(
            pages, grand, sender_name, sender_lines, mailed, batch_label
        )
    from pypdf import PdfReader, PdfWriter

    form_pdf = _layout(
        _env()
        .get_template("pdf/manifest_form.html")
        .render(
            g=g,
            sender_name=sender_name,
            sender_lines=list(sender_lines),
            purpose=render(MANIFEST_PURPOSE),
        )
    ).write_pdf()
    box = PdfReader(io.BytesIO(form_pdf)).pages[0].mediabox
    height = float(box.height)
    buffer = io.BytesIO()
    canvas = _canvas(buffer, (float(box.width), height))
    for items in page_items:
        _draw(canvas, [x for x in items if x is not None], height)
        canvas.showPage()
    canvas.save()
    drawn = PdfReader(buffer)
    writer = PdfWriter()
    fonts = _fonts_resource(writer, drawn)
    (form_ref,) = _form_xobjects(writer, form_pdf)[:1]
    for index in range(len(page_items)):
        _filled_page(writer, ("/TidManifest", form_ref), box, fonts, _page_operators(drawn, index))
    from tid.render import pdfa

    pdfa.finish(
        writer, title=manifest_title(sender_name), author=sender_name, lang="en", languages=("en",)
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# What the manifest is for: our words on the Postal Service's form (whose own captions stay
# in English, as USPS prints PS Form 3877), in the language of whoever prints it.
MANIFEST_PURPOSE = Message("Notices of 21 LPRA § 6653(5)")


def manifest_title(sender_name: str) -> str:
    return f"PS Form 3877 — {sender_name}"


_MANIFEST_WIDTH = 252.0  # the addressee cell, less its padding


@functools.cache
def manifest_geometry(rows_per_page: int = MANIFEST_ROWS_PER_PAGE) -> dict[str, Any]:
    """Where the grid of the PS 3877 form lies on a landscape letter page (points)."""
    left, width, top, head_h = 32, 728, 28, 64
    labels = (
        ("No.", 30),
        ("Article Number", 140),
        ("Name of Addressee, Street, and Post Office Address", 258),
        ("Postage", 70),
        ("Fee (Certified)", 70),
        ("RR Fee (Return Receipt)", 70),
        ("Total (Postage + Fees)", 90),
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
) -> list[_Text | None]:
    cols = g["columns"]
    items: list[_Text | None] = [
        _Text(
            g["type_x"],
            g["top"] + 46,
            (
                render(
                    Message(
                        "Mailing date: %(date)s · batch %(batch)s", date=mailed, batch=batch_label
                    )
                ),
                render(
                    Message(
                        "Page %(page)s of %(pages)s", page=page["number"], pages=max(1, page_count)
                    )
                ),
            ),
            7,
            8.4,
        )
    ]

    def right(col: int, top: float, text: str, font: str = "/TidH", size: float = 7) -> _Text:
        c = cols[col]
        edge = c["x"] + c["w"] - 3
        return _Text(c["x"], top, (text,), size, 8.4, font, right=edge)

    for row, top in zip(page["rows"], g["row_tops"], strict=False):
        text = f"{row['name']} — {row['address']} ({row['notice']})"
        items += [
            right(0, top + 2, str(row["line"])),
            _Text(cols[1]["x"] + 3, top + 2, (row["article"],), 7.2, 8.4, "/TidCB"),
            _block(cols[2]["x"] + 3, top + 1, text, _MANIFEST_WIDTH, 7, 8, max_lines=3),
            right(3, top + 2, row["postage"]),
            right(4, top + 2, row["fee"]),
            right(5, top + 2, row["rr"]),
            right(6, top + 2, row["total"]),
        ]
    page_total = Message("Page total (%(pieces)s pieces)", pieces=page["pieces"])
    totals = [(g["total_tops"][0], render(page_total), page)]
    if last:
        grand_total = Message("Grand total (%(pieces)s pieces)", pieces=grand["pieces"])
        totals.append((g["total_tops"][1], render(grand_total), grand))
    for top, label, figures in totals:
        items += [
            _Text(g["left"] + 3, top + 3, (label,), 7, 8.4, "/TidHB"),
            right(3, top + 3, figures["postage"], "/TidHB"),
            right(4, top + 3, figures["fee"], "/TidHB"),
            right(5, top + 3, figures["rr"], "/TidHB"),
            right(6, top + 3, figures["total"], "/TidHB"),
        ]
    listed = (
        f"{grand['pieces']}"
        if last and page_count <= 1
        else (
            render(
                Message(
                    "%(pieces)s (all pages: %(total)s)",
                    pieces=page["pieces"],
                    total=grand["pieces"],
                )
            )
            if last
            else f"{page['pieces']}"
        )
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
            words={
                "purpose": render(MANIFEST_PURPOSE),
                "mailing_date": render(Message("Mailing date: %(date)s", date=mailed)),
                "batch": render(Message("batch %(batch)s", batch=batch_label)),
                "page_of": [
                    render(
                        Message("Page %(page)s of %(pages)s", page=p["number"], pages=len(pages))
                    )
                    for p in pages
                ],
                "page_total": [
                    render(Message("Page total (%(pieces)s pieces)", pieces=p["pieces"]))
                    for p in pages
                ],
                "grand_total": render(
                    Message("Grand total (%(pieces)s pieces)", pieces=grand["pieces"])
                ),
                "this_page": render(Message("(this page)")),
            },
        )
    )
    result: bytes = HTML(
        string=html, base_url=str(TEMPLATES), url_fetcher=_data_only_fetcher()
    ).write_pdf(pdf_variant=PDF_VARIANT)
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
