"""Long work goes through the real task queue, on each of its storages: SqliteHuey (SQLite),
the queue tables on PostgreSQL (tid/jobs/queue.py) and RedisHuey (``TID_REDIS_URL``, a throwaway
``redis-server``). A form starts its job once; the job shows its progress and its result; a
failed job leaves nothing and says why in the reader's language; the health endpoints."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func
from sqlmodel import Session, select

from tests.conftest import BACKENDS, People, login, make_test_app
from tests.pdf_checks import pdf_text
from tests.redis_server import ThrowawayRedis
from tests.services.notice_support import SENDER, make_ordinance, make_run
from tid import migrate
from tid.jobs import tasks
from tid.jobs.queue import PostgresStorage
from tid.models import ArchivedDocument, BillingRun, Job, Notice, NoticeBatch
from tid.web.account import downloads as account

# Redis-Huey runs over a SQLite database; the PostgreSQL queue over PostgreSQL.
QUEUES = [q for q in ("sqlite", "postgresql", "redis") if q.replace("redis", "sqlite") in BACKENDS]


@pytest.fixture(params=QUEUES)
def queue_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def backend(queue_kind: str) -> str:
    """The database under the queue: PostgreSQL for its own queue, SQLite otherwise."""
    return "postgresql" if queue_kind == "postgresql" else "sqlite"


@pytest.fixture
def app(
    database_url: str, tmp_path: Path, queue_kind: str, request: pytest.FixtureRequest
) -> Iterator[Flask]:
    overrides = {"TODAY": "2026-01-20"}
    if queue_kind == "redis":
        server: ThrowawayRedis = request.getfixturevalue("redis_server")
        overrides["REDIS_URL"] = server.url()
    application = make_test_app(database_url, tmp_path, **overrides)
    tasks.queue_of(application).huey.storage.flush_all()
    yield application
    application.extensions["tid.engine"].dispose()


def _queued(app: Flask) -> int:
    return int(tasks.queue_of(app).huey.storage.queue_size())


def _notice_form(client: FlaskClient, run_id: int) -> dict[str, str]:
    page = client.get(f"/notices/runs/{run_id}/new").get_data(as_text=True)
    token = page.split('name="job_token" value="')[1].split('"')[0]
    return {**SENDER, "issued_on": "2026-01-20", "job_token": token}


def test_the_queue_is_the_one_the_deployment_calls_for(app: Flask, queue_kind: str) -> None:
    storage = tasks.queue_of(app).huey.storage
    expected = {"sqlite": "SqliteStorage", "postgresql": "PostgresStorage", "redis": "RedisStorage"}
    assert type(storage).__name__ == expected[queue_kind]
    if queue_kind == "sqlite":
        assert Path(storage.filename).parent == Path(app.instance_path)


def test_running_what_waits_on_an_empty_queue_ends_at_once(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tid worker --once`` on an empty queue asks no task of it: Redis's dequeue would
    wait a second for one that has not come."""
    storage = tasks.queue_of(app).huey.storage

    def waits(*_args: object) -> None:
        raise AssertionError("a task was asked of an empty queue")

    monkeypatch.setattr(storage, "dequeue", waits)
    assert tasks.run_pending(app) == 0


