"""Uploaded roll files kept until they are imported, and their previews.

A large file is checked by a worker (the preview of 20,000 rows takes seconds); the page
then shows the preview it kept beside the upload, signed with the app's secret so that
only what the app itself wrote is ever read back.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import pickle
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tid.files import private_folder, write_private
from tid.rules.errors import N_, InputError
from tid.services.roll.file_reading import DEFAULT_MAX_BYTES, check_size
from tid.services.roll.importing import RollPreview

UPLOAD_TOKEN = re.compile(r"^[0-9a-f]{64}$")


def store_upload(
    directory: Path, data: bytes, *, meta: Mapping[str, Any], max_bytes: int = DEFAULT_MAX_BYTES
) -> str:
    """Keep an uploaded file under its SHA-256 (with who uploaded it for which district and
    year) until it is imported; the token returned names it."""
    check_size(len(data), max_bytes)
    token = hashlib.sha256(data).hexdigest()
    private_folder(directory)
    path = directory / f"{token}.csv"
    if not path.exists():
        write_private(path, data)
    else:
        path.touch()  # kept for the whole retention period from this upload
    write_private(
        directory / f"{token}.{meta.get('user_id', 'x')}.json",
        json.dumps(dict(meta), sort_keys=True, default=str).encode(),
    )
    return token


def load_upload(
    directory: Path, token: str, *, user_id: int | None
) -> tuple[bytes, dict[str, Any]]:
    """The bytes and metadata of a stored upload (of this user); ``InputError`` when the
    token is malformed or unknown."""
    if not UPLOAD_TOKEN.match(token):
        raise InputError("token", N_("This upload is not known; upload the file again."))
    data_path = directory / f"{token}.csv"
    meta_path = directory / f"{token}.{user_id if user_id is not None else 'x'}.json"
    if not data_path.exists() or not meta_path.exists():
        raise InputError("token", N_("This upload is not known; upload the file again."))
    data = data_path.read_bytes()
    if hashlib.sha256(data).hexdigest() != token:
        raise InputError("token", N_("This upload is not known; upload the file again."))
    meta: dict[str, Any] = json.loads(meta_path.read_text())
    return data, meta


def delete_upload(directory: Path, token: str, *, user_id: int | None) -> None:
    """Forget this user's upload once it is imported; the file itself goes with the last
    user who uploaded the same bytes."""
    if not UPLOAD_TOKEN.match(token):
        return
    (directory / f"{token}.{user_id if user_id is not None else 'x'}.json").unlink(missing_ok=True)
    _preview_path(directory, token, user_id).unlink(missing_ok=True)
    if not any(directory.glob(f"{token}.*.json")):
        (directory / f"{token}.csv").unlink(missing_ok=True)


def _preview_path(directory: Path, token: str, user_id: int | None) -> Path:
    return directory / f"{token}.{user_id if user_id is not None else 'x'}.preview"


def store_preview(
    directory: Path, token: str, *, user_id: int | None, preview: RollPreview, key: bytes
) -> None:
    """Keep the preview of an upload (this user's) for its page."""
    if not UPLOAD_TOKEN.match(token):
        raise InputError("token", N_("This upload is not known; upload the file again."))
    body = pickle.dumps(preview, protocol=pickle.HIGHEST_PROTOCOL)
    signature = hmac.new(key, body, hashlib.sha256).digest()
    path = _preview_path(directory, token, user_id)
    partial = path.with_suffix(".partial")
    write_private(partial, signature + body)
    partial.replace(path)  # whole or not at all


def load_preview(
    directory: Path, token: str, *, user_id: int | None, key: bytes
) -> RollPreview | None:
    """The kept preview of an upload, or None (not checked yet, or not the app's)."""
    if not UPLOAD_TOKEN.match(token):
        return None
    path = _preview_path(directory, token, user_id)
    try:
        stored = path.read_bytes()
    except FileNotFoundError:
        return None
    signature, body = stored[:32], stored[32:]
    if not hmac.compare_digest(signature, hmac.new(key, body, hashlib.sha256).digest()):
        return None
    preview = pickle.loads(body)
    return preview if isinstance(preview, RollPreview) else None


def purge_uploads(directory: Path, *, older_than: timedelta, now: datetime | None = None) -> int:
    """Delete every upload (imported or not, rejected ones included) stored longer ago than
    ``older_than``; the number of files deleted."""
    if not directory.is_dir():
        return 0
    cutoff = (now or datetime.now(UTC)).timestamp() - older_than.total_seconds()
    deleted = 0
    for path in directory.iterdir():
        if path.is_file() and path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)
            deleted += 1
    return deleted
