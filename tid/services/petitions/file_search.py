"""The clerk's search over petitions, ordinances and the documents of their files, by the
words of their titles and of their text, Spanish and English, accents folded
(``información`` finds ``informacion``), ranked, with the passage that matched.

- PostgreSQL: each entry's ``words`` is a ``tsvector`` of the title (weight A) and the text,
  under both the ``spanish`` and the ``english`` configurations of ``unaccent``-ed text, in
  a GIN index; a query is the OR of its Spanish and English readings, ranked by ``ts_rank``
  (among the newest :data:`RANK_WINDOW` entries that match, so that a word every document
  holds costs no more than a rarer one).
- SQLite: an FTS5 table (``unicode61 remove_diacritics 2``) mirrors the entries, made on
  first use (it is derived from ``search_entry`` and rebuilt from it); each word of a query
  is matched as a prefix, ranked by ``bm25`` with the title counting ten times.

A document's text is read in the background after its upload (:func:`index_version`, job
``documents.index``); petitions and ordinances are brought up to date as the search runs.
"""

from __future__ import annotations

import html
import logging
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup
from sqlalchemy import delete, text
from sqlmodel import Session, col, select

from tid import readers
from tid.models import (
    DocumentVersion,
    Ordinance,
    Petition,
    PetitionDocument,
    SearchEntry,
)
from tid.render import thumbnails
from tid.rules import file_content
from tid.services.files import file_store

log = logging.getLogger(__name__)
FTS_TABLE = "search_fts"
# The statements on it, written whole: only bound values change.
_FTS_DELETE = "DELETE FROM search_fts WHERE rowid = :id"
_FTS_INSERT = "INSERT INTO search_fts (rowid, title, body) VALUES (:id, :title, :body)"
_WORD = re.compile(r"\w+", re.UNICODE)
PASSAGE = 220  # characters of the matching passage shown
# PostgreSQL ranks at most this many of the entries that match, the newest: ``ts_rank`` reads
# each one's whole tsvector, and a word that every document holds would rank them all.
RANK_WINDOW = 1_000


