"""Configuration: defaults, then ``instance/config.toml``, then the environment, then the
``config`` mapping given to :func:`tid.create_app` (tests)."""

from __future__ import annotations

import os
import secrets
import tomllib
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# Environment variable -> config key.
ENVIRONMENT = {
    "DATABASE_URL": "DATABASE_URL",
    "TID_SECRET_KEY": "SECRET_KEY",
    "TID_SMTP_HOST": "SMTP_HOST",
    "TID_SMTP_PORT": "SMTP_PORT",
    "TID_SMTP_USER": "SMTP_USER",
    "TID_SMTP_PASSWORD": "SMTP_PASSWORD",
    "TID_SMTP_STARTTLS": "SMTP_STARTTLS",
    "TID_MAIL_FROM": "MAIL_FROM",
    "TID_BASE_URL": "BASE_URL",
    "TID_SCHEDULER": "SCHEDULER_IN_PROCESS",
    "TID_DEADLINE_SKIP_SATURDAY": "DEADLINE_SKIP_SATURDAY",
    "TID_SECURE_COOKIES": "SESSION_COOKIE_SECURE",
    "TID_PROXIES": "PROXIES",
    "TID_CALC_RATE_LIMIT": "CALC_RATE_LIMIT",
    "TID_PUBLIC_RATE_LIMIT": "PUBLIC_RATE_LIMIT",
    "TID_VERIFY_RATE_LIMIT": "VERIFY_RATE_LIMIT",
    "TID_VERIFY_MAX_FAILURES": "VERIFY_MAX_FAILURES",
    "TID_CALC_TIME_LIMIT": "CALC_TIME_LIMIT",
    "TID_CALC_CONCURRENCY": "CALC_CONCURRENCY",
    "TID_WEB_WORKERS": "WEB_WORKERS",
    "TID_TWO_FACTOR_ROLES": "TWO_FACTOR_ROLES",
    "TID_SESSION_IDLE_MINUTES": "SESSION_IDLE_MINUTES",
    "TID_SESSION_LIFETIME_HOURS": "SESSION_LIFETIME_HOURS",
    "TID_PASSWORD_RESET_MINUTES": "PASSWORD_RESET_MINUTES",
    "TID_LOGIN_LOCKOUT_AFTER": "LOGIN_LOCKOUT_AFTER",
    "TID_LOGIN_LOCKOUT_MINUTES": "LOGIN_LOCKOUT_MINUTES",
    "TID_PORTAL_SESSION_MINUTES": "PORTAL_SESSION_MINUTES",
    "TID_OWNER_REMINDER_DAYS": "OWNER_REMINDER_DAYS",
    "TID_HSTS_MAX_AGE": "HSTS_MAX_AGE",
    "TID_UPLOAD_RETENTION_HOURS": "UPLOAD_RETENTION_HOURS",
    "TID_REDIS_URL": "REDIS_URL",
    "TID_WORKERS": "WORKERS",
    "TID_ARCHIVE_DIR": "ARCHIVE_DIR",
    "TID_DOCUMENT_MAX_MB": "DOCUMENT_MAX_MB",
    "TID_OCR_TIMEOUT_SECONDS": "OCR_TIMEOUT_SECONDS",
    "TID_READER_MEMORY_MB": "READER_MEMORY_MB",
    "TID_READER_SECONDS": "READER_SECONDS",
    "TID_PICTURE_SECONDS": "PICTURE_SECONDS",
    "TID_PICTURE_MAX_PIXELS": "PICTURE_MAX_PIXELS",
    "TID_BACKUP_DIR": "BACKUP_DIR",
    "TID_RECORD_MAX_MB": "RECORD_MAX_MB",
}

_BOOLEAN_KEYS = {
    "SMTP_STARTTLS",
    "SCHEDULER_IN_PROCESS",
    "DEADLINE_SKIP_SATURDAY",
    "SESSION_COOKIE_SECURE",
}
_NUMBER_KEYS = {"CALC_TIME_LIMIT"}
_INTEGER_KEYS = {
    "SMTP_PORT",
    "PROXIES",
    "CALC_RATE_LIMIT",
    "PUBLIC_RATE_LIMIT",
    "VERIFY_RATE_LIMIT",
    "VERIFY_MAX_FAILURES",
    "CALC_CONCURRENCY",
    "WEB_WORKERS",
    "SESSION_IDLE_MINUTES",
    "SESSION_LIFETIME_HOURS",
    "PASSWORD_RESET_MINUTES",
    "LOGIN_LOCKOUT_AFTER",
    "LOGIN_LOCKOUT_MINUTES",
    "PORTAL_SESSION_MINUTES",
    "OWNER_REMINDER_DAYS",
    "HSTS_MAX_AGE",
    "UPLOAD_RETENTION_HOURS",
    "WORKERS",
    "RECORD_MAX_MB",
    "DOCUMENT_MAX_MB",
    "OCR_TIMEOUT_SECONDS",
    "READER_MEMORY_MB",
    "READER_SECONDS",
    "PICTURE_SECONDS",
    "PICTURE_MAX_PIXELS",
}


