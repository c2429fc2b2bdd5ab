"""The files of an opening position uploaded on the web, kept (as the roll's uploads are,
tid/services/roll/uploads.py) between their preview and their booking: each file under its
SHA-256, and a small manifest naming them by kind, whose own hash is the upload's token."""

from __future__ import annotations

import hashlib
import hmac
import json
import pickle
from collections.abc import Mapping
from pathlib import Path

from sqlmodel import Session, col, select

from tid.files import write_private
from tid.models import BillingRun, BillingRunStatus, OpeningPosition
from tid.rules.errors import N_, InputError
from tid.services.aboard.file_checks import Preview
from tid.services.roll.uploads import UPLOAD_TOKEN, delete_upload, load_upload, store_upload

GONE = N_("These files were booked or have expired; upload them again.")


def store_files(
    directory: Path,
    files: Mapping[str, tuple[str, bytes]],
    *,
    district_id: int,
    user_id: int | None,
    max_bytes: int,
) -> str:
    """Keep the files (kind → (name, bytes)) for this user and district; the token."""
    named = {}
    for kind, (name, data) in sorted(files.items()):
        meta = {"district_id": district_id, "file_name": name, "user_id": user_id, "kind": kind}
        named[kind] = [store_upload(directory, data, meta=meta, max_bytes=max_bytes), name]
    manifest = json.dumps({"district_id": district_id, "files": named}, sort_keys=True).encode()
    meta = {"district_id": district_id, "user_id": user_id, "file_name": "manifest.json"}
    return store_upload(directory, manifest, meta=meta, max_bytes=max(max_bytes, len(manifest)))


def load_files(
    directory: Path, token: str, *, district_id: int, user_id: int | None
) -> dict[str, tuple[str, bytes]]:
    """The files kept under ``token`` for this user and district; ``InputError`` when they
    are gone (booked, expired) or not theirs."""
    try:
        manifest, meta = load_upload(directory, token, user_id=user_id)
        named = json.loads(manifest)
        if meta.get("district_id") != district_id or named.get("district_id") != district_id:
            raise InputError("token", GONE)
        files = {}
        for kind, (file_token, name) in named["files"].items():
            data, _meta = load_upload(directory, file_token, user_id=user_id)
            files[kind] = (str(name), data)
    except (InputError, ValueError, KeyError, TypeError):
        raise InputError("token", GONE) from None
    return files


def size_of(files: Mapping[str, tuple[str, bytes]]) -> int:
    """The files' bytes in all."""
    return sum(len(data) for _name, data in files.values())


def _preview_path(directory: Path, token: str, user_id: int | None) -> Path:
    return directory / f"{token}.{user_id if user_id is not None else 'x'}.aboard-preview"


def store_preview(
    directory: Path, token: str, *, user_id: int | None, preview: Preview, key: bytes
) -> None:
    """Keep the check of large files (made by a worker) for their page, signed with the
    app's key so that only what the app wrote is read back."""
    if not UPLOAD_TOKEN.match(token):
        raise InputError("token", GONE)
    body = pickle.dumps(preview, protocol=pickle.HIGHEST_PROTOCOL)
    path = _preview_path(directory, token, user_id)
    partial = path.with_suffix(".partial")
    write_private(partial, hmac.new(key, body, hashlib.sha256).digest() + body)
    partial.replace(path)  # whole or not at all


def load_preview(directory: Path, token: str, *, user_id: int | None, key: bytes) -> Preview | None:
    """The kept check of the files, or None (not checked yet, or not the app's)."""
    if not UPLOAD_TOKEN.match(token):
        return None
    try:
        stored = _preview_path(directory, token, user_id).read_bytes()
    except FileNotFoundError:
        return None
    signature, body = stored[:32], stored[32:]
    if not hmac.compare_digest(signature, hmac.new(key, body, hashlib.sha256).digest()):
        return None
    preview = pickle.loads(body)
    return preview if isinstance(preview, Preview) else None


def delete_files(directory: Path, token: str, *, user_id: int | None) -> None:
    """Forget the files once booked (the archive keeps them, with their SHA-256)."""
    _preview_path(directory, token, user_id).unlink(missing_ok=True)
    try:
        manifest, _meta = load_upload(directory, token, user_id=user_id)
        named = json.loads(manifest)
        for file_token, _name in named.get("files", {}).values():
            delete_upload(directory, str(file_token), user_id=user_id)
    except (InputError, ValueError):
        pass
    delete_upload(directory, token, user_id=user_id)


def position_of(*, session: Session, district_id: int) -> OpeningPosition | None:
    """The district's opening position, once booked (not one reversed)."""
    return session.exec(
        select(OpeningPosition).where(
            OpeningPosition.district_id == district_id,
            col(OpeningPosition.reversed_at).is_(None),
        )
    ).first()


def reversed_positions(*, session: Session, district_id: int) -> list[OpeningPosition]:
    """The district's opening positions reversed, the latest first."""
    return list(
        session.exec(
            select(OpeningPosition)
            .where(
                OpeningPosition.district_id == district_id,
                col(OpeningPosition.reversed_at).is_not(None),
            )
            .order_by(col(OpeningPosition.id).desc())
        )
    )


def opened_runs(*, session: Session, district_id: int) -> list[BillingRun]:
    """The billing runs a district brought from its earlier books (no formula: those books
    billed them), oldest year first: each can be given new notices, with new portal codes."""
    return list(
        session.exec(
            select(BillingRun)
            .where(
                BillingRun.district_id == district_id,
                BillingRun.formula == "",
                BillingRun.status == BillingRunStatus.ACTIVE.value,
            )
            .order_by(col(BillingRun.fiscal_year))
        )
    )


def files_of(position: OpeningPosition) -> list[dict[str, object]]:
    """The files an opening position was booked from (kind, name, SHA-256, rows)."""
    return list(json.loads(position.files))


def totals_of(position: OpeningPosition) -> dict[str, str]:
    """The totals the association confirmed, by key."""
    return dict(json.loads(position.totals))
