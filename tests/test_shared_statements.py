"""The suite's shortcut through SQLAlchemy's compiling (tests/conftest.py: the engines of one
database kind share one dialect and one cache of compiled statements in a test process) keeps
each engine on its own database: each reads and writes its own rows, with its own pool and
connection settings, and a statement compiled for one is not compiled again for the next."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, insert, select, text

from tid.db import make_engine

METADATA = MetaData()
NUMBERS = Table("numbers", METADATA, Column("n", Integer, primary_key=True))


def test_engines_of_one_kind_share_compiled_statements_and_keep_their_own_rows(
    tmp_path: Path,
) -> None:
    first = make_engine(f"sqlite:///{tmp_path / 'first.sqlite'}")
    with first.begin() as conn:  # its first connection: its dialect has met SQLite
        METADATA.create_all(conn)
        conn.execute(insert(NUMBERS).values(n=1))
    second = make_engine(f"sqlite:///{tmp_path / 'second.sqlite'}")
    assert second.dialect is first.dialect
    assert second._compiled_cache is first._compiled_cache
    with second.begin() as conn:
        METADATA.create_all(conn)
        conn.execute(insert(NUMBERS).values(n=2), [{"n": 2}, {"n": 3}])
    with first.connect() as conn:
        assert conn.execute(select(NUMBERS.c.n)).scalars().all() == [1]
    compiled = len(first._compiled_cache)
    with second.connect() as conn:
        assert conn.execute(select(NUMBERS.c.n)).scalars().all() == [2, 3]
        assert len(first._compiled_cache) == compiled  # the select compiled once, for both
        # each connection still gets its engine's settings (tid/db.py: WAL, foreign keys)
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    assert first.pool is not second.pool
    # an engine of other options is of another kind
    autocommit = make_engine(f"sqlite:///{tmp_path / 'first.sqlite'}", isolation_level="AUTOCOMMIT")
    with autocommit.connect() as conn:
        assert conn.execute(select(NUMBERS.c.n)).scalars().all() == [1]
    assert autocommit.dialect is not first.dialect
    for engine in (first, second, autocommit):
        engine.dispose()
