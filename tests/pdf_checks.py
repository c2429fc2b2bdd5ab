"""Reading a document of record back: PDF/A identification and output intent, every font
embedded and subset, the language, the title and author, and (for the tagged ones) the
structure tree and the PDF/UA identification."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pypdf import PdfReader
from pypdf.generic import DictionaryObject

_SUBSET = re.compile(r"^/[A-Z]{6}\+")


def _fonts(resources: Any, seen: set[int]) -> Iterator[tuple[str, DictionaryObject]]:
    """Every font of a resource dictionary, and of the Form XObjects it uses, recursively."""
    if resources is None:
        return
    resources = resources.get_object()
    for name, ref in (resources.get("/Font") or {}).items():
        yield name, ref.get_object()
    for ref in (resources.get("/XObject") or {}).values():
        key = getattr(ref, "idnum", None)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        xobject = ref.get_object()
        if xobject.get("/Subtype") == "/Form":
            yield from _fonts(xobject.get("/Resources"), seen)


def font_problems(data: bytes) -> list[str]:
    """Fonts used by the document that are not embedded or not subset."""
    reader = PdfReader(io.BytesIO(data))
    problems = []
    seen: set[int] = set()
    for number, page in enumerate(reader.pages, start=1):
        for name, font in _fonts(page.get("/Resources"), seen):
            base = str(font.get("/BaseFont"))
            descriptor_owner = font
            if font.get("/Subtype") == "/Type0":
                descriptor_owner = font["/DescendantFonts"][0].get_object()
            descriptor = descriptor_owner.get("/FontDescriptor")
            descriptor = descriptor.get_object() if descriptor is not None else {}
            if not any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                problems.append(f"page {number} {name} {base}: not embedded")
            if not _SUBSET.match(base):
                problems.append(f"page {number} {name} {base}: not a subset")
            if "/ToUnicode" not in font:
                problems.append(f"page {number} {name} {base}: no Unicode map")
    return problems


def assert_archival(
    data: bytes, *, lang: str, author: str | None = None, tagged: bool = False
) -> PdfReader:
    """Assert that ``data`` is a document of record; returns its reader."""
    assert data.startswith(b"%PDF-1.7")
    reader = PdfReader(io.BytesIO(data))
    root = reader.trailer["/Root"]
    assert str(root.get("/Lang")) == lang
    xmp = root["/Metadata"].get_object().get_data().decode("utf-8")
    assert re.search(r'pdfaid:part(="|>)2', xmp), xmp
    assert re.search(r'pdfaid:conformance(="|>)[ABU]', xmp), xmp
    intents = root["/OutputIntents"]
    assert any(
        i.get_object()["/S"] == "/GTS_PDFA1" and "/DestOutputProfile" in i.get_object()
        for i in intents
    )
    info = reader.metadata
    assert info is not None and info.title and info.author
    assert "<dc:title>" in xmp and info.title in xmp.replace("&amp;", "&")
    assert "<dc:creator>" in xmp and info.author in xmp.replace("&amp;", "&")
    if author is not None:
        assert info.author == author
    assert reader.trailer.get("/ID") is not None
    assert font_problems(data) == []
    if tagged:
        assert "/StructTreeRoot" in root and root["/MarkInfo"]["/Marked"]
        assert re.search(r'pdfuaid:part(="|>)1', xmp), xmp
        assert structure_problems(data) == []  # headings, and each table's header cells
    return reader


# Poppler's pdftotext (make installs poppler-utils) reads a PDF's text in a small fraction of
# pypdf's time; ``-raw`` keeps the order the page draws its text in, as pypdf does.
_PDFTOTEXT = shutil.which("pdftotext")


def _pdftotext(data: bytes, mode: str) -> str:
    assert _PDFTOTEXT is not None, "pdftotext: make installs poppler-utils"
    read = subprocess.run(
        [_PDFTOTEXT, mode, "-enc", "UTF-8", "-", "-"], input=data, capture_output=True, check=True
    )
    return read.stdout.decode("utf-8")


def pdf_text(data: bytes) -> str:
    """A PDF's text, every run of whitespace made one space (lines wrap anywhere)."""
    if _PDFTOTEXT is None:
        return page_text(PdfReader(io.BytesIO(data)))
    return " ".join(_pdftotext(data, "-raw").split())


def pdf_layout_text(data: bytes) -> str:
    """A PDF's text as its pages place it: columns and lines kept (``pdftotext -layout``)."""
    return _pdftotext(data, "-layout")


def pdf_pages(data: bytes) -> int:
    return len(PdfReader(io.BytesIO(data)).pages)


def page_text(reader: PdfReader) -> str:
    """Every page's text, whitespace runs made one space."""
    return " ".join(" ".join(page.extract_text() or "" for page in reader.pages).split())


@dataclass(frozen=True)
class Element:
    """A structure element read back: its type, depth in the tree, alternative text and
    language (empty when it has none), and the marked content it reads on its page."""

    kind: str
    depth: int
    alt: str
    lang: str
    mcids: tuple[int, ...]
    text: str = ""  # with ``structure(data, text=True)``: the words its marked content draws


