"""One PDF/A document from the pages of several, written a document at a time.

A notice run of 20,000 owners renders its print file in slices (tid/services/notices/
rendering.py); joining them with pypdf's ``PdfWriter.append`` holds every page of every slice
in memory at once (some ten times the file's size: 600 MB for the 58 MB of 20,000 notices).
:func:`concatenate` instead copies each slice's pages, and what they use, straight to the
output file, then lets the slice go: its memory is that of the largest slice, whatever the
number of slices. The result is identified as PDF/A-2u as :func:`tid.render.pdfa.finish`
identifies the documents pypdf writes: ``/Lang``, the information dictionary and the XMP
metadata with the same title and author, the sRGB output intent and the file identifier.
The parts' structure trees are joined into one (a tagged letter stays tagged once the signed
ordinance follows it, whose scanned pages can be read as figures).

This module imports neither Flask nor the database.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from tid.render import pdfa

# Attributes a page takes from its parents in the page tree when it has none of its own
# (ISO 32000-1, 7.7.3.4): copied onto each page, which gets a new parent.
_INHERITED = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")

# The numbers of the objects written first: the catalog, the page tree and the information
# dictionary are written last (they list what came before) but keep these numbers.
_CATALOG, _PAGES, _INFO = 1, 2, 3


class _Output:
    """The objects written so far: their numbers and where each starts."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.offsets: dict[int, int] = {}
        self.next_number = _INFO + 1
        self.written = 0
        self._write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

    def _write(self, data: bytes) -> None:
        self.out.write(data)
        self.written += len(data)

    def reserve(self) -> int:
        number = self.next_number
        self.next_number += 1
        return number

    def put(self, number: int, obj: Any) -> None:
        """Write ``obj`` (a pypdf object whose references are already this file's)."""
        self.offsets[number] = self.written
        body = io.BytesIO()
        obj.write_to_stream(body)
        self._write(f"{number} 0 obj\n".encode() + body.getvalue() + b"\nendobj\n")

    def finish(self, identifier: bytes) -> None:
        """The cross-reference table and the trailer."""
        start = self.written
        size = self.next_number
        rows = [b"xref\n", f"0 {size}\n".encode(), b"0000000000 65535 f \n"]
        # every number reserved was written: the catalog, page tree and information
        # dictionary first numbered, the rest as they were reached
        rows += [f"{self.offsets[n]:010d} 00000 n \n".encode() for n in range(1, size)]
        self._write(b"".join(rows))
        hex_id = identifier.hex()
        self._write(
            (
                f"trailer\n<< /Size {size} /Root {_CATALOG} 0 R /Info {_INFO} 0 R "
                f"/ID [<{hex_id}> <{hex_id}>] >>\nstartxref\n{start}\n%%EOF\n"
            ).encode()
        )


def _ref(number: int) -> Any:
    from pypdf.generic import IndirectObject

    return IndirectObject(number, 0, None)


@dataclass
class _Structure:
    """The structure trees of the parts, joined: the new tree root's number, its top-level
    elements, the parent tree's entries (keys moved past the earlier parts'), its role map,
    and the pages of untagged parts, each to be read as one figure."""

    root: int = 0  # 0: no tree yet (reserved once a part needs one)
    kids: list[Any] = field(default_factory=list)
    nums: list[Any] = field(default_factory=list)
    next_key: int = 0
    role_map: dict[Any, Any] = field(default_factory=dict)
    untagged: list[int] = field(default_factory=list)


def _number_tree(node: Any) -> list[tuple[int, Any]]:
    """The entries of a number tree (its ``/Nums``, and its ``/Kids``' recursively)."""
    node = node.get_object()
    nums = node.get("/Nums") or []
    found = [(int(nums[i]), nums[i + 1]) for i in range(0, len(nums), 2)]
    for kid in node.get("/Kids") or []:
        found += _number_tree(kid)
    return found


