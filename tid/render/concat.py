"""One PDF/A document from the pages of several, written a document at a time.

A notice run of 20,000 owners renders its print file in slices (tid/services/notices/
rendering.py); joining them with pypdf's ``PdfWriter.append`` holds every page of every slice
in memory at once (some ten times the file's size: 600 MB for the 58 MB of 20,000 notices).
:func:`concatenate` instead copies each slice's pages, and what they use, straight to the
output file, then lets the slice go: its memory is that of the largest slice, whatever the
number of slices. The result is identified as PDF/A-2u as :func:`tid.render.pdfa.finish`
identifies the documents pypdf writes: ``/Lang``, the information dictionary and the XMP
metadata with the same title and author, the sRGB output intent and the file identifier.

This module imports neither Flask nor the database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
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
        import io

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


def _copy_part(output: _Output, path: Path) -> list[int]:
    """Write the pages of the PDF at ``path`` and every object they reach; returns the
    pages' new numbers, in order."""
    from pypdf import PdfReader
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        IndirectObject,
        NameObject,
        StreamObject,
    )

    reader = PdfReader(str(path))
    numbers: dict[tuple[int, int], int] = {}
    waiting: list[IndirectObject] = []

    def renumbered(ref: IndirectObject) -> IndirectObject:
        key = (ref.idnum, ref.generation)
        if key not in numbers:
            numbers[key] = output.reserve()
            waiting.append(ref)
        result: IndirectObject = _ref(numbers[key])
        return result

    def translated(value: Any) -> Any:
        if isinstance(value, IndirectObject):
            return renumbered(value)
        if isinstance(value, DictionaryObject):  # a stream too: its data is kept as it is
            copy = value.__class__()
            if isinstance(value, StreamObject) and isinstance(copy, StreamObject):
                copy._data = value._data
            page = value.get("/Type") == "/Page"
            for key, item in value.items():
                # a page's parent is the new page tree, not its slice's (left behind)
                copy[key] = _ref(_PAGES) if page and key == "/Parent" else translated(item)
            return copy
        if isinstance(value, ArrayObject):
            return ArrayObject(translated(item) for item in value)
        return value

    pages = []
    for page in reader.pages:
        ref = page.indirect_reference
        if ref is None:
            raise ValueError(f"{path}: a page that is not an indirect object")
        pages.append(renumbered(ref).idnum)
        for name in _INHERITED:
            if name not in page:
                inherited = page.get_inherited(name, None)
                if inherited is not None:
                    page[NameObject(name)] = inherited
    while waiting:
        ref = waiting.pop()
        obj = ref.get_object()
        output.put(numbers[(ref.idnum, ref.generation)], translated(obj))
    return pages


def concatenate(
    parts: Sequence[Path],
    out: BinaryIO,
    *,
    title: str,
    author: str,
    lang: str = "es",
    languages: Sequence[str] = ("es", "en"),
) -> int:
    """Write the pages of the PDFs ``parts``, in order, to ``out`` as one PDF/A-2u
    document, one part in memory at a time; returns the number of pages."""
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
    for part in parts:
        pages.extend(_copy_part(output, part))
        digest.update(_file_digest(part))
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
    output.put(_CATALOG, catalog)
    info = DictionaryObject()
    info[NameObject("/Title")] = TextStringObject(title)
    info[NameObject("/Author")] = TextStringObject(author)
    info[NameObject("/Producer")] = TextStringObject(pdfa.PRODUCER)
    output.put(_INFO, info)
    output.finish(digest.digest()[:16])
    return len(pages)


def _file_digest(path: Path) -> bytes:
    """The SHA-256 of a file, read a megabyte at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.digest()
