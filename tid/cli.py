"""The command line: ``tid …``, a Flask command group (thin: parse, call, print)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from flask import Flask, current_app
from flask.cli import FlaskGroup, with_appcontext

from tid.rules.errors import InputError


def _create_app() -> Flask:
    from tid import create_app

    return create_app()


@click.group(
    cls=FlaskGroup,
    create_app=_create_app,
    add_default_commands=True,
    load_dotenv=False,
    set_debug_flag=False,
)
def main() -> None:
    """tid: tourism improvement districts of Puerto Rico."""


def register(app: Flask) -> None:
    """Attach the project's command groups to the app's CLI."""
    app.cli.add_command(db_group)
    app.cli.add_command(users_group)
    app.cli.add_command(calc_command)
    app.cli.add_command(demo_command)
    app.cli.add_command(roll_group)
    app.cli.add_command(billing_group)
    app.cli.add_command(scheduler_command)
    app.cli.add_command(worker_command)
    app.cli.add_command(health_command)
    app.cli.add_command(mail_sink_command)
    app.cli.add_command(account_group)
    app.cli.add_command(backup_command)
    app.cli.add_command(restore_command)
    app.cli.add_command(uploads_group)
    app.cli.add_command(archive_group)
    app.cli.add_command(document_command)


# --------------------------------------------------------------------------- db


@click.group("db")
def db_group() -> None:
    """The database schema."""


@db_group.command("upgrade")
@with_appcontext
@click.option("--revision", default="head", show_default=True)
def db_upgrade(revision: str) -> None:
    """Bring the database schema up to date (Alembic)."""
    from tid import migrate

    migrate.upgrade(current_app.config["DATABASE_URL"], revision)
    click.echo(f"Database at {revision}.")


# --------------------------------------------------------------------------- users


@click.group("users")
def users_group() -> None:
    """Accounts."""


@users_group.command("create")
@with_appcontext
@click.option("--email", required=True)
@click.option("--name", required=True)
@click.option(
    "--role", required=True, type=click.Choice(["admin", "clerk", "association", "auditor"])
)
@click.option(
    "--municipality", "municipality_name", default=None, help="Municipality name (clerks)."
)
@click.option("--district", "district_name", default=None, help="District name (associations).")
@click.option("--locale", default="es", type=click.Choice(["es", "en"]))
@click.password_option()
def users_create(
    email: str,
    name: str,
    role: str,
    municipality_name: str | None,
    district_name: str | None,
    locale: str,
    password: str,
) -> None:
    """Create an account."""
    from sqlmodel import select

    from tid.db import get_session
    from tid.models import District, Municipality
    from tid.services import audit, users

    session = get_session()
    municipality_id = district_id = None
    if municipality_name:
        municipality = session.exec(
            select(Municipality).where(Municipality.name == municipality_name)
        ).first()
        if municipality is None:
            _fail(InputError("municipality", f"No municipality named {municipality_name!r}."))
        municipality_id = municipality.id if municipality else None
    if district_name:
        district = session.exec(select(District).where(District.name == district_name)).first()
        if district is None:
            _fail(InputError("district", f"No district named {district_name!r}."))
        district_id = district.id if district else None
    try:
        user = users.create_user(
            session=session,
            actor=audit.Actor("command line"),
            email=email,
            name=name,
            password=password,
            role=role,
            municipality_id=municipality_id,
            district_id=district_id,
            locale=locale,
        )
    except InputError as exc:
        _fail(exc)
    session.commit()
    click.echo(f"Created {user.role} {user.email}.")


@users_group.command("unlock")
@with_appcontext
@click.argument("email")
def users_unlock(email: str) -> None:
    """Lift a sign-in lock-out of the account EMAIL (say, the only administrator's)."""
    from tid.db import get_session
    from tid.services import audit, throttle

    session = get_session()
    lifted = throttle.lift(
        session, actor=audit.Actor("command line"), key=f"login-account:{throttle.key_part(email)}"
    )
    session.commit()
    click.echo(f"Lifted the lock-out of {email}." if lifted else f"{email} was not locked.")


@users_group.command("reset-two-factor")
@with_appcontext
@click.argument("email")
def users_reset_two_factor(email: str) -> None:
    """Turn off two-factor sign-in of EMAIL (a lost phone with no recovery code left); the
    person sets it up again at the next sign-in if their role requires it."""
    from sqlmodel import select

    from tid.db import get_session
    from tid.models import User
    from tid.services import audit, two_factor

    session = get_session()
    user = session.exec(select(User).where(User.email == email.strip().lower())).first()
    if user is None:
        _fail(InputError("email", f"No account with the email {email!r}."))
        return
    two_factor.disable(session, actor=audit.Actor("command line"), user=user)
    session.commit()
    click.echo(f"Two-factor sign-in of {user.email} is off.")


# --------------------------------------------------------------------------- calc


@click.command("calc")
@click.argument("name")
@click.argument("file", default="-")
def calc_command(name: str, file: str) -> None:
    """Run calculator NAME on the JSON document in FILE (or standard input)."""
    from tid.rules import calculators

    try:
        result = calculators.run(name, _read_json(file))
    except InputError as exc:
        _fail(exc)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))


