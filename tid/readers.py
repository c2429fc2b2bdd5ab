"""Every reader of an uploaded file runs in a process of its own, bounded in memory
(``RLIMIT_AS``) and in time, killed with the worker that started it (tid/proc.py): a
crafted file costs at most its reader, never the worker, the web or the machine.

- :func:`read_text` — the words of a file for the search (tid/rules/file_text.py);
- :func:`draw_picture` — its first page as a small PNG (tid/render/thumbnails.py), a scan
  larger than the pixel bound not drawn at all.

The parent sends the file on the reader's standard input and reads one JSON answer from
its standard output (``python -m tid.readers text|picture ARG``). A reader over its bounds
raises :class:`OverLimitError` saying which (``memory`` or ``time``).
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tid import proc

MEMORY_EXIT = 3  # the reader ran out of the memory it is allowed


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 768 * 2**20
    seconds: float = 120.0
    picture_seconds: float = 20.0
    max_pixels: int = 60_000_000


def limits_of(config: Mapping[str, Any]) -> Limits:
    """The bounds of the app's configuration (``READER_MEMORY_MB``, ``READER_SECONDS``,
    ``PICTURE_SECONDS``, ``PICTURE_MAX_PIXELS``)."""
    return Limits(
        memory_bytes=max(64, int(config.get("READER_MEMORY_MB") or 768)) * 2**20,
        seconds=max(1.0, float(config.get("READER_SECONDS") or 120)),
        picture_seconds=max(1.0, float(config.get("PICTURE_SECONDS") or 20)),
        max_pixels=max(1, int(config.get("PICTURE_MAX_PIXELS") or 60_000_000)),
    )


class OverLimitError(Exception):
    """The reader needed more than its bound: ``which`` is ``memory`` or ``time``."""

    def __init__(self, which: str) -> None:
        super().__init__(which)
        self.which = which


class ReaderError(Exception):
    """The reader failed on the file (its last words)."""


def _ask(kind: str, arg: str, data: bytes, *, seconds: float, memory_bytes: int) -> Any:
    command = [sys.executable, "-m", "tid.readers", kind, arg]
    here = str(Path(__file__).resolve().parent.parent)  # this tid, whatever is installed
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    try:
        done = proc.run(command, seconds=seconds, memory_bytes=memory_bytes, input=data, env=env)
    except proc.TimedOutError:
        raise OverLimitError("time") from None
    if done.returncode == MEMORY_EXIT or b"MemoryError" in done.stderr[-2000:]:
        raise OverLimitError("memory")
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise ReaderError(f"exit {done.returncode}: {' '.join(last)}")
    return json.loads(done.stdout)


def read_text(data: bytes, code: str, limits: Limits) -> tuple[str, int | None, bool]:
    """The text, pages and whether it has text (``file_text.Extracted``) of ``data``."""
    found = _ask("text", code, data, seconds=limits.seconds, memory_bytes=limits.memory_bytes)
    return str(found["text"]), found["pages"], bool(found["has_text"])


def draw_picture(data: bytes, media_type: str, limits: Limits) -> bytes | None:
    """The first page as a PNG, or None when the file has no picture; a scan over
    ``max_pixels`` raises :class:`OverLimitError` ``pixels``."""
    found = _ask(
        "picture",
        f"{media_type} {limits.max_pixels} {limits.picture_seconds:g}",
        data,
        seconds=limits.picture_seconds + 5,  # the program inside has the time itself
        memory_bytes=limits.memory_bytes,
    )
    if found.get("over"):
        raise OverLimitError(str(found["over"]))
    return base64.b64decode(found["png"]) if found.get("png") else None


def _child(kind: str, arg: str, data: bytes) -> dict[str, Any]:
    if kind == "text":
        from tid.rules import file_text

        found = file_text.extract(data, arg)
        return {"text": found.text, "pages": found.pages, "has_text": found.has_text}
    if kind == "picture":
        from tid.render import thumbnails

        media_type, pixels, seconds = arg.split()
        try:
            png = thumbnails.first_page_png(
                data, media_type, max_pixels=int(pixels), seconds=float(seconds)
            )
        except thumbnails.TooManyPixelsError:
            return {"over": "pixels"}
        except proc.TimedOutError:
            return {"over": "time"}
        return {"png": base64.b64encode(png).decode() if png else ""}
    raise SystemExit(f"no reader {kind!r}")


def main(argv: list[str]) -> int:
    kind, arg = argv[1], argv[2]
    data = sys.stdin.buffer.read()
    try:
        answer = _child(kind, arg, data)
    except MemoryError:
        del data
        return MEMORY_EXIT
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
