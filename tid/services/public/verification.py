"""The verification of a document issued about a property (``/verificar/<code>``, no login):
whoever holds a payoff quote, a lien certificate or a release can check, by its code, that it
is authentic, who issued it and when, what it said (the cadastral number and the amounts,
through :func:`tid.services.public.declared.public_view`: never the owner), whether it is
still within its day, and whether anything was paid or booked on the property since; and
check a copy of its PDF against the SHA-256 archived when it was issued.

A code has 80 bits (tid/services/closing/issued.py): it cannot be guessed, and the page is limited
like the owners' portal — each client's wrong codes are counted
(:mod:`tid.services.limits.throttle`, a lock-out after ``MAX_FAILURES`` in ``WINDOW``), and every
client's requests a minute (:mod:`tid.services.limits.request_rate`)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tid.models import IssuedDocument
from tid.services import places
from tid.services.closing import issued
from tid.services.limits import request_rate, throttle
from tid.services.public.declared import public_view

MAX_FAILURES = 10  # wrong codes per client address in WINDOW before it must wait
WINDOW = timedelta(minutes=15)
REQUESTS_PER_MINUTE = 30  # look-ups and uploads per client address a minute
MAX_UPLOAD_BYTES = 10_000_000


@dataclass(frozen=True)
class Verified:
    """What the page says of a document found by its code."""

    document: dict[str, Any]  # its public fields
    lines: list[dict[str, Any]]  # each line's public fields
    district_name: str
    within_date: bool | None  # None: a document without a day (a release)
    settled: bool
    booked_since: int  # journal entries on the property's bills since it was issued
    one_time: list[issued.OneTimeCharge]  # the one-time charges it said land after its day
    one_time_said: bool  # False: issued before documents said them
    released: Released | None = None  # a certificate's lien released since it was issued


@dataclass(frozen=True)
class Released:
    """The release of the impost lien issued after a lien certificate: the certificate
    still is what it was, but the lien it describes is gone."""

    reference: str
    issued_on: date


# What the page's heading says: what the code (and an uploaded copy) showed.
AUTHENTIC = "authentic"  # the code is of a document issued here
RELEASED = "released"  # a lien certificate whose lien was released since
MATCHES = "matches"  # the uploaded copy is, byte for byte, the document archived
DIFFERS = "differs"  # the uploaded copy is not the document archived under the code


def verdict(found: Verified, *, matches: bool | None) -> str:
    """What the page's heading says: the upload's result first (a changed copy is not
    authentic, whatever the code), then whether a certificate's lien was released since."""
    if matches is False:
        return DIFFERS
    if matches:
        return MATCHES
    return RELEASED if found.released is not None else AUTHENTIC


def _released_since(session: Session, document: IssuedDocument) -> Released | None:
    """The first release of the property's impost lien issued after ``document`` (a lien
    certificate), or None."""
    if document.kind != issued.LIEN_CERTIFICATE:
        return None
    release = session.exec(
        select(IssuedDocument)
        .where(
            IssuedDocument.property_id == document.property_id,
            IssuedDocument.district_id == document.district_id,
            IssuedDocument.kind == issued.RELEASE,
            col(IssuedDocument.id) > (document.id or 0),
        )
        .order_by(col(IssuedDocument.id))
        .limit(1)
    ).first()
    return None if release is None else Released(release.reference, release.issued_on)


def _network(client: str) -> str:
    """The client's network (/24 of IPv4, /64 of IPv6), as the portal counts it."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def _rules(client: str, max_failures: int, window: timedelta) -> list[tuple[str, throttle.Policy]]:
    policy = throttle.Policy(
        free=max_failures, lockout_after=max_failures, lockout=window, window=window
    )
    network = throttle.Policy(
        free=max_failures * 4, lockout_after=max_failures * 4, lockout=window, window=window
    )
    return [
        (f"verify-address:{client[:64]}", policy),
        (f"verify-network:{_network(client)[:64]}", network),
    ]


def allowed(
    *, session: Session, client: str, limit: int = REQUESTS_PER_MINUTE, now: datetime | None = None
) -> request_rate.Decision:
    """Count one request of the client (the caller commits); past ``limit`` a minute, no."""
    return request_rate.hit(session=session, key=f"verify:{client}", limit=limit, now=now)


def reserve(
    *,
    session: Session,
    client: str,
    max_failures: int = MAX_FAILURES,
    window: timedelta = WINDOW,
    now: datetime | None = None,
) -> throttle.Reservation | throttle.Refused:
    """Count this look-up as a wrong code until it is found (:func:`found`); refused while
    the client must wait. The caller commits before looking the code up. A
    ``max_failures`` of 0 (or less) is no bound: nothing is counted."""
    if max_failures <= 0:
        return throttle.Reservation()
    rules = _rules(client, max_failures, window)
    return throttle.reserve(session=session, rules=rules, now=now, fresh_key=rules[0][0])


def found(*, session: Session, reservation: throttle.Reservation) -> None:
    """The code was right: the look-up is not a failure."""
    throttle.release(session=session, reservation=reservation)


def verify(*, session: Session, code: str, today: date) -> Verified | None:
    """The document issued under ``code`` as the public may see it, or None."""
    document = issued.by_code(session=session, code=code)
    if document is None:
        return None
    district = places.district(session=session, district_id=document.district_id)
    lines = [public_view("issued_document_line", line) for line in _lines(document)]
    within = None if document.good_through is None else today <= document.good_through
    return Verified(
        document=public_view("issued_document", document),
        lines=lines,
        district_name=district.name if district else "",
        within_date=within,
        settled=document.settled_on is not None,
        booked_since=issued.entries_since(session=session, document=document),
        one_time=issued.one_time_charges(lines),
        one_time_said=issued.says_one_time_charges(lines),
        released=_released_since(session, document),
    )


def _lines(document: Any) -> list[dict[str, Any]]:
    result = []
    for line in issued.lines_of(document):
        result.append(
            {
                "fiscal_year": line["fiscal_year"],
                "due_date": date.fromisoformat(line["due_date"]),
                "days_late": int(line.get("days_late", "0")),
                "impost": Decimal(line["impost"]),
                "surcharge": Decimal(line["surcharge"]),
                "interest": Decimal(line["interest"]),
                "lands_on": line.get("lands_on"),
                "lands_surcharge": line.get("lands_surcharge", ""),
                "lands_per_day": line.get("lands_per_day", ""),
            }
        )
    return result


def matches_upload(*, session: Session, code: str, content: bytes) -> bool | None:
    """Whether ``content`` is byte for byte the PDF archived under ``code`` (None: no such
    document)."""
    document = issued.by_code(session=session, code=code)
    if document is None:
        return None
    return issued.matches(document, content)