def _read_json(file: str) -> Any:
    """The JSON document in ``file`` ("-": standard input); problems are InputErrors."""
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            with open(file, encoding="utf-8-sig") as fh:
                text = fh.read()
    except FileNotFoundError:
        raise InputError("file", f"There is no file {file!r}.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            "file", f"The file {file!r} cannot be read as UTF-8 text: {exc}."
        ) from None
    from tid.calculators.documents import load_json

    return load_json(text)


def _fail(exc: InputError) -> Any:
    """Exit 2 with the error as one JSON object on standard error (CALCULATORS.md)."""
    sys.stderr.write(json.dumps(exc.as_json(), ensure_ascii=False) + "\n")
    sys.exit(2)


# --------------------------------------------------------------------------- demo


@click.command("demo")
@click.option(
    "--large",
    is_flag=True,
    help="Also make a large district (benchmarks): bills, payments and expenditures in bulk.",
)
@click.option("--properties", default=20_000, show_default=True, type=click.IntRange(1, 500_000))
@click.option("--years", default=10, show_default=True, type=click.IntRange(1, 30))
@with_appcontext
def demo_command(large: bool, properties: int, years: int) -> None:
    """Load the demo data (idempotent: an existing demo is left as it is)."""
    from tid.db import get_session
    from tid.demo import DEMO_PASSWORD, load_demo, portal_sample, turn_off_two_factor

    if large:
        from tid.demo.large_district import LARGE_USER, make_large_district

        session = get_session()
        made = make_large_district(
            session, properties=properties, years=years, password=DEMO_PASSWORD
        )
        session.commit()
        click.echo(
            f"Large district {made.district_id} "
            f"({'made' if made.created else 'already there'}, {made.seconds:.1f} s): "
            f"{made.properties} properties, {made.bills} bills, {made.entries} journal "
            f"entries, {made.lines} journal lines. Login: {LARGE_USER} {DEMO_PASSWORD}"
        )

    logins = load_demo(session=get_session(), config=current_app.config)
    click.echo("Demo data ready. Logins:")
    for role, email, password in logins:
        click.echo(f"  {role:<12} {email:<32} {password}")
    if turn_off_two_factor(current_app.instance_path):
        click.echo(
            "Two-factor sign-in is OFF in this demo instance (two_factor_roles = [] in "
            f"{current_app.instance_path}/config.toml); a real instance requires it for "
            "admin and association accounts."
        )
    else:
        click.echo(
            "Two-factor sign-in stays as instance/config.toml sets it (two_factor_roles): "
            "those roles set up an authenticator app at their first sign-in."
        )
    sample = portal_sample(current_app.instance_path)
    if sample:
        click.echo(f"Owner's portal (/portal): notice {sample[0]}, access code {sample[1]}")
    click.echo(f"Files to import as the association: {current_app.instance_path}/demo/")


# --------------------------------------------------------------------------- scheduler


