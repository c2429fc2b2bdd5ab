"""A throwaway PostgreSQL server for the tests: initdb + pg_ctl in a temporary folder.

Run as root (as CI is), the server runs as the ``postgres`` system user, since PostgreSQL
refuses to run as root. Each test gets a fresh database cloned from a template that holds
the schema, so tests never see each other's rows.
"""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if candidates:
        return candidates[-1]
    raise RuntimeError(
        f"PostgreSQL's {name} was not found: install the postgresql package "
        "(make test does this on Debian when run as root)"
    )


# Linux's shared memory (tmpfs), where the tests keep their files when the machine gives it
# room enough: a database made and dropped for each test costs no disk's journal there.
MEMORY = Path("/dev/shm")
MEMORY_NEEDED = 2 * 1024**3  # bytes free: a container's 64 MB would not hold a server


def memory_folder() -> Path | None:
    """:data:`MEMORY` when it is a writable folder with :data:`MEMORY_NEEDED` free, else None
    (the system's temporary folder then)."""
    try:
        found = os.statvfs(MEMORY)
    except OSError:
        return None
    if not os.access(MEMORY, os.W_OK) or found.f_bavail * found.f_frsize < MEMORY_NEEDED:
        return None
    return MEMORY


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# A live server's folder holds this file locked by the process that made it (flock): the
# lock goes with that process however it ends.
OWNER = ".owner"


def _owner_alive(root: Path) -> bool | None:
    """Whether the process that made ``root`` still holds it (None: a folder made before
    folders had an owner's lock)."""
    try:
        fd = os.open(root / OWNER, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def sweep_stale_servers(folder: Path) -> None:
    """Remove the data folders of throwaway servers whose run was killed (their maker's
    process is gone): in memory, they would hold it until the machine restarts. A folder
    still held by its maker is left alone, whatever state its server is in (initdb runs
    programs that come and go, so a server's own pid file can name a process gone a moment
    ago)."""
    for root in folder.glob("tid-pg-*"):
        alive = _owner_alive(root)
        if alive is not None:
            if not alive:
                shutil.rmtree(root, ignore_errors=True)
            continue
        pid_file = root / "data" / "postmaster.pid"
        try:
            pid = int(pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pid = 0
        if pid and Path(f"/proc/{pid}").exists():
            continue
        try:
            age = time.time() - root.stat().st_mtime
        except OSError:
            continue
        if pid or age > 600:  # a folder without a server yet may be another run's, starting
            shutil.rmtree(root, ignore_errors=True)


class ThrowawayPostgres:
    """Start with :meth:`start`, get URLs with :meth:`url`, stop with :meth:`stop`."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="tid-pg-", dir=memory_folder()))
        # Held until this process ends: the sweep of another run never takes this folder.
        self._owner = os.open(self.root / OWNER, os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(self._owner, fcntl.LOCK_EX)
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *args: str) -> None:
        command = list(args)
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode:  # what the program said, not only that it failed
            said = done.stderr.decode(errors="replace").strip()[-2000:]
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {said}")

    def start(self) -> None:
        self.socket_dir.mkdir(parents=True)
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.socket_dir, "postgres", "postgres")
            os.chmod(self.root, 0o755)
        self._run(
            _binary("initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )
        options = (
            f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            # Its databases live for one test each: nothing for autovacuum to keep.
            "-c max_connections=200 -c autovacuum=off"
        )
        self._run(
            _binary("pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "-l",
            str(self.root / "log"),
            "start",
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the throwaway PostgreSQL did not start")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        try:
            self._run(_binary("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            os.close(self._owner)