def instance_path() -> Path:
    """The instance folder: ``TID_INSTANCE`` or the project's own ``instance/``."""
    return Path(os.environ.get("TID_INSTANCE") or PROJECT_ROOT / "instance").resolve()


def defaults(instance: Path) -> dict[str, Any]:
    return {
        "DATABASE_URL": f"sqlite:///{instance / 'tid.sqlite'}",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": 25,
        "SMTP_USER": "",
        "SMTP_PASSWORD": "",
        "SMTP_STARTTLS": False,
        "MAIL_FROM": "tid@localhost",
        "BASE_URL": "http://127.0.0.1:5000",
        "SCHEDULER_IN_PROCESS": False,
        "DEADLINE_SKIP_SATURDAY": None,  # None: district.deadline_skip_saturday decides
        "BABEL_DEFAULT_LOCALE": "es",
        "BABEL_DEFAULT_TIMEZONE": "America/Puerto_Rico",
        "LANGUAGES": ["es", "en"],
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": False,
        "REMEMBER_COOKIE_HTTPONLY": True,
        "REMEMBER_COOKIE_SAMESITE": "Lax",
        "MAX_CONTENT_LENGTH": 20 * 1024 * 1024,
        "WTF_CSRF_TIME_LIMIT": None,
        "TODAY": None,  # a fixed date for tests and demos; None means the clock
        "PROXIES": 0,  # reverse proxies in front of the app (their X-Forwarded-For is trusted)
        # The public calculators: computations a minute per client address without a login
        # (0: no limit), and the seconds one request may take (reading, computing and
        # answering its page, CSV or PDF) before it is stopped.
        "CALC_RATE_LIMIT": 60,
        # public pages, feeds and open data a minute per address without a login (0: off)
        "PUBLIC_RATE_LIMIT": 300,
        "VERIFY_RATE_LIMIT": 30,
        "VERIFY_MAX_FAILURES": 10,
        "CALC_TIME_LIMIT": 5.0,
        # Anonymous heavy work (the calculators and their documents, the portal's PDFs) at
        # once across the web workers; None: one fewer than the web workers, so a signed-in
        # clerk always finds one free.
        "CALC_CONCURRENCY": None,
        "WEB_WORKERS": 4,  # gunicorn's processes (deploy/), read for the default above
        # Sign-in and sessions (docs/security.md).
        "TWO_FACTOR_ROLES": "admin,association",
        "SESSION_IDLE_MINUTES": 30,
        "SESSION_LIFETIME_HOURS": 12,
        "PASSWORD_RESET_MINUTES": 60,
        "LOGIN_LOCKOUT_AFTER": 10,
        "LOGIN_LOCKOUT_MINUTES": 30,
        "PORTAL_SESSION_MINUTES": 20,
        # days before a bill's due date that an owner's confirmed address is reminded
        "OWNER_REMINDER_DAYS": 10,
        "HSTS_MAX_AGE": 31_536_000,  # a year of HTTPS only, sent when the cookies are secure
        "UPLOAD_RETENTION_HOURS": 24,  # an upload not imported is deleted after this
        "REDIS_URL": "",  # the task queue on Redis; empty: on the database (tid/jobs/queue.py)
        "WORKERS": 2,  # threads of ``tid worker`` (jobs it runs at once)
        # The legislature's files: the archive's folder (shared storage when the web and the
        # workers run on several machines) and the largest file a clerk may attach.
        "ARCHIVE_DIR": str(instance / "archive"),
        "DOCUMENT_MAX_MB": 50,
        # A scan's words read by ocrmypdf in a background job: stopped after this long.
        "OCR_TIMEOUT_SECONDS": 600,
        # Every reader of an uploaded file (its text, its picture) runs in a process of its
        # own with this much memory and time (tid/readers.py); a scan of more pixels than
        # this is not drawn.
        "READER_MEMORY_MB": 768,
        "READER_SECONDS": 120,
        "PICTURE_SECONDS": 20,
        "PICTURE_MAX_PIXELS": 60_000_000,
        # Where the installation's checks write a backup and restore it (``tid setup``).
        "BACKUP_DIR": str(instance / "backups"),
        # The largest district's package `tid import district` reads (the ZIP and its
        # entries unpacked, each): docs/leaving.md.
        "RECORD_MAX_MB": 4096,
    }


def _coerce(key: str, value: str) -> Any:
    if key in _BOOLEAN_KEYS:
        return value.strip().lower() in {"1", "true", "yes", "on"}
    if key in _INTEGER_KEYS:
        return int(value)
    if key in _NUMBER_KEYS:
        return float(value)
    return value