@click.command("scheduler")
@with_appcontext
@click.option("--once", is_flag=True, help="Run the daily digest once now and exit.")
@click.option("--day", default=None, help="With --once: the day to sweep (YYYY-MM-DD).")
def scheduler_command(once: bool, day: str | None) -> None:
    """Run the scheduled jobs (the daily deadline digest) in this process, until stopped.

    Run it in exactly one process; a second one, or a restart, never sends a day's digest
    twice (each day's run is claimed in the database first).
    """
    from datetime import date

    from tid import jobs, scheduler

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if not once:
        scheduler.run_blocking(app)
        return
    try:
        sweep_day = date.fromisoformat(day) if day else jobs.today_for(app)
    except ValueError:
        _fail(InputError("day", f'"{day}" is not a date like "2026-03-02"'))
        return
    if sweep_day > jobs.today_for(app):
        # Claiming a future day would keep that day's real digest from going out.
        _fail(InputError("day", f"{sweep_day.isoformat()} is in the future."))
        return
    result = jobs.run_daily_digest(app, sweep_day)
    if not result.claimed:
        click.echo(f"The digest of {sweep_day.isoformat()} was already sent; nothing to do.")
        return
    click.echo(
        f"Digest of {sweep_day.isoformat()}: {result.flagged} deadline(s) flagged, "
        f"{result.messages} message(s) to {', '.join(result.recipients) or 'no one'}."
    )


# --------------------------------------------------------------------------- archive


@click.group("archive")
def archive_group() -> None:
    """The archive of issued documents (notices, print files, manifests)."""


@archive_group.command("verify")
@with_appcontext
def archive_verify() -> None:
    """Re-hash every archived document and report any whose bytes no longer match the
    SHA-256 it was archived under (exit status 1 if there is one)."""
    from tid.db import get_session
    from tid.services import archive

    report = archive.verify(get_session())
    click.echo(report.summary_en())
    if not report.ok:
        raise SystemExit(1)


# --------------------------------------------------------------------------- worker


@click.command("worker")
@with_appcontext
@click.option(
    "-w",
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Jobs run at once (default: TID_WORKERS, 2).",
)
@click.option(
    "--kind",
    type=click.Choice(["thread", "process"]),
    default="thread",
    show_default=True,
    help="Run the jobs in threads of this process or in child processes.",
)
@click.option("--once", is_flag=True, help="Run the jobs waiting in the queue now and exit.")
def worker_command(workers: int | None, kind: str, once: bool) -> None:
    """Run the background jobs (Huey's consumer) until stopped: notice runs, mailing,
    billing runs, roll imports. Start as many as you like, on as many machines as share the
    queue; each says it is alive in the database every few seconds."""
    from tid import tasks

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if once:
        tasks.sweep(app)
        click.echo(f"{tasks.run_pending(app)} job(s) run.")
        return
    tasks.run_worker(app, workers=workers or int(app.config.get("WORKERS") or 2), kind=kind)


