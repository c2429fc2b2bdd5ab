"""The checks of an installation that answer at once: the database and its migrations, the
base URL, the secret key, two-factor sign-in for administrators, the instance folder's
permissions, and the worker's and the scheduler's heartbeats. Each says what it found and,
when it fails, what to fix; ``tid setup`` prints them and the administrator's installation
page shows them (tid/services/installation/__init__.py)."""

from __future__ import annotations

import ipaddress
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from tid.config import PROJECT_ROOT, defaults
from tid.files import FILE_MODE, FOLDER_MODE
from tid.jobs import background_jobs
from tid.rules.messages import N_, Message

# The order the checks are shown in, each with its title (a msgid).
TITLES = {
    "database": N_("Database and migrations"),
    "base_url": N_("Base URL"),
    "secret_key": N_("Secret key"),
    "two_factor": N_("Two-factor sign-in for administrators"),
    "permissions": N_("Permissions of the instance folder"),
    "worker": N_("Background worker"),
    "scheduler": N_("Scheduler"),
    "mail": N_("Mail server"),
    "backup": N_("Backups"),
}
# A scheduler beats every half minute, a worker every ten seconds: silent this long, gone.
WORKER_SILENT = background_jobs.STALE_AFTER
SCHEDULER_SILENT = timedelta(seconds=3 * background_jobs.SCHEDULER_HEARTBEAT_SECONDS)
# Keys the project itself shows (its tests, its examples): known to anyone who reads it.
PUBLISHED_KEYS = frozenset(
    {
        "test-secret-key",
        "production-test-secret",
        "browser-test-secret",
        "dev",
        "secret",
        "changeme",
        "change-me",
    }
)
MIN_KEY_LENGTH = 32
MIN_KEY_SYMBOLS = 10
PERMISSION_LIMIT = 20_000  # files and folders looked at, at most (a large archive)
NEW_KEY = "`python3 -c 'import secrets; print(secrets.token_hex(32))'`"


@dataclass(frozen=True)
class Check:
    """One verdict: its key (of :data:`TITLES`), whether it passes, what was found, what to
    fix (None when it passes), and when it was made (the slow checks, recorded)."""

    key: str
    ok: bool
    said: Message
    fix: Message | None = None
    checked_at: datetime | None = None

    @property
    def title(self) -> str:
        return TITLES[self.key]


def _passed(key: str, said: Message) -> Check:
    return Check(key, True, said)


def _failed(key: str, said: Message, fix: Message) -> Check:
    return Check(key, False, said, fix)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# --------------------------------------------------------------------------- the database


