"""A small picture of a document's first page: a PDF's through poppler's ``pdftoppm``, a
scan's through Pillow. None when the file has no picture to give (a spreadsheet, a DOCX)
or cannot be drawn in time."""

from __future__ import annotations

import io
import subprocess
import tempfile
from pathlib import Path

WIDTH = 240
TIMEOUT = 20  # seconds


def first_page_png(data: bytes, media_type: str) -> bytes | None:
    if media_type == "application/pdf":
        return _pdf(data)
    if media_type in ("image/png", "image/jpeg", "image/tiff"):
        return _image(data)
    return None


def _pdf(data: bytes) -> bytes | None:
    with tempfile.TemporaryDirectory(prefix="tid-thumb-") as work:
        source = Path(work) / "in.pdf"
        source.write_bytes(data)
        target = Path(work) / "page"
        command = ["pdftoppm", "-png", "-f", "1", "-l", "1", "-singlefile"]
        command += ["-scale-to", str(WIDTH), str(source), str(target)]
        try:
            subprocess.run(command, capture_output=True, timeout=TIMEOUT, check=True)
            return (Path(work) / "page.png").read_bytes()
        except (OSError, subprocess.SubprocessError):
            return None


def _image(data: bytes) -> bytes | None:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as picture:
            picture.seek(0)
            picture.thumbnail((WIDTH, WIDTH * 2))
            out = io.BytesIO()
            picture.convert("RGB").save(out, "PNG")
            return out.getvalue()
    except Exception:  # Pillow raises many kinds on odd or huge scans
        return None