@click.command("health")
@with_appcontext
@click.option(
    "--database-only", is_flag=True, help="Only the database and its migrations (no worker)."
)
def health_command(database_only: bool) -> None:
    """Print what /readyz says (database, migrations, queue, a worker's heartbeat) and exit
    0 when ready: a container's health check."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    response = app.test_client().get("/readyz")
    report = response.get_json()
    click.echo(json.dumps(report, sort_keys=True))
    checks = report["checks"]
    ready = (
        checks["database"] and checks["migrations"]
        if database_only
        else response.status_code == 200
    )
    sys.exit(0 if ready else 1)


# --------------------------------------------------------------------------- mail sink


@click.command("mail-sink")
@with_appcontext
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8025, show_default=True, type=int)
@click.option("--folder", default=None, help="Where to keep the messages (default: instance/mail).")
def mail_sink_command(host: str, port: int, folder: str | None) -> None:
    """A local SMTP server that keeps every message it receives (for the demo).

    Each message is saved as an .eml file and announced on the console, so the digest
    emails of a demo can be read without a real mail server.
    """
    import time
    from pathlib import Path

    from aiosmtpd.controller import Controller

    target = Path(folder or Path(current_app.instance_path) / "mail")
    target.mkdir(parents=True, exist_ok=True)

    class Keep:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = target / f"{stamp}-{abs(hash(envelope.content)) % 10**8:08d}.eml"
            data = envelope.content
            path.write_bytes(data if isinstance(data, bytes) else str(data).encode())
            click.echo(f"mail-sink: message for {', '.join(envelope.rcpt_tos)} saved to {path}")
            return "250 Message accepted"

    controller = Controller(Keep(), hostname=host, port=port)
    controller.start()
    click.echo(f"mail-sink: listening on {host}:{port}, keeping messages in {target}")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()


# --------------------------------------------------------------------------- roll and billing


def _district_id(reference: str) -> int:
    """A district by its id or its exact name (exit 2 when there is none)."""
    from sqlmodel import select

    from tid.db import get_session
    from tid.models import District

    session = get_session()
    from tid.ids import parse_id

    number = parse_id(reference)
    district = session.get(District, number) if number is not None else None
    if district is None:
        district = session.exec(select(District).where(District.name == reference)).first()
    if district is None or district.id is None:
        _fail(InputError("district", f"No district with the id or name {reference!r}."))
        raise AssertionError  # pragma: no cover - _fail exits
    return district.id


@click.group("roll")
def roll_group() -> None:
    """The property roll of a district (21 LPRA § 6653(3)(d))."""


@roll_group.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", required=True, help='Like "2026-27".')
@click.option("--dry-run", is_flag=True, help="Check the file and compare; write nothing.")
@with_appcontext
def roll_import(file: str, district: str, fiscal_year: str, dry_run: bool) -> None:
    """Import the roll in FILE (CSV) for a district and fiscal year: every row or none."""
    import os

    from tid.db import get_session
    from tid.services import audit, roll

    district_id = _district_id(district)
    limits = {
        "max_bytes": int(current_app.config.get("ROLL_MAX_BYTES") or roll.DEFAULT_MAX_BYTES),
        "max_rows": int(current_app.config.get("ROLL_MAX_ROWS") or roll.DEFAULT_MAX_ROWS),
    }
    session = get_session()
    try:
        roll.check_size(os.path.getsize(file), limits["max_bytes"])  # before reading it
        with open(file, "rb") as fh:
            data = fh.read()
        name = os.path.basename(file)
        if dry_run:
            preview = roll.preview_roll(
                session=session,
                district_id=district_id,
                fiscal_year=fiscal_year,
                data=data,
                file_name=name,
                **limits,
            )
            if preview.parsed.findings:
                from tid.rules.errors import FindingsError

                raise FindingsError(list(preview.parsed.findings))
            summary = {
                "dry_run": True,
                "fiscal_year": preview.fiscal_year,
                "rows": len(preview.parsed.rows),
                "already_imported": preview.already_imported is not None,
                "added": preview.added,
                "changed": preview.changed,
                "unchanged": preview.unchanged,
                "removed": preview.removed,
                "new_properties": preview.new_properties,
                "sha256": preview.parsed.sha256,
            }
        else:
            result = roll.import_roll(
                session=session,
                actor=audit.Actor("command line"),
                district_id=district_id,
                fiscal_year=fiscal_year,
                data=data,
                file_name=name,
                **limits,
            )
            session.commit()
            summary = {
                "fiscal_year": result.roll_import.fiscal_year,
                "rows": result.roll_import.rows,
                "unchanged": result.unchanged,
                "added": result.added,
                "changed": result.changed,
                "removed": result.removed,
                "new_properties": result.new_properties,
                "sha256": result.roll_import.sha256,
            }
    except InputError as exc:
        session.rollback()
        _fail(exc)
    click.echo(json.dumps(summary, indent=2, ensure_ascii=False))


@click.group("billing")
def billing_group() -> None:
    """The yearly bills of a district (21 LPRA § 6653(3)(d), (5))."""


@billing_group.command("run")
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", required=True, help='Like "2026-27".')
@click.option("--due-date", default=None, help="YYYY-MM-DD; default 60 days after the run.")
@click.option("--run-date", default=None, help="YYYY-MM-DD; default today in Puerto Rico.")
@click.option("--param", "params", multiple=True, help="A formula parameter: name=value.")
@click.option("--reason", default="", help="Why a corrected run is made.")
@with_appcontext
def billing_run(
    district: str,
    fiscal_year: str,
    due_date: str | None,
    run_date: str | None,
    params: tuple[str, ...],
    reason: str,
) -> None:
    """Bill every property of the year's roll by the ordinance's formula."""
    from tid.db import get_session
    from tid.rules.money import money_str
    from tid.rules.periods import parse_date
    from tid.services import audit, billing
    from tid.web.util import today

    district_id = _district_id(district)
    session = get_session()
    try:
        result = billing.run_billing(
            session=session,
            actor=audit.Actor("command line"),
            district_id=district_id,
            fiscal_year=fiscal_year,
            run_on=parse_date(run_date, "run_date") if run_date else today(),
            due_date=parse_date(due_date, "due_date") if due_date else None,
            parameters="\n".join(params),
            reason=reason,
        )
        session.commit()
    except InputError as exc:
        session.rollback()
        _fail(exc)
    run = result.run
    click.echo(
        json.dumps(
            {
                "run_id": run.id,
                "fiscal_year": run.fiscal_year,
                "version": run.version,
                "unchanged": result.unchanged,
                "properties": run.property_count,
                "total": money_str(result.total),
                "expected_amount": money_str(result.expected_amount),
                "difference": money_str(result.difference),
                "due_date": run.due_date.isoformat(),
                "supersedes_version": result.superseded.version if result.superseded else None,
                "superseded_bills": result.superseded_bills,
                "owners_needing_a_corrected_notice": result.mailed_superseded,
                "warnings": list(result.warnings),
            },
            indent=2,
            ensure_ascii=False,
        )
    )


# --------------------------------------------------------------------------- the special account


@click.group("account")
def account_group() -> None:
    """The special account of a district (21 LPRA § 6653(6))."""


@account_group.command("import-deposits")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--district", "district", required=True, help="District id or exact name.")
@with_appcontext
def account_import_deposits(file: str, district: str) -> None:
    """Book the bank deposits in FILE (CSV: date, amount, reference, and cadastral_number or
    notice_number): every row or none; a deposit already booked is not booked again."""
    from datetime import date

    from tid.clock import today
    from tid.db import get_session
    from tid.services import audit, payments

    def _today() -> date:
        return today(current_app.config)

    district_id = _district_id(district)
    session = get_session()
    with open(file, "rb") as fh:
        data = fh.read(5_000_001)
    try:
        result = payments.import_deposits(
            session=session,
            actor=audit.Actor("command line"),
            district_id=district_id,
            data=data,
            today=_today(),
        )
        session.commit()
    except InputError as exc:
        session.rollback()
        _fail(exc)
    summary = {
        "rows": result.rows,
        "booked": result.booked,
        "already_booked": result.already_booked,
        "total_booked": f"{result.total_booked:.2f}",
    }
    click.echo(json.dumps(summary, indent=2, ensure_ascii=False))


@account_group.command("verify")
@click.option("--district", "district", default="", help="District id or exact name (all).")
@with_appcontext
def account_verify(district: str) -> None:
    """Recompute every running balance of the special account from the journal, check that
    every entry balances, and print each account's balance (JSON); exit 1 on a difference."""
    from tid.db import get_session
    from tid.services import ledger
    from tid.services.account_check import verify

    session = get_session()
    district_id = _district_id(district) if district else None
    lines, differences = ledger.verify(session, district_id)
    for d in differences:
        click.echo(
            f"district {d.district_id}: {d.what} {d.key}: stored {d.stored}, journal {d.journal}",
            err=True,
        )
    report = verify(session, district_id)
    agrees = not differences and bool(report["ok"])
    click.echo(
        json.dumps(
            {
                "journal_lines": lines,
                "differences": len(differences),
                "agrees": agrees,
                "unbalanced_entries": report["unbalanced_entries"],
                "districts": report["districts"],
            },
            indent=2,
            ensure_ascii=False,
        )
    )
    if not agrees:
        sys.exit(1)


