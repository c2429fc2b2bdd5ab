"""Signing in and out, the second factor, passwords, one's own sessions, and the language
toggle.

Sign-in is throttled in the database (tid/services/limits/throttle.py): a browser that signed in to
the account before by its own allowance, any other per client address and, by a short
delay, per typed email (tid/services/auth/sign_in.py). An unknown email goes through the same
steps, the same argon2 work and the same answers as a known one.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    abort,
    after_this_request,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_login import login_user, logout_user
from itsdangerous import BadSignature, URLSafeSerializer

from tid.clock import utcnow
from tid.db import get_session
from tid.models import User
from tid.services.auth import passwords, sign_in, two_factor, users
from tid.services.limits import throttle
from tid.web.access import ALL_ROLES, AuthUser, me, public, require
from tid.web.forms import Form

bp = Blueprint("auth", __name__)
log = logging.getLogger(__name__)

PENDING_KEY = "pending_sign_in"
PENDING_FOR = timedelta(minutes=5)


def _safe_next(target: str | None) -> str:
    """Only same-site paths: never send someone to another host after logging in."""
    if not target:
        return url_for("main.home")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return url_for("main.home")
    return target


def _client() -> str:
    return throttle.key_part(request.remote_addr or "unknown", 64)


DEVICE_COOKIE = "tid_device"


def _device_signer() -> URLSafeSerializer:
    return URLSafeSerializer(str(current_app.config["SECRET_KEY"]), salt="tid-known-device")


def _device_ids() -> list[str]:
    """The ids of the accounts' devices this browser holds (its signed cookie; none if
    the cookie is missing or not the app's)."""
    raw = request.cookies.get(DEVICE_COOKIE, "")
    if not raw or len(raw) > 1000:
        return []
    try:
        value = _device_signer().loads(raw)
    except BadSignature:
        return []
    if not isinstance(value, list):
        return []
    ids = [v for v in value if isinstance(v, str) and 0 < len(v) <= 64]
    return ids[: sign_in.DEVICES_PER_BROWSER]


def _browser() -> sign_in.Browser:
    """This request's client, the devices its cookie names, and the installation's limits
    (see tid/services/auth/sign_in.py)."""
    config = current_app.config
    limits = sign_in.Limits(
        after=max(1, int(config.get("LOGIN_LOCKOUT_AFTER") or 10)),
        lockout=timedelta(minutes=max(1, int(config.get("LOGIN_LOCKOUT_MINUTES") or 30))),
    )
    return sign_in.Browser(address=_client(), device_ids=_device_ids(), limits=limits)


