"""The words inside a file of the legislature's record, for the clerk's search: a PDF's text
layer, a DOCX/ODT's paragraphs, an XLSX/ODS's cells, a CSV's text. A scan (an image, or a
PDF whose pages carry no text) has none: it is flagged so a person can tell, not guessed at.
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass

from tid.rules import file_content

MAX_TEXT = 1_000_000  # characters kept of one file's text
MAX_PDF_PAGES = 2_000
_TAG = re.compile(rb"<[^>]{0,4096}>")
_BREAK = re.compile(rb"</(?:w:p|text:p|text:h|row|table:table-row|si)>")
_SPACE = re.compile(r"[ \t\f\v]+")
_PARTS = {
    "docx": ("word/document.xml",),
    "odt": ("content.xml",),
    "xlsx": ("xl/sharedStrings.xml",),
    "ods": ("content.xml",),
}


@dataclass(frozen=True)
class Extracted:
    text: str
    pages: int | None  # a PDF's pages
    has_text: bool  # False: a scan without a text layer (flag it)


def extract(data: bytes, code: str) -> Extracted:
    """The text of a file of type ``code`` (a :data:`tid.rules.file_content.TYPES` code)."""
    if code == "pdf":
        return _pdf(data)
    if code in _PARTS:
        return _found(_xml_text(data, _PARTS[code]), None)
    if code == "csv":
        return _found(file_content.decode_text(data) or "", None)
    return Extracted("", None, False)  # an image: a scan


def _found(text: str, pages: int | None) -> Extracted:
    lines = (_SPACE.sub(" ", line).strip() for line in text[:MAX_TEXT].splitlines())
    clean = "\n".join(line for line in lines if line)
    return Extracted(clean, pages, len(clean.replace("\n", "")) >= 3)


def _xml_text(data: bytes, parts: tuple[str, ...]) -> str:
    archive = file_content.open_zip(data, "file")
    budget = [file_content.MAX_UNPACKED]
    texts = []
    for part in parts:
        if part not in archive.namelist():
            continue
        xml = file_content.read_entry(archive, part, budget, "file")
        xml = _BREAK.sub(b"\n", xml)
        texts.append(html.unescape(_TAG.sub(b" ", xml).decode("utf-8", "replace")))
    return "\n".join(texts)


def _pdf(data: bytes) -> Extracted:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data), strict=False)
    pages = len(reader.pages)
    texts: list[str] = []
    size = 0
    for index, page in enumerate(reader.pages):
        if index >= MAX_PDF_PAGES or size > MAX_TEXT:
            break
        try:
            text = page.extract_text() or ""
        except Exception:  # one unreadable page leaves the others' words
            text = ""
        texts.append(text)
        size += len(text)
    return _found("\n".join(texts), pages)