def fold(value: str) -> str:
    """Lower case, accents off: how the search compares words."""
    decomposed = unicodedata.normalize("NFKD", value.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


# --------------------------------------------------------------------------- the index


def _ensure_fts(session: Session) -> None:
    session.execute(
        text(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
            "title, body, tokenize = 'unicode61 remove_diacritics 2')"
        )
    )


def _store(session: Session, entry: SearchEntry) -> None:
    """Write the entry and its words (the tsvector, or the FTS5 row)."""
    session.add(entry)
    session.flush()
    if _dialect(session) == "postgresql":
        session.execute(
            text(
                "UPDATE search_entry SET words = "
                "setweight(to_tsvector('spanish', unaccent(title)), 'A') || "
                "setweight(to_tsvector('english', unaccent(title)), 'A') || "
                "to_tsvector('spanish', unaccent(body)) || to_tsvector('english', unaccent(body)) "
                "WHERE id = :id"
            ),
            {"id": entry.id},
        )
        return
    _ensure_fts(session)
    session.execute(text(_FTS_DELETE), {"id": entry.id})
    session.execute(
        text(_FTS_INSERT),
        {"id": entry.id, "title": fold(entry.title), "body": fold(entry.body)},
    )


def _entry(session: Session, kind: str, ref_id: int) -> SearchEntry | None:
    return session.exec(
        select(SearchEntry).where(SearchEntry.kind == kind, SearchEntry.ref_id == ref_id)
    ).first()


def put_entry(
    *,
    session: Session,
    kind: str,
    ref_id: int,
    petition: Petition,
    title: str,
    body: str,
) -> SearchEntry:
    """The search's entry for a record (made or replaced)."""
    entry = _entry(session, kind, ref_id) or SearchEntry(
        kind=kind,
        ref_id=ref_id,
        petition_id=petition.id or 0,
        municipality_id=petition.municipality_id,
        title="",
    )
    entry.title = title[:300]
    entry.body = body
    _store(session, entry)
    return entry


def forget(*, session: Session, document_id: int) -> None:
    """A withdrawn document leaves the search (its versions stay in the archive)."""
    entry = _entry(session, "document", document_id)
    if entry is None:
        return
    if _dialect(session) == "sqlite":
        _ensure_fts(session)
        session.execute(text(_FTS_DELETE), {"id": entry.id})
    session.execute(delete(SearchEntry).where(col(SearchEntry.id) == entry.id))


def index_version(
    *, session: Session, folder: Path, version_id: int, limits: readers.Limits | None = None
) -> DocumentVersion | None:
    """Read a version's text into the search (the document's entry holds its current
    version), by a reader bounded in memory and time (tid/readers.py); a scan without text
    is marked ``no_text``, a file over the reader's bounds ``over_memory`` or ``over_time``
    (kept, its text not read)."""
    version = session.get(DocumentVersion, version_id)
    if version is None:
        return None
    document = session.get(PetitionDocument, version.document_id)
    petition = session.get(Petition, document.petition_id) if document else None
    if document is None or petition is None:
        return None
    data = file_store.read(folder=folder, sha256=version.sha256)
    code = file_content.MEDIA_TYPES[version.media_type].code
    try:
        text, pages, has_text = readers.read_text(data, code, limits or readers.Limits())
    except readers.OverLimitError as over:
        log.warning("version %s: its text was not read (over the %s bound)", version_id, over)
        version.text_state = f"over_{over.which}"
        session.add(version)
        return version
    except Exception:  # a file that passed the checks but whose text cannot be read
        log.exception("version %s: its text could not be read", version_id)
        version.text_state = "unreadable"
        session.add(version)
        return version
    version.pages = pages
    version.text_state = "indexed" if has_text else "no_text"
    session.add(version)
    current = session.exec(
        select(DocumentVersion.id)
        .where(DocumentVersion.document_id == document.id)
        .order_by(col(DocumentVersion.number).desc())
    ).first()
    if current == version.id and document.withdrawn_at is None:
        put_entry(
            session=session,
            kind="document",
            ref_id=document.id or 0,
            petition=petition,
            title=document.title,
            body=f"{version.filename}\n{text}",
        )
    return version


def _sync_records(session: Session, scope: list[int] | None) -> None:
    """Bring the entries of petitions and ordinances up to date (they are few and short)."""
    petitions = select(Petition)
    if scope is not None:
        petitions = petitions.where(col(Petition.municipality_id).in_(scope))
    have = {
        (kind, ref): body
        for kind, ref, body in session.exec(
            select(SearchEntry.kind, SearchEntry.ref_id, SearchEntry.title).where(
                col(SearchEntry.kind).in_(("petition", "ordinance"))
            )
        )
    }
    ordinances = {o.petition_id: o for o in session.exec(select(Ordinance))}
    for petition in session.exec(petitions):
        _sync_petition(session, petition, ordinances.get(petition.id or 0), have)


def _sync_petition(
    session: Session,
    petition: Petition,
    ordinance: Ordinance | None,
    have: dict[tuple[str, int], str],
) -> None:
    body = "\n".join(
        part for part in (petition.petitioner, petition.documents, petition.decision_notes) if part
    )
    title = petition.district_name
    key = ("petition", petition.id or 0)
    if have.get(key) != _signed(title, body):
        put_entry(
            session=session,
            kind="petition",
            ref_id=petition.id or 0,
            petition=petition,
            title=_signed(title, body),
            body=body,
        )
    if ordinance is None:
        return
    body = "\n".join((ordinance.association_name, ordinance.formula))
    title = f"{ordinance.number} {ordinance.district_name}".strip()
    if have.get(("ordinance", ordinance.id or 0)) != _signed(title, body):
        put_entry(
            session=session,
            kind="ordinance",
            ref_id=ordinance.id or 0,
            petition=petition,
            title=_signed(title, body),
            body=body,
        )


def _signed(title: str, body: str) -> str:
    """An entry's title with a short check of its text, so a changed record is seen changed
    by comparing the one column (kept under the title's length)."""
    import zlib

    return f"{title[:280]} ·{zlib.crc32(body.encode()) % 10**6:06d}"


def shown_title(entry_title: str) -> str:
    head, sep, _tail = entry_title.rpartition(" ·")
    return head if sep and _tail.isdigit() else entry_title


# --------------------------------------------------------------------------- searching


@dataclass(frozen=True)
class Hit:
    kind: str  # petition, ordinance, document
    ref_id: int
    petition_id: int
    title: str
    passage: Markup  # the matching passage, escaped, the words marked


def _terms(words: str) -> list[str]:
    return [w for w in _WORD.findall(fold(words)) if len(w) >= 2][:12]


def search(*, session: Session, words: str, scope: list[int] | None, limit: int = 30) -> list[Hit]:
    """The entries that hold every word of ``words``, best first (a clerk's scope: the
    municipalities they may see, None for all)."""
    terms = _terms(words)
    _sync_records(session, scope)
    session.flush()
    if not terms or scope == []:
        return []
    if _dialect(session) == "postgresql":
        rows = _search_pg(session, words, scope, limit)
    else:
        rows = _search_sqlite(session, terms, scope, limit)
    return [
        Hit(kind, ref_id, petition_id, shown_title(title), passage(title, body, terms))
        for kind, ref_id, petition_id, title, body in rows
    ]


def _scope_sql(scope: list[int] | None) -> str:
    if scope is None:
        return ""
    return " AND e.municipality_id IN (" + ",".join(str(int(m)) for m in scope) + ")"


def _search_pg(
    session: Session, words: str, scope: list[int] | None, limit: int
) -> list[tuple[str, int, int, str, str]]:
    query = text(
        "WITH q AS (SELECT websearch_to_tsquery('spanish', unaccent(:w)) || "
        "websearch_to_tsquery('english', unaccent(:w)) AS q), "
        "found AS (SELECT e.id, e.words FROM search_entry e, q WHERE e.words @@ q.q"
        + _scope_sql(scope)
        # ``+ 0``: the matches come from the GIN index, never from walking the primary key
        # in order (which reads every row when few match)
        + " ORDER BY e.id + 0 DESC LIMIT :window), "
        "best AS (SELECT found.id, ts_rank(found.words, q.q) AS rank FROM found, q "
        "ORDER BY rank DESC, found.id DESC LIMIT :n) "
        "SELECT e.kind, e.ref_id, e.petition_id, e.title, substr(e.body, 1, 200000) "
        "FROM best JOIN search_entry e ON e.id = best.id ORDER BY best.rank DESC, e.id DESC"
    )
    params = {"w": words, "n": limit, "window": RANK_WINDOW}
    return [tuple(r) for r in session.execute(query, params)]


def _search_sqlite(
    session: Session, terms: list[str], scope: list[int] | None, limit: int
) -> list[tuple[str, int, int, str, str]]:
    _ensure_fts(session)
    match = " AND ".join(f'"{t}"*' for t in terms)
    query = text(
        f"SELECT e.kind, e.ref_id, e.petition_id, e.title, substr(e.body, 1, 200000) "
        f"FROM {FTS_TABLE} f JOIN search_entry e ON e.id = f.rowid "
        f"WHERE {FTS_TABLE} MATCH :m" + _scope_sql(scope) + f" ORDER BY bm25({FTS_TABLE}, "
        "10.0, 1.0), e.id LIMIT :n"
    )
    return [tuple(r) for r in session.execute(query, {"m": match, "n": limit})]


def passage(title: str, body: str, terms: list[str]) -> Markup:
    """The part of the text around the first word that matches (the title's if the text has
    none), escaped, each matching word in ``<mark>``."""
    source = body if any(_find(body, t) >= 0 for t in terms) else shown_title(title)
    starts = [i for i in (_find(source, t) for t in terms) if i >= 0]
    start = max(0, min(starts) - PASSAGE // 3) if starts else 0
    piece = source[start : start + PASSAGE].replace("\n", " ")
    out: list[str] = ["…" if start else ""]
    for token in re.split(r"(\w+)", piece):
        folded = fold(token)
        if token and any(folded.startswith(t) for t in terms) and _WORD.fullmatch(token):
            out.append(f"<mark>{html.escape(token)}</mark>")
        else:
            out.append(html.escape(token))
    if start + PASSAGE < len(source):
        out.append("…")
    return Markup("".join(out))


def _find(source: str, term: str) -> int:
    """Where a word starting with ``term`` (folded) first stands in ``source``, or -1."""
    for match in _WORD.finditer(source):
        if fold(match.group()).startswith(term):
            return match.start()
    return -1


# --------------------------------------------------------------------------- thumbnails


def _picture_files(folder: Path, sha256: str) -> tuple[Path, Path]:
    kept = folder / "thumbnails" / sha256
    return kept.with_suffix(".png"), kept.with_suffix(".none")


def picture_state(*, folder: Path, version: DocumentVersion) -> str:
    """Where a version's picture is: ``ready`` (drawn), ``none`` (the file has none, or it
    could not be drawn within the bounds: said so, never tried again), ``pending`` (its job
    has not run yet) or ``missing`` (never drawn: a version kept before pictures were drawn
    by its job, until ``tid archive pictures``)."""
    if version.media_type not in thumbnails.PICTURED:
        return "none"
    drawn, failed = _picture_files(folder, version.sha256)
    if drawn.is_file():
        return "ready"
    if failed.is_file():
        return "none"
    return "pending" if version.text_state == "pending" else "missing"


def draw_missing(*, session: Session, folder: Path, limits: readers.Limits) -> int:
    """Draw every version's picture not drawn yet (``tid archive pictures``), one bounded
    reader at a time; returns how many were tried."""
    tried = 0
    for version in session.exec(
        select(DocumentVersion).where(col(DocumentVersion.media_type).in_(thumbnails.PICTURED))
    ):
        if picture_state(folder=folder, version=version) in ("pending", "missing"):
            draw_picture(folder=folder, version=version, limits=limits)
            tried += 1
    return tried


def draw_picture(
    *, folder: Path, version: DocumentVersion, limits: readers.Limits | None = None
) -> str:
    """Draw the picture of a version's first page once (a background job's work, by a
    bounded reader), kept beside the archive; a failure is kept too, with its reason
    (``pixels``, ``time``, ``memory``, ``unreadable``). Returns :func:`picture_state`."""
    state = picture_state(folder=folder, version=version)
    if state not in ("pending", "missing"):
        return state
    from tid.files import private_folder, write_private

    drawn, failed = _picture_files(folder, version.sha256)
    private_folder(drawn.parent)
    try:
        data = file_store.read(folder=folder, sha256=version.sha256)
        png = readers.draw_picture(data, version.media_type, limits or readers.Limits())
    except readers.OverLimitError as over:
        write_private(failed, over.which.encode())
        return "none"
    except (OSError, readers.ReaderError, ValueError):
        log.exception("version %s: its picture could not be drawn", version.id)
        write_private(failed, b"unreadable")
        return "none"
    if png is None:
        write_private(failed, b"unreadable")
        return "none"
    write_private(drawn, png)
    return "ready"


def thumbnail(*, folder: Path, version: DocumentVersion) -> bytes | None:
    """The picture of a version's first page as drawn by :func:`draw_picture`, or None
    (not drawn yet, or none): a request never draws."""
    drawn, _failed = _picture_files(folder, version.sha256)
    try:
        return drawn.read_bytes()
    except OSError:
        return None
