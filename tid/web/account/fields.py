"""What the account's pages read from a request and share: the fiscal year and page asked
for, the fields of their forms (an amount of the account, a date, a booking form's one-time
token), the district's property in the URL, and the cap's figures said to the reader."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import TypeVar

from flask import abort, flash, redirect, request
from flask_babel import gettext as _
from werkzeug.wrappers import Response as BaseResponse

from tid.db import get_session
from tid.ids import parse_page
from tid.models import District, Property
from tid.rules.errors import N_, InputError
from tid.rules.money import parse_money, within_account_limit
from tid.rules.periods import FiscalYear, parse_date, parse_fiscal_year
from tid.services import ledger
from tid.services.account import account_reads
from tid.services.ledger import CapExceededError
from tid.web.access import deny_unless, may_write_district
from tid.web.account.kept import kept_for_today
from tid.web.forms import Form
from tid.web.util import today

T = TypeVar("T")


def writer(district: District) -> None:
    """403 unless the logged-in user may write the district's account."""
    deny_unless(may_write_district(district))


def fiscal_year(district_id: int) -> FiscalYear:
    """The fiscal year asked for; by default today's, or the last one the district booked
    anything in when that is earlier (a page of empty months helps nobody)."""
    raw = request.args.get("fy", "")
    if raw:
        try:
            return parse_fiscal_year(raw)
        except InputError:
            abort(404)
    return kept_for_today(
        district_id=district_id,
        key=("default fiscal year",),
        make=lambda: account_reads.default_fiscal_year(
            session=get_session(), district_id=district_id, today=today()
        ),
    )


def page_number() -> int:
    return parse_page(request.args.get("page", "1"))


def booked_by() -> date | None:
    """``?booked_by=2025-09-15``: the journal as it stood at the end of that day (Puerto
    Rico), to reproduce a statement already issued."""
    raw = request.args.get("booked_by", "")
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        abort(404)


def money_field(values: dict[str, str], name: str) -> Decimal:
    """An amount of the special account (within the account's limit, tid.rules.money)."""
    try:
        amount = parse_money(values.get(name, ""), name, allow_negative=True)
    except InputError:
        raise InputError(name, N_("Write an amount like 1,234.50.")) from None
    try:
        return within_account_limit(amount, name)
    except InputError:
        raise InputError(name, ledger.AMOUNT_TOO_LARGE) from None


def date_field(values: dict[str, str], name: str) -> date:
    try:
        return parse_date(values.get(name, ""), name)
    except InputError:
        raise InputError(name, N_("Write a date like 2026-03-02.")) from None


TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
FORM_TOKEN_MISSING = N_(
    "This form was not sent whole (its one-time token is missing); nothing was booked. "
    "Check the list below and send the form again."
)


def form_token(values: dict[str, str]) -> str:
    """The one-time token of a booking form: a payment or expenditure is booked once per
    token, so a form sent without one (a script, a replay) is refused, never booked anew."""
    token = values.get("token", "")
    if not TOKEN.fullmatch(token):
        raise InputError("token", FORM_TOKEN_MISSING)
    return token


def keep_token(values: dict[str, str]) -> None:
    """A form shown again keeps its one-time token; a new form gets a new one."""
    if not TOKEN.fullmatch(values["token"]):
        values["token"] = secrets.token_urlsafe(16)


def district_property(district: District, property_id: int) -> Property:
    """The district's property in the URL (404 if it is not one of the district's)."""
    prop = account_reads.district_property(
        session=get_session(), district_id=district.id or 0, property_id=property_id
    )
    if prop is None:
        abort(404)
    return prop


def cap_text(figures: ledger.CapFigures) -> str:
    from tid.i18n import money

    return str(
        _(
            "FY %(fy)s: impost revenue collected to date %(revenue)s; administrative spending "
            "to date %(admin)s; cap %(cap)s; headroom %(headroom)s.",
            fy=figures.fiscal_year.label,
            revenue=money(figures.revenue),
            admin=money(figures.admin),
            cap=money(figures.cap_shown),
            headroom=money(figures.headroom),
        )
    )


def within_cap(form: Form, write: Callable[[], T]) -> tuple[T | None, CapExceededError | None]:
    """The form's one write (``Form.write``), with a refusal by the administrative cap kept
    apart: rolled back and returned, for the page to say with the cap's figures."""
    refused: CapExceededError | None = None

    def attempt() -> T | None:
        nonlocal refused
        try:
            return write()
        except CapExceededError as exc:
            get_session().rollback()
            refused = exc
            return None

    return form.write(attempt), refused


def saved_or_said(form: Form, message: str, target: str) -> BaseResponse:
    """A form of one button: saved, ``message`` said; refused, its errors said; either way
    on to ``target``."""
    done = form.saved(message, target)
    if done:
        return done
    for error in form.errors.values():
        flash(error, "error")
    return redirect(target)
