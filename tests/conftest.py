"""Fixtures: a fresh app and database per test, on SQLite and on a throwaway PostgreSQL.

Every test that asks for ``database_url`` (or ``app``, ``client``, ``session``…) runs once
per backend — the services, the jobs, the documents, the migrations, the command line. A
page's test (``tests/web/``) checks what the page does with what the services answer, and
runs on SQLite alone, unless the database's own behaviour is what it checks: it is then
marked ``both_databases`` (tabs sending one form at once, guesses racing a limit, every
route with hostile input or as every role, the crawl of every page in one language), so
each page's queries and each race run on PostgreSQL too (tests/test_both_databases.py
holds the parallel ones to it). ``TID_TEST_BACKENDS=sqlite`` narrows a local run to one
backend.
"""

from __future__ import annotations

import atexit
import gc
import itertools
import os
import queue
import shutil
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from hypothesis import HealthCheck, settings
from jinja2.bccache import Bucket, BytecodeCache
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine
from werkzeug.routing.rules import Rule

import tid.db
import tid.models  # every table
from tests.pg import ThrowawayPostgres, memory_folder, sweep_stale_servers
from tests.redis_server import ThrowawayRedis
from tests.smtp_support import smtp  # noqa: F401  (a real SMTP server on loopback, for every test)
from tid import create_app
from tid.db import make_engine
from tid.models import District, Municipality, User
from tid.services.audit_trail import audit
from tid.services.auth import passwords, users

# The objects made so far (the app's modules, the models' mappers, the libraries) live as
# long as the test process: the collector need not walk them again at every full collection,
# and collects the young ones less often (each test makes many short-lived rows and pages).
gc.freeze()
gc.set_threshold(20_000, 20, 20)

# Hypothesis: the profile `make test` runs, and `thorough` (`make test-thorough`, or
# HYPOTHESIS_PROFILE=thorough) with ten times the examples. A test that names its own count
# writes it as ``examples(n)``, so that the thorough profile multiplies it too.
HYPOTHESIS_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
THOROUGH = 10
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
settings.register_profile("thorough", settings.get_profile("default"), max_examples=100 * THOROUGH)
settings.load_profile(HYPOTHESIS_PROFILE)


def examples(n: int) -> int:
    """``n`` examples under `make test`; ten times as many under the thorough profile."""
    return n * THOROUGH if HYPOTHESIS_PROFILE == "thorough" else n


BACKENDS = [b for b in os.environ.get("TID_TEST_BACKENDS", "sqlite,postgresql").split(",") if b]
PASSWORD = "correct horse battery"
_counter = itertools.count()


_CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=256, parallelism=1)

# Werkzeug compiles two URL builders per route for every app (Python source made and
# compiled), most of an app's making; the tests make an app per test. A builder is a
# function of its rule's text, parts and defaults alone (the rule itself comes in as its
# argument), so one compiled per distinct rule serves every app of the test process.
_compile_builder = Rule._compile_builder
_BUILDERS: dict[tuple[Any, ...], Any] = {}


def _cached_builder(self: Rule, append_unknown: bool = True) -> Any:
    assert self.map is not None
    key = (
        self.rule,
        self.host if self.map.host_matching else self.subdomain,
        tuple(self._trace),
        tuple(sorted((k, repr(v)) for k, v in (self.defaults or {}).items())),
        append_unknown,
        self.merge_slashes,
    )
    if key not in _BUILDERS:
        _BUILDERS[key] = _compile_builder(self, append_unknown)
    return _BUILDERS[key]


Rule._compile_builder = _cached_builder  # type: ignore[method-assign]

