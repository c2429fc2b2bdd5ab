"""The certified-mail manifest (USPS PS Form 3877) of a notice run, as a PDF/A-2u document.

The form's grid is laid out once (``templates/pdf/manifest_form.html``) and the rows and
totals are drawn over it on every page (tid/render/layers.py); a row that does not fit its
cell sends the whole manifest to the flowing layout (``templates/pdf/manifest.html``). Both
are tagged: the form's blocks are laid out a page each and drawn as Form XObjects, each value
after its mark, so that a page reads in order, each part the element it is — the form's name
its heading, the book a table whose header cells are the form's captions. Rows
are in ascending article-number order; page and grand totals are exact (:func:`manifest_pages`).
The form's own captions stay in English, as USPS prints it; our words on it are catalog
messages in the reader's language.
"""

from __future__ import annotations

import functools
import io
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from tid.render.fonts import fonts_resource
from tid.render.layers import (
    PDF_VARIANT,
    TEMPLATES,
    Text,
    amount_text,
    block,
    composed_page,
    data_only_fetcher,
    draw,
    env,
    fits_items,
    form_xobjects,
    layout,
    new_canvas,
    page_operators,
)
from tid.render.tagging import Part
from tid.rules.certified_mail import grouped_article_number
from tid.rules.messages import Message, current_language, render

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
                        "article": grouped_article_number(r.article_number),
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
    shown = pages or [
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
    page_items = [
        _manifest_items(
            g, page, grand, page["number"] == max(1, len(pages)), len(pages), mailed, batch_label
        )
        for page in shown
    ]
    if not all(fits_items(items) for items in page_items):
        return _render_manifest_flowing(
            pages, grand, sender_name, sender_lines, mailed, batch_label
        )
    rows_shown = [len(page["rows"]) for page in shown]
    return _render_manifest_drawn(g, page_items, rows_shown, sender_name, sender_lines)


def _render_manifest_drawn(
    g: dict[str, Any],
    page_items: list[list[Text | None]],
    rows_shown: list[int],
    sender_name: str,
    sender_lines: Sequence[str],
) -> bytes:
    """The manifest drawn over its form: the form's blocks laid out once, each page drawing
    them and its values in reading order, each the element it is (its rows, ``rows_shown``,
    a row of the table each). A long manifest is drawn ``_SLICE_PAGES`` pages at a time, each
    slice kept in a file, and the slices joined a slice at a time (:mod:`tid.render.concat`):
    its memory is that of one slice, whatever the number of pieces mailed."""
    from pypdf import PdfReader

    from tid.render.concat import concatenate

    form = layout(
        env()
        .get_template("pdf/manifest_form.html")
        .render(
            g=g,
            sender_name=sender_name,
            sender_lines=list(sender_lines),
            purpose=render(MANIFEST_PURPOSE),
        )
    )
    form_pdf = form.write_pdf()
    sheet = _Sheet(
        names=[next(iter(page.anchors)).removeprefix("f-") for page in form.pages],
        pdf=form_pdf,
        box=PdfReader(io.BytesIO(form_pdf)).pages[0].mediabox,
        words=current_language(),  # of our words on the form (its captions are English)
        title=manifest_title(sender_name),
        author=sender_name,
    )
    if len(page_items) <= _SLICE_PAGES:
        return _drawn_pages(sheet, page_items, rows_shown)
    with tempfile.TemporaryDirectory(prefix="tid-manifest-") as folder:
        parts = []
        for first in range(0, len(page_items), _SLICE_PAGES):
            last = first + _SLICE_PAGES
            part = Path(folder) / f"{first:08d}.pdf"
            part.write_bytes(_drawn_pages(sheet, page_items[first:last], rows_shown[first:last]))
            parts.append(part)
        out = io.BytesIO()
        concatenate(
            parts,
            out,
            title=sheet.title,
            author=sheet.author,
            lang="en",
            languages=sheet.languages,
        )
        return out.getvalue()


# The pages of a manifest drawn at a time: drawn whole, 20,000 pieces (1,429 pages) held
# every page's objects and its structure at once, some 500 MB at the peak.
_SLICE_PAGES = 200


@dataclass(frozen=True)
class _Sheet:
    """The form of a manifest laid out (its blocks, a page each, named ``names``) and what
    every slice of it says of itself."""

    names: list[str]
    pdf: bytes
    box: Any  # its pages' size (a pypdf rectangle)
    words: str
    title: str
    author: str

    @property
    def languages(self) -> tuple[str, ...]:
        return ("en",) if self.words == "en" else ("en", self.words)


def _drawn_pages(
    sheet: _Sheet, page_items: list[list[Text | None]], rows_shown: list[int]
) -> bytes:
    """``page_items``' pages over ``sheet``'s form, tagged, as one PDF/A document."""
    from pypdf import PdfReader, PdfWriter

    from tid.render import pdfa, tagging

    box = sheet.box
    height = float(box.height)
    buffer = io.BytesIO()
    canvas = new_canvas(buffer, (float(box.width), height))
    for items in page_items:
        for item in items:  # each value after its mark, to be read as the cell it is
            canvas.addLiteral(_FILL_MARK)
            draw(canvas, [item] if item is not None else [], height)
        canvas.showPage()
    canvas.save()
    drawn = PdfReader(buffer)
    writer = PdfWriter()
    resources, pieces = _form_resources(
        writer, sheet.pdf, sheet.names, fonts_resource(writer, drawn)
    )
    for index in range(len(page_items)):
        before, *values = _FILL_SPLIT.split(page_operators(drawn, index))
        composed_page(
            writer,
            box,
            resources,
            _page_parts(pieces, values, rows=rows_shown[index], words=sheet.words),
            lang="en",
            before=pieces["grid"] + before,
        )
    tagging.tag(writer)
    pdfa.finish(
        writer, title=sheet.title, author=sheet.author, lang="en", languages=sheet.languages
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# Before each value of the drawn fill layer (a comment: it draws nothing), so that each is
# read as the cell it is (:func:`_page_parts`).
_FILL_MARK = "%TidCell"
_FILL_SPLIT = re.compile(rb"%TidCell\r?\n")


def _form_resources(
    writer: Any, form_pdf: bytes, names: list[str], fonts: Any
) -> tuple[Any, dict[str, bytes]]:
    """The form's blocks (a page each of ``form_pdf``, named ``names``) as Form XObjects of
    ``writer``: the resources every page shares (the blocks, the fill's fonts) and the
    operators that draw each block."""
    from pypdf.generic import DictionaryObject, NameObject

    xobjects = DictionaryObject()
    pieces: dict[str, bytes] = {}
    for k, (name, ref) in enumerate(zip(names, form_xobjects(writer, form_pdf), strict=True)):
        xobjects[NameObject(f"/TidManifest{k}")] = ref
        pieces[name] = f"q /TidManifest{k} Do Q\n".encode()
    resources = DictionaryObject()
    resources[NameObject("/XObject")] = writer._add_object(xobjects)
    resources[NameObject("/Font")] = fonts
    return writer._add_object(resources), pieces


def _page_parts(
    pieces: dict[str, bytes], values: list[bytes], *, rows: int, words: str
) -> list[Part]:
    """A page of the manifest as a screen reader reads it: the sender, the form's name (the
    heading), its kind of mail, what it is for, the mailing date and page, the stamp's box;
    the book as a table whose first row is the form's captions (the header cells), a row a
    piece, then the totals (each led by its label); the foot, with the pieces listed.
    ``values`` are the page's drawn values in the order of :func:`_manifest_items`, its
    ``rows`` pieces of mail first (seven cells each), then its totals (five each). Our words
    on the form are in the reader's language ``words``; the form's own, English."""
    lang = "" if words == "en" else words
    header, cells, listed = values[0], values[1:-1], values[-1]
    totals = cells[7 * rows :]
    table = [Part("TR", kids=tuple(Part("TH", pieces[f"caption-{c}"]) for c in range(7)))]
    table += [
        Part("TR", kids=tuple(Part("TD", cell) for cell in cells[7 * r : 7 * r + 7]))
        for r in range(rows)
    ]
    table += [
        Part("TR", kids=(Part("TH", label, lang=lang), *(Part("TD", c) for c in figures)))
        for label, *figures in (totals[t : t + 5] for t in range(0, len(totals), 5))
    ]
    return [
        Part("P", pieces["sender"]),
        Part("H1", pieces["title"]),
        Part("P", pieces["mail"]),
        Part("P", pieces["purpose"], lang=lang),
        Part("P", header, lang=lang),
        Part("P", pieces["stamp"]),
        Part("Table", kids=tuple(table)),
        Part("P", pieces["foot-1"]),
        Part("P", listed, lang=lang),
        Part("P", pieces["foot-2"]),
        Part("P", pieces["foot-3"]),
    ]


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
) -> list[Text | None]:
    cols = g["columns"]
    items: list[Text | None] = [
        Text(
            g["type_x"],
            g["top"] + 46,
            (
                render(
                    Message("Mailing date: %(date)s · %(batch)s", date=mailed, batch=batch_label)
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

    def right(col: int, top: float, text: str, font: str = "/TidH", size: float = 7) -> Text:
        c = cols[col]
        edge = c["x"] + c["w"] - 3
        return Text(c["x"], top, (text,), size, 8.4, font, right=edge)

    for row, top in zip(page["rows"], g["row_tops"], strict=False):
        text = f"{row['name']} — {row['address']} ({row['notice']})"
        items += [
            right(0, top + 2, str(row["line"])),
            Text(cols[1]["x"] + 3, top + 2, (row["article"],), 7.2, 8.4, "/TidCB"),
            block(cols[2]["x"] + 3, top + 1, text, _MANIFEST_WIDTH, 7, 8, max_lines=3),
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
            Text(g["left"] + 3, top + 3, (label,), 7, 8.4, "/TidHB"),
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
    items.append(Text(g["left"] + 4, g["foot_top"] + 12, (listed,), 9, 11, "/TidHB"))
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
        env()
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
                "batch": render(batch_label),
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
        string=html, base_url=str(TEMPLATES), url_fetcher=data_only_fetcher()
    ).write_pdf(pdf_variant=PDF_VARIANT, pdf_tags=True)
    return result
