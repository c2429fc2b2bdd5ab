"""A run's draft PS Form 3877 is never laid out in a request: the run's page asks for it, a
job lays it out for the run as it stands (its progress on the page from its first step) and
keeps it on the installation's shelf, and the manifest's link then serves it from there. A
run whose article numbers or fees changed is another manifest; tabs asking at once start one
job; another district's run is refused. Verdicts by state (layouts counted, jobs' rows), never
by the clock."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests.conftest import People, login
from tests.pdf_checks import pdf_text
from tests.services.notice_support import article, issue_notices, make_ordinance, make_run
from tests.web.account.test_parallel_forms import at_once
from tid.jobs import tasks
from tid.models import Job, Notice, NoticeBatch
from tid.render import manifest as manifest_render
from tid.render import pdf
from tid.services import notices
from tid.services.audit_trail import audit


def _grouped(digits: str) -> str:
    return " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))


def _draft_run(session: Session, people: People) -> tuple[NoticeBatch, list[Notice]]:
    """A run of three notices with their article numbers, not mailed yet."""
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, owners=["Ana", "Beto", "Carla"])
    batch, found = issue_notices(session, billed)
    for i, notice in enumerate(found):
        notices.set_article_number(
            session=session,
            actor=audit.SYSTEM,
            notice_id=notice.id or 0,
            article_number=article(700 + i),
        )
    session.commit()
    return batch, found


class Layouts:
    """Every layout of a manifest, and the progress its job had shown when it began."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.count = 0
        self.progress_seen: list[int] = []

    def wrap(self, real: Callable[..., bytes]) -> Callable[..., bytes]:
        def counted(*args: Any, **kwargs: Any) -> bytes:
            self.count += 1
            with Session(self.app.extensions["tid.engine"]) as db:
                running = db.exec(select(Job).where(Job.kind == tasks.NOTICES_MANIFEST)).all()
                self.progress_seen += [j.done for j in running if j.state == "running"]
            return real(*args, **kwargs)

        return counted


@pytest.fixture
def layouts(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Layouts:
    found = Layouts(app)
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))  # this test's own shelf alone
    monkeypatch.setattr(
        manifest_render, "render_manifest", found.wrap(manifest_render.render_manifest)
    )
    return found


def _manifest_jobs(session: Session) -> list[Job]:
    session.expire_all()
    return list(
        session.exec(select(Job).where(Job.kind == tasks.NOTICES_MANIFEST).order_by(col(Job.id)))
    )


def _ask(client: FlaskClient, batch_id: int) -> str:
    """The run's page's button: where it sends the reader."""
    answer = client.post(f"/notices/batches/{batch_id}/manifest")
    assert answer.status_code == 303
    return answer.location


