"""The structure tree of a PDF that pypdf assembles from drawn layers (the notices of
tid/render/notice.py): what a screen reader reads, in what order and in what language.

WeasyPrint tags what it lays out itself (tid/render/pdf.py). A notice's pages are put
together here from the blocks of a form layer (each a Form XObject), the owner's values drawn
over them and its QR code, or copied from a flowing layout; each part is drawn inside its own
marked-content sequence (:func:`marked`: ``/P <</MCID 1>> BDC … EMC``) and the page keeps a
plan of its parts (:func:`compose` for a tree of :class:`Part`; :func:`adopt` for a page
copied out of a layout WeasyPrint tagged, a flowing notice's: the elements it drew there).
:func:`tag` turns the plans of a document's pages into its structure tree: a ``Document`` of
one ``Sect`` a page, in the page's language, whose elements (headings,
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


def adopt(page: Any, lang: str, elements: Sequence[Any]) -> None:
    """Keep on ``page`` (copied out of a PDF that WeasyPrint tagged, its marked content as
    it was) the plan of ``elements``, that PDF's structure elements drawn on the page: the
    headings, paragraphs, tables and figures (with their alternative text) in their order.
    The elements of anonymous boxes (``NonStruct``) and sections give way to their content;
    an element that reads nothing (an empty box, a link's annotation) is left out."""
    from pypdf.generic import ArrayObject, NameObject, TextStringObject

    items = ArrayObject(node for element in elements for node in _adopted(element))
    page[NameObject(PLAN)] = ArrayObject([TextStringObject(lang), items])


_GIVING_WAY = {"/NonStruct", "/Sect", "/Document", "/Part", "/Art"}


def _adopted(element: Any) -> list[Any]:
    """The plan's nodes of a structure element: itself over what it reads (its marked
    content's numbers and its elements'), or, giving way, what it reads."""
    from pypdf.generic import DictionaryObject, NumberObject

    element = element.get_object()
    kids = element.get("/K")
    inner: list[Any] = []
    for kid in [] if kids is None else kids if isinstance(kids, list) else [kids]:
        if isinstance(kid, int):
            inner.append(NumberObject(kid))
            continue
        kid = kid.get_object()
        if not isinstance(kid, DictionaryObject) or kid.get("/Type") == "/OBJR":
            continue
        if kid.get("/Type") == "/MCR":
            inner.append(NumberObject(kid["/MCID"]))
        else:
            inner.extend(_adopted(kid))
    kind = str(element["/S"])
    if not inner or kind in _GIVING_WAY:
        return inner
    alt, lang = str(element.get("/Alt", "")), str(element.get("/Lang", ""))
    return [_node(kind.removeprefix("/"), -1, alt, lang, inner)]


def elements_by_page(reader: Any) -> dict[int, list[Any]]:
    """A tagged PDF's structure elements by the page they are drawn on (an element that
    names its page, under those that do not)."""
    root = reader.trailer["/Root"]
    pages = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}
    found: dict[int, list[Any]] = {}

    def walk(node: Any) -> None:
        node = node.get_object()
        if "/Pg" in node:
            found.setdefault(pages[node.raw_get("/Pg").idnum], []).append(node)
            return
        kids = node.get("/K")
        for kid in [] if kids is None else kids if isinstance(kids, list) else [kids]:
            if not isinstance(kid, int):
                walk(kid)

    if "/StructTreeRoot" in root:
        walk(root["/StructTreeRoot"])
    return found


def copy_page(writer: Any, page: Any) -> Any:
    """``page`` added to ``writer``, its plan shared rather than copied (plain values)."""
    from pypdf.generic import NameObject

    kept = page.pop(PLAN, None)
    copy = writer.add_page(page)
    if kept is not None:
        page[NameObject(PLAN)] = kept
        copy[NameObject(PLAN)] = kept
    return copy


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
    for node in nodes:
        if isinstance(node, int):  # marked content the parent reads itself (adopted)
            kids.append(NumberObject(node))
            by_mcid[int(node)] = parent_ref
            continue
        kind, mcid, alt, lang, inner = node
        values: dict[str, Any] = {}
        if str(alt):
            values["Alt"] = TextStringObject(str(alt))
        if str(lang):
            values["Lang"] = TextStringObject(str(lang))
        if str(kind) == "/TH":
            values["A"] = _scope(scope)
        # a group's page is its cells' (a print file has thousands), unless it reads some
        reads = int(mcid) >= 0 or any(isinstance(kid, int) for kid in inner)
        element = _element(str(kind), parent_ref, page_ref if reads else None, False, **values)
        ref = writer._add_object(element)
        if int(mcid) >= 0:
            element[NameObject("/K")] = NumberObject(int(mcid))
            by_mcid[int(mcid)] = ref
        else:
            captions = str(kind) == "/TR" and all(
                not isinstance(cell, int) and str(cell[0]) == "/TH" for cell in inner
            )
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
