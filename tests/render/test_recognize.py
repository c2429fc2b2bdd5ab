"""Reading a scan's words with ocrmypdf: a runaway reading is stopped, every process of it;
a scan with transparency is flattened on white first (ocrmypdf refuses it otherwise), a
plain one passes as it is. (The whole reading, through the job, is tested once in
tests/web/test_petition_files.py.)"""

from __future__ import annotations

import io
import os
import subprocess
import time
from typing import Any

import pytest
from PIL import Image

from tests import legislature_files as files
from tid.render import recognize


def test_a_runaway_reading_is_stopped_with_its_whole_process_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[int] = []

    class Watched(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self.pid)

    monkeypatch.setattr(recognize.subprocess, "Popen", Watched)
    with pytest.raises(recognize.RecognitionTimeoutError):
        recognize.searchable_pdf(files.scanned_pdf(), "application/pdf", timeout=0.3)
    assert started
    # Every process of the group was killed; the last of them may take a moment to be
    # reaped on a busy machine (until then the group still answers): up to a minute.
    for _ in range(600):
        try:
            os.killpg(started[0], 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    pytest.fail("the reading's process group outlived it")


def _png(mode: str) -> bytes:
    out = io.BytesIO()
    Image.new(mode, (170, 220), (0, 0, 0, 0) if mode == "RGBA" else 255).save(
        out, "PNG", dpi=(200, 200)
    )
    return out.getvalue()


def test_a_scan_with_transparency_is_flattened_and_a_plain_one_passes_as_it_is() -> None:
    plain = _png("L")
    assert recognize._picture(plain) == (plain, 200)
    flattened, dpi = recognize._picture(_png("RGBA"))
    with Image.open(io.BytesIO(flattened)) as page:
        assert page.format == "TIFF" and page.mode == "RGB" and dpi == 200
        assert page.getpixel((5, 5)) == (255, 255, 255)
    # A scan that does not say its resolution is taken for a letter page's width.
    out = io.BytesIO()
    Image.new("L", (1700, 2200), 255).save(out, "PNG")
    assert recognize._picture(out.getvalue())[1] == 200


def test_a_file_that_is_not_a_scan_is_refused_before_any_program_runs() -> None:
    with pytest.raises(recognize.RecognitionError):
        recognize.searchable_pdf(b"PK..", "application/zip", timeout=1)