def test_the_draft_manifest_is_laid_out_by_a_job_and_served_without_layout(
    app: Flask, client: FlaskClient, session: Session, people: People, layouts: Layouts
) -> None:
    batch, found = _draft_run(session, people)
    login(client, people.association)
    link = f"/notices/batches/{batch.id}/manifest.pdf"
    # Not made yet: the link goes back to the run's page, which says how to lay it out.
    early = client.get(link)
    assert early.status_code == 303 and early.location.endswith(f"/notices/batches/{batch.id}")
    page = client.get(f"/notices/batches/{batch.id}").get_data(as_text=True)
    assert f'action="/notices/batches/{batch.id}/manifest"' in page
    assert "El manifiesto se prepara para la tanda tal como está ahora" in page
    # The button queues a job and shows its progress; the request lays nothing out.
    waiting = _ask(client, batch.id or 0)
    (job,) = _manifest_jobs(session)
    assert f"job={job.id}" in waiting and job.state == "queued" and layouts.count == 0
    shown = client.get(waiting).get_data(as_text=True)
    assert "data-job-status" in shown and "Preparar el manifiesto PS Form 3877" in shown
    assert tasks.run_pending(app) == 1
    # Its figures read, the job's page showed a step done before the layout began.
    assert layouts.count == 1 and layouts.progress_seen and min(layouts.progress_seen) >= 1
    (job,) = _manifest_jobs(session)
    assert job.state == "done" and job.done == job.total == 3 and job.result_url == link
    ready = client.get(waiting).get_data(as_text=True)
    assert f'class="job-result" href="{link}"' in ready
    # Served from the shelf: no layout in the request, the run's articles and totals on it.
    answer = client.get(link)
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    assert layouts.count == 1
    text = pdf_text(answer.data)
    assert "PS Form 3877" in text
    assert all(_grouped(n.article_number or "") in text for n in found)
    # Asked again for the same run: straight to the PDF, no other job.
    assert _ask(client, batch.id or 0).endswith(link)
    assert len(_manifest_jobs(session)) == 1 and layouts.count == 1

    # An article number corrected: the old manifest is not served for the run as it stands.
    notices.set_article_number(
        session=session, actor=audit.SYSTEM, notice_id=found[0].id or 0, article_number=article(990)
    )
    session.commit()
    assert client.get(link).status_code == 303 and layouts.count == 1
    assert "job=" in _ask(client, batch.id or 0)
    assert tasks.run_pending(app) == 1 and layouts.count == 2
    text = pdf_text(client.get(link).data)
    assert _grouped(article(990)) in text and _grouped(article(700)) not in text

    # New fees recorded on the run's page: another manifest again, with them.
    assert (
        client.post(
            f"/notices/batches/{batch.id}/fees", data={"postage": "1.00", "certified_fee": "5.00"}
        ).status_code
        == 302
    )
    assert client.get(link).status_code == 303
    _ask(client, batch.id or 0)
    assert tasks.run_pending(app) == 1 and layouts.count == 3
    assert "$18.00" in pdf_text(client.get(link).data)  # 3 × ($1.00 + $5.00)
    assert len(_manifest_jobs(session)) == 3


def test_the_manifest_is_laid_out_in_the_language_of_who_asked(
    app: Flask, client: FlaskClient, session: Session, people: People, layouts: Layouts
) -> None:
    batch, _found = _draft_run(session, people)
    login(client, people.association)
    link = f"/notices/batches/{batch.id}/manifest.pdf"
    _ask(client, batch.id or 0)
    assert tasks.run_pending(app) == 1
    assert "Tanda de avisos" in pdf_text(client.get(link).data)
    client.post("/lang/en")
    # The Spanish one is not the English reader's: another job, in English.
    assert client.get(link).status_code == 303
    _ask(client, batch.id or 0)
    assert tasks.run_pending(app) == 1 and layouts.count == 2
    assert "Notice run" in pdf_text(client.get(link).data)


@pytest.mark.both_databases
def test_tabs_asking_at_once_queue_one_job(
    app: Flask, session: Session, people: People, layouts: Layouts
) -> None:
    batch, _found = _draft_run(session, people)
    sent = at_once(
        app, people.association, lambda c, _i: c.post(f"/notices/batches/{batch.id}/manifest")
    )
    assert sent.codes == [303] * len(sent.codes)
    (job,) = _manifest_jobs(session)
    assert job.state == "queued" and layouts.count == 0
    assert tasks.run_pending(app) == 1 and layouts.count == 1


def test_another_districts_run_is_refused(
    app: Flask, client: FlaskClient, session: Session, people: People, layouts: Layouts
) -> None:
    batch, _found = _draft_run(session, people)
    login(client, people.other_association)
    assert client.post(f"/notices/batches/{batch.id}/manifest").status_code == 403
    assert client.get(f"/notices/batches/{batch.id}/manifest.pdf").status_code == 403
    assert _manifest_jobs(session) == [] and layouts.count == 0


def test_a_manifest_no_longer_kept_is_laid_out_again_by_a_new_job(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    layouts: Layouts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batch, _found = _draft_run(session, people)
    login(client, people.association)
    _ask(client, batch.id or 0)
    assert tasks.run_pending(app) == 1 and layouts.count == 1
    # The shelf pruned it (and this worker's memory is new): its done job does not stand in.
    for kept in (Path(app.instance_path) / "prepared").glob("*.pdf"):
        kept.unlink()
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))
    assert client.get(f"/notices/batches/{batch.id}/manifest.pdf").status_code == 303
    assert "job=" in _ask(client, batch.id or 0)
    assert [j.state for j in _manifest_jobs(session)] == ["done", "queued"]
    assert tasks.run_pending(app) == 1 and layouts.count == 2
    assert client.get(f"/notices/batches/{batch.id}/manifest.pdf").status_code == 200
