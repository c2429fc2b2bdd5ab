"""A long job counts what it does in words and says the time left from the first second; a
finished job's page shows its result, not the form again; a finished import keeps its file's
name and year."""

from __future__ import annotations

import re
from datetime import timedelta

from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import People, login
from tests.services.billing.helpers import import_roll, make_ordinance
from tests.web.test_roll_billing import _upload
from tid.clock import utcnow
from tid.demo.roll import roll_csv
from tid.jobs import background_jobs as job_service
from tid.jobs import tasks
from tid.models import Job, JobState


def _job(session: Session, people: People, **fields: object) -> Job:
    job = Job(
        token=f"t{len(fields)}{fields.get('state')}{fields.get('done')}",
        kind=tasks.NOTICES_CREATE,
        district_id=people.district.id,
        actor="tests",
        **fields,  # type: ignore[arg-type]
    )
    session.add(job)
    session.commit()
    return job


def _said(client: FlaskClient, job: Job) -> str:
    return str(client.get(f"/jobs/{job.id}.json").get_json()["text"])


def test_a_job_counts_in_words_and_says_the_time_left_from_the_first_second(
    client: FlaskClient, session: Session, people: People
) -> None:
    login(client, people.association)
    now = utcnow()
    queued = _job(session, people, state=JobState.QUEUED.value, total=500)
    assert _said(client, queued) == "0 de 500 avisos · Esperando a un proceso de trabajo…"
    # No job of its kind finished before: the count alone until it has done some.
    starting = _job(session, people, state="running", total=500, done=0, started_at=now)
    assert _said(client, starting) == "0 de 500 avisos"
    halfway = _job(
        session,
        people,
        state="running",
        total=500,
        done=250,
        started_at=now - timedelta(seconds=12),
    )
    assert re.fullmatch(r"250 de 500 avisos · faltan unos 1[23] s", _said(client, halfway))
    # An earlier run of 100 notices in 10 s: a new one is told 0.1 s a notice at once.
    _job(
        session,
        people,
        state="done",
        total=100,
        done=100,
        started_at=now - timedelta(seconds=60),
        finished_at=now - timedelta(seconds=50),
    )
    assert _said(client, starting) == "0 de 500 avisos · faltan unos 50 s"


def test_a_finished_jobs_page_shows_the_result_not_the_form_again(
    client: FlaskClient, session: Session, people: People
) -> None:
    make_ordinance(session, people)
    import_roll(session, people)
    login(client, people.association)
    district_id = people.district.id or 0
    started = client.post(f"/roll/{district_id}/billing/new", data={"fiscal_year": "2026-27"})
    running = client.get(started.location).get_data(as_text=True)
    assert "data-job-status" in running and 'name="fiscal_year"' not in running
    assert tasks.run_pending(client.application) == 1
    finished = client.get(started.location).get_data(as_text=True)
    assert 'class="job-result"' in finished
    assert 'name="fiscal_year"' not in finished and "Facturar de nuevo" in finished
    assert "3 de 3 propiedades" not in finished  # done: the result, not a count


def test_a_finished_imports_page_keeps_the_files_name_and_year(
    client: FlaskClient, session: Session, people: People
) -> None:
    login(client, people.association)
    district_id = people.district.id or 0
    token = _upload(client, district_id, roll_csv(5), fy="2026-27")
    done = client.post(f"/roll/{district_id}/import/{token}/commit")
    assert tasks.run_pending(client.application) == 1
    page = client.get(done.location).get_data(as_text=True)
    kept = page.split('<dl class="kv">')[1].split("</dl>")[0]
    assert "roll.csv" in kept and "2026-27" in kept


def _stepped(session: Session, job: Job, steps: list[tuple[float, int, int]]) -> list[float]:
    """Report ``(second, done, total)`` steps on a stepped clock; the time left after each,
    as the job's page reads it at that second."""
    engine = session.get_bind()
    assert job.started_at is not None
    said: list[float] = []
    for second, done, total in steps:
        moment = job.started_at + timedelta(seconds=second)
        job_service.progress(engine, job.id or 0, done, total, now=moment)  # type: ignore[arg-type]
        session.expire_all()
        read = session.get(Job, job.id)
        assert read is not None and (read.done, read.total) == (done, total)
        left = job_service.seconds_left(read, now=moment, per_item=None)
        said.append(round(left, 3) if left is not None else -1.0)
    return said


def test_the_time_left_never_grows_unless_work_is_added(
    client: FlaskClient, session: Session, people: People
) -> None:
    start = utcnow() - timedelta(hours=1)
    job = _job(session, people, state="running", started_at=start)
    # Ten pages: the first read in a second, the second in five: by its own pace the time
    # left would go 9 s → 24 s; it stays at the end said first.
    said = _stepped(session, job, [(0, 0, 10), (1, 1, 10), (6, 2, 10), (8, 8, 10)])
    assert said == [-1.0, 9.0, 4.0, 2.0]
    # Work added (ten pages more): the new estimate stands, and shrinks from there.
    more = _stepped(session, job, [(9, 9, 20), (10, 10, 20)])
    assert more == [11.0, 10.0]
    # Past the end it said, the count alone: no time, rather than one that grows.
    late = _stepped(session, job, [(25, 11, 20)])
    assert late == [-1.0]


def test_a_new_job_is_told_an_earlier_jobs_pace_and_keeps_to_it(
    client: FlaskClient, session: Session, people: People
) -> None:
    now = utcnow()
    _job(
        session,
        people,
        state="done",
        total=100,
        done=100,
        started_at=now - timedelta(seconds=60),
        finished_at=now - timedelta(seconds=50),
    )
    job = _job(session, people, state="running", started_at=now)
    # 0.1 s a notice: 500 notices, 50 s from the first report; its own slower start
    # (one notice in 2 s: 998 s by its pace) does not push the end later.
    said = _stepped(session, job, [(0, 0, 500), (2, 1, 500), (30, 400, 500)])
    assert said == [50.0, 48.0, 7.5]
    # The page reads the end the progress set.
    login(client, people.association)
    assert re.fullmatch(r"400 de 500 avisos · faltan unos \d+ s", _said(client, job))
