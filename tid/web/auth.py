"""Logging in and out, and the language toggle."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import login_user, logout_user
from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField
from wtforms.validators import DataRequired

from tid.db import get_session
from tid.services import users
from tid.web.access import ALL_ROLES, AuthUser, me, public, require

bp = Blueprint("auth", __name__)


class LoginForm(FlaskForm):  # type: ignore[misc]
    email = EmailField("Email", validators=[DataRequired()])
    password = PasswordField("Password", validators=[DataRequired()])


def _safe_next(target: str | None) -> str:
    """Only same-site paths: never send someone to another host after logging in."""
    if not target:
        return url_for("main.home")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return url_for("main.home")
    return target


@bp.route("/login", methods=["GET", "POST"])
@public
def login() -> Any:
    form = LoginForm()
    error = None
    if form.validate_on_submit():
        db = get_session()
        user = users.authenticate(session=db, email=form.email.data, password=form.password.data)
        if user is None or user.id is None:
            error = _("Wrong email or password.")
        else:
            login = users.open_login(session=db, user=user)
            db.commit()
            session.clear()
            login_user(
                AuthUser(
                    id=user.id,
                    token=login.token,
                    email=user.email,
                    name=user.name,
                    role=user.role,
                    municipality_id=user.municipality_id,
                    district_id=user.district_id,
                    locale=user.locale,
                )
            )
            return redirect(_safe_next(request.args.get("next")))
    return render_template("auth/login.html", form=form, error=error), (401 if error else 200)


@bp.route("/logout", methods=["POST"])
@require(*ALL_ROLES)
def logout() -> Any:
    db = get_session()
    users.close_login(session=db, token=me().token)
    db.commit()
    logout_user()
    session.clear()
    flash(_("You have logged out."))
    return redirect(url_for("auth.login"))


@bp.route("/lang/<code>", methods=["POST"])
@public
def set_language(code: str) -> Any:
    from flask import current_app

    if code in current_app.config["LANGUAGES"]:
        session["lang"] = code
    back = request.form.get("next") or (request.referrer and urlsplit(request.referrer).path)
    return redirect(_safe_next(back or None))