class _Renumbering:
    """A part's objects as they are copied into the output: each reached one gets a number
    of the output's (reserved when first reached, written by :meth:`write_reached`), its
    references and its parent-tree keys moved past the earlier parts'."""

    def __init__(self, output: _Output, reader: Any, offset: int) -> None:
        self.output = output
        self.reader = reader
        self.offset = offset
        self.numbers: dict[tuple[int, int], int] = {}
        self.waiting: list[Any] = []

    def renumbered(self, ref: Any) -> Any:
        key = (ref.idnum, ref.generation)
        if key not in self.numbers:
            self.numbers[key] = self.output.reserve()
            self.waiting.append(ref)
        return _ref(self.numbers[key])

    def translated(self, value: Any) -> Any:
        from pypdf.generic import (
            ArrayObject,
            DictionaryObject,
            IndirectObject,
            NumberObject,
            StreamObject,
        )

        if isinstance(value, IndirectObject):
            return self.renumbered(value)
        if isinstance(value, DictionaryObject):  # a stream too: its data is kept as it is
            copy = value.__class__()
            if isinstance(value, StreamObject) and isinstance(copy, StreamObject):
                copy._data = value._data
            page = value.get("/Type") == "/Page"
            for key, item in value.items():
                if key in ("/StructParents", "/StructParent"):
                    # the parent tree's keys follow the earlier parts'
                    copy[key] = NumberObject(int(item) + self.offset)
                else:
                    # a page's parent is the new page tree, not its slice's (left behind)
                    copy[key] = _ref(_PAGES) if page and key == "/Parent" else self.translated(item)
            return copy
        if isinstance(value, ArrayObject):
            return ArrayObject(self.translated(item) for item in value)
        return value

    def write_reached(self, figures: dict[int, int]) -> None:
        """Write every object reached, the pages in ``figures`` each marked as its figure."""
        while self.waiting:
            ref = self.waiting.pop()
            number = self.numbers[(ref.idnum, ref.generation)]
            copy = self.translated(ref.get_object())
            if number in figures:
                _mark_figure(self.output, copy, figures[number])
            self.output.put(number, copy)
            # written once, never read again: let the reader forget it (a slice of 2,000
            # notices holds some 300,000 structure elements)
            self.reader.resolved_objects.pop((ref.generation, ref.idnum), None)


def _copy_part(
    output: _Output,
    path: Path | bytes,
    structure: _Structure,
    figure_alt: Callable[[int], str] | None,
) -> list[int]:
    """Write the pages of the PDF at ``path`` (or of those bytes) and every object they
    reach, and its structure tree's elements under ``structure``'s root; an untagged part's
    pages, with ``figure_alt``, are each read as one figure (its alternative text by the
    page's number in the part). Returns the pages' new numbers, in order."""
    from pypdf import PdfReader
    from pypdf.generic import IndirectObject

    reader = PdfReader(io.BytesIO(path) if isinstance(path, bytes) else str(path))
    catalog: Any = reader.trailer["/Root"].get_object()
    tree_ref = catalog.raw_get("/StructTreeRoot") if "/StructTreeRoot" in catalog else None
    copying = _Renumbering(output, reader, structure.next_key)
    if not structure.root and (tree_ref is not None or figure_alt is not None):
        structure.root = output.reserve()
    if isinstance(tree_ref, IndirectObject):
        # the part's tree root is the joined one: its elements' parent, not copied
        copying.numbers[(tree_ref.idnum, tree_ref.generation)] = structure.root
    pages = _part_pages(reader, copying)
    figures: dict[int, int] = {}  # an untagged part's pages, read as figures: their keys
    if tree_ref is None:
        structure.untagged.extend(pages)
        if figure_alt is not None:
            figures = _figures(output, structure, pages, figure_alt)
    else:
        _join_tree(tree_ref.get_object(), structure, copying)
    copying.write_reached(figures)
    return pages