# Parsing a rule's text into its regular-expression parts is the rest of an app's routing: a
# rule's parts, trace and the converters it names are a function of its text, its domain
# part, its slashes setting and the map's converter classes, so each distinct rule is parsed
# once per test process; each app still gets converters of its own, made by its own map.
_compile_rule = Rule.compile
_PARSED: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _cached_compile(self: Rule) -> None:
    assert self.map is not None
    converters = tuple(sorted(self.map.converters.items(), key=lambda item: item[0]))
    domain = self.host if self.map.host_matching else self.subdomain
    key = (self.rule, domain, self.map.host_matching, self.merge_slashes, converters)
    if key not in _PARSED:
        named: list[tuple[str, str, tuple[Any, ...], tuple[tuple[str, Any], ...]]] = []
        get_converter = self.get_converter

        def naming(variable: str, name: str, args: tuple[Any, ...], kwargs: Any) -> Any:
            named.append((variable, name, tuple(args), tuple(sorted(kwargs.items()))))
            return get_converter(variable, name, args, kwargs)

        self.get_converter = naming  # type: ignore[method-assign]
        try:
            _compile_rule(self)
        finally:
            del self.get_converter
        _PARSED[key] = (tuple(self._parts), tuple(self._trace), tuple(named))
        return
    parts, trace, named = _PARSED[key]
    self._parts = list(parts)
    self._trace = list(trace)
    self._converters = {}
    for variable, name, args, kwargs in named:
        self._converters[variable] = self.get_converter(variable, name, args, dict(kwargs))
        self.arguments.add(variable)
    self._build = self._compile_builder(False).__get__(self, None)
    self._build_unknown = self._compile_builder(True).__get__(self, None)


Rule.compile = _cached_compile  # type: ignore[method-assign]


# SQLAlchemy compiles each statement once per engine: its cache of compiled statements is
# the engine's, keyed by the engine's dialect. The tests make an engine per test (a fresh
# database each), so every test compiled every statement it ran again. Engines of one kind
# (the same dialect class and the same options) share one dialect and one cache in a test
# process, as every request of a served app shares its one engine's. Each engine keeps its
# own pool, connections and connection events.
_create_engine = create_engine
_DIALECTS: dict[tuple[Any, ...], tuple[Any, Any]] = {}


def _sharing_create_engine(url: Any, **kwargs: Any) -> Engine:
    engine = _create_engine(url, **kwargs)
    key = (type(engine.dialect), tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
    shared = _DIALECTS.get(key)
    if shared is None or shared[0].server_version_info is None:
        # the first engine of its kind, or the first whose dialect has met its server
        # (read its version and settings on a first connection): this one's is shared next
        _DIALECTS[key] = (engine.dialect, engine._compiled_cache)
        return engine
    dialect, cache = shared
    engine.dialect = dialect
    engine.pool._dialect = dialect
    engine._compiled_cache = cache
    return engine


tid.db.create_engine = _sharing_create_engine  # type: ignore[attr-defined]


class _SharedBytecode(BytecodeCache):
    """The templates compiled once per test process, not once per app: a bucket's key is
    the template's name and its source's checksum, so a changed template compiles anew."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.store:
            bucket.bytecode_from_string(self.store[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


_TEMPLATES = _SharedBytecode()

# The tests' files (their SQLite databases, instance folders, uploads) in memory where the
# machine offers it (tests/pg.py's memory_folder): a throwaway database needs no disk's
# flush, and a busy disk does not slow a test. One folder per run, removed at its end.


# The environment variable naming the folder a run shares with its xdist workers.
SHARED_FOLDER = "TID_TEST_SHARED_FOLDER"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or config.option.basetemp is not None:
        return
    memory = memory_folder()
    if memory is None:
        return
    sweep_stale_servers(memory)
    for stale in memory.glob("tid-tests-*"):  # left by a run that was killed
        pid = stale.name.removeprefix("tid-tests-").split(".")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(stale, ignore_errors=True)
    config.option.basetemp = str(memory / f"tid-tests-{os.getpid()}")
    # the folder the run's workers share (the browser tests' demo), beside their own
    shared = memory / f"tid-tests-{os.getpid()}.shared"
    os.environ[SHARED_FOLDER] = str(shared)
    config.stash[_IN_MEMORY] = [Path(config.option.basetemp), shared]


_IN_MEMORY = pytest.StashKey[list[Path]]()


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in config.stash.get(_IN_MEMORY, []):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker's end: its heap (a million objects and more) is walked once, here,
    for the garbage whose finalizers may still raise (pytest reports those), then frozen:
    pytest's own two collections at its end find nothing left to walk."""
    if hasattr(session.config, "workerinput"):
        gc.collect()
        gc.freeze()
        atexit.register(_leave_without_teardown)


def _leave_without_teardown() -> None:
    """The worker's last step once its results are sent and its servers stopped: the
    interpreter's own teardown would free that heap object by object, seconds of both cores
    for nothing the run keeps (the run's folders are the controller's to remove)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@pytest.fixture(autouse=True)
def _fast_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap argon2 parameters: the tests check the logic, not the work factor."""
    monkeypatch.setattr(passwords, "_hasher", _CHEAP_HASHER)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[ThrowawayPostgres]:
    server = ThrowawayPostgres()
    server.start()
    admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("CREATE DATABASE tid_template"))
    admin.dispose()
    template = make_engine(server.url("tid_template"))
    SQLModel.metadata.create_all(template)
    template.dispose()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[ThrowawayRedis]:
    """A throwaway ``redis-server`` for the queue on Redis (``TID_REDIS_URL``)."""
    server = ThrowawayRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.sqlite"
    engine = make_engine(f"sqlite:///{path}")
    SQLModel.metadata.create_all(engine)
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return path


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses a database runs on each backend (unless it names its own); one
    marked ``one_database`` (the stateless calculators: nothing of theirs is stored) and a
    page's test not marked ``both_databases`` on SQLite alone."""
    chosen = any(
        "backend" in str(mark.args[0]) for mark in metafunc.definition.iter_markers("parametrize")
    )
    # A module's own ``backend`` fixture with its params (a module-scoped one) decides too.
    definitions = metafunc._arg2fixturedefs.get("backend") or ()
    chosen = chosen or any(d.params is not None for d in definitions)
    if "backend" in metafunc.fixturenames and not chosen:
        one = _one_database(metafunc.definition)
        names = ([b for b in BACKENDS if b == "sqlite"] or BACKENDS[:1]) if one else BACKENDS
        metafunc.parametrize("backend", names, indirect=True)


