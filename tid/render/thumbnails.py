"""A small picture of a document's first page: a PDF's through poppler's ``pdftoppm``, a
scan's through Pillow. None when the file has no picture to give (a spreadsheet, a DOCX)
or cannot be drawn. Run by a bounded reader (tid/readers.py), never in a web request: a
scan of more than ``max_pixels`` raises :class:`TooManyPixelsError` before it is decoded, and
``pdftoppm`` is stopped after ``seconds`` (``tid.proc.TimedOutError``)."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from tid import proc

WIDTH = 240
TIMEOUT = 20  # seconds
MAX_PIXELS = 60_000_000
PICTURED = frozenset({"application/pdf", "image/png", "image/jpeg", "image/tiff"})


class TooManyPixelsError(Exception):
    """The scan has more pixels than a picture is drawn from."""


def first_page_png(
    data: bytes, media_type: str, *, max_pixels: int = MAX_PIXELS, seconds: float = TIMEOUT
) -> bytes | None:
    if media_type == "application/pdf":
        return _pdf(data, seconds)
    if media_type in PICTURED:
        return _image(data, max_pixels)
    return None


def _pdf(data: bytes, seconds: float) -> bytes | None:
    with tempfile.TemporaryDirectory(prefix="tid-thumb-") as work:
        source = Path(work) / "in.pdf"
        source.write_bytes(data)
        target = Path(work) / "page"
        command = ["pdftoppm", "-png", "-f", "1", "-l", "1", "-singlefile"]
        command += ["-scale-to", str(WIDTH), str(source), str(target)]
        try:
            done = proc.run(command, seconds=seconds)
        except OSError:
            return None
        if done.returncode != 0:
            return None
        try:
            return (Path(work) / "page.png").read_bytes()
        except OSError:
            return None


def _image(data: bytes, max_pixels: int) -> bytes | None:
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = max_pixels
    try:
        with Image.open(io.BytesIO(data)) as picture:
            if picture.width * picture.height > max_pixels:
                raise TooManyPixelsError
            picture.seek(0)
            picture.draft("RGB", (WIDTH, WIDTH * 2))  # a JPEG decoded at a fraction
            picture.thumbnail((WIDTH, WIDTH * 2))
            out = io.BytesIO()
            picture.convert("RGB").save(out, "PNG")
            return out.getvalue()
    except TooManyPixelsError:
        raise
    except Image.DecompressionBombError:
        raise TooManyPixelsError from None
    except Exception:  # Pillow raises many kinds on odd or huge scans
        return None
