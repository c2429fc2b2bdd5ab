"""Programs run within bounds (tid/proc.py) and the readers of uploaded files
(tid/readers.py): a child dies with its killed parent, what it left behind ends at the next
start, a program over its time is stopped with every process of its group, and a reader over
its memory, its time or its pixels says so instead of taking the worker with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests import legislature_files as files
from tid import proc, readers

ROOT = Path(__file__).resolve().parent.parent
PATIENCE = 60.0  # seconds a process is given to end before the test fails (never a verdict)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that still runs (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _until(condition: object, what: str) -> None:
    """Wait, by state, for ``condition()``; fail after :data:`PATIENCE` seconds."""
    deadline = time.monotonic() + PATIENCE
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _pid_in(path: Path) -> int:
    _until(lambda: path.is_file() and path.read_text().strip(), f"{path} was never written")
    return int(path.read_text())


def _worker_like(tmp_path: Path, shell: str) -> subprocess.Popen[bytes]:
    """A parent that runs ``shell`` through tid/proc.py, as a worker runs ``ocrmypdf``."""
    code = textwrap.dedent(
        f"""
        from tid import proc
        proc.run(["sh", "-c", {shell!r}], seconds=600)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", code], env=env, cwd=tmp_path)


def _kill(parent: subprocess.Popen[bytes]) -> None:
    parent.send_signal(signal.SIGKILL)
    parent.wait()


def test_a_program_dies_with_its_parent_killed_by_sigkill(tmp_path: Path) -> None:
    parent = _worker_like(tmp_path, f"echo $$ > {tmp_path}/child; exec sleep 600")
    child = _pid_in(tmp_path / "child")
    assert _running(child)
    _kill(parent)
    _until(lambda: not _running(child), "the child outlived its killed parent")


def test_what_a_program_started_is_ended_by_a_workers_next_sweep(tmp_path: Path) -> None:
    """``ocrmypdf`` dies with its worker; its Ghostscript and tesseract (here a ``sleep``
    the shell started) are ended by a worker's next sweep, a live worker's are not."""
    dead = _worker_like(tmp_path, f"sleep 600 & echo $! > {tmp_path}/orphan; wait")
    live = _worker_like(tmp_path, f"sleep 600 & echo $! > {tmp_path}/kept; wait")
    try:
        orphan, kept = _pid_in(tmp_path / "orphan"), _pid_in(tmp_path / "kept")
        _kill(dead)
        assert _running(orphan)  # re-parented, still at work
        assert proc.reap_orphans() >= 1
        _until(lambda: not _running(orphan), "the dead worker's program was not ended")
        assert _running(kept)
    finally:
        _kill(live)
        proc.reap_orphans()


def test_a_program_over_its_time_is_stopped_with_its_whole_group(tmp_path: Path) -> None:
    with pytest.raises(proc.TimedOutError):
        proc.run(["sh", "-c", f"sleep 600 & echo $! > {tmp_path}/inner; wait"], seconds=1)
    inner = _pid_in(tmp_path / "inner")
    _until(lambda: not _running(inner), "the program's own child outlived the time out")


SMALL = readers.Limits(memory_bytes=160 * 2**20, seconds=120, picture_seconds=1, max_pixels=1000)


def test_a_reader_over_its_memory_says_so_and_a_plain_file_is_read() -> None:
    assert readers.read_text(files.docx("Plano de las aceras"), "docx", SMALL)[0] == (
        "Plano de las aceras"
    )
    with pytest.raises(readers.OverLimitError) as over:
        readers.read_text(files.docx_of_words(20), "docx", SMALL)
    assert over.value.which == "memory"


def test_a_picture_over_its_pixels_or_its_time_is_not_drawn() -> None:
    with pytest.raises(readers.OverLimitError) as pixels:
        readers.draw_picture(files.png(), "image/png", SMALL)  # 60 × 80 > 1,000 pixels
    assert pixels.value.which == "pixels"
    with pytest.raises(readers.OverLimitError) as slow:
        readers.draw_picture(files.pdf_of_many_lines(300_000), "application/pdf", SMALL)
    assert slow.value.which == "time"
    assert readers.draw_picture(files.pdf(), "application/pdf", readers.Limits()) is not None
