"""The structure tree of a PDF that pypdf assembles from drawn layers (the notices of
tid/render/notice.py): what a screen reader reads, in what order and in what language.

WeasyPrint tags what it lays out itself (tid/render/pdf.py). A notice's pages are put
together here from a form layer (a Form XObject), the owner's values drawn over it and its QR
code, or copied from a flowing layout; each part is drawn inside its own marked-content
sequence (:func:`marked`: ``/P <</MCID 1>> BDC … EMC``) and the page keeps a plan of its parts
(:func:`plan`). :func:`tag` turns the plans of a document's pages into its structure tree: a
``Document`` of one ``Sect`` a page, in the page's language, whose elements name the marked
content they read, in the order of the plan (the owner's values first, then the QR code with
its alternative text, then the form's text), and marks the document as tagged
(``/MarkInfo``). :func:`strip` drops the plans of a document left untagged (the print file,
whose pages are joined a slice at a time).

This module imports neither Flask nor the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PLAN = "/TidStructure"  # a page's plan, until :func:`tag` or :func:`strip` removes it


def marked(kind: str, mcid: int, data: bytes) -> bytes:
    """``data`` drawn as the marked content ``mcid`` of a ``kind`` element."""
    return f"/{kind} <</MCID {mcid}>> BDC\n".encode() + data + b"\nEMC\n"


def plan(page: Any, lang: str, parts: Sequence[tuple[str, int, str]]) -> None:
    """Keep on ``page`` what its marked content is: ``(kind, mcid, alternative text)`` in
    reading order, the page's language."""
    from pypdf.generic import ArrayObject, NameObject, NumberObject, TextStringObject

    items = ArrayObject()
    for kind, mcid, alt in parts:
        items.append(
            ArrayObject([NameObject(f"/{kind}"), NumberObject(mcid), TextStringObject(alt)])
        )
    page[NameObject(PLAN)] = ArrayObject([TextStringObject(lang), items])


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


def _element(kind: str, parent: Any, page_ref: Any, **values: Any) -> Any:
    from pypdf.generic import DictionaryObject, NameObject

    element = DictionaryObject()
    element[NameObject("/Type")] = NameObject("/StructElem")
    element[NameObject("/S")] = NameObject(kind)
    element[NameObject("/P")] = parent
    if page_ref is not None:
        element[NameObject("/Pg")] = page_ref
    for key, value in values.items():
        element[NameObject(f"/{key}")] = value
    return element


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
        kids = ArrayObject()
        by_mcid: dict[int, Any] = {}
        for kind, mcid, alt in parts:
            values: dict[str, Any] = {"K": NumberObject(int(mcid))}
            if str(alt):
                values["Alt"] = TextStringObject(str(alt))
            ref = writer._add_object(_element(str(kind), section_ref, page_ref, **values))
            kids.append(ref)
            by_mcid[int(mcid)] = ref
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