PAGES = Path(__file__).resolve().parent / "web"


def _one_database(test: pytest.Function) -> bool:
    """A calculator's test (``one_database``) and a page's test not marked
    ``both_databases`` run on one backend."""
    if test.get_closest_marker("one_database") is not None:
        return True
    if test.get_closest_marker("both_databases") is not None:
        return False
    return Path(str(test.path)).resolve().is_relative_to(PAGES)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database with the schema, on the backend of this run of the test; with the
    demo loaded (its files in the app's instance folder) for a test marked ``demo_data``."""
    demo: _DemoTemplate | None = None
    if request.node.get_closest_marker("demo_data") is not None:
        templates: dict[str, _DemoTemplate] = request.getfixturevalue("demo_templates")
        demo = templates.get(backend) or templates.setdefault(
            backend, _DemoTemplate.build(request, backend)
        )
    if backend == "sqlite":
        target = tmp_path / "tid.sqlite"
        if demo is not None:
            demo.copy_sqlite(target, tmp_path / "instance")
        else:
            shutil.copyfile(request.getfixturevalue("sqlite_template"), target)
        yield f"sqlite:///{target}"
        return
    spares: _SpareDatabases = request.getfixturevalue("pg_spares")
    name = (
        demo.copy_postgresql(spares, tmp_path / "instance") if demo is not None else spares.take()
    )
    try:
        yield spares.server.url(name)
    finally:
        spares.drop(name)


@dataclass
class _DemoTemplate:
    """The demo loaded once per backend and test process (``tid demo``'s records and the
    files it keeps in the instance folder), copied whole for each test marked ``demo_data``:
    a copy costs a file copy or PostgreSQL's ``CREATE DATABASE … TEMPLATE``, where loading
    the demo costs seconds."""

    url: str
    instance: Path
    name: str = ""  # the template database, on PostgreSQL

    @classmethod
    def build(cls, request: pytest.FixtureRequest, backend: str) -> _DemoTemplate:
        from tid.demo import load_demo

        factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
        root = factory.mktemp(f"demo-{backend}")
        name = ""
        if backend == "sqlite":
            shutil.copyfile(request.getfixturevalue("sqlite_template"), root / "demo.sqlite")
            url = f"sqlite:///{root / 'demo.sqlite'}"
        else:
            spares: _SpareDatabases = request.getfixturevalue("pg_spares")
            name = f"tid_demo_{os.getpid()}"
            _create_database(spares, name, "tid_template")
            url = spares.server.url(name)
        application = make_test_app(url, root)
        hasher, passwords._hasher = passwords._hasher, _CHEAP_HASHER
        try:
            with Session(application.extensions["tid.engine"], expire_on_commit=False) as db:
                load_demo(session=db, config=dict(application.config))
        finally:
            passwords._hasher = hasher
            application.extensions["tid.engine"].dispose()
        if backend == "sqlite":
            engine = make_engine(url)
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            engine.dispose()
        return cls(url, root / "instance", name)

    def copy_sqlite(self, target: Path, instance: Path) -> None:
        shutil.copyfile(self.url.removeprefix("sqlite:///"), target)
        shutil.copytree(self.instance, instance, dirs_exist_ok=True)

    def copy_postgresql(self, spares: _SpareDatabases, instance: Path) -> str:
        copy = f"d_{os.getpid()}_{next(_counter)}"
        _create_database(spares, copy, self.name)
        shutil.copytree(self.instance, instance, dirs_exist_ok=True)
        return copy


# A copy of a template file by file: cheaper than writing its every page to the WAL (the
# default since PostgreSQL 15) for a database that lives one test.
COPY = "STRATEGY FILE_COPY"


def _create_database(spares: _SpareDatabases, name: str, template: str) -> None:
    """A database copied from ``template`` through the spares' own administrative engine."""
    with spares.admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}" {COPY}'))


