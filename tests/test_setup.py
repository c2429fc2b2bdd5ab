"""``tid setup``: a fresh installation set up from a TOML file passes its own checks (a
loopback SMTP server, a backup folder of its own, a worker's and a scheduler's heartbeat),
a second run keeps what the first made, each check fails with its fix when its condition is
broken, and a setup file with a bad key or value is refused naming the key, with nothing
written."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import text
from sqlmodel import Session, select

from tests.conftest import BACKENDS, make_test_app
from tests.pg import ThrowawayPostgres
from tests.smtp_support import Inbox, free_port
from tid.clock import utcnow
from tid.db import make_engine
from tid.files import create_private
from tid.jobs import background_jobs
from tid.models import District, Municipality, User, WorkerHeartbeat
from tid.services.auth import two_factor
from tid.services.installation import checks, round_trips

SETUP = """
[admin]
email = "Ana@Municipio.pr"
name = "Ana Rivera"
password = "una contraseña bien larga"
locale = "es"

[municipality]
name = "San Juan"

[district]
name = "Viejo San Juan"
association_name = "Asociación del Viejo San Juan"

[checks]
mail_to = "sistemas@municipio.pr"
"""


@pytest.fixture(params=BACKENDS)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of its own (the schema comes from ``tid db upgrade``)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'instance' / 'tid.sqlite'}"
        return
    server: ThrowawayPostgres = request.getfixturevalue("pg_server")
    name = f"setup_{secrets.token_hex(4)}"
    admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.url(name)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _production_app(url: str, tmp_path: Path, port: int) -> Flask:
    return make_test_app(
        url,
        tmp_path,
        BASE_URL="https://tid.municipio.pr",
        SECRET_KEY=secrets.token_hex(32),
        SMTP_HOST="127.0.0.1",
        SMTP_PORT=port,
        MAIL_FROM="tid@municipio.pr",
        TWO_FACTOR_ROLES="admin,association",
        BACKUP_DIR=str(tmp_path / "backups"),
    )


def test_a_fresh_installation_set_up_from_a_file_passes_its_own_checks(
    fresh_url: str, tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    app = _production_app(fresh_url, tmp_path, port)
    runner = app.test_cli_runner()
    upgraded = runner.invoke(args=["db", "upgrade"])
    assert upgraded.exit_code == 0, upgraded.output
    engine = app.extensions["tid.engine"]
    background_jobs.beat(engine, background_jobs.worker_name())
    background_jobs.scheduler_beat(engine, background_jobs.worker_name())
    file = tmp_path / "setup.toml"
    file.write_text(SETUP, encoding="utf-8")

    first = runner.invoke(args=["setup", "--from", str(file), "--lang", "en"])

    assert first.exit_code == 0, first.output
    assert "Administrator ana@municipio.pr: created." in first.output
    assert "9 of 9 checks pass." in first.output
    assert [to for to, _message in inbox.messages] == [["sistemas@municipio.pr"]]
    assert len(list((tmp_path / "backups").glob("tid-backup-*.tar.gz"))) == 1
    with Session(engine) as session:
        admin = session.exec(select(User)).one()
        assert admin.role == "admin" and admin.email == "ana@municipio.pr"
        # no authenticator app yet: the role requires one, so the first sign-in enrols it
        assert not two_factor.is_enabled(admin)
        assert two_factor.is_required(admin, app.config["TWO_FACTOR_ROLES"])
        town = session.exec(select(Municipality)).one()
        district = session.exec(select(District)).one()
        assert (town.name, district.name) == ("San Juan", "Viejo San Juan")
        assert district.municipality_id == town.id

    # the administrator's first sign-in asks for the authenticator app before anything else
    client = app.test_client()
    signed = client.post(
        "/login", data={"email": "ana@municipio.pr", "password": "una contraseña bien larga"}
    )
    assert signed.status_code == 302 and signed.headers["Location"].endswith("/login/enrol")
    assert client.get("/admin/installation").status_code == 302

    again = runner.invoke(args=["setup", "--from", str(file), "--lang", "es"])

    assert again.exit_code == 0, again.output
    assert "Administrador ana@municipio.pr: se conserva." in again.output
    assert "9 de 9 comprobaciones pasan." in again.output
    with Session(engine) as session:
        assert len(session.exec(select(User)).all()) == 1
        assert len(session.exec(select(Municipality)).all()) == 1
        assert len(session.exec(select(District)).all()) == 1
    engine.dispose()


def test_setup_fails_with_a_summary_when_a_check_fails(
    fresh_url: str, tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    _inbox, port = smtp
    app = _production_app(fresh_url, tmp_path, port)
    runner = app.test_cli_runner()
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
    file = tmp_path / "setup.toml"
    file.write_text(SETUP, encoding="utf-8")

    done = runner.invoke(args=["setup", "--from", str(file), "--lang", "en"])

    # no worker and no scheduler were started
    assert done.exit_code == 1, done.output
    assert "7 of 9 checks pass." in done.output
    assert "What to fix: Start `tid worker`" in done.output
    assert "What to fix: Start `tid scheduler`" in done.output
    app.extensions["tid.engine"].dispose()


def _refused(app: Flask, tmp_path: Path, content: str) -> dict[str, str]:
    file = tmp_path / "bad.toml"
    file.write_text(content, encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["setup", "--from", str(file), "--lang", "en"])
    assert result.exit_code == 2, result.output
    answer: dict[str, str] = json.loads(result.stderr.strip().splitlines()[-1])
    return answer


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (('email = "Ana@Municipio.pr"', 'emial = "Ana@Municipio.pr"'), "admin.emial"),
        (('locale = "es"', 'locale = "fr"'), "admin.locale"),
        (('email = "Ana@Municipio.pr"', "email = 42"), "admin.email"),
        (('email = "Ana@Municipio.pr"', 'email = "ana.municipio.pr"'), "admin.email"),
        (('password = "una contraseña bien larga"', 'password = "corta"'), "admin.password"),
        (("[checks]", "[check]"), "check"),
        (('name = "San Juan"', 'name = ""'), "municipality.name"),
        (('mail_to = "sistemas@municipio.pr"', 'mail_to = "nadie"'), "checks.mail_to"),
        (('[municipality]\nname = "San Juan"\n', ""), "municipality"),
    ],
)
def test_a_setup_file_with_a_bad_key_or_value_is_refused_naming_it(
    app: Flask, session: Session, tmp_path: Path, change: tuple[str, str], field: str
) -> None:
    old, new = change
    assert old in SETUP
    answer = _refused(app, tmp_path, SETUP.replace(old, new, 1))
    assert answer["field"] == field
    assert field.split(".")[-1] in answer["error"]
    # nothing was written, not even the municipality made before the password was refused
    assert session.exec(select(User)).all() == []
    assert session.exec(select(Municipality)).all() == []


def test_a_file_that_is_not_toml_is_refused(app: Flask, tmp_path: Path) -> None:
    answer = _refused(app, tmp_path, "[admin\nemail = ")
    assert answer["field"] == "file" and "TOML" in answer["error"]


# --------------------------------------------------------------------------- each check


def _strong_config(app: Flask, **changes: object) -> dict[str, object]:
    return {
        **app.config,
        "SECRET_KEY": secrets.token_hex(32),
        "BASE_URL": "https://tid.municipio.pr",
        **changes,
    }


def test_the_secret_key_check_refuses_the_demos_a_published_and_a_weak_key(app: Flask) -> None:
    instance = Path(app.instance_path)
    (instance / "demo").mkdir()
    demo_key = secrets.token_hex(32)
    (instance / "secret_key").write_text(demo_key)
    assert checks.secret_key(config=_strong_config(app), instance=instance).ok

    for key in (demo_key, "test-secret-key", "short", "a" * 64):
        found = checks.secret_key(config=_strong_config(app, SECRET_KEY=key), instance=instance)
        assert not found.ok, key
        assert found.fix is not None and "TID_SECRET_KEY" in found.fix


def test_the_permissions_check_names_a_world_readable_file(app: Flask) -> None:
    instance = Path(app.instance_path)
    database = instance / "tid.sqlite"
    create_private(database)  # as the app makes its SQLite file (the tests copy theirs)
    config = _strong_config(
        app, BACKUP_DIR=str(instance / "backups"), DATABASE_URL=f"sqlite:///{database}"
    )
    assert checks.permissions(config=config, instance=instance).ok
    leaked = instance / "secret_key"
    leaked.write_text(secrets.token_hex(32))
    leaked.chmod(0o644)

    found = checks.permissions(config=config, instance=instance)

    assert not found.ok
    assert f"{leaked} (0644)" in found.said
    assert found.fix is not None and "chmod 600" in found.fix
    instance.chmod(0o755)
    leaked.chmod(0o600)
    found = checks.permissions(config=config, instance=instance)
    assert not found.ok and f"{instance} (0755)" in found.said


def test_the_worker_check_wants_a_heartbeat_of_the_last_minute(
    app: Flask, session: Session
) -> None:
    now = utcnow()
    never = checks.worker(session=session, now=now)
    assert not never.ok and never.fix is not None and "tid worker" in never.fix

    background_jobs.beat(app.extensions["tid.engine"], "host:123:abcd")
    assert checks.worker(session=session, now=utcnow()).ok
    row = session.exec(select(WorkerHeartbeat)).one()
    late = checks.worker(session=session, now=row.seen_at + timedelta(minutes=2))
    assert not late.ok and "120 s" in late.said


def test_the_scheduler_check_wants_a_heartbeat(app: Flask, session: Session) -> None:
    assert not checks.scheduler(session=session, now=utcnow()).ok
    background_jobs.scheduler_beat(app.extensions["tid.engine"], "host:9:beef")
    assert checks.scheduler(session=session, now=utcnow()).ok
    seen = background_jobs.last_scheduler_heartbeat(session=session)
    assert not checks.scheduler(session=session, now=seen + timedelta(minutes=5)).ok


def test_the_mail_check_fails_naming_the_server_when_smtp_is_down(
    app: Flask, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    sent = round_trips.mail_test(
        config=_strong_config(app, SMTP_HOST="127.0.0.1", SMTP_PORT=port), to="a@b.pr"
    )
    assert sent.ok and len(inbox.messages) == 1
    down = free_port()  # nobody listens there
    found = round_trips.mail_test(
        config=_strong_config(app, SMTP_HOST="127.0.0.1", SMTP_PORT=down), to="a@b.pr"
    )
    assert not found.ok
    assert f"127.0.0.1:{down}" in found.said
    assert found.fix is not None and "TID_SMTP_HOST" in found.fix


def test_the_backup_check_fails_when_its_folder_cannot_be_written(
    app: Flask, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the folder should be")
    found = round_trips.backup_round_trip(
        engine=app.extensions["tid.engine"],
        config=_strong_config(app, BACKUP_DIR=str(blocked)),
        now=utcnow(),
    )
    assert not found.ok and found.fix is not None and str(blocked) in found.fix


def test_the_base_url_check_wants_it_set_absolute_and_https(app: Flask) -> None:
    def verdict(url: str) -> bool:
        return checks.base_url(config={"BASE_URL": url}).ok

    assert verdict("https://tid.municipio.pr")
    assert verdict("http://127.0.0.1:8000")  # this machine, for development
    assert not verdict("http://127.0.0.1:5000")  # the default: not configured
    assert not verdict("http://tid.municipio.pr")
    assert not verdict("tid.municipio.pr")
    assert not verdict("")


def test_the_two_factor_check_wants_administrators_to_use_it() -> None:
    assert checks.two_factor(config={"TWO_FACTOR_ROLES": frozenset({"admin"})}).ok
    found = checks.two_factor(config={"TWO_FACTOR_ROLES": frozenset()})
    assert not found.ok and found.fix is not None and "two_factor_roles" in found.fix


def test_the_database_check_wants_the_migrations_head(app: Flask) -> None:
    # the tests' databases are made from the models, without the migrations' version
    found = checks.database(engine=app.extensions["tid.engine"])
    assert not found.ok and found.fix is not None and "tid db upgrade" in found.fix


def test_the_questions_in_the_environments_language_and_their_defaults_on_a_second_run(
    fresh_url: str, tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    app = _production_app(fresh_url, tmp_path, port)
    runner = app.test_cli_runner()
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
    password = "una contraseña bien larga"
    answers = ["ana@municipio.pr", "Ana Rivera", "Ponce", "corta", "corta", password, password]
    answers += ["Ponce Centro", "", "sistemas@municipio.pr"]
    spanish = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "es_PR.UTF-8"}

    first = runner.invoke(args=["setup"], input="\n".join(answers) + "\n", env=spanish)

    assert "Correo del administrador" in first.output and "Municipio" in first.output
    assert "10 caracteres" in first.stderr  # the short password refused, and asked again
    assert "Administrador ana@municipio.pr: creado." in first.output
    assert first.exit_code == 1  # no worker, no scheduler yet
    assert [to for to, _message in inbox.messages] == [["sistemas@municipio.pr"]]

    # a second run: every default is what the first made; no password is asked
    english = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "en_US.UTF-8"}
    again = runner.invoke(args=["setup"], input="\n" * 5, env=english)

    assert "Administrator's email [ana@municipio.pr]" in again.output
    assert "Municipality [Ponce]" in again.output and "Password" not in again.output
    assert "Administrator ana@municipio.pr: kept." in again.output
    engine = app.extensions["tid.engine"]
    with Session(engine) as session:
        assert len(session.exec(select(User)).all()) == 1
        assert [m.name for m in session.exec(select(Municipality))] == ["Ponce"]
        assert [d.name for d in session.exec(select(District))] == ["Ponce Centro"]
    engine.dispose()


def test_the_scheduler_says_it_is_alive(app: Flask, session: Session) -> None:
    from tid.jobs import scheduler as tid_scheduler

    tid_scheduler.heartbeat_job(app, "host:42:cafe")
    assert checks.scheduler(session=session, now=utcnow()).ok


def test_setup_on_a_database_behind_its_migrations_says_to_upgrade_and_sends_nothing(
    app: Flask, tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=port)
    file = tmp_path / "setup.toml"
    file.write_text(SETUP, encoding="utf-8")
    # the tests' databases are made from the models, without the migrations' version
    done = app.test_cli_runner().invoke(args=["setup", "--from", str(file), "--lang", "en"])
    assert done.exit_code == 1, done.output
    assert "What to fix: Run `tid db upgrade`." in done.output
    assert "Not checked until the database passes its check." in done.output
    assert inbox.messages == []