def migration_heads() -> frozenset[str]:
    """The revisions the migrations end at."""
    from alembic.script import ScriptDirectory

    from tid.migrate import alembic_config

    return frozenset(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def database(*, engine: Engine) -> Check:
    """The database answers and its schema is at the migrations' head."""
    key = "database"
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            has_versions = inspect(conn).has_table("alembic_version")
            found = (
                {str(r[0]) for r in conn.execute(text("SELECT version_num FROM alembic_version"))}
                if has_versions
                else set()
            )
    except Exception as exc:  # any driver's refusal: the fix is the same
        return _failed(
            key,
            Message("The database does not answer: %(error)s", error=str(exc)[:300]),
            Message(
                "Check DATABASE_URL (now %(url)s) and that the database server runs.",
                url=make_url(str(engine.url)).render_as_string(hide_password=True),
            ),
        )
    heads = migration_heads()
    if found != heads:
        return _failed(
            key,
            Message(
                "The schema is at %(found)s; the migrations end at %(head)s.",
                found=", ".join(sorted(found)) or "—",
                head=", ".join(sorted(heads)),
            ),
            Message("Run `tid db upgrade`."),
        )
    return _passed(
        key,
        Message(
            "%(dialect)s answers; its schema is at the migrations' head (%(head)s).",
            dialect={"sqlite": "SQLite", "postgresql": "PostgreSQL"}.get(
                engine.dialect.name, engine.dialect.name
            ),
            head=", ".join(sorted(heads)),
        ),
    )


# --------------------------------------------------------------------------- settings


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def base_url(*, config: Mapping[str, Any]) -> Check:
    """The base URL of links in emails and printed notices: set, absolute, and HTTPS
    (plain HTTP only on this machine's own loopback address, for development)."""
    key = "base_url"
    value = str(config.get("BASE_URL") or "").strip()
    fix = Message(
        "Set `TID_BASE_URL` (or `base_url` in `config.toml`) to the address people reach the "
        "application at, e.g. https://tid.municipio.pr."
    )
    if not value or value == defaults(Path("."))["BASE_URL"]:
        return _failed(key, Message("The base URL is not configured (%(url)s).", url=value), fix)
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return _failed(key, Message("The base URL %(url)s is not absolute.", url=value), fix)
    if parts.scheme != "https" and not _loopback(parts.hostname):
        return _failed(
            key,
            Message("The base URL %(url)s is not HTTPS.", url=value),
            Message(
                "Serve the application behind HTTPS and set `TID_BASE_URL` to its https:// address."
            ),
        )
    return _passed(key, Message("Links in emails and notices point to %(url)s.", url=value))


def _demo_keys(instance: Path) -> set[str]:
    """The secret keys of demo instances: a folder where ``tid demo`` left its files keeps
    a key that a demo's users and files have seen."""
    found = set()
    for folder in {instance, PROJECT_ROOT / "instance"}:
        file = folder / "secret_key"
        if (folder / "demo").is_dir() and file.is_file():
            try:
                found.add(file.read_text().strip())
            except OSError:
                continue
    return found


def secret_key(*, config: Mapping[str, Any], instance: Path) -> Check:
    """The secret key signs sessions, forms and the notices' access codes: not a demo's,
    not one the project shows, not short or repetitive."""
    key = "secret_key"
    value = str(config.get("SECRET_KEY") or "")
    fix = Message(
        "Set `TID_SECRET_KEY` to a new random key (%(command)s), or delete the instance's "
        "`secret_key` file so a new one is made; then restart the web, the worker and the "
        "scheduler (everyone signs in again).",
        command=NEW_KEY,
    )
    if value in PUBLISHED_KEYS or value in _demo_keys(instance):
        return _failed(key, Message("The secret key is the demo's or the project's own."), fix)
    if len(value) < MIN_KEY_LENGTH or len(set(value)) < MIN_KEY_SYMBOLS:
        return _failed(
            key,
            Message(
                "The secret key is weak: %(length)s characters; it needs at least %(least)s "
                "random ones.",
                length=len(value),
                least=MIN_KEY_LENGTH,
            ),
            fix,
        )
    return _passed(key, Message("The secret key is the installation's own and strong."))


def two_factor(*, config: Mapping[str, Any]) -> Check:
    """Administrators must enrol an authenticator app at their first sign-in (the demo
    turns it off)."""
    key = "two_factor"
    roles = config.get("TWO_FACTOR_ROLES") or frozenset()
    if "admin" not in roles:
        return _failed(
            key,
            Message("Administrators sign in without a second factor."),
            Message(
                "Remove `two_factor_roles` from `config.toml` (the demo writes it) or list admin "
                "in it (`TID_TWO_FACTOR_ROLES=admin,association`)."
            ),
        )
    return _passed(
        key,
        Message(
            "Roles that sign in with a second factor: %(roles)s.", roles=", ".join(sorted(roles))
        ),
    )


# --------------------------------------------------------------------------- files


def _private_places(config: Mapping[str, Any], instance: Path) -> list[Path]:
    places = [instance]
    url = make_url(str(config.get("DATABASE_URL") or ""))
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        places.append(Path(url.database))
    from tid.config import archive_dir, backup_dir

    places += [archive_dir(config), backup_dir(config)]
    return places


def _walk(place: Path) -> Iterator[Path]:
    """The place and, for a folder, everything under it (links are not followed)."""
    yield place
    if place.is_dir() and not place.is_symlink():
        for child in sorted(place.iterdir()):
            yield from _walk(child)


def _too_open(path: Path) -> tuple[Path, int] | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return None
    mode = stat.S_IMODE(info.st_mode)
    allowed = FOLDER_MODE if stat.S_ISDIR(info.st_mode) else FILE_MODE
    return (path, mode) if mode & ~allowed & 0o077 else None


def permissions(*, config: Mapping[str, Any], instance: Path) -> Check:
    """The instance folder, the database file, the archive and the backups: folders 0700 and
    files 0600, for the application's user alone (they hold the secret key, the database,
    uploads, mail and backups)."""
    key = "permissions"
    wide: list[tuple[Path, int]] = []
    seen = 0
    for place in _private_places(config, instance):
        if not place.exists():
            continue
        for path in _walk(place):
            seen += 1
            if seen > PERMISSION_LIMIT:
                break
            found = _too_open(path)
            if found and found not in wide:
                wide.append(found)
    if wide:
        shown = ", ".join(f"{path} ({mode:04o})" for path, mode in wide[:5])
        more = len(wide) - 5
        return _failed(
            key,
            Message(
                "%(count)s files or folders may be read or entered by others: %(paths)s%(more)s.",
                count=len(wide),
                paths=shown,
                more=f" … (+{more})" if more > 0 else "",
            ),
            Message(
                "Make them the application's user's alone: chmod 700 on the folders and "
                "chmod 600 on the files, e.g. chmod -R go-rwx %(instance)s.",
                instance=str(instance),
            ),
        )
    return _passed(
        key,
        Message(
            "%(instance)s and its files are the application's user's alone (0700, 0600).",
            instance=str(instance),
        ),
    )


# --------------------------------------------------------------------------- processes


def _heard(
    key: str, seen: datetime | None, now: datetime, silent: timedelta, fix: Message
) -> Check:
    if seen is None:
        return _failed(key, Message("Never heard from."), fix)
    ago = int((now - _aware(seen)).total_seconds())
    if now - _aware(seen) > silent:
        return _failed(key, Message("Last heard from %(seconds)s s ago.", seconds=ago), fix)
    return _passed(key, Message("Heard from %(seconds)s s ago.", seconds=max(0, ago)))


def worker(*, session: Session, now: datetime) -> Check:
    """A ``tid worker`` said it was alive in the last minute."""
    return _heard(
        "worker",
        background_jobs.last_heartbeat(session=session),
        now,
        WORKER_SILENT,
        Message("Start `tid worker` (a systemd unit, or the compose file's worker)."),
    )


def scheduler(*, session: Session, now: datetime) -> Check:
    """``tid scheduler`` said it was alive in the last minute and a half."""
    return _heard(
        "scheduler",
        background_jobs.last_scheduler_heartbeat(session=session),
        now,
        SCHEDULER_SILENT,
        Message("Start `tid scheduler`, in exactly one process."),
    )


def immediate(
    *, session: Session, engine: Engine, config: Mapping[str, Any], instance: Path, now: datetime
) -> list[Check]:
    """Every check that answers at once, in the order of :data:`TITLES`."""
    checks = [database(engine=engine)]
    checks += [
        base_url(config=config),
        secret_key(config=config, instance=instance),
        two_factor(config=config),
        permissions(config=config, instance=instance),
    ]
    checks.append(
        answered(session=session, key="worker", ask=lambda: worker(session=session, now=now))
    )
    checks.append(
        answered(session=session, key="scheduler", ask=lambda: scheduler(session=session, now=now))
    )
    return checks


def answered(*, session: Session, key: str, ask: Callable[[], Check]) -> Check:
    """The check ``ask`` makes, or a failure when the database did not answer it."""
    try:
        return ask()
    except SQLAlchemyError:
        session.rollback()
        return unanswered(key)


def waiting_for_database(key: str, database_check: Check) -> Check:
    """The verdict of a slow check not run because the database failed its own."""
    return _failed(
        key,
        Message("Not checked until the database passes its check."),
        database_check.fix or Message("Run `tid db upgrade`."),
    )


def unanswered(key: str) -> Check:
    """The verdict of a check the database did not answer."""
    return _failed(
        key,
        Message("Not checked: the database does not answer."),
        Message("Check DATABASE_URL and that the database server runs."),
    )