@pytest.fixture(scope="session")
def demo_templates() -> dict[str, _DemoTemplate]:
    """The demo's templates of this test process, one per backend, made when first asked."""
    return {}


class _SpareDatabases:
    """Fresh PostgreSQL databases made from the template ahead of the tests that take them,
    and dropped after them, by a thread of this test process: the server copies the next
    database while a test runs, so no test waits for its own copy."""

    AHEAD = 2

    def __init__(self, server: ThrowawayPostgres) -> None:
        self.server = server
        self.admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
        self.ready: queue.Queue[str] = queue.Queue()
        self.work: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self.worker = threading.Thread(target=self._run, daemon=True)
        self.worker.start()
        for _ in range(self.AHEAD):
            self._order()

    def _order(self) -> None:
        self.work.put(("create", f"t_{os.getpid()}_{next(_counter)}"))

    def _run(self) -> None:
        while (item := self.work.get()) is not None:
            action, name = item
            try:
                with self.admin.connect() as conn:
                    if action == "create":
                        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE tid_template {COPY}'))
                    else:
                        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            except Exception as exc:  # the test that takes it says why
                if action == "create":
                    self.ready.put(f"!{exc}")
                continue
            if action == "create":
                self.ready.put(name)

    def take(self) -> str:
        self._order()  # the one after the next, made while this test runs
        name = self.ready.get(timeout=120)
        if name.startswith("!"):
            raise RuntimeError(f"the throwaway PostgreSQL could not copy its template: {name}")
        return name

    def drop(self, name: str) -> None:
        self.work.put(("drop", name))

    def close(self) -> None:
        self.work.put(None)
        self.worker.join(timeout=60)
        self.admin.dispose()


@pytest.fixture(scope="session")
def pg_spares(pg_server: ThrowawayPostgres) -> Iterator[_SpareDatabases]:
    spares = _SpareDatabases(pg_server)
    try:
        yield spares
    finally:
        spares.close()


