"""Processes that never outlive their parent (Linux ``prctl(PR_SET_PDEATHSIG)``)."""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Ask Linux to kill this process when the thread that started it ends: a worker's
    children (Huey worker processes, the notice renderer pool) never outlive it, even when
    the worker is killed with ``kill -9``. Given the ``parent``'s pid, a child that finds
    it already gone (it died while the child was starting) exits at once."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except OSError:  # pragma: no cover - not Linux
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)
