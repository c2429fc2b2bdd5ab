"""The notice's access code and portal link.

Access codes: 12 characters from a 31-letter alphabet (about 59 bits), stored as
HMAC-SHA256 keyed by a key derived from the app's secret and bound to the notice number.
A code this random cannot be guessed offline, so a slow password hash (argon2, ~50 ms each)
would add minutes to a run of thousands of notices for no gain; the keyed HMAC also means a
copy of the database alone does not let anyone test codes.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import quote

ACCESS_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off paper
ACCESS_LENGTH = 12
_KEY_LABEL = b"tid.notice-access-code.v1"


def new_access_code() -> str:
    """A fresh random access code, grouped for reading: ``ABCD-EFGH-JKMN``."""
    raw = "".join(secrets.choice(ACCESS_ALPHABET) for _ in range(ACCESS_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, ACCESS_LENGTH, 4))


def normalize_access_code(text: str) -> str:
    """The code as typed, without spaces or dashes, in capitals."""
    return "".join(ch for ch in text.upper() if ch.isalnum())


def normalize_notice_number(text: str) -> str:
    return "".join(text.split()).upper()[:40]


def access_code_hash(secret: str, number: str, code: str) -> str:
    """HMAC-SHA256 of (notice number, code) under a key derived from the app's secret."""
    key = hmac.new(secret.encode(), _KEY_LABEL, hashlib.sha256).digest()
    message = f"{normalize_notice_number(number)}\n{normalize_access_code(code)}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def portal_url(base_url: str, number: str) -> str:
    """The owner's portal with the notice number filled in (the QR code's target)."""
    return f"{base_url.rstrip('/')}/portal?n={quote(number)}"
