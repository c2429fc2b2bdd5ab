"""The fill layer's faces: what the fast path of tid/render/layers.py draws text with.

The fonts are found on the system (Debian's fonts-dejavu-core; fonts-droid-fallback for
Chinese, Japanese and Korean), registered with ReportLab once per process, and used to cut a
text into runs of one face (:func:`text_runs`), measure it (:func:`text_width`) and wrap it
(:func:`wrap_width`, :func:`wrap_parts`). :func:`fonts_resource` embeds the subsets ReportLab
wrote in the final PDF, once per file, without their TrueType hinting.
"""

from __future__ import annotations

import functools
import io
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The owner's own values are drawn straight onto each page at the fixed places of
# pdf/notice.html by ReportLab, in the same faces as the form layer (DejaVu Sans, Sans Bold,
# Sans Mono Bold), embedded as TrueType subsets with their Unicode maps: laying out a few
# dozen short lines per notice with WeasyPrint would cost more than everything else of the
# run together. A character the face lacks is drawn in the fallback face (Droid Sans
# Fallback: Chinese, Japanese, Korean), when installed. Text that needs shaping or runs
# right to left (Arabic, Hebrew, combining marks, Indic scripts) and characters no face has
# send the notice to the flowing layout, which pango shapes.

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
_FACE_FILES = {
    "/TidH": "DejaVuSans.ttf",
    "/TidHB": "DejaVuSans-Bold.ttf",
    "/TidCB": "DejaVuSansMono-Bold.ttf",
}
FALLBACK_FILE = "DroidSansFallbackFull.ttf"  # Debian: fonts-droid-fallback
# DejaVu's vertical metrics (hhea, of the 2048-unit em): where WeasyPrint puts a baseline in
# a line box of a given height.
ASCENT, DESCENT = 1901 / 2048, 483 / 2048
_NO_FAST_BIDI = frozenset({"R", "AL", "AN", "RLE", "RLO", "RLI"})
_MARKS = frozenset({"Mn", "Mc", "Me"})  # combining marks: placed by shaping


@dataclass(frozen=True)
class _Face:
    name: str  # as registered with ReportLab
    covers: frozenset[int]


def _font_file(file_name: str) -> Path | None:
    for folder in FONT_DIRS:
        if folder.is_dir():
            for path in sorted(folder.rglob(file_name)):
                return path
    return None


@functools.cache
def fill_faces() -> dict[str, _Face]:
    """The fill layer's faces by font key, and the fallback ("*") when it is installed;
    registered with ReportLab once per process."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    files = {**_FACE_FILES, "*": FALLBACK_FILE}
    faces: dict[str, _Face] = {}
    for key, file_name in files.items():
        path = _font_file(file_name)
        if path is None:
            if key == "*":
                continue
            raise RuntimeError(f"font {file_name} is missing (install fonts-dejavu-core)")
        name = "Tid-" + Path(file_name).stem
        font = TTFont(name, str(path))
        pdfmetrics.registerFont(font)
        faces[key] = _Face(name, frozenset(font.face.charToGlyph))
    return faces


def _shapes_simply(ch: str) -> bool:
    """Whether ``ch`` can be drawn glyph after glyph, left to right (no shaping)."""
    if unicodedata.bidirectional(ch) in _NO_FAST_BIDI:
        return False
    return unicodedata.category(ch) not in _MARKS


def text_runs(text: str, font: str) -> list[tuple[str, str]] | None:
    """``text`` cut into (ReportLab face, text) runs: the font's own face, the fallback for
    what it lacks; None when some character cannot be drawn on the fast path."""
    faces = fill_faces()
    primary = faces[font]
    if text.isascii() or all(ord(ch) in primary.covers for ch in text):
        if text.isascii() or all(_shapes_simply(ch) for ch in set(text)):
            return [(primary.name, text)] if text else []
        return None
    fallback = faces.get("*")
    runs: list[tuple[str, str]] = []
    for ch in text:
        if not _shapes_simply(ch):
            return None
        if ord(ch) in primary.covers:
            name = primary.name
        elif fallback is not None and ord(ch) in fallback.covers:
            name = fallback.name
        else:
            return None
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1] + ch)
        else:
            runs.append((name, ch))
    return runs


def drawable(text: str, font: str = "/TidH") -> bool:
    """Whether the fast path can draw ``text`` in ``font`` (its face or the fallback)."""
    return text_runs(unicodedata.normalize("NFC", text), font) is not None


def text_width(text: str, font: str, size: float) -> float:
    """The advance width of ``text`` in points (ReportLab's metrics of the embedded faces)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    runs = text_runs(text, font)
    if runs is None:
        raise ValueError(f"not drawable on the fast path: {text!r}")
    return float(sum(stringWidth(run, name, size) for name, run in runs))


def wrap_width(text: str, font: str, size: float, width: float) -> tuple[str, ...] | None:
    """``text`` broken into lines of at most ``width`` points (at spaces; a word wider than
    the line is cut); None when it cannot be drawn on the fast path."""
    lines: list[str] = []
    for paragraph in unicodedata.normalize("NFC", text).splitlines() or [""]:
        if text_runs(paragraph, font) is None:
            return None
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, font, size) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word
            while text_width(line, font, size) > width and len(line) > 1:
                cut = len(line) - 1
                while cut > 1 and text_width(line[:cut], font, size) > width:
                    cut -= 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line)
    return tuple(lines)