@account_group.command("lock-year")
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", "fiscal_year", required=True, help='Like "2025-26".')
@click.option("--unlock", is_flag=True, help="Lift the lock instead.")
@with_appcontext
def account_lock_year(district: str, fiscal_year: str, unlock: bool) -> None:
    """Lock a closed fiscal year (nothing can then be booked on a date in it), or lift it."""
    from tid.clock import today
    from tid.db import get_session
    from tid.rules.periods import parse_fiscal_year
    from tid.services import audit, year_locks

    session = get_session()
    try:
        fy = parse_fiscal_year(fiscal_year)
        actor = audit.Actor("command line")
        district_id = _district_id(district)
        if unlock:
            year_locks.unlock_year(session=session, actor=actor, district_id=district_id, fy=fy)
        else:
            year_locks.lock_year(
                session=session,
                actor=actor,
                district_id=district_id,
                fy=fy,
                today=today(current_app.config),
            )
        session.commit()
    except InputError as exc:
        session.rollback()
        _fail(exc)
    state = "open" if unlock else "locked"
    click.echo(json.dumps({"fiscal_year": fy.label, "state": state}))


# --------------------------------------------------------------------------- documents of record

_DOCUMENT_OPTIONS = (
    "district",
    "year",
    "booked_by",
    "property",
    "municipality",
    "state",
    "batch",
    "notice",
    "calculator",
    "input",
)


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


