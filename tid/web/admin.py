"""Accounts, for administrators: list, create, deactivate, force a new password, reset
two-factor sign-in, and lift sign-in lock-outs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from tid.db import get_session
from tid.ids import parse_id
from tid.models import Role
from tid.rules.errors import N_, InputError
from tid.services import places
from tid.services.auth import sign_in, users
from tid.web import nav
from tid.web.access import me, require
from tid.web.forms import Form

bp = Blueprint("admin", __name__, url_prefix="/admin")
nav.add(
    "admin.users_list",
    N_("Accounts"),
    N_("People, their roles and what they can reach."),
    ("admin",),
)

_FIELD_NAMES = ("email", "name", "password", "role", "municipality", "district", "locale")


@bp.route("/users")
@require("admin")
def users_list() -> Any:
    db = get_session()
    return render_template(
        "admin/users.html",
        accounts=users.accounts(session=db),
        municipalities=places.municipality_names(session=db),
        districts=places.district_names(session=db),
    )


@bp.route("/users/new", methods=["GET", "POST"])
@require("admin")
def users_new() -> Any:
    db = get_session()
    errors: dict[str, str] = {}
    values = {name: request.form.get(name, "") for name in _FIELD_NAMES}
    if request.method == "POST":
        form = Form()
        municipality_id = form.read(lambda: _optional_int(values["municipality"], "municipality"))
        district_id = form.read(lambda: _optional_int(values["district"], "district"))
        form.write(
            lambda: users.create_user(
                session=db,
                actor=me().actor,
                email=values["email"],
                name=values["name"],
                password=values["password"],
                role=values["role"],
                municipality_id=municipality_id,
                district_id=district_id,
                locale=values["locale"] if values["locale"] in ("es", "en") else "es",
            )
        )
        done = form.saved(_("Account created."), url_for("admin.users_list"))
        if done:
            return done
        errors = form.errors
    return render_template(
        "admin/user_form.html",
        values=values,
        errors=errors,
        role_options=[(r.value, _(r.value)) for r in Role],
        municipality_options=[(m.id, m.name) for m in places.municipalities(session=db)],
        district_options=[(d.id, d.name) for d in places.districts(session=db)],
    ), (422 if errors else 200)


@bp.route("/users/<int:user_id>/active", methods=["POST"])
@require("admin")
def users_set_active(user_id: int) -> Any:
    active = request.form.get("active") == "1"
    form = Form()
    form.write(
        lambda: users.set_active(
            session=get_session(), actor=me().actor, user_id=user_id, active=active
        )
    )
    return form.flashed(
        _("Account reactivated.") if active else _("Account deactivated."),
        url_for("admin.users_list"),
    )


@bp.route("/users/<int:user_id>/reset-password", methods=["POST"])
@require("admin")
def users_force_reset(user_id: int) -> Any:
    """The account's password stops working, its logins end, and a reset link is mailed."""

    from tid.services.auth import passwords
    from tid.web.auth import queue_reset_mail

    db = get_session()
    form = Form()
    user = form.write(lambda: passwords.force_reset(session=db, actor=me().actor, user_id=user_id))
    if user is None:
        return form.refusal(url_for("admin.users_list"))
    db.commit()
    queue_reset_mail(user, forced=True)
    flash(
        _("The password of %(email)s no longer works; a link to set a new one was emailed.")
        % {"email": user.email}
    )
    return redirect(url_for("admin.users_list"))


@bp.route("/users/<int:user_id>/two-factor-off", methods=["POST"])
@require("admin")
def users_two_factor_off(user_id: int) -> Any:
    """For a lost phone with no recovery codes left: the person enrols again next time."""
    from tid.services.auth import two_factor

    db = get_session()
    user = users.account(session=db, user_id=user_id)
    if user is None:
        abort(404)
    two_factor.disable(session=db, actor=me().actor, user=user)
    db.commit()
    flash(_("Two-factor sign-in of %(email)s was reset.") % {"email": user.email})
    return redirect(url_for("admin.users_list"))


@bp.route("/lockouts")
@require("admin")
def lockouts() -> Any:
    """Sign-in lock-outs and delays in force, by account (typed email) and by address."""
    rows = sign_in.lockouts(session=get_session())
    return render_template("admin/lockouts.html", rows=rows)


@bp.route("/lockouts/<int:throttle_id>/lift", methods=["POST"])
@require("admin")
def lockout_lift(throttle_id: int) -> Any:
    db = get_session()
    if not sign_in.lift_lockout(session=db, actor=me().actor, throttle_id=throttle_id):
        abort(404)
    db.commit()
    flash(_("Lock lifted."))
    return redirect(url_for("admin.lockouts"))


def _optional_int(value: str, field: str) -> int | None:
    if not value:
        return None
    number = parse_id(value)
    if number is None:
        raise InputError(field, N_("Choose from the list."))
    return number


# --------------------------------------------------------------------------- installation

INSTALLATION = "installation"  # the target of the slow checks' job


def _age(seconds: float) -> str:
    """An age in the largest unit that keeps it a whole number above one."""
    minutes = int(seconds // 60)
    if minutes < 120:
        return f"{max(0, minutes)} min"
    if minutes < 48 * 60:
        return f"{minutes // 60} h"
    return f"{minutes // (24 * 60)} d"


@bp.route("/installation")
@require("admin")
def installation() -> Any:
    """The installation's health: every check with its fix, the last backup, the queue, the
    disk and the versions. The slow checks show their last verdict; a button runs them."""
    from pathlib import Path

    from flask import current_app

    from tid.clock import utcnow
    from tid.jobs import tasks
    from tid.services import installation as health
    from tid.services.installation import facts

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    db = get_session()
    engine = current_app.extensions["tid.engine"]
    instance = Path(current_app.instance_path)
    checks = health.current(session=db, engine=engine, config=current_app.config, instance=instance)
    found = facts.gather(
        session=db,
        engine=engine,
        config=current_app.config,
        instance=instance,
        queue_depth=tasks.queue_depth(app),
    )
    now = utcnow()
    oldest = found.oldest_waiting
    return render_template(
        "admin/installation.html",
        checks=checks,
        failing=sum(1 for check in checks if not check.ok),
        facts=found,
        backup_age=_age((now - found.last_backup_at).total_seconds())
        if found.last_backup_at
        else None,
        oldest_age=_age((now - facts.aware(oldest.created_at)).total_seconds()) if oldest else None,
        job_target=INSTALLATION,
        job_kind=tasks.INSTALLATION_CHECKS,
        mail_to=me().email,
    )


@bp.route("/installation/checks", methods=["POST"])
@require("admin")
def installation_checks() -> Any:
    """Run the slow checks (a test message to the address given, a backup's round trip) in
    the background; the page follows the job."""
    from tid.jobs import tasks
    from tid.web.jobs import start

    mail_to = request.form.get("mail_to", "").strip()[:254] or me().email
    if "@" not in mail_to or any(ord(ch) < 32 for ch in mail_to):
        flash(_("Enter a valid email address."), "error")
        return redirect(url_for("admin.installation"))
    job = start(
        tasks.INSTALLATION_CHECKS,
        params={"mail_to": mail_to},
        district_id=None,
        target=INSTALLATION,
    )
    return redirect(url_for("admin.installation", job=job.id))
