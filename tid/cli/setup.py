"""``tid setup``: a real installation sets itself up — the first administrator (who enrols
an authenticator app at the first sign-in), the municipality and its first district, from
questions or from a TOML file (``--from setup.toml``, docs/setup.md) — and then checks what a
production installation needs, each check saying what to fix. Running it again is safe: what
is there is kept and the checks run again. Exit 0 when every check passes, 1 otherwise, 2 on
a bad setup file or answer."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.environment import environment_language
from tid.cli.errors import fail
from tid.rules.errors import InputError
from tid.rules.messages import Message, render

PASSWORD_VARIABLE = "TID_ADMIN_PASSWORD"


def _language(chosen: str | None) -> str:
    if chosen:
        return chosen
    return "en" if environment_language() == "en" else "es"


def _say(message: str, lang: str) -> str:
    """A message (or a plain msgid, as the services' refusals are) in ``lang``."""
    return render(message if isinstance(message, Message) else Message(message), lang)


def _refuse(exc: InputError, lang: str) -> None:
    fail(InputError(exc.field, _say(exc.message, lang)))


def _ask_password(email: str, lang: str) -> str:
    """A new administrator's password, asked until the password rules accept it."""
    from tid.services.auth import passwords

    while True:
        value = str(
            click.prompt(
                _say(Message("Password for %(email)s", email=email), lang),
                hide_input=True,
                confirmation_prompt=_say(Message("Repeat the password"), lang),
            )
        )
        try:
            passwords.check_new_password(value, email=email)
        except InputError as exc:
            click.echo(_say(exc.message, lang), err=True)
            continue
        return value


def _ask(lang: str) -> dict[str, dict[str, str]]:
    """The setup file's contents, from questions (each with the present value as default)."""
    from tid.db import get_session
    from tid.services.installation import first_run

    session = get_session()
    admin, town = first_run.existing(session=session)
    email = str(
        click.prompt(
            _say(Message("Administrator's email"), lang), default=admin.email if admin else None
        )
    )
    found = first_run.admin_by_email(session=session, email=email.strip())
    name = found.name if found else str(click.prompt(_say(Message("Their full name"), lang)))
    answers: dict[str, dict[str, str]] = {
        "admin": {"email": email, "name": name, "locale": lang},
        "municipality": {
            "name": str(
                click.prompt(
                    _say(Message("Municipality"), lang), default=town.name if town else None
                )
            )
        },
    }
    if found is None:
        answers["admin"]["password"] = _ask_password(email.strip().lower(), lang)
    district = str(
        click.prompt(
            _say(Message("First district (leave empty for none)"), lang),
            default="",
            show_default=False,
        )
    ).strip()
    if district:
        association = str(
            click.prompt(_say(Message("Its association's name"), lang), default=district)
        )
        answers["district"] = {"name": district, "association_name": association}
    answers["checks"] = {
        "mail_to": str(click.prompt(_say(Message("Send the test message to"), lang), default=email))
    }
    return answers


def _made(made: object, lang: str) -> None:
    from tid.services.installation.first_run import Made

    assert isinstance(made, Made)
    kept, new = Message("kept"), Message("created")
    lines = [
        Message(
            "Administrator %(email)s: %(what)s.",
            email=made.admin.email,
            what=new if made.admin_created else kept,
        ),
        Message(
            "Municipality %(name)s: %(what)s.",
            name=made.municipality.name,
            what=new if made.municipality_created else kept,
        ),
    ]
    if made.district is not None:
        lines.append(
            Message(
                "District %(name)s: %(what)s.",
                name=made.district.name,
                what=new if made.district_created else kept,
            )
        )
    if made.admin_created:
        lines.append(
            Message(
                "At the first sign-in the administrator sets up an authenticator app "
                "(two-factor sign-in) and keeps ten recovery codes."
            )
        )
    for line in lines:
        click.echo(_say(line, lang))


@click.command("setup")
@click.option(
    "--from",
    "source",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A setup file (TOML, docs/setup.md); without it, questions.",
)
@click.option("--mail-to", default=None, help="Where the mail check sends its test message.")
@click.option("--lang", type=click.Choice(["es", "en"]), default=None)
@with_appcontext
def setup_command(source: str | None, mail_to: str | None, lang: str | None) -> None:
    """Set up the installation (first administrator, municipality, first district) and check
    what production needs; safe to run again."""
    from tid.db import get_session
    from tid.services.audit_trail import audit
    from tid.services.installation import first_run

    lang = _language(lang)
    try:
        if source:
            plan = first_run.read_file(Path(source).read_bytes(), default_locale=lang)
        else:
            plan = first_run.read_plan(_ask(lang), default_locale=lang)
    except InputError as exc:
        _refuse(exc, lang)
        return
    if plan.admin_password is None and os.environ.get(PASSWORD_VARIABLE):
        from dataclasses import replace

        plan = replace(plan, admin_password=os.environ[PASSWORD_VARIABLE])
    session = get_session()
    try:
        made = first_run.apply(session=session, actor=audit.Actor("tid setup"), plan=plan)
        session.commit()
    except InputError as exc:
        session.rollback()
        _refuse(exc, lang)
        return
    _made(made, lang)
    passed = _check(mail_to or plan.mail_to or made.admin.email, lang)
    sys.exit(0 if passed else 1)


def _check(mail_to: str, lang: str) -> bool:
    """Run every check, print each with its fix, then the summary; True if all pass."""
    from pathlib import Path as _Path

    from tid.clock import utcnow
    from tid.db import get_session
    from tid.services import installation
    from tid.services.installation import checks as immediate

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    session = get_session()
    engine = app.extensions["tid.engine"]
    found = immediate.immediate(
        session=session,
        engine=engine,
        config=app.config,
        instance=_Path(app.instance_path),
        now=utcnow(),
    )
    if found[0].ok:
        click.echo(_say(Message("Sending a test message and trying a backup's round trip…"), lang))
        found += installation.slow(
            session=session, engine=engine, config=app.config, mail_to=mail_to, lang=lang
        )
        session.commit()
    else:  # a schema behind the migrations may lack the verdicts' table
        found += [immediate.waiting_for_database(key, found[0]) for key in ("mail", "backup")]
    click.echo("")
    for check in found:
        mark = "✓" if check.ok else "✗"
        verdict = _say(Message("Passes") if check.ok else Message("Fails"), lang)
        click.echo(
            f"{mark} [{verdict}] {_say(Message(check.title), lang)}: {_say(check.said, lang)}"
        )
        if check.fix is not None:
            click.echo(f"    {_say(Message('What to fix'), lang)}: {_say(check.fix, lang)}")
    failing = sum(1 for check in found if not check.ok)
    click.echo("")
    click.echo(
        _say(
            Message(
                "%(passed)s of %(total)s checks pass.",
                passed=len(found) - failing,
                total=len(found),
            ),
            lang,
        )
    )
    if failing:
        click.echo(
            _say(
                Message(
                    "Fix the %(count)s failing check(s) above and run `tid setup` again.",
                    count=failing,
                ),
                lang,
            )
        )
    return failing == 0
