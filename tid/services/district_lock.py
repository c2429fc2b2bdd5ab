"""One district's writers one after another: the lock every write of a district's books or
public record takes before it reads what it decides on."""

from __future__ import annotations

from sqlmodel import Session, func, select

# A key for pg_advisory_xact_lock(namespace, district_id): every posting of one district
# waits for the one before it, so a cap check or a bill's outstanding amount is never stale.
_LOCK_NAMESPACE = 6653


def lock_district(*, session: Session, district_id: int) -> None:
    """Serialize the writes of one district until the transaction ends.

    PostgreSQL: ``pg_advisory_xact_lock``. SQLite: ``BEGIN IMMEDIATE`` (the write lock is
    taken before anything is read, so two writers cannot both read the old figures). A
    writer reads what it decides on (a quote settled or not, an entry reversed or not) after
    this: what it read before may be what another writer has since changed. Every form sent
    about a district takes it before its route reads anything (``tid.web.access.require``).
    """
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_advisory_xact_lock(_LOCK_NAMESPACE, district_id)))
        return
    raw = connection.connection.dbapi_connection
    if raw is not None and not raw.in_transaction:
        raw.execute("BEGIN IMMEDIATE")
