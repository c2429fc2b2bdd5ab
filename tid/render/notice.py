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
  English (marked content with ``/Lang (en)``), the association as author. Each owner's notice
  and the print file are tagged (tid/render/tagging.py): a section a page in its language,
  read top to bottom as a screen reader should — the form layer is laid out a block a page
  (``_form_pieces``), each block a Form XObject, and the owner's values are drawn each after
  its mark (``_fill_parts``), so that a page draws the blocks and values in reading order,
  each the element it is (``_side_parts``): the title and the sections' headings, the facts
  as a table whose labels are its header cells, paragraphs, the QR code as a figure with its
  alternative text. The print file keeps each notice's structure when its chunks and
  slices are joined (tid/render/concat.py).

Every word a notice prints is a catalog message (tid/translations): the Spanish page's from
the Spanish catalog and the English page's from the English one, whatever the reader's
language (:func:`say` here, the ``_`` of ``es`` or ``en`` that :func:`page_words` gives the
templates). Each message is looked up once per process, so a batch translates its words once,
not once per notice.

``render_one_naive`` lays out one notice as its own WeasyPrint document (mode "full": the
same fixed layout, form and fill in one document), the baseline of benchmarks/notices.py.
The PS Form 3877 manifest is drawn the same way over its grid (tid/render/manifest.py); the
two layers' machinery is tid/render/layers.py, the faces tid/render/fonts.py, the QR code
tid/render/qr.py.

This module knows nothing of the database: it takes :class:`NoticeContent` values and
returns bytes. Its entry point is :func:`render_notices`.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import re
import textwrap
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from multiprocessing import get_context
from typing import Any

from babel.dates import format_date
from markupsafe import Markup

from tid.render import tagging
from tid.render.fonts import fonts_resource, wrap_parts, wrap_width
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
    mark_english,
    new_canvas,
    page_operators,
)
from tid.render.qr import qr_pdf_operators, qr_svg_data_uri
from tid.rules.messages import N_, Message, gettext_of
from tid.rules.vocab.lien_kinds import ahead_of_impost

DEFAULT_CHUNK = 200  # notices per WeasyPrint layout: ~2 pages each, bounded memory
POOL_FROM = 50  # notices from which the pool's start pays for itself
PROGRESS_STEPS = 4  # chunks a pooled worker renders at least (each notice is counted as done)
TICK_WAIT = 0.2  # seconds between the counts of a pooled run's notices
TICKS_LATE = 5.0  # seconds a notice's count may trail its chunk's result

# Every word of the notice is a catalog message (tid/translations), printed on the Spanish
# page from the Spanish catalog and on the English page from the English one, whatever the
# reader's language. These are the ones drawn from here; the rest are in the templates.
KIND_LABELS = {
    "initial": N_("Initial notice"),
    "yearly": N_("Yearly notice"),
    "remailing": N_("Re-mailing of a returned notice"),
}
NOTICE = N_("Notice %(number)s")
NOTICE_WORD = N_("Notice")
PRINT_TITLE = N_("Notices")
TITLE = N_("IMPOST NOTICE — %(district)s")
ORDINANCE = N_(
    "No. %(number)s, issued %(issued)s, approved by the mayor %(approved)s; term of %(years)s years"
)
OWNERS_PORTAL = N_("Owner's portal")
NOTICE_LINE = N_("Notice: %(number)s")
ACCESS_CODE = N_("Access code:")
REPLACES = N_("This notice replaces notice %(number)s, which was returned.")
CADASTRAL = N_("Cadastral number %(number)s")
QUOTE_NUMBER = N_("With your payment quote the notice number %(number)s.")
QR_ALT = N_("QR code of the owner’s portal: %(url)s")
LOCALES = {"es": "es_PR", "en": "en_US"}  # the dates' formats of each page


@functools.cache
def _lookup(lang: str) -> Callable[[str], str]:
    """``lang``'s catalog, each message looked up once per process: a run's notices share
    their words, so a batch translates them once, not once per notice."""
    return functools.cache(gettext_of(lang))


