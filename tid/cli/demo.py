"""The demo (``tid demo``) and its local mail server (``tid mail-sink``)."""

from __future__ import annotations

from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext


@click.command("demo")
@click.option(
    "--large",
    is_flag=True,
    help="Also make a large district (benchmarks): bills, payments and expenditures in bulk.",
)
@click.option("--properties", default=20_000, show_default=True, type=click.IntRange(1, 500_000))
@click.option("--years", default=10, show_default=True, type=click.IntRange(1, 30))
@click.option(
    "--documents",
    default=None,
    type=click.IntRange(0, 1_000_000),
    help="Generated documents in the petitions' files (search benchmark); --large: 10,000.",
)
@with_appcontext
def demo_command(large: bool, properties: int, years: int, documents: int | None) -> None:
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
    if documents or (large and documents is None):
        from tid.demo.legislature_documents import add_documents

        bulk = add_documents(get_session(), current_app.config, documents or 10_000)
        click.echo(
            f"{bulk.documents} documents added to the petitions' files ({bulk.seconds:.1f} s)."
        )
    sample = portal_sample(current_app.instance_path)
    if sample:
        click.echo(f"Owner's portal (/portal): notice {sample[0]}, access code {sample[1]}")
    click.echo(f"Files to import as the association: {current_app.instance_path}/demo/")


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

    from tid.files import private_folder
    from tid.mail import keep_message

    target = private_folder(Path(folder or Path(current_app.instance_path) / "mail"))

    class Keep:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
            path = keep_message(target, envelope.content)
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
