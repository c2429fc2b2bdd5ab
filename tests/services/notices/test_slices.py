"""A large notice run renders slice by slice with the PDFs kept on disk, not in memory: the
print file still holds every notice in order, each notice's archived PDF is its own, and
the progress counts every notice once."""

from __future__ import annotations

import hashlib

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.pdf_checks import assert_archival, pdf_pages, pdf_text
from tests.services.notice_support import (
    ACTOR,
    BASE_URL,
    SECRET,
    SENDER,
    make_ordinance,
    make_run,
)
from tid.models import ArchivedDocument
from tid.services import notices
from tid.services.notices import rendering


def test_a_run_in_slices_prints_and_archives_every_notice_in_order(
    session: Session, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rendering, "RENDER_SLICE", 2)
    monkeypatch.setattr(rendering, "_ARCHIVE_FLUSH", 2)
    owners = ["Ana Ruiz", "Beto Cruz", "Carla Díaz", "Dora Vega", "Elsa Mora"]
    billed = make_run(
        session, people.district, make_ordinance(session, people.district), owners=owners
    )
    seen: list[tuple[int, int]] = []
    batch = notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=billed.run.id or 0,
        issued_on=billed.run.run_on,
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        progress=lambda done, total: seen.append((done, total)),
        **SENDER,
    )
    session.commit()
    assert seen[-1] == (5, 5) and [d for d, _t in seen] == sorted(d for d, _t in seen)
    found = notices.batch_notices(session=session, batch_id=batch.id or 0)
    assert len(found) == 5 and batch.page_count == 10
    printed = notices.archived_bytes(session=session, sha256=batch.print_sha256)
    assert pdf_pages(printed) == 10
    assert_archival(printed, lang="es")  # the slices joined into one document of record
    text = pdf_text(printed)
    positions = [text.index(n.number) for n in found]
    assert positions == sorted(positions)  # the print file keeps the notices' order
    for notice in found:
        own = session.get(ArchivedDocument, notice.pdf_sha256)
        assert own is not None and hashlib.sha256(own.content).hexdigest() == notice.pdf_sha256
        assert notice.number in pdf_text(own.content) and notice.owner_name in pdf_text(own.content)
