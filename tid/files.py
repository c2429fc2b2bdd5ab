"""Files only the app's own user may read: the database, backups, kept uploads and mail are
created 0600 in folders 0700, whatever the process's umask."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(path: Path) -> Path:
    """Make the folder (and missing parents) for the app's user alone; an existing folder
    keeps its mode."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    for folder in missing:  # mkdir's mode is cut by the umask
        folder.chmod(FOLDER_MODE)
    return path


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_CREAT | os.O_TRUNC) -> int:
    """Open (create) a file readable by the app's user alone."""
    handle = os.open(path, flags, FILE_MODE)
    os.fchmod(handle, FILE_MODE)
    return handle


def write_private(path: Path, data: bytes) -> None:
    with os.fdopen(open_private(path), "wb") as fh:
        fh.write(data)


def create_private(path: Path) -> None:
    """Create the file empty (0600) if it does not exist yet (say, before SQLite opens it:
    its journal and WAL files take the database file's mode)."""
    private_folder(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(open_private(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