def load(instance: Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole configuration, in the order of precedence of this module's docstring."""
    config = defaults(instance)
    file = instance / "config.toml"
    if file.exists():
        with file.open("rb") as fh:
            config.update({k.upper(): v for k, v in tomllib.load(fh).items()})
    for env, key in ENVIRONMENT.items():
        if env in os.environ:
            config[key] = _coerce(key, os.environ[env])
    if overrides:
        config.update(overrides)
    config["TWO_FACTOR_ROLES"] = parse_roles(config.get("TWO_FACTOR_ROLES"))
    # A request may carry the largest document and its form besides.
    config["MAX_CONTENT_LENGTH"] = max(
        int(config["MAX_CONTENT_LENGTH"]), document_max_bytes(config) + 2**20
    )
    if not config.get("SECRET_KEY"):
        config["SECRET_KEY"] = _instance_secret(instance)
    return config


def parse_roles(value: object) -> frozenset[str]:
    """The roles that must use two-factor sign-in, from a setting: a list, or a string of
    names separated by commas or spaces ("" or "none": no role; unset: admin and
    association)."""
    from tid.models import Role  # on use: ``tid calc`` reads the configuration, not the tables

    if value is None:
        return frozenset({Role.ADMIN.value, Role.ASSOCIATION.value})
    items = (
        [str(v) for v in value]
        if isinstance(value, list | tuple | set | frozenset)
        else str(value).replace(",", " ").split()
    )
    names = {item.strip().lower() for item in items} - {"", "none"}
    known = {r.value for r in Role}
    unknown = names - known
    if unknown:
        raise ValueError(
            f"two_factor_roles: unknown role(s) {', '.join(sorted(unknown))} "
            f"(known: {', '.join(sorted(known))})"
        )
    return frozenset(names)


def upload_retention(config: Mapping[str, Any]) -> timedelta:
    """How long an uploaded roll file not imported is kept (``UPLOAD_RETENTION_HOURS``)."""
    return timedelta(hours=int(config.get("UPLOAD_RETENTION_HOURS") or 24))


def document_max_bytes(config: Mapping[str, Any]) -> int:
    """The largest file a clerk may attach to a petition's file (``DOCUMENT_MAX_MB``)."""
    return int(config.get("DOCUMENT_MAX_MB") or 50) * 2**20


def ocr_timeout_seconds(config: Mapping[str, Any]) -> int:
    """How long reading a scan's words may run before it is stopped (``OCR_TIMEOUT_SECONDS``)."""
    return max(1, int(config.get("OCR_TIMEOUT_SECONDS") or 600))


def archive_dir(config: Mapping[str, Any]) -> Path:
    """The archive's folder: the documents of the legislature's files, by SHA-256."""
    return Path(str(config.get("ARCHIVE_DIR") or "instance/archive"))


def backup_dir(config: Mapping[str, Any]) -> Path:
    """The backups' folder: the installation's checks write one there and restore it."""
    return Path(str(config.get("BACKUP_DIR") or "instance/backups"))


# The settings of the rules: applied to the parameters every computation of the process reads.
RULES_SETTINGS = ("DEADLINE_SKIP_SATURDAY",)


def rules_settings(instance: Path | None = None) -> dict[str, Any]:
    """The settings of the rules as :func:`load` gives them (the environment over
    ``config.toml`` over the defaults), reading no other file and writing none: for the
    commands that run without the app (``tid calc``)."""
    instance = instance or instance_path()
    default = defaults(instance)
    settings = {key: default[key] for key in RULES_SETTINGS}
    file = instance / "config.toml"
    if file.is_file():
        with file.open("rb") as fh:
            written = {k.upper(): v for k, v in tomllib.load(fh).items()}
        settings.update((key, written[key]) for key in RULES_SETTINGS if key in written)
    for env, key in ENVIRONMENT.items():
        if key in settings and env in os.environ:
            settings[key] = _coerce(key, os.environ[env])
    return settings


def apply_rules_settings(config: Mapping[str, Any]) -> None:
    """The installation's settings of the rules, applied to the parameters every computation
    of the process reads (``TID_DEADLINE_SKIP_SATURDAY``; unset: district.toml decides)."""
    from tid.rules import params

    value = config.get("DEADLINE_SKIP_SATURDAY")
    params.set_installation_value(
        "district.deadline_skip_saturday",
        None if value is None else bool(value),
        setting="TID_DEADLINE_SKIP_SATURDAY",
    )


def _instance_secret(instance: Path) -> str:
    """A secret key kept in the instance folder, made on first start."""
    path = instance / "secret_key"
    if path.exists():
        return path.read_text().strip()
    instance.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    path.write_text(key)
    path.chmod(0o600)
    return key


def portal_code_secret(config: Mapping[str, Any]) -> str:
    """The key of the notices' access codes (their HMAC): ``PORTAL_CODE_SECRET`` if set, else
    the app's ``SECRET_KEY``. The one derivation for printing the codes and checking them."""
    return str(config.get("PORTAL_CODE_SECRET") or config["SECRET_KEY"])