def _part_pages(reader: Any, copying: _Renumbering) -> list[int]:
    """The part's pages' new numbers, each page given what it inherited from its tree."""
    from pypdf.generic import NameObject

    pages = []
    for page in reader.pages:
        ref = page.indirect_reference
        if ref is None:
            raise ValueError("a part's page that is not an indirect object")
        pages.append(copying.renumbered(ref).idnum)
        for name in _INHERITED:
            if name not in page:
                inherited = page.get_inherited(name, None)
                if inherited is not None:
                    page[NameObject(name)] = inherited
    return pages


def _figures(
    output: _Output, structure: _Structure, pages: list[int], figure_alt: Callable[[int], str]
) -> dict[int, int]:
    """An untagged part's pages each read as one figure: their parent-tree keys, by page."""
    from pypdf.generic import ArrayObject

    figures: dict[int, int] = {}
    for index, number in enumerate(pages):
        figures[number] = structure.next_key
        element = _figure(number, structure.root, figure_alt(index + 1))
        element_number = output.reserve()
        output.put(element_number, element)
        structure.kids.append(_ref(element_number))
        structure.nums.append((structure.next_key, ArrayObject([_ref(element_number)])))
        structure.next_key += 1
    return figures


def _join_tree(tree: Any, structure: _Structure, copying: _Renumbering) -> None:
    """A tagged part's structure tree under the joined root: its elements, its parent tree's
    entries (keys moved past the earlier parts') and its role map."""
    from pypdf.generic import ArrayObject

    offset = copying.offset
    kids = tree.get("/K")
    kids = [] if kids is None else kids if isinstance(kids, list) else [kids]
    structure.kids.extend(copying.translated(kid) for kid in kids)
    entries = _number_tree(tree["/ParentTree"]) if "/ParentTree" in tree else []
    for key, value in entries:
        # a page's array of elements written now, only its reference kept: the joined
        # parent tree of 20,000 notices holds one reference a page, not every element's
        value = copying.translated(value)
        if isinstance(value, ArrayObject):
            number = copying.output.reserve()
            copying.output.put(number, value)
            value = _ref(number)
        structure.nums.append((key + offset, value))
    last = max((key for key, _value in entries), default=-1)
    structure.next_key = max(offset + last + 1, offset + int(tree.get("/ParentTreeNextKey", 0)))
    for role, standard in (tree.get("/RoleMap") or {}).items():
        structure.role_map[role] = standard


def _figure(page: int, root: int, alt: str) -> Any:
    """The structure element of an untagged page read as one figure (marked content 0)."""
    from pypdf.generic import DictionaryObject, NameObject, NumberObject, TextStringObject

    element = DictionaryObject()
    element[NameObject("/Type")] = NameObject("/StructElem")
    element[NameObject("/S")] = NameObject("/Figure")
    element[NameObject("/P")] = _ref(root)
    element[NameObject("/Pg")] = _ref(page)
    element[NameObject("/K")] = NumberObject(0)
    element[NameObject("/Alt")] = TextStringObject(alt)
    return element


