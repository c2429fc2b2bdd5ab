"""The production process set without containers: gunicorn (2 workers), ``tid worker`` and
``tid scheduler`` against the throwaway PostgreSQL and Redis. An association logs in
through the real forms (CSRF on), starts a notice run, watches it to the end and opens the
result; ``/readyz`` reports everything ready; the scheduler's digest went through the
queue."""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import Session, select

from tests.conftest import BACKENDS, PASSWORD
from tests.pg import ThrowawayPostgres
from tests.redis_server import ThrowawayRedis
from tests.services.notice_support import SENDER, make_ordinance, make_run
from tid import migrate
from tid.db import make_engine
from tid.jobs import tasks
from tid.models import District, Job, Municipality, NoticeBatch
from tid.services.audit_trail import audit
from tid.services.auth import users

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Browser:
    """Just enough of a browser: cookies, and the forms' CSRF and job tokens."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.base + path, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def post(self, path: str, data: dict[str, str]) -> tuple[int, str, str]:
        body = urllib.parse.urlencode(data).encode()
        with self.opener.open(self.base + path, data=body, timeout=30) as response:
            return response.status, response.geturl(), response.read().decode()

    @staticmethod
    def hidden(page: str, name: str) -> str:
        return page.split(f'name="{name}"')[1].split('value="')[1].split('"')[0]


@pytest.fixture
def database(pg_server: ThrowawayPostgres, tmp_path: Path) -> Iterator[str]:
    name = f"prod_{os.getpid()}"
    admin = make_engine(pg_server.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = pg_server.url(name)
    try:
        migrate.upgrade(url)
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _wait_http(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b == "postgresql"])
def test_gunicorn_worker_and_scheduler_run_a_notice_job_end_to_end(
    backend: str, database: str, redis_server: ThrowawayRedis, tmp_path: Path
) -> None:
    engine = make_engine(database)
    with Session(engine, expire_on_commit=False) as session:
        town = Municipality(name="San Juan")
        session.add(town)
        session.flush()
        district = District(
            municipality_id=town.id or 0, name="Viejo San Juan", association_name="Asociación"
        )
        session.add(district)
        session.flush()
        user = users.create_user(
            session=session,
            actor=audit.Actor("tests"),
            email="assoc@example.pr",
            name="Asociación",
            password=PASSWORD,
            role="association",
            district_id=district.id,
        )
        billed = make_run(
            session, district, make_ordinance(session, district), owners=["Ana", "Beto", "Coral"]
        )
        session.commit()

    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "TID_REDIS_URL": redis_server.url(1),
        "TID_INSTANCE": str(tmp_path / "instance"),
        "TID_SECRET_KEY": "production-test-secret",
        "TID_BASE_URL": f"http://127.0.0.1:{port}",
        "TID_SMTP_PORT": str(_free_port()),  # nobody listens: no clerk, nothing is sent
        # Two-factor sign-in has its own tests; here the association signs in with a password.
        "TID_TWO_FACTOR_ROLES": "",
    }
    commands = [
        [str(BIN / "gunicorn"), "-w", "2", "-b", f"127.0.0.1:{port}", "tid:create_app()"],
        [str(BIN / "tid"), "worker", "--workers", "2"],
        [str(BIN / "tid"), "scheduler"],
    ]
    processes = [
        subprocess.Popen(
            c, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        for c in commands
    ]
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_http(base + "/healthz")
        browser = Browser(base)
        _status, login_page = browser.get("/login")
        browser.post(
            "/login",
            {
                "email": user.email,
                "password": PASSWORD,
                "csrf_token": Browser.hidden(login_page, "csrf_token"),
            },
        )
        status, form = browser.get(f"/notices/runs/{billed.run.id}/new")
        assert status == 200
        data = {
            **SENDER,
            "issued_on": "2026-01-20",
            "csrf_token": Browser.hidden(form, "csrf_token"),
            "job_token": Browser.hidden(form, "job_token"),
        }
        status, location, page = browser.post(f"/notices/runs/{billed.run.id}/new", data)
        assert status == 200 and "job=" in location and "jobs.js" in page
        job_id = int(location.split("job=")[1])
        assert browser.get("/static/jobs.js")[0] == 200

        deadline = time.monotonic() + 240
        job: dict[str, Any] = {}
        while time.monotonic() < deadline:
            job = json.loads(browser.get(f"/jobs/{job_id}.json")[1])
            if job["finished"]:
                break
            time.sleep(0.5)
        assert job.get("state") == "done", job
        status, result = browser.get(job["result_url"])
        assert status == 200 and "2026-000003" in result

        deadline = time.monotonic() + 60
        ready: dict[str, Any] = {}
        while time.monotonic() < deadline:
            status, body = browser.get("/readyz")
            ready = json.loads(body)
            if status == 200:
                break
            time.sleep(1)
        assert ready == {
            "status": "ready",
            "checks": {"database": True, "migrations": True, "queue": True, "worker": True},
        }

        with Session(engine) as session:
            assert len(session.exec(select(NoticeBatch)).all()) == 1
            deadline = time.monotonic() + 60
            digest = None
            while time.monotonic() < deadline:
                session.expire_all()
                digest = session.exec(select(Job).where(Job.kind == tasks.DAILY_DIGEST)).first()
                if digest is not None and digest.state == "done":
                    break
                time.sleep(0.5)
            assert digest is not None and digest.state == "done", digest
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        engine.dispose()
