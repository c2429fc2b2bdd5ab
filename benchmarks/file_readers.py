"""The readers of uploaded files under their default bounds (tid/readers.py): each crafted
file's outcome, the seconds it cost, the worker's own peak memory and its largest reader's;
and, as the baseline, a plain one-page PDF read in the worker's process against the same
read by a bounded reader (the price of the process of its own).

    .venv/bin/python benchmarks/file_readers.py
"""

from __future__ import annotations

import io
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sizes import pick

from tests import legislature_files as files
from tid import readers
from tid.rules import file_text


def _mb(who: int) -> int:
    return resource.getrusage(who).ru_maxrss // 1024


def _big_scan() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (16_000, 11_000), 1).save(out, "PNG")  # 176 megapixels, some 40 KB
    return out.getvalue()


def _timed(what: str, size: int, read: Callable[[], object]) -> None:
    started = time.monotonic()
    try:
        read()
        outcome = "read"
    except readers.OverLimitError as over:
        outcome = f"over its {over.which} bound"
    seconds = time.monotonic() - started
    print(
        f"{what} ({size // 1024} KB): {outcome} in {seconds:.1f} s; worker peak "
        f"{_mb(resource.RUSAGE_SELF)} MB, largest reader {_mb(resource.RUSAGE_CHILDREN)} MB"
    )


def main() -> None:
    # --smoke: the same crafted shapes, smaller, against bounds they still trip.
    limits = pick(readers.Limits(), readers.Limits(memory_bytes=160 * 2**20, picture_seconds=1.0))
    print(
        f"bounds: {limits.memory_bytes // 2**20} MB, text {limits.seconds:g} s, picture "
        f"{limits.picture_seconds:g} s, {limits.max_pixels:,} pixels"
    )
    plain = files.pdf("Informe de la comisión")
    rounds = pick(20, 2)
    started = time.monotonic()
    for _ in range(rounds):
        file_text.extract(plain, "pdf")
    inside = (time.monotonic() - started) / rounds
    started = time.monotonic()
    for _ in range(rounds):
        readers.read_text(plain, "pdf", limits)
    bounded = (time.monotonic() - started) / rounds
    print(
        f"a plain PDF's text: {inside * 1000:.0f} ms in the worker, {bounded * 1000:.0f} ms "
        f"by a bounded reader ({bounded / inside:.0f}×)"
    )
    megabytes = pick(150, 40)
    docx = files.docx_of_words(megabytes)
    _timed(
        f"a DOCX of {megabytes} MB of XML",
        len(docx),
        lambda: readers.read_text(docx, "docx", limits),
    )
    count = pick(3_000_000, 300_000)
    lines = files.pdf_of_many_lines(count)
    _timed(
        f"the picture of a PDF of {count:,} lines",
        len(lines),
        lambda: readers.draw_picture(lines, "application/pdf", limits),
    )
    scan = _big_scan()
    _timed(
        "the picture of a 176-megapixel PNG",
        len(scan),
        lambda: readers.draw_picture(scan, "image/png", limits),
    )


if __name__ == "__main__":
    main()
