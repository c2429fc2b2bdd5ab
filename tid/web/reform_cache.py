"""A saved reform's page, its note and its fund on the example figures, made once per worker
and kept: a saved reform is never edited, so what they show depends only on the reform's id,
the reader's language (the fund's comparison is the same in every language), the law's
parameters (tid/rules/params: a reload of them forgets every copy), the code of the release
the worker runs (a new release starts new workers, with nothing kept) and, for the note, the
day printed on it. Nothing of the reader is kept: the parts of a page that show something
of the reader (the signed-in's links, the address the page was asked under) are written
around the kept part at each request.

Each worker keeps at most :data:`MOST_BYTES` of them in :data:`MOST_ENTRIES` copies, the
least recently used dropped first; a copy larger than a quarter of the bytes is not kept."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from tid.rules import params

MOST_BYTES = 32 * 1024 * 1024
MOST_ENTRIES = 1024

_LOCK = threading.Lock()
_KEPT: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
_held = 0


def found(key: Hashable) -> Any | None:
    """The copy kept under ``key`` (None: none is)."""
    with _LOCK:
        entry = _KEPT.get(key)
        if entry is None:
            return None
        _KEPT.move_to_end(key)
        return entry[0]


def keep(key: Hashable, value: Any, size: int) -> None:
    """Keep ``value`` (of about ``size`` bytes) under ``key``, dropping the least recently
    used copies past the bounds."""
    global _held
    if size > MOST_BYTES // 4:
        return
    with _LOCK:
        old = _KEPT.pop(key, None)
        if old is not None:
            _held -= old[1]
        _KEPT[key] = (value, size)
        _held += size
        while _KEPT and (_held > MOST_BYTES or len(_KEPT) > MOST_ENTRIES):
            _key, (_value, dropped) = _KEPT.popitem(last=False)
            _held -= dropped


def held() -> tuple[int, int]:
    """How many copies are kept, and their bytes."""
    with _LOCK:
        return len(_KEPT), _held


def forget_all() -> None:
    """Drop every copy (a reload of the parameters; the tests)."""
    global _held
    with _LOCK:
        _KEPT.clear()
        _held = 0


params.on_reload(forget_all)