def wrap_parts(
    parts: Sequence[str], font: str, size: float, width: float
) -> tuple[str, ...] | None:
    """``parts`` joined into lines of at most ``width`` points, breaking only between parts
    (``url_parts``); None when a part cannot be drawn or is wider than a line."""
    lines: list[str] = []
    line = ""
    for part in parts:
        if text_runs(part, font) is None or text_width(part, font, size) > width:
            return None
        if line and text_width(line + part, font, size) > width:
            lines.append(line)
            line = ""
        line += part
    return (*lines, line)


def fonts_resource(writer: Any, drawn: Any) -> Any:
    """The embedded fonts of the ReportLab document ``drawn`` (a reader), added to
    ``writer`` once, as one /Font resource dictionary for its pages."""
    from pypdf.generic import DictionaryObject, NameObject

    fonts = DictionaryObject()
    seen: set[int] = set()
    for page in drawn.pages:
        resources = page.get("/Resources")
        font_dict = resources.get_object().get("/Font") if resources is not None else None
        if font_dict is None:
            continue
        ref = font_dict.indirect_reference if hasattr(font_dict, "indirect_reference") else None
        key = ref.idnum if ref is not None else id(font_dict)
        if key in seen:
            continue
        seen.add(key)
        font_dict = font_dict.get_object()
        for name in font_dict:
            if name not in fonts:
                source = font_dict.raw_get(name)
                ref = source.clone(writer, ignore_fields=("/FontFile2",))
                _unhint(writer, source.get_object(), ref.get_object())
                fonts[NameObject(name)] = ref
    return writer._add_object(fonts)


def _unhint(writer: Any, source: Any, font: Any) -> None:
    """Embed ``source``'s font program in its clone ``font`` without the TrueType hinting
    (instructions and their tables), as WeasyPrint does for its subsets: a third of the
    size, the same outlines, glyph ids, widths and character map."""
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.tables import ttProgram
    from pypdf.generic import DecodedStreamObject, NameObject, NumberObject

    original = source.get("/FontDescriptor")
    if original is None or "/FontFile2" not in original.get_object():
        return
    descriptor = font["/FontDescriptor"].get_object()
    program = TTFont(io.BytesIO(original.get_object()["/FontFile2"].get_object().get_data()))
    for tag in ("fpgm", "prep", "cvt ", "hdmx", "VDMX", "LTSH"):
        if tag in program:
            del program[tag]
    glyf = program["glyf"]
    for glyph_name in program.getGlyphOrder():
        glyph = glyf[glyph_name]
        if hasattr(glyph, "program"):
            glyph.program = ttProgram.Program()
            glyph.program.fromBytecode(b"")
    out = io.BytesIO()
    program.save(out)
    stream = DecodedStreamObject()
    stream.set_data(out.getvalue())
    stream[NameObject("/Length1")] = NumberObject(len(out.getvalue()))
    descriptor[NameObject("/FontFile2")] = writer._add_object(stream.flate_encode())
