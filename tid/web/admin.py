"""Accounts, for administrators: list, create, deactivate, force a new password, reset
two-factor sign-in, and lift sign-in lock-outs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import col, select

from tid.db import get_session
from tid.i18n import say
from tid.ids import parse_id
from tid.models import District, Municipality, Role, User
from tid.rules.errors import N_, FindingsError, InputError
from tid.services import users
from tid.web import nav
from tid.web.access import me, require

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
    accounts = list(db.exec(select(User).order_by(col(User.role), col(User.email))))
    municipalities = {m.id: m.name for m in db.exec(select(Municipality))}
    districts = {d.id: d.name for d in db.exec(select(District))}
    return render_template(
        "admin/users.html", accounts=accounts, municipalities=municipalities, districts=districts
    )


@bp.route("/users/new", methods=["GET", "POST"])
@require("admin")
def users_new() -> Any:
    db = get_session()
    municipalities = list(db.exec(select(Municipality).order_by(col(Municipality.name))))
    districts = list(db.exec(select(District).order_by(col(District.name))))
    errors: dict[str, str] = {}
    values = {name: request.form.get(name, "") for name in _FIELD_NAMES}
    if request.method == "POST":
        picked: dict[str, int | None] = {}
        for name in ("municipality", "district"):
            try:
                picked[name] = _optional_int(values[name], name)
            except InputError as exc:
                errors[exc.field] = _(exc.message)
                picked[name] = None
        municipality_id, district_id = picked["municipality"], picked["district"]
        try:
            users.create_user(
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
        except InputError as exc:
            db.rollback()
            findings = exc.findings if isinstance(exc, FindingsError) else [exc]
            for finding in findings:
                errors.setdefault(finding.field, say(finding.message))
        if errors:
            db.rollback()
        else:
            db.commit()
            flash(_("Account created."))
            return redirect(url_for("admin.users_list"))
    return render_template(
        "admin/user_form.html",
        values=values,
        errors=errors,
        role_options=[(r.value, _(r.value)) for r in Role],
        municipality_options=[(m.id, m.name) for m in municipalities],
        district_options=[(d.id, d.name) for d in districts],
    ), (422 if errors else 200)


@bp.route("/users/<int:user_id>/active", methods=["POST"])
@require("admin")
def users_set_active(user_id: int) -> Any:
    db = get_session()
    active = request.form.get("active") == "1"
    try:
        users.set_active(session=db, actor=me().actor, user_id=user_id, active=active)
    except InputError as exc:
        db.rollback()
        flash(say(exc.message), "error")
    else:
        db.commit()
        flash(_("Account reactivated.") if active else _("Account deactivated."))
    return redirect(url_for("admin.users_list"))


@bp.route("/users/<int:user_id>/reset-password", methods=["POST"])
@require("admin")
def users_force_reset(user_id: int) -> Any:
    """The account's password stops working, its logins end, and a reset link is mailed."""
    from datetime import timedelta

    from flask import current_app

    from tid.services import passwords
    from tid.web.auth import send_reset_mail

    db = get_session()
    try:
        user = passwords.force_reset(db, actor=me().actor, user_id=user_id)
    except InputError as exc:
        db.rollback()
        flash(say(exc.message), "error")
        return redirect(url_for("admin.users_list"))
    minutes = int(current_app.config.get("PASSWORD_RESET_MINUTES") or 60)
    found = passwords.request_reset(db, email=user.email, lifetime=timedelta(minutes=minutes))
    db.commit()
    if found is not None:
        send_reset_mail(*found, forced=True)
    flash(
        _("The password of %(email)s no longer works; a link to set a new one was emailed.")
        % {"email": user.email}
    )
    return redirect(url_for("admin.users_list"))


@bp.route("/users/<int:user_id>/two-factor-off", methods=["POST"])
@require("admin")
def users_two_factor_off(user_id: int) -> Any:
    """For a lost phone with no recovery codes left: the person enrols again next time."""
    from tid.services import two_factor

    db = get_session()
    user = db.get(User, user_id)
    if user is None:
        abort(404)
    two_factor.disable(db, actor=me().actor, user=user)
    db.commit()
    flash(_("Two-factor sign-in of %(email)s was reset.") % {"email": user.email})
    return redirect(url_for("admin.users_list"))


@bp.route("/lockouts")
@require("admin")
def lockouts() -> Any:
    """Sign-in lock-outs and delays in force, by account (typed email) and by address."""
    from tid.services import throttle

    rows = throttle.active(get_session(), prefix="login-")
    return render_template("admin/lockouts.html", rows=rows)


@bp.route("/lockouts/<int:throttle_id>/lift", methods=["POST"])
@require("admin")
def lockout_lift(throttle_id: int) -> Any:
    from tid.models import Throttle
    from tid.services import throttle

    db = get_session()
    row = db.get(Throttle, throttle_id)
    if row is None:
        abort(404)
    throttle.lift(db, actor=me().actor, key=row.key)
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