class _DocumentError(Exception):
    """A bad parameter of ``tid document``: the option and the message (a msgid)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option, self.message = option, message


def _language(lang: str | None) -> str:
    """--lang, else the language of the environment (LC_ALL, LC_MESSAGES, LANG) when the app
    speaks it, else the app's own (Spanish)."""
    import os

    languages: list[str] = current_app.config["LANGUAGES"]
    if lang:
        return lang
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        chosen = os.environ.get(variable, "")[:2].lower()
        if chosen:
            return (
                chosen if chosen in languages else str(current_app.config["BABEL_DEFAULT_LOCALE"])
            )
    return str(current_app.config["BABEL_DEFAULT_LOCALE"])


def _document_parameter(name: str, text: str) -> Any:
    """The value of one option of ``tid document`` (a problem: a :class:`_DocumentError`)."""
    import os
    from datetime import date

    from tid.ids import parse_id
    from tid.rules.errors import N_
    from tid.rules.periods import parse_fiscal_year

    text = text.strip()
    if name == "year":
        try:
            return parse_fiscal_year(text, "year")
        except InputError:
            raise _DocumentError(name, N_("Write a fiscal year like 2024-25.")) from None
    if name == "booked_by":
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise _DocumentError(name, N_("Write a date like 2026-03-02.")) from None
    if name in ("district", "municipality", "property", "batch"):
        number = parse_id(text)
        if number is None and name in ("district", "municipality"):
            number = _id_by_name(name, text)
        if number is None:
            raise _DocumentError(name, N_("Write a whole number, like 3."))
        return number
    if name == "input":
        if text != "-" and not os.path.isfile(text):
            raise _DocumentError(name, N_("There is no such file."))
        try:
            return _read_json(text)
        except InputError as exc:
            raise _DocumentError(name, exc.message) from None
    return text


def _id_by_name(name: str, text: str) -> int | None:
    """A district or a municipality by its exact name."""
    from sqlmodel import select

    from tid.db import get_session
    from tid.documents.base import NO_DISTRICT
    from tid.documents.petitions import NO_MUNICIPALITY
    from tid.models import District, Municipality

    session = get_session()
    if name == "district":
        district = session.exec(select(District).where(District.name == text)).first()
        if district is None:
            raise _DocumentError(name, NO_DISTRICT)
        return district.id
    municipality = session.exec(select(Municipality).where(Municipality.name == text)).first()
    if municipality is None:
        raise _DocumentError(name, NO_MUNICIPALITY)
    return municipality.id


def _document_list(lang: str) -> None:
    from flask_babel import force_locale

    from tid import documents
    from tid.i18n import say

    with force_locale(lang):
        for kind in documents.KINDS.values():
            click.echo(f"{kind.name}  {say(kind.title)}")
            for name in kind.needs:
                click.echo(f"    {_option(name)}  {say(documents.PARAMETERS[name])}")
            for name in kind.optional:
                click.echo(f"    [{_option(name)}]  {say(documents.PARAMETERS[name])}")


def _document_fail(lang: str, option: str, message: str) -> Any:
    """Exit 2 with ``Error: --option: message`` (in the user's language) on standard error."""
    from flask_babel import force_locale

    from tid.i18n import say

    with force_locale(lang):
        click.echo(f"Error: {option}: {say(message)}", err=True)
    sys.exit(2)


def _write_document(data: bytes, out: str) -> None:
    """The bytes to ``out`` whole or not at all (a temporary file renamed), or to standard
    output for ``-``."""
    import os
    import tempfile

    if out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    folder = os.path.dirname(os.path.abspath(out))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tid-document-")
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(data)
        os.replace(temporary, out)
    except BaseException:
        os.unlink(temporary)
        raise