def make_test_app(database_url: str, tmp_path: Path, **overrides: Any) -> Flask:
    config: dict[str, Any] = {
        "DATABASE_URL": database_url,
        "TESTING": True,
        "SECRET_KEY": "test-secret-key",
        "WTF_CSRF_ENABLED": False,
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "SCHEDULER_IN_PROCESS": False,
        "RATELIMIT_ENABLED": True,
        # The calculators' rate limit is tested on its own (tests/web/test_calc_bounds.py);
        # elsewhere one test client sends more than a minute's share.
        "CALC_RATE_LIMIT": 0,
        # The time budget far from any test's real cost: a verdict on it never depends on
        # how busy the machine is (the budget's own tests set theirs, with a clock of steps).
        "CALC_TIME_LIMIT": 600.0,
        # Two-factor sign-in has its own tests (tests/web/test_two_factor.py).
        "TWO_FACTOR_ROLES": "",
    }
    config.update(overrides)
    application = create_app(config)
    application.jinja_env.bytecode_cache = _TEMPLATES
    return application


@pytest.fixture
def app(database_url: str, tmp_path: Path) -> Iterator[Flask]:
    application = make_test_app(database_url, tmp_path)
    yield application
    application.extensions["tid.engine"].dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def session(app: Flask) -> Iterator[Session]:
    with Session(app.extensions["tid.engine"], expire_on_commit=False) as db:
        yield db


@dataclass
class People:
    municipality: Municipality
    other_municipality: Municipality
    district: District
    other_district: District
    admin: User
    clerk: User
    other_clerk: User
    association: User
    other_association: User
    auditor: User

    def by_role(self, role: str) -> User:
        return {
            "admin": self.admin,
            "clerk": self.clerk,
            "association": self.association,
            "auditor": self.auditor,
        }[role]


@pytest.fixture
def people(session: Session) -> People:
    """Two municipalities with a district each, and a user of every role."""
    actor = audit.Actor("tests")
    san_juan = Municipality(name="San Juan")
    ponce = Municipality(name="Ponce")
    session.add_all([san_juan, ponce])
    session.flush()
    old_san_juan = District(
        municipality_id=san_juan.id or 0,
        name="Viejo San Juan",
        association_name="Asociación del Viejo San Juan",
    )
    ponce_centro = District(
        municipality_id=ponce.id or 0,
        name="Ponce Centro",
        association_name="Asociación de Ponce Centro",
    )
    session.add_all([old_san_juan, ponce_centro])
    session.flush()

    def make(email: str, role: str, **scope: Any) -> User:
        return users.create_user(
            session=session,
            actor=actor,
            email=email,
            name=email.split("@")[0],
            password=PASSWORD,
            role=role,
            **scope,
        )

    result = People(
        municipality=san_juan,
        other_municipality=ponce,
        district=old_san_juan,
        other_district=ponce_centro,
        admin=make("admin@example.pr", "admin"),
        clerk=make("clerk@example.pr", "clerk", municipality_id=san_juan.id),
        other_clerk=make("clerk@ponce.example.pr", "clerk", municipality_id=ponce.id),
        association=make("assoc@example.pr", "association", district_id=old_san_juan.id),
        other_association=make(
            "assoc@ponce.example.pr", "association", district_id=ponce_centro.id
        ),
        auditor=make("auditor@example.pr", "auditor"),
    )
    session.commit()
    return result


def login(
    client: FlaskClient, user: User | str, password: str = PASSWORD, *, ip: str | None = None
) -> None:
    """Log ``user`` in through the real login form (the client keeps address ``ip``)."""
    if ip is not None:
        client.environ_base["REMOTE_ADDR"] = ip
    email = user if isinstance(user, str) else user.email
    response = client.post("/login", data={"email": email, "password": password})
    assert response.status_code == 302, response.get_data(as_text=True)[:500]


@pytest.fixture
def demo_loaded(database_url: str) -> str:
    """The test's database holds the demo: asking for this fixture (directly or through
    another) marks the test ``demo_data``, which ``database_url`` reads."""
    return database_url


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test holding the demo runs in its backend's group (``--dist loadgroup``): one
    worker loads the demo once per backend (:class:`_DemoTemplate`), where each worker
    would load it again for the demo tests it drew."""
    for item in items:
        if "demo_loaded" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.demo_data)
        if item.get_closest_marker("demo_data") is None:
            continue
        backend = getattr(item, "callspec", None) and item.callspec.params.get("backend")
        if backend and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(f"demo-{backend}"))
