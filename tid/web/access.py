"""Who may do what: logins (server-side sessions) and role checks on every route."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Flask, abort, g, redirect, request, url_for
from flask_login import LoginManager, current_user

from tid.db import get_session
from tid.models import District, Role
from tid.services import ledger, places
from tid.services.audit_trail import audit
from tid.services.auth import access as policy
from tid.services.auth.users import SignedIn, user_for_token

F = TypeVar("F", bound=Callable[..., Any])

login_manager = LoginManager()
login_manager.login_view = "auth.login"
login_manager.session_protection = "strong"


@dataclass(frozen=True)
class AuthUser(SignedIn):
    """The logged-in person as the web sees them (not the database row): the person of a
    live login and its token."""

    token: str

    is_authenticated = True
    is_active = True
    is_anonymous = False

    def get_id(self) -> str:
        return self.token

    @classmethod
    def of(cls, person: Any, token: str) -> AuthUser:
        """The person of login ``token`` (a user's row, or the columns a request reads)."""
        return cls(token=token, **SignedIn.values(person))

    @property
    def actor(self) -> audit.Actor:
        return audit.Actor(self.email, self.id)

    def can_see_municipality(self, municipality_id: int | None) -> bool:
        return policy.can_see_municipality(self, municipality_id)

    def can_see_district(self, district_id: int | None, municipality_id: int | None) -> bool:
        return policy.can_see_district(self, district_id, municipality_id)


@login_manager.user_loader  # type: ignore[untyped-decorator]
def _load_user(token: str) -> AuthUser | None:
    from datetime import timedelta

    from flask import current_app

    config = current_app.config
    user = user_for_token(
        session=get_session(),
        token=token,
        idle=timedelta(minutes=int(config.get("SESSION_IDLE_MINUTES") or 30)),
        lifetime=timedelta(hours=int(config.get("SESSION_LIFETIME_HOURS") or 12)),
    )
    if user is None or user.id is None:
        return None
    return AuthUser.of(user, token)


def init_app(app: Flask) -> None:
    """Install the login manager."""
    login_manager.init_app(app)


def me() -> AuthUser:
    """The logged-in user (only call inside a route that requires a login)."""
    return cast(AuthUser, current_user._get_current_object())


def require(*roles: str) -> Callable[[F], F]:
    """Allow only logged-in users with one of ``roles`` (anonymous: to the login page)."""
    allowed = {Role(r).value for r in roles}

    def decorator(view: F) -> F:
        @wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if not current_user.is_authenticated:
                if request.path.startswith("/api/"):
                    abort(401)
                target = request.full_path if request.query_string else request.path
                return redirect(url_for("auth.login", next=target))
            if current_user.role not in allowed:
                abort(403)
            if request.method == "POST" and "district_id" in kwargs:
                one_writer_at_a_time(int(kwargs["district_id"]))
            return view(*args, **kwargs)

        wrapped.required_roles = frozenset(allowed)  # type: ignore[attr-defined]
        return cast(F, wrapped)

    return decorator


def one_writer_at_a_time(district_id: int) -> None:
    """Every form sent about a district — a payment, a quote's settlement, an expenditure, a
    reversal, a year's lock, a publishing choice — waits for the district's other writers
    and decides on what they wrote: two tabs sending at once have the effect of one after
    the other, and the second is refused or finds its work done, as it would be if sent
    later. Held until the request's transaction ends (its commit, or the rollback of a
    refusal or an error)."""
    ledger.lock_district(session=get_session(), district_id=district_id)


def public(view: F) -> F:
    """Mark a route as open to everyone (so the access table says so on purpose)."""
    view.required_roles = None  # type: ignore[attr-defined]
    return view


ALL_ROLES = policy.ALL_ROLES
STAFF = policy.STAFF


def deny_unless(condition: bool) -> None:
    """403 unless ``condition``: for scope checks inside a route (this municipality?)."""
    if not condition:
        abort(403)


def visible_district(district_id: int) -> District:
    """The district, if the logged-in user may see it (404 if there is none, 403 if not)."""
    district, version = places.district_and_version(session=get_session(), district_id=district_id)
    if district is None:
        abort(404)
    deny_unless(me().can_see_district(district.id, district.municipality_id))
    if request.method == "GET":  # a page's kept content is of this version (account/kept.py)
        g.setdefault(VERSIONS_READ, {})[district_id] = version
    return district


# flask.g: the districts' versions a GET read with the district (tid/web/account/kept.py).
VERSIONS_READ = "tid_versions_read"


def may_write_district(district: District) -> bool:
    """Whether the logged-in user may change the district's records: an administrator, or
    the district's own association."""
    return policy.may_write_district(me(), district.id)