def _mark_figure(output: _Output, page: Any, key: int) -> None:
    """Wrap an untagged page's content in the figure's marked content."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, NameObject, NumberObject

    ends = []
    for data in (b"/Figure <</MCID 0>> BDC\n", b"\nEMC\n"):
        stream = DecodedStreamObject()
        stream.set_data(data)
        number = output.reserve()
        output.put(number, stream)
        ends.append(_ref(number))
    inner = page.get("/Contents")
    inner = [] if inner is None else list(inner) if isinstance(inner, ArrayObject) else [inner]
    page[NameObject("/Contents")] = ArrayObject([ends[0], *inner, ends[1]])
    page[NameObject("/StructParents")] = NumberObject(key)


def concatenate(
    parts: Sequence[Path | bytes],
    out: BinaryIO,
    *,
    title: str,
    author: str,
    lang: str = "es",
    languages: Sequence[str] = ("es", "en"),
    figure_alt: Callable[[int], str] | None = None,
) -> int:
    """Write the pages of the PDFs ``parts`` (files, or bytes already in memory), in order,
    to ``out`` as one PDF/A-2u document, one part in memory at a time; returns the number
    of pages.

    The structure trees of tagged parts are joined into the document's (their parent
    trees' keys moved past the earlier parts'), so that a tagged document stays tagged
    once joined; with ``figure_alt``, each page of an untagged part is read as one figure
    with the alternative text ``figure_alt`` gives for its page's number in its part (a
    signed ordinance's scanned pages). Without a tagged part and ``figure_alt``, the
    document is untagged (a notice run's print file)."""
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        NameObject,
        NumberObject,
        TextStringObject,
    )

    output = _Output(out)
    pages: list[int] = []
    digest = hashlib.sha256()
    structure = _Structure()
    for part in parts:
        pages.extend(_copy_part(output, part, structure, figure_alt))
        digest.update(_file_digest(part))
    tagged = len(structure.untagged) < len(pages) or (figure_alt is not None and bool(pages))
    profile_number = output.reserve()
    output.put(profile_number, pdfa.profile_stream())
    intent_number = output.reserve()
    output.put(intent_number, pdfa.output_intent(_ref(profile_number)))
    metadata_number = output.reserve()
    metadata = pdfa.metadata_stream(title=title, author=author, languages=languages)
    output.put(metadata_number, metadata)
    tree = DictionaryObject()
    tree[NameObject("/Type")] = NameObject("/Pages")
    tree[NameObject("/Kids")] = ArrayObject(_ref(n) for n in pages)
    tree[NameObject("/Count")] = NumberObject(len(pages))
    output.put(_PAGES, tree)
    catalog = DictionaryObject()
    catalog[NameObject("/Type")] = NameObject("/Catalog")
    catalog[NameObject("/Pages")] = _ref(_PAGES)
    catalog[NameObject("/Lang")] = TextStringObject(lang)
    catalog[NameObject("/OutputIntents")] = ArrayObject([_ref(intent_number)])
    catalog[NameObject("/Metadata")] = _ref(metadata_number)
    if tagged:
        _write_tree(output, structure, catalog)
    output.put(_CATALOG, catalog)
    info = DictionaryObject()
    info[NameObject("/Title")] = TextStringObject(title)
    info[NameObject("/Author")] = TextStringObject(author)
    info[NameObject("/Producer")] = TextStringObject(pdfa.PRODUCER)
    output.put(_INFO, info)
    output.finish(digest.digest()[:16])
    return len(pages)


def _write_tree(output: _Output, structure: _Structure, catalog: Any) -> None:
    """The joined structure tree, and the catalog's marks of a tagged document."""
    from pypdf.generic import (
        ArrayObject,
        BooleanObject,
        DictionaryObject,
        NameObject,
        NumberObject,
    )

    parent_tree = DictionaryObject()
    nums = ArrayObject()
    for key, value in sorted(structure.nums, key=lambda entry: entry[0]):
        nums.extend([NumberObject(key), value])
    parent_tree[NameObject("/Nums")] = nums
    parent_number = output.reserve()
    output.put(parent_number, parent_tree)
    root = DictionaryObject()
    root[NameObject("/Type")] = NameObject("/StructTreeRoot")
    root[NameObject("/K")] = ArrayObject(structure.kids)
    root[NameObject("/ParentTree")] = _ref(parent_number)
    root[NameObject("/ParentTreeNextKey")] = NumberObject(structure.next_key)
    if structure.role_map:
        role_map = DictionaryObject()
        for role, standard in structure.role_map.items():
            role_map[NameObject(str(role))] = NameObject(str(standard))
        root[NameObject("/RoleMap")] = role_map
    output.put(structure.root, root)
    catalog[NameObject("/StructTreeRoot")] = _ref(structure.root)
    mark_info = DictionaryObject()
    mark_info[NameObject("/Marked")] = BooleanObject(True)
    catalog[NameObject("/MarkInfo")] = mark_info


def _file_digest(path: Path | bytes) -> bytes:
    """The SHA-256 of a file, read a megabyte at a time (or of the bytes given)."""
    if isinstance(path, bytes):
        return hashlib.sha256(path).digest()
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.digest()
