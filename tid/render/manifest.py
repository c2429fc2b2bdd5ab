"""The certified-mail manifest (USPS PS Form 3877) of a notice run, as a PDF/A-2u document.

The form's grid is laid out once (``templates/pdf/manifest_form.html``) and the rows and
totals are drawn over it on every page (tid/render/layers.py); a row that does not fit its
cell sends the whole manifest to the flowing layout (``templates/pdf/manifest.html``). Rows
are in ascending article-number order; page and grand totals are exact (:func:`manifest_pages`).
The form's own captions stay in English, as USPS prints it; our words on it are catalog
messages in the reader's language.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from tid.render.fonts import fonts_resource
from tid.render.layers import (
    PDF_VARIANT,
    TEMPLATES,
    Text,
    amount_text,
    block,
    data_only_fetcher,
    draw,
    env,
    filled_page,
    fits_items,
    form_xobjects,
    layout,
    new_canvas,
    page_operators,
)
from tid.rules.certified_mail import grouped_article_number
from tid.rules.messages import Message, render

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


# Long: the form's two paths (drawn over the grid, or flowing) and the tagging of each, in order.
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
    if not all(fits_items(items) for items in page_items):
        return _render_manifest_flowing(
            pages, grand, sender_name, sender_lines, mailed, batch_label
        )
    from pypdf import PdfReader, PdfWriter

    form_pdf = layout(
        env()
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
    canvas = new_canvas(buffer, (float(box.width), height))
    for items in page_items:
        draw(canvas, [x for x in items if x is not None], height)
        canvas.showPage()
    canvas.save()
    drawn = PdfReader(buffer)
    writer = PdfWriter()
    fonts = fonts_resource(writer, drawn)
    (form_ref,) = form_xobjects(writer, form_pdf)[:1]
    for index in range(len(page_items)):
        operators = page_operators(drawn, index)
        filled_page(writer, ("/TidManifest", form_ref), box, fonts, operators, lang="en")
    from tid.render import pdfa, tagging

    tagging.tag(writer)  # a section a page: its lines, then the form's captions
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