def test_a_notice_run_is_queued_once_and_shows_its_progress_and_result(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    billed = make_run(session, people.district, ordinance, owners=["Ana Ruiz", "Beto Cruz"])
    session.commit()
    login(client, people.association)
    form = _notice_form(client, billed.run.id or 0)

    first = client.post(f"/notices/runs/{billed.run.id}/new", data=form)
    again = client.post(f"/notices/runs/{billed.run.id}/new", data=form)  # double click
    assert first.status_code == again.status_code == 302
    assert first.location == again.location
    assert session.exec(select(func.count()).select_from(Job)).one() == 1
    assert _queued(app) == 1
    job = session.exec(select(Job)).one()
    assert (job.state, job.kind, job.district_id) == (
        "queued",
        "notices.create",
        people.district.id,
    )

    status = client.get(f"/jobs/{job.id}.json").get_json()
    assert status["state"] == "queued" and not status["finished"] and status["result_url"] == ""
    page = client.get(first.location).get_data(as_text=True)
    assert "jobs.js" in page and "data-job-status" in page

    seen: list[tuple[int, int]] = []
    real = tasks.job_service.progress

    def spy(engine: object, job_id: int, done: int, total: int) -> None:
        seen.append((done, total))
        real(engine, job_id, done, total)  # type: ignore[arg-type]

    tasks.job_service.progress = spy  # type: ignore[assignment]
    try:
        assert tasks.run_pending(app) == 1
    finally:
        tasks.job_service.progress = real  # type: ignore[assignment]
    assert seen and seen[-1] == (2, 2)
    assert _queued(app) == 0

    session.expire_all()
    job = session.exec(select(Job)).one()
    assert job.state == "done" and job.done == job.total == 2 and job.finished_at is not None
    batch = session.exec(select(NoticeBatch)).one()
    assert job.result_url == f"/notices/batches/{batch.id}" and batch.notice_count == 2
    status = client.get(f"/jobs/{job.id}.json").get_json()
    assert status["finished"] and status["result_url"] == job.result_url
    # The same form once more (a reload of the POST): still one job, one batch.
    client.post(f"/notices/runs/{billed.run.id}/new", data=form)
    assert _queued(app) == 0
    assert session.exec(select(func.count()).select_from(NoticeBatch)).one() == 1

    listing = client.get("/jobs").get_data(as_text=True)
    assert job.result_url in listing
    client.post("/logout")
    login(client, people.other_association)
    assert client.get(f"/jobs/{job.id}").status_code == 403
    assert client.get(f"/jobs/{job.id}.json").status_code == 403
    assert job.result_url not in client.get("/jobs").get_data(as_text=True)


def test_a_failed_job_saves_nothing_and_says_why_in_the_readers_language(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    billed = make_run(session, people.district, ordinance, owners=["Ana Ruiz", "Beto Cruz"])
    session.commit()
    login(client, people.association)
    done = client.post(
        f"/notices/runs/{billed.run.id}/new", data=_notice_form(client, billed.run.id or 0)
    )
    # Between the click and the worker, the run is superseded: the job must refuse.
    run = session.get(BillingRun, billed.run.id)
    assert run is not None
    run.status = "superseded"
    session.add(run)
    session.commit()
    assert tasks.run_pending(app) == 1

    session.expire_all()
    job = session.exec(select(Job)).one()
    assert job.state == "failed" and job.result_url == ""
    assert session.exec(select(func.count()).select_from(NoticeBatch)).one() == 0
    assert session.exec(select(func.count()).select_from(Notice)).one() == 0
    assert session.exec(select(func.count()).select_from(ArchivedDocument)).one() == 0
    spanish = client.get(done.location).get_data(as_text=True)
    assert "Esta facturación fue sustituida; notifique con la vigente." in spanish
    client.post("/lang/en", data={"next": "/jobs"})
    english = client.get(f"/jobs/{job.id}").get_data(as_text=True)
    assert "This billing run was superseded; notify with the active one." in english


def test_a_job_that_breaks_midway_rolls_back_and_can_run_again(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    billed = make_run(session, people.district, ordinance, owners=["Ana Ruiz", "Beto Cruz"])
    session.commit()
    login(client, people.association)
    client.post(f"/notices/runs/{billed.run.id}/new", data=_notice_form(client, billed.run.id or 0))

    from tid.render import notice as notice_pdf

    real_merge = notice_pdf._merge

    def broken(parts: list[bytes]) -> bytes:
        raise OSError("disk full")

    monkeypatch.setattr(notice_pdf, "_merge", broken)
    assert tasks.run_pending(app) == 1
    session.expire_all()
    job = session.exec(select(Job)).one()
    assert job.state == "failed" and "unexpectedly" in job.error
    assert session.exec(select(func.count()).select_from(Notice)).one() == 0
    assert session.exec(select(func.count()).select_from(ArchivedDocument)).one() == 0

    # Queued again (as the worker does for a job whose worker died): the same result.
    monkeypatch.setattr(notice_pdf, "_merge", real_merge)
    assert tasks.job_service.requeue(session=session, job=job)
    tasks.enqueue(app, job.id or 0)
    assert tasks.run_pending(app) == 1
    session.expire_all()
    job = session.exec(select(Job)).one()
    assert job.state == "done" and job.attempts == 2
    numbers = sorted(n.number for n in session.exec(select(Notice)))
    assert numbers == ["2026-000001", "2026-000002"]


def test_the_scheduler_queues_its_work_once_a_day(app: Flask, session: Session) -> None:
    day = date(2026, 1, 20)
    assert tasks.schedule(app, tasks.YEARLY_NOTICES, day)
    assert not tasks.schedule(app, tasks.YEARLY_NOTICES, day)  # a second scheduler
    assert _queued(app) == 1
    assert tasks.run_pending(app) == 1
    job = session.exec(select(Job)).one()
    assert job.state == "done" and job.kind == tasks.YEARLY_NOTICES


@pytest.mark.parametrize("queue_kind", [b for b in BACKENDS if b == "postgresql"])
def test_the_postgresql_storage_hands_each_task_to_one_worker(app: Flask) -> None:
    storage = tasks.queue_of(app).huey.storage
    assert isinstance(storage, PostgresStorage)
    for i in range(3):
        storage.enqueue(b"low-%d" % i)
    storage.enqueue(b"high", priority=5)
    assert storage.queue_size() == 4
    assert storage.enqueued_items(limit=2) == [b"high", b"low-0"]
    assert storage.dequeue() == b"high"

    # Two workers dequeue at the same moment: SKIP LOCKED gives each its own task.
    engine = storage.engine
    held = engine.connect()
    tx = held.begin()
    from sqlalchemy import text

    locked = held.execute(
        text(
            "SELECT id, data FROM queue_task ORDER BY priority DESC, id "
            "LIMIT 1 FOR UPDATE SKIP LOCKED"
        )
    ).one()
    assert bytes(locked.data) == b"low-0"
    got: list[bytes | None] = []
    other = threading.Thread(target=lambda: got.append(storage.dequeue()))
    other.start()
    other.join(10)
    assert got == [b"low-1"]  # not blocked, not the locked one
    tx.rollback()
    held.close()
    assert storage.dequeue() == b"low-0"
    assert storage.dequeue() == b"low-2" and storage.dequeue() is None

    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    storage.add_to_schedule(b"later", now + timedelta(hours=1))
    storage.add_to_schedule(b"due", now - timedelta(seconds=1))
    assert storage.schedule_size() == 2
    assert storage.read_schedule(now) == [b"due"]
    assert storage.scheduled_items() == [b"later"]

    assert storage.put_if_empty("lock", b"1") and not storage.put_if_empty("lock", b"2")
    storage.put_data("k", b"v")
    storage.put_data("k", b"w")
    assert storage.peek_data("k") == b"w" and storage.pop_data("k") == b"w"
    assert not storage.has_data_for_key("k")
    assert storage.incr("n") == 1 and storage.incr("n", 4) == 5
    assert storage.result_items() == {"lock": b"1"}
    storage.flush_all()
    assert storage.queue_size() == storage.schedule_size() == storage.result_store_size() == 0


# --------------------------------------------------------------------------- health


@pytest.fixture
def migrated_app(tmp_path: Path, queue_kind: str, database_url: str) -> Iterator[Flask]:
    """An app on a database built by the migrations (so ``/readyz`` can find the head)."""
    from sqlalchemy import text

    from tid.db import make_engine

    engine = make_engine(database_url)
    with engine.begin() as conn:  # stamp the tables create_all made with the head
        conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
    engine.dispose()
    from alembic import command

    command.stamp(migrate.alembic_config(database_url), "head")
    application = make_test_app(database_url, tmp_path)
    yield application
    application.extensions["tid.engine"].dispose()


@pytest.mark.parametrize("queue_kind", BACKENDS)
def test_health_and_readiness(migrated_app: Flask) -> None:
    client = migrated_app.test_client()
    health = client.get("/healthz")
    assert health.status_code == 200 and health.get_json() == {"status": "ok"}
    not_yet = client.get("/readyz")
    assert not_yet.status_code == 503
    checks = not_yet.get_json()["checks"]
    assert checks == {"database": True, "migrations": True, "queue": True, "worker": False}
    runner = migrated_app.test_cli_runner()
    assert runner.invoke(args=["health"]).exit_code == 1
    assert runner.invoke(args=["health", "--database-only"]).exit_code == 0
    tasks.sweep(migrated_app)  # what a running worker does every few seconds
    assert runner.invoke(args=["health"]).exit_code == 0
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["status"] == "ready"
    text_ = ready.get_data(as_text=True)
    assert "sqlite" not in text_ and "secret" not in text_.lower()


@pytest.mark.parametrize("queue_kind", BACKENDS)
def test_the_yearly_statement_pdf_is_prepared_in_the_background(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    login(client, people.association)
    district_id = people.district.id or 0
    # A small year: its documents come straight from their links, nothing to prepare.
    page = client.get(f"/account/{district_id}/statement?fy=2025-26").get_data(as_text=True)
    assert f"/jobs/pdf/{district_id}/" not in page
    assert f"/account/{district_id}/statement.pdf?fy=2025-26" in page
    direct = client.get(f"/account/{district_id}/statement.pdf?fy=2025-26")
    assert direct.status_code == 200 and direct.data.startswith(b"%PDF")
    small_journal = client.get(f"/account/{district_id}/statement.csv?part=journal&fy=2025-26")
    assert small_journal.status_code == 200 and small_journal.mimetype == "text/csv"
    # A long year (here: any): its long documents are prepared by a job.
    monkeypatch.setattr(account, "IN_REQUEST_ROWS", {"pdf": -1, "csv": -1})
    page = client.get(f"/account/{district_id}/statement?fy=2025-26").get_data(as_text=True)
    assert f"/account/{district_id}/statement.pdf" not in page
    for which in ("statement", "aging.csv", "journal.csv"):
        assert f"/jobs/pdf/{district_id}/{which}" in page
    assert 'name="fy" value="2025-26"' in page
    bookmarked = client.get(f"/account/{district_id}/statement.pdf?fy=2025-26")
    assert bookmarked.status_code == 303 and "fy=2025-26" in bookmarked.location
    assert "prepárelo en segundo plano" in client.get(bookmarked.location).get_data(as_text=True)
    tokens = [part.split('"')[0] for part in page.split('name="job_token" value="')[1:]]
    started = client.post(
        f"/jobs/pdf/{district_id}/statement", data={"fy": "2025-26", "job_token": tokens[0]}
    )
    assert started.status_code == 302 and "fy=2025-26" in started.location
    # Under way, it shows on the statement's page by its own button (the page's document
    # jobs are read at once), and only there.
    job_id = int(started.location.split("job=")[1].split("&")[0])
    page = client.get(f"/account/{district_id}/statement?fy=2025-26").get_data(as_text=True)
    assert page.count('class="job job-queued"') == 1
    progress = page.index(f"/jobs/{job_id}.json")  # just before the PDF's form
    assert progress < page.index(f"/jobs/pdf/{district_id}/statement") < page.index("aging.csv")
    assert tasks.run_pending(app) == 1
    shown = client.get(started.location).get_data(as_text=True)
    link = shown.split('class="job-result" href="')[1].split('"')[0]
    document = client.get(link)
    assert document.status_code == 200 and document.data.startswith(b"%PDF")
    assert "2025-26" in pdf_text(document.data)
    # The journal as CSV: the same bytes as its link gives for a small year.
    journal = client.post(
        f"/jobs/pdf/{district_id}/journal.csv", data={"fy": "2025-26", "job_token": tokens[2]}
    )
    assert tasks.run_pending(app) == 1
    shown = client.get(journal.location).get_data(as_text=True)
    csv_link = shown.split('class="job-result" href="')[1].split('"')[0]
    csv_file = client.get(csv_link)
    assert csv_file.status_code == 200 and csv_file.mimetype == "text/csv"
    assert csv_file.data == small_journal.data
    assert ".csv" in csv_file.headers["Content-Disposition"]
    client.post("/logout")
    login(client, people.other_association)
    assert client.get(link).status_code == 403
    assert client.post(f"/jobs/pdf/{district_id}/statement").status_code == 403


def test_the_sweep_sends_again_the_jobs_of_dead_workers_and_lost_messages(
    app: Flask, session: Session
) -> None:
    from datetime import timedelta

    from tid.clock import utcnow
    from tid.jobs import background_jobs as job_service
    from tid.services.audit_trail import audit

    def make(day: str) -> Job:
        job, _ = job_service.start(
            session=session,
            token=job_service.new_token(),
            kind=tasks.YEARLY_NOTICES,
            actor=audit.SYSTEM,
            params={"day": day},
            district_id=None,
        )
        return job

    # A job taken by a worker on another machine that has not been heard from since.
    abandoned = make("2026-01-20")
    abandoned.state, abandoned.worker = "running", "elsewhere:4242:deadbeef"
    # A job queued twenty minutes ago whose message never reached a worker.
    lost = make("2026-01-21")
    lost.created_at = utcnow() - timedelta(minutes=20)
    # A job queued just now: its message is on its way; nothing to do.
    fresh = make("2026-01-22")
    session.add_all([abandoned, lost])
    session.commit()

    assert tasks.sweep(app) == 2
    assert _queued(app) == 2
    assert tasks.run_pending(app) == 2
    session.expire_all()
    assert session.get(Job, abandoned.id).state == "done"  # type: ignore[union-attr]
    assert session.get(Job, lost.id).state == "done"  # type: ignore[union-attr]
    assert session.get(Job, fresh.id).state == "queued"  # type: ignore[union-attr]
    assert tasks.sweep(app) == 0  # a live worker's heartbeat; nothing more to send


def test_a_jobs_count_is_written_item_by_item_unless_items_come_fast() -> None:
    written: list[tuple[int, int]] = []
    clock = [0.0]
    report = tasks.Reporter(lambda d, t: written.append((d, t)), every=0.25, clock=lambda: clock[0])
    # Slow items (a second each): every count written as it comes.
    for done in range(4):
        report(done, 3)
        clock[0] += 1.0
    assert written == [(0, 3), (1, 3), (2, 3), (3, 3)]
    # 20,000 fast items (a millisecond each): a write each 100 (a 200th), and the last.
    written.clear()
    for done in range(20_001):
        report(done, 20_000)
        clock[0] += 0.001
    assert written[0] == (0, 20_000) and written[-1] == (20_000, 20_000)
    assert [d for d, _t in written] == list(range(0, 20_001, 100))
    # A quick count after a pause is written: its items' time, not their number, says so.
    written.clear()
    report(0, 5000)
    clock[0] += 0.3
    report(1, 5000)
    report(2, 5000)
    assert written == [(0, 5000), (1, 5000)]
