"""PDF/A for the documents assembled with pypdf (the notices, their print file, the PS 3877
manifest): what WeasyPrint's ``pdf_variant`` does for the documents it writes.

:func:`finish` turns a :class:`pypdf.PdfWriter` into a PDF/A-2u document (ISO 19005-2, level
U: every glyph maps to Unicode): the PDF 1.7 header, the document's language (``/Lang``), its
title and author in the document information dictionary and, identically, in the XMP metadata
stream with the PDF/A identification (``pdfaid:part`` 2, ``pdfaid:conformance`` U), the sRGB
output intent (the ICC profile WeasyPrint ships) and the file identifier. The fonts are
embedded by whoever drew the text (WeasyPrint for the form layer, ReportLab for the owner's
values; see tid/render/notice.py).

This module imports neither Flask nor the database: it runs in the notice run's workers.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

PDFA_PART = 2
PDFA_CONFORMANCE = "U"
PRODUCER = "tid"
OUTPUT_CONDITION = "sRGB IEC61966-2.1"


@functools.cache
def srgb_profile() -> bytes:
    """The sRGB ICC profile (the one WeasyPrint uses for its own PDF/A output intent)."""
    from importlib.resources import files

    return (files("weasyprint.pdf") / "sRGB2014.icc").read_bytes()


def xmp_packet(
    *, title: str, author: str, languages: Sequence[str], part: int = PDFA_PART
) -> bytes:
    """The XMP metadata of a PDF/A document: identification, title, author, languages and
    producer (the same values as the document information dictionary)."""
    langs = "".join(f"<rdf:li>{escape(lang)}</rdf:li>" for lang in languages)
    xml = (
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
        '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" '
        f'pdfaid:part="{part}" pdfaid:conformance="{PDFA_CONFORMANCE}"/>\n'
        '<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" '
        f'pdf:Producer="{escape(PRODUCER)}"/>\n'
        '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
        "<dc:format>application/pdf</dc:format>\n"
        f'<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{escape(title)}</rdf:li></rdf:Alt>'
        "</dc:title>\n"
        f"<dc:creator><rdf:Seq><rdf:li>{escape(author)}</rdf:li></rdf:Seq></dc:creator>\n"
        f"<dc:language><rdf:Bag>{langs}</rdf:Bag></dc:language>\n"
        "</rdf:Description>\n"
        "</rdf:RDF>\n"
        "</x:xmpmeta>\n"
        '<?xpacket end="r"?>'
    )
    return xml.encode("utf-8")


def profile_stream() -> Any:
    """The sRGB ICC profile as a (compressed) PDF stream."""
    from pypdf.generic import DecodedStreamObject, NameObject, NumberObject

    profile = DecodedStreamObject()
    profile.set_data(srgb_profile())
    profile[NameObject("/N")] = NumberObject(3)
    return profile.flate_encode()


def output_intent(profile_ref: Any) -> Any:
    """The PDF/A output intent (sRGB) whose profile is the object ``profile_ref``."""
    from pypdf.generic import DictionaryObject, NameObject, TextStringObject

    intent = DictionaryObject()
    intent[NameObject("/Type")] = NameObject("/OutputIntent")
    intent[NameObject("/S")] = NameObject("/GTS_PDFA1")
    intent[NameObject("/OutputConditionIdentifier")] = TextStringObject(OUTPUT_CONDITION)
    intent[NameObject("/Info")] = TextStringObject(OUTPUT_CONDITION)
    intent[NameObject("/DestOutputProfile")] = profile_ref
    return intent


def metadata_stream(*, title: str, author: str, languages: Sequence[str]) -> Any:
    """The XMP metadata stream (not compressed: readable by any archive tool)."""
    from pypdf.generic import DecodedStreamObject, NameObject

    metadata = DecodedStreamObject()
    metadata.set_data(xmp_packet(title=title, author=author, languages=languages))
    metadata[NameObject("/Type")] = NameObject("/Metadata")
    metadata[NameObject("/Subtype")] = NameObject("/XML")
    return metadata


def output_intents(writer: Any) -> Any:
    """The ``/OutputIntents`` array of a PDF/A document (sRGB), its objects added to
    ``writer`` (each file carries its own profile)."""
    from pypdf.generic import ArrayObject

    profile_ref = writer._add_object(profile_stream())
    return ArrayObject([writer._add_object(output_intent(profile_ref))])


def finish(writer: Any, *, title: str, author: str, lang: str, languages: Sequence[str]) -> None:
    """Make ``writer`` a PDF/A-2u document before it is written: header, ``/Lang``, the
    information dictionary and XMP metadata (title, author, producer), the output intent and
    the file identifier. ``lang`` is the document's language, ``languages`` all it uses (a
    bilingual notice marks its English part itself)."""
    from pypdf.generic import NameObject, TextStringObject

    writer.pdf_header = b"%PDF-1.7"
    root = writer._root_object
    root[NameObject("/Lang")] = TextStringObject(lang)
    root[NameObject("/OutputIntents")] = output_intents(writer)
    metadata = metadata_stream(title=title, author=author, languages=languages)
    root[NameObject("/Metadata")] = writer._add_object(metadata)
    info = writer._info
    if info is not None:
        for key in list(info.keys()):
            del info[key]
    writer.add_metadata({"/Title": title, "/Author": author, "/Producer": PRODUCER})
    writer.generate_file_identifiers()