def _remember_device(ids: list[str]) -> None:
    """This browser signed in to the account: its cookie names it as a known device."""
    value = _device_signer().dumps(ids)
    secure = bool(current_app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure

    @after_this_request
    def _set(response: Response) -> Response:
        response.set_cookie(
            DEVICE_COOKIE,
            value,
            max_age=int(sign_in.DEVICE_LIFETIME.total_seconds()),
            httponly=True,
            secure=secure,
            samesite="Lax",
        )
        return response


def _refusal_message(refused: throttle.Refused) -> str:
    if refused.locked:
        message = _(
            "Too many failed attempts: sign-in here is locked for %(minutes)s minutes. "
            "A link from “Forgot your password?” lets you in at once; an administrator can "
            "also lift the lock."
        ) % {"minutes": refused.minutes()}
    else:
        message = _("Too many failed attempts. Try again in %(seconds)s seconds.") % {
            "seconds": refused.seconds()
        }
    return str(message)


def _refusal(refused: throttle.Refused, template: str, **context: Any) -> Any:
    page = render_template(template, error=_refusal_message(refused), **context)
    return page, 429, {"Retry-After": str(refused.seconds())}


def _fresh_session() -> None:
    """A new session for a new identity (signed in, out, or by a reset link): nothing of the
    old one is kept but the language its reader chose (the toggle outranks the account's)."""
    chosen = session.get("lang")
    session.clear()
    if chosen is not None:
        session["lang"] = chosen


def _finish_login(user: User) -> Any:
    """Open the server-side login and send the person on."""
    token, ids = sign_in.open_login(
        session=get_session(),
        user=user,
        browser=_browser(),
        user_agent=request.headers.get("User-Agent", ""),
    )
    _remember_device(ids)
    target = _safe_next(_pending().get("next") or request.args.get("next"))
    _fresh_session()
    login_user(AuthUser.of(user, token))
    return redirect(target)


def _pending() -> dict[str, Any]:
    value = session.get(PENDING_KEY)
    return value if isinstance(value, dict) else {}


def _pending_user() -> User | None:
    """The person who gave the right password and still owes the second factor."""
    pending = _pending()
    try:
        since = datetime.fromisoformat(str(pending.get("since")))
    except ValueError:
        return None
    if utcnow() - since > PENDING_FOR:
        session.pop(PENDING_KEY, None)
        return None
    user = users.account(session=get_session(), user_id=int(pending.get("uid") or 0))
    return user if user is not None and user.active else None


@bp.route("/login", methods=["GET", "POST"])
@public
def login() -> Any:
    email = request.form.get("email", "")[:254]
    password = request.form.get("password", "")
    values = {"email": email}
    error = None
    if request.method == "POST" and not (email.strip() and password):
        error = _("Enter your email and your password.")
        return render_template("auth/login.html", values=values, error=error), 422
    if request.method == "POST":
        step = sign_in.by_password(
            session=get_session(),
            email=email,
            password=password,
            browser=_browser(),
            two_factor_roles=current_app.config.get("TWO_FACTOR_ROLES", frozenset()),
        )
        if step.refused is not None:
            return _refusal(step.refused, "auth/login.html", values=values)
        if step.user is None:
            error = _("Wrong email or password.")
        elif step.outcome in (sign_in.CODE, sign_in.ENROL):
            return _ask_second_factor(step.user, step.outcome)
        else:
            return _finish_login(step.user)
    return render_template("auth/login.html", values=values, error=error), (401 if error else 200)


def _ask_second_factor(user: User, outcome: str) -> Any:
    """The password is proven: the code from the app (or enrolment) comes next."""
    session[PENDING_KEY] = {
        "uid": user.id,
        "since": utcnow().isoformat(),
        "next": _safe_next(request.args.get("next")),
    }
    if outcome == sign_in.CODE:
        return redirect(url_for("auth.second_factor"))
    return redirect(url_for("auth.enrol"))


def _start_again() -> Any:
    """No sign-in is waiting for its second factor here (none began, or it expired)."""
    return render_template("auth/start_again.html")


@bp.route("/login/code", methods=["GET", "POST"])
@public
def second_factor() -> Any:
    user = _pending_user()
    if user is None or not two_factor.is_enabled(user):
        return _start_again()
    if request.method == "GET":
        return render_template("auth/second_factor.html", error=None)
    code = request.form.get("code", "")[:40]
    step = sign_in.by_code(session=get_session(), user=user, code=code, browser=_browser())
    if step.refused is not None:
        return _refusal(step.refused, "auth/second_factor.html")
    if step.outcome != sign_in.SIGNED_IN:
        page = render_template("auth/second_factor.html", error=_("That code is not right."))
        return page, 401
    left = step.recovery_codes_left or 0
    response = _finish_login(user)
    if left < 3:
        flash(_("Only %(count)s recovery codes are left: make new ones.") % {"count": left})
    return response


@bp.route("/login/enrol", methods=["GET", "POST"])
@public
def enrol() -> Any:
    """Two-factor sign-in is required for this role and not set up yet: set it up now."""
    user = _pending_user()
    if user is None:
        return _start_again()
    db = get_session()
    if two_factor.is_enabled(user):
        return redirect(url_for("auth.second_factor"))
    result = _enrol_step(user, "auth/enrol.html")
    if isinstance(result, list):
        sign_in.enrolled(session=db, user=user, browser=_browser())
        _finish_login(user)
        return render_template("auth/recovery_codes.html", codes=result, next=url_for("main.home"))
    return result


def _enrol_step(user: User, template: str) -> Any:
    """Show the QR code (a new secret, kept unconfirmed on the account), or confirm it with
    a code from the app: returns the recovery codes once confirmed."""
    db = get_session()
    if request.method == "POST":
        code = request.form.get("code", "")[:40]
        if user.totp_secret:
            codes = two_factor.enable(session=db, user=user, secret=user.totp_secret, code=code)
            if codes is not None:
                db.commit()
                return codes
        error = _("That code is not right. Check the phone's clock and try the new code.")
        status = 422
    else:
        two_factor.begin_enrolment(session=db, user=user)
        db.commit()
        error, status = None, 200
    secret = user.totp_secret or ""
    uri = two_factor.provisioning_uri(secret, user.email)
    page = render_template(
        template,
        error=error,
        secret=" ".join(secret[i : i + 4] for i in range(0, len(secret), 4)),
        qr=two_factor.qr_svg_data_uri(uri),
    )
    return page, status


@bp.route("/logout", methods=["POST"])
@require(*ALL_ROLES)
def logout() -> Any:
    db = get_session()
    users.close_login(session=db, token=me().token)
    db.commit()
    logout_user()
    _fresh_session()
    flash(_("You have logged out."))
    return redirect(url_for("auth.login"))


# --------------------------------------------------------------------------- passwords


def _reset_rules(email: str) -> list[tuple[str, throttle.Policy]]:
    hour = timedelta(hours=1)
    return [
        (
            f"reset-account:{throttle.key_part(email)}",
            throttle.Policy(free=3, lockout_after=3, lockout=hour, window=hour),
        ),
        (
            f"reset-address:{_client()}",
            throttle.Policy(free=10, lockout_after=10, lockout=hour, window=hour),
        ),
    ]


@bp.route("/password/forgot", methods=["GET", "POST"])
@public
def forgot() -> Any:
    if request.method == "GET":
        return render_template("auth/forgot.html", error=None, sent=False)
    db = get_session()
    email = request.form.get("email", "")[:254]
    refused = throttle.reserve(session=db, rules=_reset_rules(email))
    db.commit()
    if isinstance(refused, throttle.Refused):
        return _refusal(refused, "auth/forgot.html", sent=False)
    user = passwords.account_to_reset(session=db, email=email)
    if user is not None:
        queue_reset_mail(user, forced=False)
    return render_template("auth/forgot.html", error=None, sent=True)


def queue_reset_mail(user: User, *, forced: bool) -> None:
    """A link to set a new password, mailed by a worker (tid/jobs/tasks.py); a queue out of reach
    is logged, and the worker's sweep sends the job again."""
    from tid.jobs import tasks

    try:
        tasks.queue_reset_mail(current_app._get_current_object(), user, forced=forced)  # type: ignore[attr-defined]
    except Exception:
        log.exception("the password reset mail of account %s could not be queued", user.id)


@bp.route("/password/reset", methods=["GET", "POST"])
@public
def reset() -> Any:
    """The link's page: its token comes in the form (never in a URL a log keeps)."""
    db = get_session()
    if request.method == "GET":
        return render_template("auth/reset.html", expired=False, errors={}, token="")
    token = request.form.get("token", "").strip()[:100]
    user = passwords.reset_user(session=db, token=token)
    if user is None:
        return render_template("auth/reset.html", expired=True, errors={}, token=""), 404
    form = Form()
    form.write(
        lambda: passwords.reset_with_token(
            session=db,
            token=token,
            new=request.form.get("password", ""),
            confirm=request.form.get("confirm", ""),
        )
    )
    if not form.errors:
        # The link proved who this is: the account's delays and locks end, and the
        # person is in (after their second factor, if they have one).
        step, ids = sign_in.by_reset_link(
            session=db,
            user=user,
            browser=_browser(),
            two_factor_roles=current_app.config.get("TWO_FACTOR_ROLES", frozenset()),
        )
        _fresh_session()
        if step.outcome in (sign_in.CODE, sign_in.ENROL):
            _remember_device(ids)
            response = _ask_second_factor(user, step.outcome)
        else:
            response = _finish_login(user)
        flash(_("Your new password is set."))
        return response
    page = render_template(
        "auth/reset.html", expired=False, errors=form.errors, email=user.email, token=token
    )
    return page, 422


# --------------------------------------------------------------------------- my account


def _session_settings() -> tuple[timedelta, timedelta]:
    config = current_app.config
    return (
        timedelta(minutes=int(config.get("SESSION_IDLE_MINUTES") or 30)),
        timedelta(hours=int(config.get("SESSION_LIFETIME_HOURS") or 12)),
    )


def _me_user() -> User:
    user = users.account(session=get_session(), user_id=me().id)
    if user is None:  # pragma: no cover - the login loader checked it
        abort(404)
    return user


@bp.route("/me")
@require(*ALL_ROLES)
def profile() -> Any:
    return _profile_page({})


def _profile_page(errors: dict[str, str], status: int = 200) -> Any:
    """*My account*; ``errors`` of its two-factor forms ("codes", "off") by form."""
    db = get_session()
    user = _me_user()
    idle, lifetime = _session_settings()
    roles = current_app.config.get("TWO_FACTOR_ROLES", frozenset())
    page = render_template(
        "auth/me.html",
        user=user,
        logins=users.live_logins(session=db, user_id=user.id or 0, idle=idle, lifetime=lifetime),
        current=me().token,
        two_factor_on=two_factor.is_enabled(user),
        two_factor_required=two_factor.is_required(user, roles),
        recovery_left=two_factor.recovery_codes_left(session=db, user_id=user.id or 0),
        idle_minutes=int(idle.total_seconds() // 60),
        lifetime_hours=int(lifetime.total_seconds() // 3600),
        errors=errors,
    )
    return page, status


def _confirmed(user: User, form: str) -> Any:
    """The person confirms a change of their second factor with their password or a current
    code from their app: None when they did; else the page that says what is wrong (a wrong
    answer counts against the sign-in limits, like a wrong password)."""
    answer = request.form.get("current", "")[: passwords.MAX_LENGTH + 1]
    if not answer.strip():
        message = _("Enter your password or a code from your app to confirm.")
        return _profile_page({form: message}, 422)
    step = sign_in.confirm(session=get_session(), user=user, answer=answer, browser=_browser())
    if step.refused is not None:
        page, _status = _profile_page({form: _refusal_message(step.refused)})
        return page, 429, {"Retry-After": str(step.refused.seconds())}
    if step.outcome == sign_in.SIGNED_IN:
        return None
    message = _("That is neither your password nor a current code from your app.")
    return _profile_page({form: message}, 422)


@bp.route("/me/password", methods=["GET", "POST"])
@require(*ALL_ROLES)
def change_password() -> Any:
    errors: dict[str, str] = {}
    if request.method == "POST":
        db = get_session()
        # Guessing the current password from an open session is throttled like signing in.
        rules, reservation = sign_in.reserve(session=db, email=me().email, browser=_browser())
        if isinstance(reservation, throttle.Refused):
            return _refusal(reservation, "auth/password.html", errors={})
        form = Form()
        form.write(
            lambda: passwords.change_own(
                session=db,
                user=_me_user(),
                current=request.form.get("current", ""),
                new=request.form.get("new", ""),
                confirm=request.form.get("confirm", ""),
                keep_token=me().token,
            )
        )
        if form.refused is None:
            throttle.release(session=db, reservation=reservation, clear=[rules[0][0]])
        elif form.refused.field != "current":  # only a wrong password counts as a try
            throttle.release(session=db, reservation=reservation)
            db.commit()
        done = form.saved(
            _("Password changed. Your other sessions have ended."), url_for("auth.profile")
        )
        if done:
            return done
        errors = form.errors
    return render_template("auth/password.html", errors=errors), (422 if errors else 200)


@bp.route("/me/two-factor", methods=["GET", "POST"])
@require(*ALL_ROLES)
def two_factor_setup() -> Any:
    user = _me_user()
    if two_factor.is_enabled(user):
        return redirect(url_for("auth.profile"))
    result = _enrol_step(user, "auth/enrol.html")
    if isinstance(result, list):
        return render_template(
            "auth/recovery_codes.html", codes=result, next=url_for("auth.profile")
        )
    return result


@bp.route("/me/two-factor/recovery-codes", methods=["GET", "POST"])
@require(*ALL_ROLES)
def recovery_codes() -> Any:
    if request.method == "GET":  # the codes are shown once; a reload goes back to the profile
        return redirect(url_for("auth.profile"))
    db = get_session()
    user = _me_user()
    if not two_factor.is_enabled(user):
        return redirect(url_for("auth.profile"))
    refused = _confirmed(user, "codes")
    if refused is not None:
        return refused
    codes = two_factor.new_recovery_codes(session=db, user=user)
    db.commit()
    return render_template("auth/recovery_codes.html", codes=codes, next=url_for("auth.profile"))


@bp.route("/me/two-factor/off", methods=["POST"])
@require(*ALL_ROLES)
def two_factor_off() -> Any:
    db = get_session()
    user = _me_user()
    roles = current_app.config.get("TWO_FACTOR_ROLES", frozenset())
    if two_factor.is_required(user, roles):
        flash(_("Two-factor sign-in is required for your role."), "error")
    elif two_factor.is_enabled(user):
        refused = _confirmed(user, "off")
        if refused is not None:
            return refused
        form = Form()
        form.write(lambda: two_factor.disable(session=db, actor=me().actor, user=user))
        return form.flashed(_("Two-factor sign-in is off."), url_for("auth.profile"))
    return redirect(url_for("auth.profile"))


@bp.route("/me/sessions/<int:login_id>/end", methods=["POST"])
@require(*ALL_ROLES)
def end_session(login_id: int) -> Any:
    db = get_session()
    users.end_one_login(session=db, user_id=me().id, login_id=login_id)
    db.commit()
    return redirect(url_for("auth.profile"))


@bp.route("/me/sessions/end-all", methods=["POST"])
@require(*ALL_ROLES)
def end_all_sessions() -> Any:
    """Sign out everywhere, this browser included."""
    db = get_session()
    passwords.end_logins(session=db, user_id=me().id)
    db.commit()
    logout_user()
    _fresh_session()
    flash(_("You have signed out everywhere."))
    return redirect(url_for("auth.login"))


@bp.route("/lang/<code>", methods=["POST"])
@public
def set_language(code: str) -> Any:
    if code in current_app.config["LANGUAGES"]:
        session["lang"] = code
    back = request.form.get("next") or (request.referrer and urlsplit(request.referrer).path)
    return redirect(_safe_next(back or None))
