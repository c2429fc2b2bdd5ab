"""A scan made searchable: ``ocrmypdf`` (with ``tesseract``, Spanish and English) reads the
words of a PDF without a text layer, or of a PNG/JPEG/TIFF scan, and gives a PDF that looks
the same with the words laid invisibly over each page.

:func:`missing` says why it cannot be done on this machine (None when it can);
:func:`searchable_pdf` does it through tid/proc.py: in its own process group, killed with
its worker (what is left of it is ended at the worker's next start), stopped (every process
of it) when it runs longer than the time it is given.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tid import proc

LANGUAGES = ("spa", "eng")
PAGE_WIDTH_INCHES = 8.5  # a scan that does not say its resolution is taken for a letter page
_SUFFIX = {
    "application/pdf": ".pdf",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/tiff": ".tif",
}
MEDIA_TYPES = frozenset(_SUFFIX)


class RecognitionError(Exception):
    """The program failed on this file (its last words in ``detail``)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class RecognitionTimeoutError(RecognitionError):
    """The program ran longer than it was given and was stopped."""


@functools.cache
def missing() -> str | None:
    """What this machine lacks to read scans (a sentence for the administrator), or None.
    Asked once per process."""
    for program in ("ocrmypdf", "tesseract"):
        if shutil.which(program) is None:
            return f"{program} is not installed"
    try:
        listed = subprocess.run(
            ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=20
        )
    except (OSError, subprocess.SubprocessError):
        return "tesseract does not answer"
    have = set(listed.stdout.split())
    lacking = [lang for lang in LANGUAGES if lang not in have]
    if lacking:
        return "tesseract lacks the language(s) " + ", ".join(lacking)
    return None


def searchable_pdf(
    data: bytes,
    media_type: str,
    *,
    timeout: float,
    memory_bytes: int | None = None,
    max_pixels: int = 60_000_000,
) -> bytes:
    """The PDF of ``data`` (a PDF or a scan of type ``media_type``) with its words
    recognized. Raises :class:`RecognitionTimeoutError` after ``timeout`` seconds,
    :class:`RecognitionError` when the program fails; each of its processes may use
    ``memory_bytes``; a scan of more than ``max_pixels`` is refused before it is decoded."""
    if media_type not in MEDIA_TYPES:
        raise RecognitionError(f"{media_type} is not a scan")
    with tempfile.TemporaryDirectory(prefix="tid-ocr-") as work:
        source = Path(work) / f"in{_SUFFIX[media_type]}"
        target = Path(work) / "out.pdf"
        command = ["ocrmypdf", "-l", "+".join(LANGUAGES), "--skip-text", "--output-type", "pdf"]
        command += ["--optimize", "0", "--jobs", "1", "--quiet"]
        if media_type == "application/pdf":
            source.write_bytes(data)
        else:
            try:
                picture, dpi = _picture(data, max_pixels)
            except Exception as exc:  # Pillow raises many kinds on odd or huge scans
                raise RecognitionError(f"the scan cannot be drawn: {exc}") from None
            source = source.with_suffix(".tif") if picture is not data else source
            source.write_bytes(picture)
            command += ["--image-dpi", str(dpi)]
        _run([*command, str(source), str(target)], timeout=timeout, memory_bytes=memory_bytes)
        return target.read_bytes()


def _picture(data: bytes, max_pixels: int = 60_000_000) -> tuple[bytes, int]:
    """The scan as ``ocrmypdf`` takes it (its own bytes; or, with transparency or an odd
    colour mode, its pages flattened on white into a lossless TIFF) and its resolution."""
    from PIL import Image, ImageSequence

    with Image.open(io.BytesIO(data)) as picture:
        if picture.width * picture.height > max_pixels:
            raise ValueError(f"{picture.width}×{picture.height} pixels is more than {max_pixels}")
        dpi = _dpi(picture.info.get("dpi"), picture.width)
        plain = picture.mode in ("1", "L", "RGB") and "transparency" not in picture.info
        if plain and (picture.format == "JPEG" or getattr(picture, "n_frames", 1) == 1):
            return data, dpi
        pages = []
        for frame in ImageSequence.Iterator(picture):
            rgba = frame.convert("RGBA")
            page = Image.new("RGB", rgba.size, "white")
            page.paste(rgba, mask=rgba.getchannel("A"))
            pages.append(page)
        out = io.BytesIO()
        pages[0].save(out, "TIFF", save_all=True, append_images=pages[1:], dpi=(dpi, dpi))
        return out.getvalue(), dpi


def _dpi(said: object, width: int) -> int:
    if isinstance(said, tuple) and said and isinstance(said[0], int | float) and said[0] > 96:
        return round(said[0])
    return max(72, round(width / PAGE_WIDTH_INCHES))


def _run(command: list[str], *, timeout: float, memory_bytes: int | None) -> None:
    """Run ``command`` through tid/proc.py: in a process group of its own, killed with its
    worker, every process of it (``ocrmypdf`` starts ``tesseract`` and Ghostscript) stopped
    on time out, each bounded to ``memory_bytes``."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = proc.run(
            command, seconds=timeout, memory_bytes=memory_bytes, env=env, stdout=subprocess.DEVNULL
        )
    except proc.TimedOutError:
        raise RecognitionTimeoutError(f"stopped after {timeout:g} s") from None
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise RecognitionError(f"exit {done.returncode}: " + " | ".join(last))
