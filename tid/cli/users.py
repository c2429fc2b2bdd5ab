"""The accounts (``tid users``): create one, lift a lock-out, turn off two-factor sign-in."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from tid.cli.errors import fail
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message


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
    from tid.services.audit_trail import audit
    from tid.services.auth import users

    session = get_session()
    municipality_id = district_id = None
    if municipality_name:
        municipality = session.exec(
            select(Municipality).where(Municipality.name == municipality_name)
        ).first()
        if municipality is None:
            fail(
                InputError(
                    "municipality",
                    Message(N_("No municipality named %(name)s."), name=repr(municipality_name)),
                )
            )
        municipality_id = municipality.id if municipality else None
    if district_name:
        district = session.exec(select(District).where(District.name == district_name)).first()
        if district is None:
            fail(
                InputError(
                    "district",
                    Message(N_("No district named %(name)s."), name=repr(district_name)),
                )
            )
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
        fail(exc)
    session.commit()
    click.echo(f"Created {user.role} {user.email}.")


@users_group.command("unlock")
@with_appcontext
@click.argument("email")
def users_unlock(email: str) -> None:
    """Lift the sign-in delays and lock-outs of the account EMAIL and of the browsers it
    signed in from (say, the only administrator's)."""
    from tid.db import get_session
    from tid.services.audit_trail import audit
    from tid.services.auth import sign_in

    session = get_session()
    lifted = sign_in.unlock(session=session, actor=audit.Actor("command line"), email=email)
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
    from tid.services.audit_trail import audit
    from tid.services.auth import two_factor

    session = get_session()
    user = session.exec(select(User).where(User.email == email.strip().lower())).first()
    if user is None:
        fail(
            InputError(
                "email", Message(N_("No account with the email %(email)s."), email=repr(email))
            )
        )
        return
    two_factor.disable(session=session, actor=audit.Actor("command line"), user=user)
    session.commit()
    click.echo(f"Two-factor sign-in of {user.email} is off.")