# The tokens of a content stream that open and close marked content, strings skipped.
_MARKS = re.compile(rb"\((?:\\.|[^\\)])*\)|/MCID\s+(\d+)\s*>>\s*BDC\b|\b(BDC|BMC|EMC)\b", re.DOTALL)


def _marked_texts(reader: PdfReader, index: int) -> dict[int, str]:
    """The text each marked-content sequence of page ``index`` draws (forms it paints
    included), whitespace runs made one space: each sequence's own bytes drawn alone on a
    page with the page's resources, and that page's text extracted."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, NameObject

    page = reader.pages[index]
    content = page.get_contents()
    data = content.get_data() if content is not None else b""
    sequences: dict[int, bytes] = {}
    open_marks: list[tuple[int, int]] = []  # (MCID or -1, where its content starts)
    for match in _MARKS.finditer(data):
        if match.group(1) is not None:
            open_marks.append((int(match.group(1)), match.end()))
        elif match.group(2) in (b"BDC", b"BMC"):
            open_marks.append((-1, match.end()))
        elif match.group(2) == b"EMC":
            mcid, begin = open_marks.pop()
            if mcid >= 0:
                sequences[mcid] = data[begin : match.start()]
    texts: dict[int, str] = {}
    for mcid, ops in sequences.items():
        writer = PdfWriter()
        alone = writer.add_blank_page(width=page.mediabox.width, height=page.mediabox.height)
        alone[NameObject("/Resources")] = page["/Resources"].get_object().clone(writer)
        stream = DecodedStreamObject()
        stream.set_data(ops)
        alone[NameObject("/Contents")] = writer._add_object(stream)
        texts[mcid] = " ".join((alone.extract_text() or "").split())
    return texts


def structure(data: bytes, *, text: bool = False) -> list[Element]:
    """The structure tree of a tagged PDF, in reading order (an untagged one: empty), after
    checking that it is marked as tagged and every page's marked content is in its
    parent tree; with ``text``, each element's words (those of its marked content)."""
    reader = PdfReader(io.BytesIO(data))
    numbers = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}
    texts: dict[int, dict[int, str]] = {}
    root = reader.trailer["/Root"]
    if "/StructTreeRoot" not in root:
        return []
    assert root["/MarkInfo"]["/Marked"]
    found: list[Element] = []

    def words(page: Any, mcids: tuple[int, ...]) -> str:
        if not text or page is None or not mcids:
            return ""
        index = numbers[page.indirect_reference.idnum]
        if index not in texts:
            texts[index] = _marked_texts(reader, index)
        return " ".join(texts[index].get(m, "") for m in mcids).strip()

    def walk(node: Any, depth: int, page: Any) -> None:
        node = node.get_object()
        page = node["/Pg"].get_object() if "/Pg" in node else page
        kids = node.get("/K")
        kids = [] if kids is None else kids if isinstance(kids, list) else [kids]
        mcids = tuple(int(k) for k in kids if isinstance(k, int))
        if "/S" in node:
            alt, lang = str(node.get("/Alt", "")), str(node.get("/Lang", ""))
            found.append(Element(str(node["/S"]), depth, alt, lang, mcids, words(page, mcids)))
        for kid in kids:
            kid = kid.get_object() if hasattr(kid, "get_object") else kid
            if isinstance(kid, DictionaryObject) and kid.get("/Type") not in ("/MCR", "/OBJR"):
                walk(kid, depth + 1, page)

    tree = root["/StructTreeRoot"].get_object()
    walk(tree, -1, None)
    parents = tree["/ParentTree"].get_object()
    nums = parents.get("/Nums") or []
    keyed = {int(nums[i]): nums[i + 1].get_object() for i in range(0, len(nums), 2)}
    for page in reader.pages:
        content = page.get_contents()
        text = content.get_data().decode("latin-1") if content is not None else ""
        marked = {int(m) for m in re.findall(r"/MCID (\d+)", text)}
        if "/StructParents" in page:
            assert len(keyed[int(page["/StructParents"])]) == len(marked)
        else:
            assert not marked
    return found


HEADINGS = {"/H", "/H1", "/H2", "/H3", "/H4", "/H5", "/H6"}


def structure_problems(data: bytes) -> list[str]:
    """What keeps a document of record from reading well with a screen reader: no structure
    tree, no heading, a table without a header cell."""
    read = structure(data)
    if not read:
        return ["untagged"]
    problems = []
    if not any(e.kind in HEADINGS for e in read):
        problems.append("no heading")
    for index, element in enumerate(read):
        if element.kind != "/Table":
            continue
        inside = []
        for other in read[index + 1 :]:
            if other.depth <= element.depth:
                break
            inside.append(other.kind)
        if "/TH" not in inside:
            problems.append(f"a table of {inside.count('/TR')} rows without a header cell")
    return problems
