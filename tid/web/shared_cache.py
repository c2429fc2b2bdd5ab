"""A public answer that a shared cache may keep sets no cookie.

The public feeds, files and open data say ``Cache-Control: public`` (or carry an ``ETag``, as
the static files do): a proxy or a CDN may keep one answer and hand it to everyone who asks
after. A cookie in it would be handed on too — one reader's session to every other reader —
so such an answer carries no ``Set-Cookie``, whatever the request carried (a signed-in
person's session, an anonymous reader's chosen language) and whatever the request did to
the session: the session cookie is neither refreshed nor cleared by it, and the sign-in's
other cookies are not touched (the next page that may set them does). It still says
``Vary: Cookie`` where its words depended on the session (the reader's language)."""

from __future__ import annotations

from flask import Flask, Response
from flask.sessions import SecureCookieSessionInterface, SessionMixin


def shared_cacheable(response: Response) -> bool:
    """Whether a shared cache may keep the answer: not ``no-store`` nor ``private``, and
    ``public``, a lifetime or an ``ETag`` to keep it by."""
    control = response.cache_control
    if control.no_store or control.private:
        return False
    return bool(
        control.public
        or control.max_age is not None
        or control.s_maxage is not None
        or response.headers.get("ETag")
    )


class PublicAnswersSetNoCookie(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, saved on every answer but those a shared cache may
    keep (:func:`shared_cacheable`), which leave with no ``Set-Cookie`` at all."""

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        if not shared_cacheable(response):
            super().save_session(app, session, response)
            return
        response.headers.remove("Set-Cookie")
        if session.accessed:
            response.vary.add("Cookie")