@click.command("document")
@click.argument("name")
@click.option("--district", help="District id or exact name.")
@click.option("--year", help='Fiscal year, like "2026-27".')
@click.option("--booked-by", "booked_by", help="The journal as it stood that day (YYYY-MM-DD).")
@click.option("--property", "property_", help="Property id.")
@click.option("--municipality", help="Municipality id or exact name.")
@click.option("--state", help="State of the petitions.")
@click.option("--batch", help="Notice run id.")
@click.option("--notice", help="Notice number.")
@click.option("--calculator", help="Calculator name (as tid calc names it).")
@click.option("--input", "input_", help="The calculator's JSON document (a file, - for stdin).")
@click.option("--lang", help="es or en (default: the environment's language, else es).")
@click.option("--out", help="The file to write (- for standard output; a CSV's default).")
@with_appcontext
def document_command(name: str, lang: str | None, out: str | None, **options: str | None) -> None:
    """Write the document of record NAME (a PDF or a CSV), as the web gives it; NAME "list":
    every document and what each needs."""
    from tid import documents
    from tid.db import get_session
    from tid.rules.errors import N_

    if lang is not None and lang not in current_app.config["LANGUAGES"]:
        _document_fail(_language(None), "--lang", N_("Write es or en."))
    lang = _language(lang)
    if name == "list":
        _document_list(lang)
        return
    kind = documents.KINDS.get(name)
    if kind is None:
        _document_fail(lang, "NAME", N_("There is no such document: see tid document list."))
        return
    if kind.media_type == documents.PDF and not out:
        _document_fail(lang, "--out", N_("A PDF is written to a file: name it with --out."))
    given = {k.rstrip("_"): v for k, v in options.items() if v is not None}
    try:
        params = {k: _document_parameter(k, v) for k, v in given.items()}
        document = documents.make(get_session(), name, locale=lang, **params)
    except _DocumentError as exc:
        _document_fail(lang, _option(exc.option), exc.message)
        return
    except InputError as exc:
        if exc.field in _DOCUMENT_OPTIONS:
            where = _option(exc.field)
        else:
            where = "--input" if "input" in kind.needs else "NAME"
        _document_fail(lang, where, exc.message)
        return
    _write_document(document.data, out or "-")
    if out and out != "-":
        click.echo(
            json.dumps({"file": out, "bytes": len(document.data), "name": document.filename})
        )


# --------------------------------------------------------------------------- keeping data


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
@with_appcontext
def backup_command(file: str) -> None:
    """Write a backup of the database and its archive of documents to FILE (.tar.gz)."""
    from pathlib import Path

    from tid.services import backup

    try:
        summary = backup.backup(
            current_app.extensions["tid.engine"], current_app.config["DATABASE_URL"], Path(file)
        )
    except backup.BackupError as exc:
        click.echo(json.dumps({"error": str(exc)}), err=True)
        sys.exit(2)
    click.echo(json.dumps({"file": file, **summary.as_json()}))


@click.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--replace", is_flag=True, help="Replace a database that already holds data.")
@with_appcontext
def restore_command(file: str, replace: bool) -> None:
    """Restore the database and its archive of documents from a backup FILE."""
    from pathlib import Path

    from tid.services import backup

    try:
        summary = backup.restore(
            current_app.extensions["tid.engine"],
            current_app.config["DATABASE_URL"],
            Path(file),
            replace=replace,
        )
    except backup.BackupError as exc:
        click.echo(json.dumps({"error": str(exc)}), err=True)
        sys.exit(2)
    click.echo(json.dumps({"file": file, "restored": True, **summary.as_json()}))


@click.group("uploads")
def uploads_group() -> None:
    """Uploaded files kept between their preview and their import."""


@uploads_group.command("purge")
@with_appcontext
def uploads_purge() -> None:
    """Delete the uploads older than UPLOAD_RETENTION_HOURS (imported ones are deleted at
    once)."""
    from pathlib import Path

    from tid.services import roll
    from tid.web.roll import upload_retention

    folder = Path(current_app.instance_path) / "uploads"
    deleted = roll.purge_uploads(folder, older_than=upload_retention(current_app))
    click.echo(json.dumps({"deleted": deleted}))
