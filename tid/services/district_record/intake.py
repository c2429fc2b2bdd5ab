"""``tid import district``: a district's package read and checked whole, then written in the
caller's transaction; the search index of its petitions' files made again, its public pages
started afresh, and its running balances checked against its journal before the caller
commits. Any failure raises :class:`~.reading.RecordError` with nothing kept (the caller
rolls back)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from tid.services.audit_trail import audit
from tid.services.district_record.reading import RecordError, read_package
from tid.services.district_record.writing import Imported, write_package
from tid.services.ledger.verify import verify
from tid.services.petitions import file_search
from tid.services.public import versions


def import_district(
    *, session: Session, path: Path, folder: Path, max_bytes: int, actor: audit.Actor
) -> Imported:
    """Import the package at ``path`` (the caller commits; on an error, rolls back)."""
    record = read_package(path=path, max_bytes=max_bytes)
    try:
        done = write_package(session=session, record=record, folder=folder, actor=actor)
    except IntegrityError as exc:  # a rule of the database the checks did not foresee
        raise RecordError([f"The database refused a row: {str(exc.orig).splitlines()[0]}"]) from exc
    _index_documents(session, done, folder)
    versions.bump(session=session, district_ids=[done.district_id])
    _, differences = verify(session=session, district_id=done.district_id)
    if differences:
        shown = [f"{d.what} {d.key}: stored {d.stored}, journal {d.journal}" for d in differences]
        raise RecordError(
            ["The running balances do not agree with the journal imported:", *shown[:10]]
        )
    audit.record(
        session=session,
        actor=actor,
        action="district.import",
        entity=("district", done.district_id),
        after={
            "district": done.district,
            "municipality": done.municipality,
            "rows": done.rows,
            "files": done.files,
            "package": path.name,
        },
    )
    return done


def _index_documents(session: Session, done: Imported, folder: Path) -> None:
    """The current version of each document of the imported petitions, in the search."""
    newest: dict[int, tuple[int, int]] = {}
    for row in done.record.kept["document_version"]:
        number, _ = newest.get(row["document_id"], (0, 0))
        if row["number"] > number:
            newest[row["document_id"]] = (row["number"], row["id"])
    ids = done.maps.get("document_version", {})
    for _, old in sorted(newest.values()):
        file_search.index_version(session=session, folder=folder, version_id=ids[old])
