"""The public pages' rate limit: each anonymous request counted per address and minute in the
database (:mod:`tid.services.request_rate`, so the limit holds across every worker). The
count is the one write of a public page; on PostgreSQL its commit does not wait for the disk
(a count lost in a crash lets a few more requests through, nothing else)."""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session

from tid.services import request_rate


def count_visit(*, session: Session, address: str, limit: int) -> request_rate.Decision:
    """Count one public request of ``address``; the caller commits."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL synchronous_commit TO OFF"))
    return request_rate.hit(session=session, key=f"public:{address}", limit=limit)