def say(lang: str, msgid: str, /, **params: Any) -> str:
    """A message of the notice in ``lang`` (``es`` or ``en``), its parameters filled in."""
    text = _lookup(lang)(msgid)
    return text % params if params else text


def page_words(lang: str) -> Callable[..., Markup]:
    """The templates' ``_`` for a page in ``lang``: the catalog's message as markup, its
    parameters escaped unless they are markup themselves."""
    lookup = _lookup(lang)

    def words(msgid: str, /, **params: Any) -> Markup:
        if isinstance(msgid, Message):  # a message of the rules, its parameters and all
            return Markup.escape(_said(msgid, lookup))
        text = Markup(lookup(msgid))
        return text % params if params else text

    return words


def _said(message: Message, lookup: Callable[[str], str]) -> str:
    """A message of the rules in the page's catalog (``lookup``), its messages within too;
    its other parameters are the page's own values (days already written in its language)."""
    params = {k: _said(v, lookup) if isinstance(v, Message) else v for k, v in message.params}
    template = lookup(message.msgid)
    return template % params if params else template


def print_title() -> str:
    """The print file's title, in both languages ("Avisos / Notices")."""
    return f"{say('es', PRINT_TITLE)} / {say('en', PRINT_TITLE)}"


def notice_title(number: str) -> str:
    """One notice's title, in both languages ("Aviso / Notice 2026-000008")."""
    return f"{say('es', NOTICE_WORD)} / {say('en', NOTICE_WORD)} {number}"


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
    kind = KIND_LABELS.get(n.kind, KIND_LABELS["yearly"])
    return {
        "kind_es": say("es", kind),
        "kind_en": say("en", kind),
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
        "lien_ahead_es": ahead_of_impost(_day(n.lien_effective_on, "es_PR")),
        "lien_ahead_en": ahead_of_impost(_day(n.lien_effective_on, "en_US")),
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
# label, height); the flowing layout has the same rows.
_ROWS = (
    ("district", N_("District"), 26),
    ("ordinance", N_("Municipal ordinance"), 26),
    ("property", N_("Property"), 26),
    ("owner", N_("Owner"), 26),
    ("period", N_("Period"), 14),
    ("amount", N_("Amount due"), 17),
    ("due", N_("Due date"), 17),
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


def _side(top: int, lang: str) -> dict[str, Any]:
    title = top
    intro = title + 29
    remail = intro + 11
    rows = []
    positions: dict[str, int] = {}
    y = remail + 15
    for key, label, height in _ROWS:
        rows.append({"key": key, "top": y, "height": height, "label": say(lang, label)})
        positions[key] = y
        y += height
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
        "foot": 748 if lang == "es" else lien + 112,
        "number": 760 if lang == "es" else lien + 146,
    }


@functools.cache
def geometry() -> dict[str, Any]:
    return {"es": _side(226, "es"), "en": _side(43, "en")}


def _lines_needed(text: str, width: int) -> int:
    return sum(max(1, len(textwrap.wrap(line, width))) for line in text.splitlines() or [""])


def _fits(text: str, region: str) -> bool:
    width, lines = _FITS[region]
    return _lines_needed(text, width) <= lines


_LONGEST_DATE = format_date(date(2026, 9, 30), format="long", locale="es_PR")


def _form_fits(n: NoticeContent) -> bool:
    """Whether the batch's texts fit the form layer's fixed regions (WeasyPrint lays them
    out in any script; these only have so many lines)."""
    return (
        len(n.mailing_lines) <= 5
        and _fits(say("es", TITLE, district=n.district_name), "title")
        and _fits(n.how_to_pay, "how_to_pay")
        and _fits(n.how_to_pay_en or n.how_to_pay, "how_to_pay")
        and _fits(f"{n.district_name} ({n.municipality_name})", "facts")
        and _fits(
            say(
                "es",
                ORDINANCE,
                number=ordinance_number(n.ordinance_number),
                issued=_LONGEST_DATE,
                approved=_LONGEST_DATE,
                years=n.term_years,
            ),
            "ordinance",
        )
    )


def fits_fixed_layout(n: NoticeContent) -> bool:
    """Whether the notice's texts fit the fixed regions of pdf/notice.html: the form layer's
    by their lines, the owner's measured in the embedded faces and drawable by them."""
    return _form_fits(n) and fits_items(_fill_items(n, "es")) and fits_items(_fill_items(n, "en"))


def notices_html(
    contents: Sequence[NoticeContent], *, mode: str = "full", flowing: bool = False
) -> str:
    """The HTML of a batch of notices: one document. ``mode``: full | form | fill (fixed
    layout); ``flowing``: the flowing layout instead (texts of any length)."""
    if flowing:
        template = env().get_template("pdf/notice_flow.html")
        return template.render(
            notices=[_context(n) for n in contents],
            g=geometry(),
            es=page_words("es"),
            en=page_words("en"),
            title=print_title(),
            author=_author(contents),
        )
    make = {
        "form": _form_context,
        "fill": lambda n: _fill_context(n, qr=False),
        "full": _context,
    }[mode]
    return (
        env()
        .get_template("pdf/notice.html")
        .render(
            notices=[make(n) for n in contents],
            mode=mode,
            g=geometry(),
            es=page_words("es"),
            en=page_words("en"),
            title=print_title(),
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


def _fill_items(n: NoticeContent, side: str) -> list[Text | None]:
    """What the owner's notice prints on one side, wrapped to its places; an item that cannot
    be drawn is None, and one that needs more lines than its place holds does not fit."""
    return [item for _name, item in _fill_named(n, side)]


def _fill_named(n: NoticeContent, side: str) -> list[tuple[str, Text | None]]:
    """:func:`_fill_items` by their names in the notice's reading order (:func:`_side_parts`)."""
    g = geometry()[side]
    row = g["row"]
    value_left, value_width = 197.0, 368.0
    es = side == "es"
    items: list[tuple[str, Text | None]] = []
    if es:
        url_lines = wrap_parts(url_parts(n.portal_url), "/TidH", 7, 133)
        portal = (
            *(url_lines or ()),
            say(side, NOTICE_LINE, number=n.number),
            say(side, ACCESS_CODE),
        )
        mailing = [wrap_width(line, "/TidH", 9.5, 274) for line in n.mailing_lines]
        name = wrap_width(n.owner_name, "/TidH", 9.5, 274)
        address = (
            None
            if name is None or any(m is None for m in mailing)
            else Text(
                65, 144, (*name, *(x for m in mailing for x in m or ())), 9.5, 12, max_lines=6
            )
        )
        items += [
            ("number", block(440, 62, say(side, NOTICE, number=n.number), 129, 8.2, 10, "/TidHB")),
            ("portal_head", Text(436, 78, (say(side, OWNERS_PORTAL),), 7, 8.6, "/TidHB")),
            ("portal", None if url_lines is None else Text(436, 86.6, portal, 7, 8.6, max_lines=7)),
            ("code", block(436, 88 + 8.6 * len(portal), n.access_code, 133, 10, 12, "/TidCB")),
            ("address", address),
        ]
    if n.remailing_of:
        text = say(side, REPLACES, number=n.remailing_of)
        items.append(("remail", block(43, g["remail"], text, 526, font="/TidHB")))
    cadastral = say(side, CADASTRAL, number=n.cadastral_number)
    due = _day(n.due_on, LOCALES[side])
    reference = say(side, QUOTE_NUMBER, number=n.number)
    explanation = (n.explanation_es or n.explanation) if es else n.explanation
    big = (11, 13, "/TidHB")
    items += [
        (
            "property",
            block(
                value_left,
                row["property"] + 2,
                f"{cadastral}\n{n.property_address}",
                value_width,
                max_lines=2,
            ),
        ),
        ("owner", block(value_left, row["owner"] + 2, n.owner_name, value_width, max_lines=2)),
        ("amount", block(value_left, row["amount"] + 2, amount_text(n.amount), value_width, *big)),
        ("due", block(value_left, row["due"] + 2, due, value_width, *big)),
        ("explanation", block(43, g["explanation"], explanation, 526, 7.8, 9.6, max_lines=7)),
        ("reference", block(43, g["reference"], reference, 526)),
    ]
    if not es:
        line = f"{n.association_name} · {n.number}"
        items.append(("number", block(43, g["number"], line, 526, 7, 8.6)))
    return items


def render_chunk(
    contents: Sequence[NoticeContent], tick: Callable[[], None] | None = None
) -> tuple[list[bytes], bytes, int]:
    """Render ``contents``: per-notice PDFs, the chunk's print PDF and its page count. Runs in
    a worker process; ``tick`` is called as each notice's PDF is done.

    A notice whose texts fit the fixed layout is two pages, each the batch's form layer (laid
    out once by WeasyPrint, shared as a Form XObject) with the owner's values (drawn by
    ReportLab, fonts embedded) and the QR code over it; any other notice is laid out by the
    flowing template. The print PDF keeps the given order and starts every notice on a
    right-hand page (a blank page after a notice with an odd number of pages). Every PDF is
    PDF/A-2u in Spanish with its English part marked."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    fill = _fitting_fills(contents)
    flowing_pages = _flowing_pages(contents, [i for i in range(len(contents)) if i not in fill])
    drawn, fonts, fill_page = _drawn_fills(writer, fill)
    forms: dict[tuple[Any, ...], tuple[dict[str, bytes], Any, Any]] = {}
    placed: list[list[Any]] = []
    for i, content in enumerate(contents):
        if i in flowing_pages:
            pages = _place_flowing(writer, *flowing_pages[i])
        else:
            pages = _place_form(writer, forms, content, (drawn, fonts, fill_page[i]))
        placed.append(pages)
        if len(pages) % 2:
            last_box = pages[-1].mediabox
            writer.add_blank_page(width=last_box.width, height=last_box.height)
    singles = _singles(contents, placed, tick)
    # The print file goes to the printer and is joined a chunk and a slice at a time:
    # untagged (each owner's own notice, the document of record a reader opens, is tagged).
    # Tagged, a 4,000-owner run's print file took 1.8× the time and its join 1.7× the memory.
    tagging.strip(writer)
    finish_notice_pdf(writer, print_title(), contents[0].association_name if contents else "")
    merged = io.BytesIO()
    writer.write(merged)
    return singles, merged.getvalue(), len(writer.pages)


Named = list[tuple[str, Text]]  # the owner's values of a side, by their names


def _fitting_fills(contents: Sequence[NoticeContent]) -> dict[int, tuple[Named, Named]]:
    """The owner's values of each notice that fits the fixed layout, Spanish then English."""
    fill: dict[int, tuple[Named, Named]] = {}
    for i, n in enumerate(contents):
        if _form_fits(n):
            es, en = _fill_named(n, "es"), _fill_named(n, "en")
            if fits_items([x for _k, x in es]) and fits_items([x for _k, x in en]):
                fill[i] = ([(k, x) for k, x in es if x], [(k, x) for k, x in en if x])
    return fill


def _flowing_pages(
    contents: Sequence[NoticeContent], flowing: list[int]
) -> dict[int, tuple[Any, list[int], int, dict[int, list[Any]]]]:
    """The notices that do not fit the fixed layout, laid out (and tagged) together by the
    flowing template: each one's reader, its pages, the first of its English pages and the
    reader's structure elements by page."""
    from pypdf import PdfReader

    found: dict[int, tuple[Any, list[int], int, dict[int, list[Any]]]] = {}
    if flowing:
        doc = layout(notices_html([contents[i] for i in flowing], flowing=True))
        ranges = _page_ranges(doc.pages, len(flowing), english=True)
        reader = PdfReader(io.BytesIO(doc.write_pdf(pdf_tags=True)))
        del doc
        elements = tagging.elements_by_page(reader)
        for i, (first, last, english) in zip(flowing, ranges, strict=True):
            found[i] = (reader, list(range(first, last + 1)), english, elements)
    return found


# Before each of the owner's values in the drawn fill layer (a comment: it draws nothing),
# so that each value is read as the element it is (:func:`_fill_parts`).
_FILL_MARK = "%TidValue "
_FILL_SPLIT = re.compile(rb"%TidValue (\w+)\r?\n")


def _drawn_fills(
    writer: Any, fill: dict[int, tuple[Named, Named]]
) -> tuple[Any, Any, dict[int, int]]:
    """The owner's values of the fitting notices drawn by ReportLab, a page a side (each
    value after its mark): the drawn PDF, its fonts as the writer's resource, and each
    notice's first drawn page."""
    from pypdf import PdfReader

    if not fill:
        return None, None, {}
    fill_page: dict[int, int] = {}
    buffer = io.BytesIO()
    canvas = new_canvas(buffer, (612, 792))
    for i, sides in fill.items():
        fill_page[i] = canvas.getPageNumber() - 1
        for items in sides:
            for name, item in items:
                canvas.addLiteral(f"{_FILL_MARK}{name}")
                draw(canvas, [item], 792)
            canvas.showPage()
    canvas.save()
    drawn = PdfReader(buffer)
    return drawn, fonts_resource(writer, drawn), fill_page


def _place_flowing(
    writer: Any,
    reader: Any,
    indexes: list[int],
    english_from: int,
    elements: dict[int, list[Any]],
) -> list[Any]:
    """A flowing notice's pages added to the writer, each read in its language as the
    flowing layout tagged it: its headings, paragraphs, the facts' table with its header
    cells, the QR code as a figure with its alternative text."""
    pages = [writer.add_page(reader.pages[k]) for k in indexes]
    for k, page in zip(indexes, pages, strict=True):
        tagging.adopt(page, "en" if k >= english_from else "es", elements.get(k, []))
        if k >= english_from:
            mark_english(writer, page)
    return pages


def _place_form(
    writer: Any,
    forms: dict[tuple[Any, ...], tuple[dict[str, bytes], Any, Any]],
    content: NoticeContent,
    drawing: tuple[Any, Any, int],
) -> list[Any]:
    """A fitting notice's two pages: the form layer's blocks (laid out once per form, kept
    in ``forms``) and the owner's drawn values, in reading order, each the element it is,
    and the QR code on the Spanish side."""
    drawn, fonts, first = drawing
    key = form_key(content)
    if key not in forms:
        forms[key] = _form_pieces(writer, content, fonts, len(forms))
    pieces, box, resources = forms[key]
    height = float(box.height)
    es_before, es_values = _fill_parts(page_operators(drawn, first))
    en_before, en_values = _fill_parts(page_operators(drawn, first + 1))
    qr = qr_pdf_operators(content.portal_url, height)
    qr_alt = say("es", QR_ALT, url=content.portal_url)
    return [
        composed_page(
            writer,
            box,
            resources,
            _side_parts("es", pieces, es_values, qr=qr, qr_alt=qr_alt),
            lang="es",
            before=es_before,
        ),
        composed_page(
            writer,
            box,
            resources,
            _side_parts("en", pieces, en_values),
            lang="en",
            english=True,
            before=en_before,
        ),
    ]


def _form_pieces(
    writer: Any, content: NoticeContent, fonts: Any, index: int
) -> tuple[dict[str, bytes], Any, Any]:
    """The form layer of ``content``'s batch laid out once, a block a page (named by its id,
    "es-title"), each block a Form XObject of ``writer``: the operators that draw each, the
    page's box and the resources every page of this form shares (the blocks, the fill's
    fonts)."""
    from pypdf import PdfReader
    from pypdf.generic import DictionaryObject, NameObject

    names, form_pdf = _form_layout(_Form(form_key(content), content))
    refs = form_xobjects(writer, form_pdf)
    box = PdfReader(io.BytesIO(form_pdf)).pages[0].mediabox
    xobjects = DictionaryObject()
    pieces: dict[str, bytes] = {}
    for k, (name, ref) in enumerate(zip(names, refs, strict=True)):
        xobjects[NameObject(f"/TidForm{index}x{k}")] = ref
        pieces[name] = f"q /TidForm{index}x{k} Do Q\n".encode()
    resources = DictionaryObject()
    resources[NameObject("/XObject")] = writer._add_object(xobjects)
    resources[NameObject("/Font")] = fonts
    return pieces, box, writer._add_object(resources)


_FORMS_KEPT = 4  # form layers a process keeps laid out (a run has one or a few)


@dataclass(frozen=True)
class _Form:
    """A form layer to lay out, known by its key (``form_key``: all the layer shows) alone,
    so that notices of one form share it whoever their owners are; ``content``, one of them,
    is what it is laid out from."""

    key: tuple[Any, ...]
    content: NoticeContent = field(compare=False)


@functools.lru_cache(maxsize=_FORMS_KEPT)
def _form_layout(form: _Form) -> tuple[tuple[str, ...], bytes]:
    """The form layer of the notices of ``form``, a block a page: each page's name and the
    PDF. Laid out once per process for each form, not per chunk: a renderer process keeps
    the last few forms it laid out."""
    doc = layout(notices_html([form.content], mode="form"))
    names = tuple(next(iter(page.anchors)).removeprefix("f-") for page in doc.pages)
    return names, doc.write_pdf()


def _fill_parts(operators: bytes) -> tuple[bytes, dict[str, bytes]]:
    """A drawn side's operators cut at the values' marks: what comes before the first (the
    canvas's opening state, drawing nothing) and each value's own operators by name."""
    before, *rest = _FILL_SPLIT.split(operators)
    values = {rest[k].decode(): rest[k + 1] for k in range(0, len(rest), 2)}
    return before, values


def _side_parts(
    side: str, form: dict[str, bytes], fill: dict[str, bytes], qr: bytes = b"", qr_alt: str = ""
) -> list[tagging.Part]:
    """A side of a fitting notice as a screen reader reads it, top to bottom: (on the
    Spanish side) the sender, the owner's number, QR code, portal and address; the title;
    the facts as a table (each row's label its header cell); the sections, each under its
    heading; the lien and the foot."""
    part = tagging.Part

    def form_part(name: str, kind: str = "P", lang: str = "") -> tagging.Part:
        return part(kind, form[f"{side}-{name}"], lang=lang)

    rows = tuple(
        part(
            "TR",
            kids=(
                form_part(f"row-{key}", "TH"),
                part("TD", form.get(f"{side}-val-{key}") or fill[key]),
            ),
        )
        for key, _label, _height in _ROWS
    )
    parts: list[tagging.Part] = []
    if side == "es":
        portal = fill["portal_head"] + fill["portal"] + fill["code"]
        parts += [
            form_part("return"),
            form_part("certified"),
            form_part("certified-en", lang="en"),
            part("P", fill["number"]),
            part("Figure", qr, alt=qr_alt),
            part("P", portal),
            part("P", fill["address"]),
        ]
    parts += [form_part("title", "H1"), form_part("intro")]
    if "remail" in fill:
        parts.append(part("P", fill["remail"]))
    parts += [
        part("Table", kids=rows),
        form_part("explanation-head", "H2"),
        part("P", fill["explanation"]),
        form_part("pay-head", "H2"),
        form_part("pay"),
        part("P", fill["reference"]),
        form_part("lien"),
        form_part("foot"),
    ]
    if side == "es":
        parts.append(form_part("foot-en", lang="en"))
    else:
        parts.append(part("P", fill["number"]))
    return parts


def _singles(
    contents: Sequence[NoticeContent],
    placed: list[list[Any]],
    tick: Callable[[], None] | None,
) -> list[bytes]:
    """Each owner's own notice, its pages copied out of the chunk, tagged and PDF/A."""
    from pypdf import PdfWriter

    singles: list[bytes] = []
    for content, pages in zip(contents, placed, strict=True):
        one = PdfWriter()
        for page in pages:
            tagging.copy_page(one, page)
        finish_notice_pdf(one, notice_title(content.number), content.association_name)
        tagging.tag(one)
        out = io.BytesIO()
        one.write(out)
        singles.append(out.getvalue())
        if tick is not None:
            tick()
    return singles


def finish_notice_pdf(writer: Any, title: str, author: str) -> None:
    """A notice's (or the print file's) PDF/A identification: Spanish, with English."""
    from tid.render import pdfa

    pdfa.finish(writer, title=title, author=author or "tid", lang="es", languages=("es", "en"))


def _merge(parts: Sequence[bytes], author: str) -> bytes:
    """The chunks' print files joined, a part at a time (untagged, as each chunk is)."""
    if len(parts) == 1:
        return parts[0]
    from tid.render.concat import concatenate

    out = io.BytesIO()
    concatenate(parts, out, title=print_title(), author=author or "tid")
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
    connection or app is inherited); 1 renders in this process; None: the pool (both cores)
    from ``POOL_FROM`` notices, this process below.
    """
    if not contents:
        return RenderedBatch(notices=[], merged=b"", merged_pages=0)
    if workers is None:
        # Starting the pool's processes (each loads WeasyPrint) costs seconds: a small run
        # renders sooner in this process.
        workers = default_workers() if len(contents) >= POOL_FROM else 1
    chunk_size = max(1, chunk_size)
    # Even chunks, so both workers finish together.
    n_chunks = max(1, -(-len(contents) // chunk_size))
    if workers > 1:
        # A few chunks a worker, so that the count moves while they render.
        n_chunks = max(n_chunks, workers * PROGRESS_STEPS)
        n_chunks = -(-n_chunks // workers) * workers  # a multiple of the workers
    n_chunks = min(n_chunks, len(contents))
    size, extra = divmod(len(contents), n_chunks)
    chunks: list[list[NoticeContent]] = []
    start = 0
    for i in range(n_chunks):
        end = start + size + (1 if i < extra else 0)
        chunks.append(list(contents[start:end]))
        start = end
    if workers > 1 and len(chunks) > 1:
        results = _pooled(chunks, workers, progress, len(contents))
    else:
        results = []
        counted = 0

        def _tick() -> None:
            nonlocal counted
            counted += 1
            if progress is not None:
                progress(counted, len(contents))

        for chunk in chunks:
            results.append(render_chunk(chunk, _tick))
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


_TICKS: Any = None  # a pooled renderer's queue of notices done, to the process that counts them


def _renderer_start(parent: int, ticks: Any) -> None:
    """A pooled renderer dies with the process that started it (a killed worker leaves
    none) and says each notice it finishes on ``ticks``."""
    from tid.proc import die_with_parent

    global _TICKS
    die_with_parent(parent)
    _TICKS = ticks


def _tick_pooled() -> None:
    if _TICKS is not None:
        _TICKS.put(1)


def _render_pooled_chunk(contents: Sequence[NoticeContent]) -> tuple[list[bytes], bytes, int]:
    return render_chunk(contents, _tick_pooled)


def _pooled(
    chunks: Sequence[Sequence[NoticeContent]],
    workers: int,
    progress: Callable[[int, int], None] | None,
    total: int,
) -> list[tuple[list[bytes], bytes, int]]:
    """Render the chunks in a process pool, in their order; ``progress`` is told each notice
    as a renderer finishes it (not each chunk), in the order they finish."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from queue import Empty

    context = get_context("spawn")
    ticks = context.Queue() if progress is not None else None
    counted = 0

    def drain(block: bool) -> None:
        nonlocal counted
        while ticks is not None and progress is not None and counted < total:
            try:
                ticks.get(timeout=TICKS_LATE) if block else ticks.get_nowait()
            except Empty:
                return
            counted += 1
            progress(counted, total)

    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_renderer_start,
        initargs=(os.getpid(), ticks),
    ) as pool:
        futures = {pool.submit(_render_pooled_chunk, chunk): i for i, chunk in enumerate(chunks)}
        ordered: dict[int, tuple[list[bytes], bytes, int]] = {}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=TICK_WAIT, return_when=FIRST_COMPLETED)
            for future in finished:
                ordered[futures[future]] = future.result()
            drain(block=False)
        drain(block=True)  # the last notices' ticks may come after their chunk's result
    if ticks is not None:
        ticks.close()
    if progress is not None and counted < total:
        progress(total, total)
    return [ordered[i] for i in range(len(chunks))]


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
        url_fetcher=data_only_fetcher(),
    ).write_pdf(pdf_variant=PDF_VARIANT)
    return result
