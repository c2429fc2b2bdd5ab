"""The structure tree of a PDF that pypdf assembles from drawn layers (the notices of
tid/render/notice.py): what a screen reader reads, in what order and in what language.

WeasyPrint tags what it lays out itself (tid/render/pdf.py). A notice's pages are put
together here from the blocks of a form layer (each a Form XObject), the owner's values drawn
over them and its QR code, or copied from a flowing layout; each part is drawn inside its own
marked-content sequence (:func:`marked`: ``/P <</MCID 1>> BDC … EMC``) and the page keeps a
plan of its parts (:func:`compose` for a tree of :class:`Part`, :func:`plan` for a flat
list). :func:`tag` turns the plans of a document's pages into its structure tree: a
``Document`` of one ``Sect`` a page, in the page's language, whose elements (headings,
paragraphs, a table of rows of header cells and cells, a figure with its alternative text,
each with its language where it is not the page's) name the marked content they read, in
reading order, and marks the document as tagged (``/MarkInfo``). :func:`strip` drops the
plans of a document left untagged (a notice run's print file, which goes to the printer).

This module imports neither Flask nor the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PLAN = "/TidStructure"  # a page's plan, until :func:`tag` removes it


@dataclass(frozen=True)
class Part:
    """An element of a page's structure: a leaf draws ``data`` as its marked content, a
    group (a table, its rows) holds ``kids``; ``alt`` is its alternative text (a figure's),
    ``lang`` its language where it is not the page's."""

    kind: str
    data: bytes = b""
    alt: str = ""
    lang: str = ""
    kids: tuple[Part, ...] = ()


def compose(page: Any, lang: str, parts: Sequence[Part]) -> bytes:
    """The content of ``page`` drawing ``parts`` in reading order, each leaf its own
    marked content (numbered in that order), and the page's plan of them."""
    from pypdf.generic import ArrayObject, NameObject, TextStringObject

    chunks: list[bytes] = []

    def planned(part: Part) -> Any:
        mcid = -1
        if not part.kids:
            mcid = len(chunks)
            chunks.append(marked(part.kind, mcid, part.data))
        return _node(part.kind, mcid, part.alt, part.lang, [planned(kid) for kid in part.kids])

    items = ArrayObject(planned(part) for part in parts)
    page[NameObject(PLAN)] = ArrayObject([TextStringObject(lang), items])
    return b"".join(chunks)


def _node(kind: str, mcid: int, alt: str, lang: str, kids: list[Any]) -> Any:
    from pypdf.generic import ArrayObject, NameObject, NumberObject, TextStringObject

    return ArrayObject(
        [
            NameObject(f"/{kind}"),
            NumberObject(mcid),
            TextStringObject(alt),
            TextStringObject(lang),
            ArrayObject(kids),
        ]
    )


def marked(kind: str, mcid: int, data: bytes) -> bytes:
    """``data`` drawn as the marked content ``mcid`` of a ``kind`` element."""
    return f"/{kind} <</MCID {mcid}>> BDC\n".encode() + data + b"\nEMC\n"


def plan(page: Any, lang: str, parts: Sequence[tuple[str, int, str]]) -> None:
    """Keep on ``page`` what its marked content is: ``(kind, mcid, alternative text)`` in
    reading order, the page's language."""
    from pypdf.generic import ArrayObject, NameObject, TextStringObject

    items = ArrayObject(_node(kind, mcid, alt, "", []) for kind, mcid, alt in parts)
    page[NameObject(PLAN)] = ArrayObject([TextStringObject(lang), items])


def copy_page(writer: Any, page: Any) -> Any:
    """``page`` added to ``writer``, its plan shared rather than copied (plain values)."""
    from pypdf.generic import NameObject

    kept = page.pop(PLAN, None)
    copy = writer.add_page(page)
    if kept is not None:
        page[NameObject(PLAN)] = kept
        copy[NameObject(PLAN)] = kept
    return copy


def wrap(writer: Any, page: Any, kind: str, mcid: int) -> None:
    """Wrap a copied page's whole content in one marked-content sequence."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, NameObject

    parts = []
    for data in (f"/{kind} <</MCID {mcid}>> BDC\n".encode(), b"\nEMC\n"):
        stream = DecodedStreamObject()
        stream.set_data(data)
        parts.append(writer._add_object(stream))
    contents = page.raw_get("/Contents")
    inner = list(contents.get_object()) if isinstance(contents.get_object(), list) else [contents]
    page[NameObject("/Contents")] = ArrayObject([parts[0], *inner, parts[1]])


def strip(writer: Any) -> None:
    """Drop the pages' plans: the document stays untagged."""
    for page in writer.pages:
        if PLAN in page:
            del page[PLAN]


def _element(kind: str, parent: Any, page_ref: Any, typed: bool = True, **values: Any) -> Any:
    from pypdf.generic import DictionaryObject, NameObject

    element = DictionaryObject()
    if typed:  # optional (ISO 32000-1, table 323): left out of a page's many elements
        element[NameObject("/Type")] = NameObject("/StructElem")
    element[NameObject("/S")] = NameObject(kind)
    element[NameObject("/P")] = parent
    if page_ref is not None:
        element[NameObject("/Pg")] = page_ref
    for key, value in values.items():
        element[NameObject(f"/{key}")] = value
    return element


def _elements(
    writer: Any,
    nodes: Any,
    parent_ref: Any,
    page_ref: Any,
    by_mcid: dict[int, Any],
    scope: str = "/Row",
) -> Any:
    """The structure elements of a plan's ``nodes`` under ``parent_ref``: a leaf reads its
    marked content (kept in ``by_mcid``), a group its own elements. A header cell heads its
    row (``scope``), or its column in a row of header cells only (a table's captions)."""
    from pypdf.generic import ArrayObject, NameObject, NumberObject, TextStringObject

    kids = ArrayObject()
    for kind, mcid, alt, lang, inner in nodes:
        values: dict[str, Any] = {}
        if str(alt):
            values["Alt"] = TextStringObject(str(alt))
        if str(lang):
            values["Lang"] = TextStringObject(str(lang))
        if str(kind) == "/TH":
            values["A"] = _scope(scope)
        leaf = int(mcid) >= 0  # a group's page is its cells' (a print file has thousands)
        element = _element(str(kind), parent_ref, page_ref if leaf else None, False, **values)
        ref = writer._add_object(element)
        if int(mcid) >= 0:
            element[NameObject("/K")] = NumberObject(int(mcid))
            by_mcid[int(mcid)] = ref
        else:
            captions = str(kind) == "/TR" and all(str(cell[0]) == "/TH" for cell in inner)
            element[NameObject("/K")] = _elements(
                writer, inner, ref, page_ref, by_mcid, "/Column" if captions else "/Row"
            )
        kids.append(ref)
    return kids


def _scope(scope: str) -> Any:
    from pypdf.generic import DictionaryObject, NameObject

    attributes = DictionaryObject()
    attributes[NameObject("/O")] = NameObject("/Table")
    attributes[NameObject("/Scope")] = NameObject(scope)
    return attributes


def tag(writer: Any) -> None:
    """Build the structure tree of ``writer``'s pages from their plans (a page without one,
    a blank page, has no content to read) and mark the document as tagged."""
    from pypdf.generic import (
        ArrayObject,
        BooleanObject,
        DictionaryObject,
        NameObject,
        NumberObject,
        TextStringObject,
    )

    root = DictionaryObject()
    root[NameObject("/Type")] = NameObject("/StructTreeRoot")
    root_ref = writer._add_object(root)
    document = _element("/Document", root_ref, None)
    document_ref = writer._add_object(document)
    sections = ArrayObject()
    nums = ArrayObject()
    key = 0
    for page in writer.pages:
        if PLAN not in page:
            continue
        lang, parts = page[PLAN][0], page[PLAN][1]
        del page[PLAN]
        page_ref = page.indirect_reference
        section = _element("/Sect", document_ref, page_ref, Lang=TextStringObject(str(lang)))
        section_ref = writer._add_object(section)
        by_mcid: dict[int, Any] = {}
        kids = _elements(writer, parts, section_ref, page_ref, by_mcid)
        section[NameObject("/K")] = kids
        sections.append(section_ref)
        page[NameObject("/StructParents")] = NumberObject(key)
        page[NameObject("/Tabs")] = NameObject("/S")
        nums.extend([NumberObject(key), ArrayObject(by_mcid[m] for m in sorted(by_mcid))])
        key += 1
    document[NameObject("/K")] = sections
    parent_tree = DictionaryObject()
    parent_tree[NameObject("/Nums")] = nums
    root[NameObject("/K")] = ArrayObject([document_ref])
    root[NameObject("/ParentTree")] = writer._add_object(parent_tree)
    root[NameObject("/ParentTreeNextKey")] = NumberObject(key)
    catalog = writer._root_object
    catalog[NameObject("/StructTreeRoot")] = root_ref
    mark_info = DictionaryObject()
    mark_info[NameObject("/Marked")] = BooleanObject(True)
    catalog[NameObject("/MarkInfo")] = mark_info
