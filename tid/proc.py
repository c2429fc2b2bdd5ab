"""Processes that never outlive their parent, and programs run within bounds.

- :func:`die_with_parent` — Linux ``prctl(PR_SET_PDEATHSIG)``: killed when the parent dies;
- :func:`run` — a program run in its own process group, killed with the parent (even by
  ``kill -9``), stopped (every process of its group) after its time, its memory bounded
  (``RLIMIT_AS``);
- :func:`reap_orphans` — what such a program started itself (``ocrmypdf``'s Ghostscript and
  ``tesseract``) and left running when its worker was killed: ended by the next sweep of a
  worker (tid/jobs/tasks.py: as it starts, then every few seconds). Every process :func:`run`
  starts carries, in its environment and its children's, the pid and start time of the
  process that ran it (:data:`OWNER`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

_PR_SET_PDEATHSIG = 1
OWNER = "TID_CHILD_OF"  # the environment variable naming the process that ran the program


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:  # pragma: no cover - not Linux
        return None


_LIBC = _libc()  # loaded before any fork: a child only calls it


def die_with_parent(parent: int | None = None) -> None:
    """Ask Linux to kill this process when the thread that started it ends: a worker's
    children (Huey worker processes, the notice renderer pool) never outlive it, even when
    the worker is killed with ``kill -9``. Given the ``parent``'s pid, a child that finds
    it already gone (it died while the child was starting) exits at once."""
    if _LIBC is None:  # pragma: no cover - not Linux
        return
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def start_time(pid: int) -> str | None:
    """When the process started (clock ticks since boot, /proc), or None when it is gone:
    a pid with its start time names one process, never a later one given the same pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[19]


def owner_mark(pid: int | None = None) -> str:
    """``pid:start`` of this process (or of ``pid``)."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}:{start_time(pid)}"


class TimedOutError(Exception):
    """The program ran longer than it was given; every process of its group was killed."""


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: bytes
    stderr: bytes


def child_setup(memory_bytes: int | None, parent: int) -> Callable[[], None]:
    """What a child does between fork and exec: die with its parent, bound its memory."""

    def setup() -> None:
        if _LIBC is not None:
            _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died while the child was starting
            os._exit(1)
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    return setup


def run(
    command: list[str],
    *,
    seconds: float,
    memory_bytes: int | None = None,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    stdout: int = subprocess.PIPE,
) -> Finished:
    """Run ``command`` within bounds (see the module); :class:`TimedOutError` after ``seconds``."""
    environment = {**(os.environ if env is None else env), OWNER: owner_mark()}
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=environment,
        start_new_session=True,
        preexec_fn=child_setup(memory_bytes, os.getpid()),
    ) as process:
        try:
            out, err = process.communicate(input, timeout=seconds)
        except subprocess.TimeoutExpired:
            stop(process)
            raise TimedOutError(f"stopped after {seconds:g} s") from None
        except BaseException:
            stop(process)
            raise
    return Finished(process.returncode, out or b"", err or b"")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Kill every process of the program's group (what it started too), and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def reap_orphans() -> int:
    """Kill every process of this user that :func:`run` started (or one of them started) for
    a process that no longer exists (a worker killed with ``kill -9``); returns how many.
    A live owner's programs are left alone."""
    killed = 0
    me = os.getuid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        mark = _owner_of(entry, me)
        if mark is None:
            continue
        pid, _sep, started = mark.partition(":")
        if pid.isdigit() and start_time(int(pid)) == started:
            continue  # its owner lives
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(int(entry.name), signal.SIGKILL)
            killed += 1
    return killed


def _owner_of(entry: Path, uid: int) -> str | None:
    try:
        if entry.stat().st_uid != uid:
            return None
        environ = (entry / "environ").read_bytes()
    except OSError:
        return None
    prefix = OWNER.encode() + b"="
    for item in environ.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix) :].decode("ascii", "replace")
    return None
