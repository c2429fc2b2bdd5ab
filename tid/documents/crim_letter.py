"""The transmittal letter of the ordinance to the Municipal Revenue Collection Center
(21 LPRA § 6653(4)): a PDF/A document of record in the municipality's name, with the
ordinance as signed (its PDF in the petition's file) after it."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from tid.documents.base import PDF, Document, Reader
from tid.models import Municipality, Ordinance
from tid.render import concat
from tid.rules.messages import N_, Message, render

TITLE = N_("Copy of the ordinance to the Municipal Revenue Collection Center")
AUTHOR = N_("Municipality of %(name)s")
SIGNED_PAGE = N_("The ordinance as signed, page %(page)s of %(pages)s")


def crim_letter(
    *,
    reader: Reader,
    municipality: Municipality,
    ordinance: Ordinance,
    signed: bytes | None,
) -> Document:
    """The letter (and the signed ordinance's pages after it, when ``signed`` is a PDF)."""
    pages = _pages(signed) if signed else 0
    letter = reader.pdf(
        "pdf/crim_letter.html",
        municipality=municipality,
        ordinance=ordinance,
        day=reader.today,
        attached=pages,
    )
    name = f"crim-{ordinance.number or ordinance.id}-{reader.today.isoformat()}.pdf"
    name = "".join(c if c.isalnum() or c in "-." else "-" for c in name)
    if not signed or not pages:
        return Document(letter, PDF, name)
    with tempfile.TemporaryDirectory(prefix="tid-crim-") as work:
        parts = [Path(work) / "letter.pdf", Path(work) / "ordinance.pdf"]
        parts[0].write_bytes(letter)
        parts[1].write_bytes(signed)
        out = io.BytesIO()
        concat.concatenate(
            parts,
            out,
            title=reader.say(TITLE),
            author=render(Message(AUTHOR, name=municipality.name), reader.locale),
            lang=reader.locale,
            # The letter keeps its structure; the signed ordinance's pages (a scan, as
            # often as not) are each read as a figure saying what it is.
            figure_alt=lambda page: render(
                Message(SIGNED_PAGE, page=page, pages=pages), reader.locale
            ),
        )
    return Document(out.getvalue(), PDF, name)


def _pages(data: bytes) -> int:
    from pypdf import PdfReader

    try:
        return len(PdfReader(io.BytesIO(data), strict=False).pages)
    except Exception:  # the signed ordinance was checked on upload; a doubt leaves it out
        return 0
