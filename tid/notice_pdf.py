"""The fast renderer of the certified-mail notices of 21 LPRA § 6653(5).

A notice run prints one notice per owner (thousands of them). Laying out each notice as its
own WeasyPrint document pays the fixed cost of a document (style cascade, font loading,
PDF writing and font subsetting) once per notice; instead a chunk of notices is laid out as
ONE HTML document (each notice starts on a right-hand page), written as ONE PDF (the print
file), and that PDF is split into per-notice files with pypdf. Anchors placed on each
notice's first and last page (``#n-<i>`` / ``#e-<i>``) say where one notice ends and the
next begins, so the split does not depend on a fixed page count; blank pages added for
duplex printing stay out of the per-notice files. Chunks are rendered in a process pool to
use every core, and keeping each chunk small bounds the memory of a run.

This module knows nothing of the database: it takes :class:`NoticeContent` values and
returns bytes. Its public entry point is :func:`render_notices`.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import os
from collections.abc import Sequence
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
    import segno

    qr = segno.make(url, error="m", micro=False)
    buffer = io.BytesIO()
    qr.save(buffer, kind="svg", scale=1, border=4, omitsize=True, xmldecl=False, svgns=True)
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def amount_text(amount: Decimal) -> str:
    """``$1,234.50``: the amount as printed on a notice and on the manifest."""
    return f"${amount:,.2f}" if amount >= 0 else f"-${-amount:,.2f}"


def _day(value: date | None, locale: str) -> str:
    if value is None:
        return ""
    return str(format_date(value, format="long", locale=locale))


def _context(n: NoticeContent) -> dict[str, Any]:
    kind_es, kind_en = KIND_LABELS.get(n.kind, KIND_LABELS["yearly"])
    return {
        "number": n.number,
        "access_code": n.access_code,
        "portal_url": n.portal_url,
        "qr": qr_svg_data_uri(n.portal_url),
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
        "cadastral_number": n.cadastral_number,
        "property_address": n.property_address,
        "owner_name": n.owner_name,
        "mailing_lines": n.mailing_lines,
        "amount": amount_text(n.amount),
        "explanation_lines": n.explanation.splitlines() or [""],
        "due_es": _day(n.due_on, "es_PR"),
        "due_en": _day(n.due_on, "en_US"),
        "how_to_pay": n.how_to_pay,
        "lien_effective_es": _day(n.lien_effective_on, "es_PR"),
        "lien_effective_en": _day(n.lien_effective_on, "en_US"),
        "article_number": n.article_number,
        "remailing_of": n.remailing_of,
        "payment_reference": n.payment_reference or n.number,
    }


@functools.cache
def _env() -> jinja2.Environment:
    # A plain Jinja environment (no Flask app): the pool's workers render without one.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def notices_html(contents: Sequence[NoticeContent]) -> str:
    """The HTML of a batch of notices: one document, each notice on its own pages."""
    template = _env().get_template("pdf/notice.html")
    return template.render(notices=[_context(n) for n in contents], title="Avisos / Notices")


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


def render_chunk(contents: Sequence[NoticeContent]) -> tuple[list[bytes], bytes, int]:
    """Lay out ``contents`` as one document; return per-notice PDFs, the chunk's print PDF
    and its page count. Runs in a worker process."""
    from pypdf import PdfReader, PdfWriter
    from weasyprint import HTML

    document = HTML(
        string=notices_html(contents), base_url=str(TEMPLATES), url_fetcher=_data_only_fetcher()
    ).render()
    ranges = _page_ranges(document.pages, len(contents))
    merged = document.write_pdf()
    page_count = len(document.pages)
    del document
    reader = PdfReader(io.BytesIO(merged))
    singles: list[bytes] = []
    for first, last in ranges:
        writer = PdfWriter()
        for index in range(first, last + 1):
            writer.add_page(reader.pages[index])
        writer.add_metadata({"/Title": "Aviso / Notice"})
        out = io.BytesIO()
        writer.write(out)
        singles.append(out.getvalue())
    return singles, merged, page_count


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
    results: list[tuple[list[bytes], bytes, int]]
    if workers > 1 and len(chunks) > 1:
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), max_tasks_per_child=4
        ) as pool:
            results = list(pool.map(render_chunk, chunks))
    else:
        results = [render_chunk(chunk) for chunk in chunks]
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
    """One notice as its own WeasyPrint document: the slow path the benchmark compares to."""
    from weasyprint import HTML

    result: bytes = HTML(
        string=notices_html([content]), base_url=str(TEMPLATES), url_fetcher=_data_only_fetcher()
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
    """The certified-mail manifest (PS Form 3877 layout) as a PDF."""
    from weasyprint import HTML

    pages, grand = manifest_pages(rows, postage=postage, fee=fee, rows_per_page=rows_per_page)
    html = (
        _env()
        .get_template("pdf/manifest.html")
        .render(
            pages=pages,
            grand=grand,
            sender_name=sender_name,
            sender_lines=list(sender_lines),
            mailed_on=mailed_on.isoformat() if mailed_on else "____________",
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
