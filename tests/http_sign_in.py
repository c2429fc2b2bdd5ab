"""Signing in over HTTP as a browser sends the login form: the form's token read from its
page, the form posted, the session kept in a cookie jar. One name for the browser throughout:
the app binds a session to its browser's name and address (Flask-Login's strong
protection). The browser tests hand the jar's cookies to Chromium (tests/browser/harness.py);
the web benchmark sends them with wrk (benchmarks/web.py)."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.parse
import urllib.request
from urllib.parse import urlsplit

_TOKEN = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def signed_in_jar(
    base: str, email: str | None, password: str, agent: str, language: str | None = None
) -> http.cookiejar.CookieJar:
    """The cookies of ``email`` signed in at the site ``base`` (None: nobody), the site
    speaking ``language`` when one is given (the header's toggle, after the sign-in, which
    starts a new session)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("User-Agent", agent)]

    def send(form_page: str, target: str, fields: dict[str, str]) -> str:
        """POST ``fields`` to ``target`` with the form token of ``form_page``; the address
        that answered, after its redirects."""
        page = opener.open(base + form_page).read().decode()
        token = _TOKEN.search(page)
        assert token is not None, f"{form_page} has no form token"
        body = urllib.parse.urlencode({"csrf_token": token.group(1), **fields}).encode()
        return str(opener.open(base + target, data=body).geturl())

    if email is not None:
        answered = send("/login", "/login", {"email": email, "password": password})
        if urlsplit(answered).path == "/login":
            raise RuntimeError(f"{email} could not sign in")
    if language is not None:
        send("/", f"/lang/{language}", {"next": "/"})
    return jar
