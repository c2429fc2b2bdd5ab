"""The checks of an installation that take time, run by ``tid setup`` and by a background
job from the installation's page (never on a page view): a test message through the mail
server, and a backup written to the backups' folder and restored into a scratch database.
Their last verdicts are kept (``installation_check``) for the page to show."""

from __future__ import annotations

import json
import secrets
import smtplib
import tempfile
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, select

from tid import mail
from tid.clock import utcnow
from tid.config import archive_dir, backup_dir
from tid.files import private_folder
from tid.models import InstallationCheck
from tid.rules.messages import Message, render
from tid.services.installation import backup
from tid.services.installation.checks import Check

SLOW = ("mail", "backup")
BACKUP_PATTERN = "tid-backup-*.tar.gz"


def mail_test(*, config: Mapping[str, Any], to: str, lang: str = "es") -> Check:
    """Send a test message to ``to`` through the configured mail server."""
    settings = mail.MailSettings.from_config(config)
    where = f"{settings.host}:{settings.port}"
    to = to.strip()
    if "@" not in to or any(ord(ch) < 32 for ch in to):
        return Check(
            "mail",
            False,
            Message("No address to send the test message to."),
            Message("Give an email address for the test message (checks.mail_to)."),
        )
    subject = render(Message("tid: test message from the installation's checks"), lang)
    body = render(
        Message(
            "The mail server %(server)s delivered this message from %(url)s.",
            server=where,
            url=str(config.get("BASE_URL") or ""),
        ),
        lang,
    )
    try:
        mail.send(settings, [to], subject, body)
    except (OSError, smtplib.SMTPException) as exc:
        return Check(
            "mail",
            False,
            Message(
                "The mail server %(server)s refused or did not answer: %(error)s",
                server=where,
                error=str(exc)[:300] or type(exc).__name__,
            ),
            Message(
                "Check TID_SMTP_HOST and TID_SMTP_PORT (now %(server)s), the login "
                "(TID_SMTP_USER, TID_SMTP_PASSWORD, TID_SMTP_STARTTLS) and TID_MAIL_FROM.",
                server=where,
            ),
        )
    return Check(
        "mail",
        True,
        Message("A test message went to %(to)s through %(server)s.", to=to, server=where),
    )


def _scratch_database(url: str, work: Path) -> tuple[str, Any]:
    """A scratch database beside the real one (a file for SQLite, a database on the same
    PostgreSQL server), and how to drop it."""
    from tid.db import make_engine

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return f"sqlite:///{work / 'scratch.sqlite'}", lambda: None
    name = f"tid_check_{secrets.token_hex(6)}"
    admin = make_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return parsed.set(database=name).render_as_string(hide_password=False), drop


def backup_round_trip(*, engine: Engine, config: Mapping[str, Any], now: datetime) -> Check:
    """Write a backup to the backups' folder (kept: it is a real one) and restore it into a
    scratch database with a scratch archive folder, which proves both ends."""
    from tid.db import make_engine

    folder = backup_dir(config)
    url = str(config["DATABASE_URL"])
    target = folder / f"tid-backup-{now.strftime('%Y%m%d-%H%M%S')}.tar.gz"
    fix = Message(
        "Make the backups' folder %(folder)s writable by the application's user alone "
        "(TID_BACKUP_DIR), with room for a backup; on PostgreSQL install its client programs "
        "(pg_dump, pg_restore) and let the application's role create a scratch database.",
        folder=str(folder),
    )
    try:
        private_folder(folder)
        backup.backup(engine, url, target, archive=archive_dir(config))
        with tempfile.TemporaryDirectory(prefix="tid-check-") as work:
            scratch_url, drop = _scratch_database(url, Path(work))
            scratch = make_engine(scratch_url)
            try:
                summary = backup.restore(
                    scratch, scratch_url, target, archive=Path(work) / "archive"
                )
            finally:
                scratch.dispose()
                drop()
    except Exception as exc:  # a refusal of any layer (disk, pg_dump, restore): one fix
        return Check(
            "backup",
            False,
            Message("The backup's round trip failed: %(error)s", error=str(exc)[:300]),
            fix,
        )
    return Check(
        "backup",
        True,
        Message(
            "%(file)s written (%(size)s bytes) and restored into a scratch database "
            "(%(documents)s archived documents checked).",
            file=str(target),
            size=f"{target.stat().st_size:,}",
            documents=summary.documents,
        ),
    )


# --------------------------------------------------------------------------- kept verdicts


def _as_json(message: Message | None) -> str:
    if message is None:
        return "{}"
    return json.dumps({"msgid": message.msgid, "params": dict(message.params)}, default=str)


def _from_json(value: str) -> Message | None:
    data = json.loads(value or "{}")
    if not isinstance(data, dict) or "msgid" not in data:
        return None
    return Message(str(data["msgid"]), **dict(data.get("params") or {}))


def keep(*, session: Session, check: Check, now: datetime | None = None) -> None:
    """Keep a slow check's verdict (the caller commits)."""
    row = session.get(InstallationCheck, check.key) or InstallationCheck(key=check.key)
    row.ok = check.ok
    row.checked_at = now or utcnow()
    row.said = _as_json(check.said)
    row.fix = _as_json(check.fix)
    session.add(row)


def kept(*, session: Session) -> list[Check]:
    """The slow checks' last verdicts; one never run fails, saying how to run it."""
    rows = {row.key: row for row in session.exec(select(InstallationCheck))}
    found = []
    for key in SLOW:
        row = rows.get(key)
        if row is None:
            found.append(
                Check(
                    key,
                    False,
                    Message("Not checked yet."),
                    Message("Run the slow checks (the button below, or `tid setup`)."),
                )
            )
            continue
        said = _from_json(row.said) or Message("Not checked yet.")
        found.append(Check(key, row.ok, said, _from_json(row.fix), row.checked_at))
    return found


def run(
    *, session: Session, engine: Engine, config: Mapping[str, Any], mail_to: str, lang: str
) -> list[Check]:
    """Both slow checks, their verdicts kept (the caller commits)."""
    now = utcnow()
    checks = [
        mail_test(config=config, to=mail_to, lang=lang),
        backup_round_trip(engine=engine, config=config, now=now),
    ]
    for check in checks:
        keep(session=session, check=check, now=now)
    return checks


def last_backup(*, config: Mapping[str, Any]) -> tuple[Path, float] | None:
    """The newest backup in the backups' folder and its modification time (epoch s)."""
    folder = backup_dir(config)
    try:
        files = [(p, p.stat().st_mtime) for p in folder.glob(BACKUP_PATTERN) if p.is_file()]
    except OSError:
        return None
    return max(files, key=lambda item: item[1]) if files else None
