"""``tid worker`` as a real process: killed with ``kill -9`` in the middle of a notice run,
it leaves no renderer behind, and the next worker runs the job again to the same result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest
from flask import Flask
from sqlmodel import Session, select

from tests.conftest import BACKENDS, People
from tests.services.notice_support import SENDER, make_ordinance, make_run
from tid.jobs import background_jobs as job_service
from tid.jobs import tasks
from tid.models import Job, Notice, NoticeBatch
from tid.services.audit_trail import audit

TID = str(Path(sys.executable).with_name("tid"))
OWNERS = 240


def _children() -> dict[int, int]:
    """pid → parent pid of every live process (zombies count as gone)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            found[int(entry)] = int(fields[1])
    return found


def descendants(pid: int) -> set[int]:
    table = _children()
    result: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in table.items():
            if its_parent == parent and child not in result:
                result.add(child)
                frontier.append(child)
    return result


def _worker(app: Flask, database_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "TID_INSTANCE": app.instance_path,
        "TID_SECRET_KEY": app.config["SECRET_KEY"],
    }
    env.pop("TID_REDIS_URL", None)
    return subprocess.Popen(
        [TID, "worker", "--workers", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _job(session: Session, job_id: int) -> Job:
    session.expire_all()
    job = session.get(Job, job_id)
    assert job is not None
    return job


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b == "sqlite"])
def test_kill_9_mid_run_leaves_no_orphans_and_the_job_runs_again(
    app: Flask, database_url: str, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    owners = [f"Dueño {i:03d}" for i in range(OWNERS)]
    billed = make_run(session, people.district, ordinance, owners=owners)
    session.commit()
    job, _created = job_service.start(
        session=session,
        token=job_service.new_token(),
        kind=tasks.NOTICES_CREATE,
        actor=audit.Actor(people.association.email, people.association.id),
        params={
            "billing_run_id": billed.run.id,
            "issued_on": "2026-01-20",
            "portal_base_url": "http://127.0.0.1:5000",
            "workers": 2,  # a renderer pool: the children that must not outlive the worker
            **SENDER,
        },
        district_id=people.district.id,
    )
    tasks.enqueue(app, job.id or 0)

    first = _worker(app, database_url)
    renderers: set[int] = set()
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and first.poll() is None:
            renderers = descendants(first.pid)
            if len(renderers) >= 2 and _job(session, job.id or 0).state == "running":
                break
            time.sleep(0.2)
        assert len(renderers) >= 2, "the renderer pool never started"
        time.sleep(1.0)  # mid-render
        renderers = descendants(first.pid)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and renderers & set(_children()):
        time.sleep(0.2)
    assert not renderers & set(_children()), "renderer processes outlived the killed worker"
    stalled = _job(session, job.id or 0)
    assert stalled.state == "running" and stalled.worker.split(":")[1] == str(first.pid)
    assert session.exec(select(NoticeBatch)).first() is None  # nothing partial

    second = _worker(app, database_url)
    try:
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline:
            if _job(session, job.id or 0).state in job_service.FINISHED:
                break
            time.sleep(0.5)
    finally:
        second.send_signal(signal.SIGINT)
        try:
            second.wait(30)
        except subprocess.TimeoutExpired:
            second.kill()
            second.wait()
    assert not descendants(second.pid)

    done = _job(session, job.id or 0)
    assert done.state == "done" and done.attempts == 2, done.error
    batch = session.exec(select(NoticeBatch)).one()
    found = list(session.exec(select(Notice).order_by(Notice.number)))  # type: ignore[arg-type]
    assert batch.notice_count == len(found) == OWNERS
    assert [n.number for n in found] == [f"2026-{i:06d}" for i in range(1, OWNERS + 1)]
    assert sorted(n.bill_id for n in found) == sorted(b.id for b in billed.bills)
