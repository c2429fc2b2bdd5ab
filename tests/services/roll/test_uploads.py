"""Uploaded roll files kept by their hash and their owner."""

from __future__ import annotations

import pytest

from tests.services.roll.helpers import GOOD
from tid.rules.errors import InputError
from tid.services import roll


def test_uploads_are_kept_by_their_hash_and_owner(tmp_path: pytest.TempPathFactory) -> None:
    folder = tmp_path / "uploads"  # type: ignore[operator]
    token = roll.store_upload(folder, GOOD.encode(), meta={"district_id": 1, "user_id": 7})
    data, meta = roll.load_upload(folder, token, user_id=7)
    assert data == GOOD.encode() and meta["district_id"] == 1
    with pytest.raises(InputError):
        roll.load_upload(folder, token, user_id=8)  # another user's upload
    with pytest.raises(InputError):
        roll.load_upload(folder, "../../etc/passwd", user_id=7)
