"""Languages: Spanish first, English second; dates and money in the locale's format."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from babel import Locale
from babel.dates import format_datetime
from flask import Flask, current_app, has_request_context, request, session
from flask.globals import _cv_app
from flask_babel import Babel, Domain, get_locale, get_translations
from flask_login import current_user
from jinja2 import pass_context, pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup

from tid import clock
from tid.clock import PUERTO_RICO
from tid.render import formats
from tid.render.formats import usd as usd
from tid.rules.periods import FiscalYear, fiscal_year_of


class CatalogDomain(Domain):  # type: ignore[misc]  # Flask-Babel has no types
    """Flask-Babel's translations, asked of the one loader the core uses
    (:func:`tid.rules.messages.catalog`, from the app's translation folders): a page, a PDF
    drawn in a job and the command line read the same catalog, even a .po edited and not yet
    compiled."""

    def get_translations(self) -> Any:
        from babel.support import NullTranslations
        from flask import has_app_context

        from tid.rules import messages

        locale = get_locale() if has_app_context() else None
        if locale is None:
            return NullTranslations()
        return messages.catalog(str(locale), tuple(self.translation_directories))


babel = Babel()
babel.domain_instance = CatalogDomain()


def select_locale() -> str:
    """The chosen language: the toggle, then the account's, then Spanish."""
    languages: list[str] = current_app.config["LANGUAGES"]
    if has_request_context():
        chosen = session.get("lang")
        if chosen in languages:
            return str(chosen)
        if getattr(current_user, "is_authenticated", False) and current_user.locale in languages:
            return str(current_user.locale)
        if request.args.get("lang") in languages:
            return str(request.args["lang"])
    return str(current_app.config["BABEL_DEFAULT_LOCALE"])


def current_locale() -> Locale | None:
    """Flask-Babel's ``get_locale()``, read where Flask-Babel keeps it once the request has
    chosen it (or ``force_locale`` has set it): a long page asks for it hundreds of times, and
    the way through ``flask.g``'s proxies costs more than the message it translates."""
    app_context = _cv_app.get(None)
    if app_context is not None:
        kept = app_context.g.__dict__.get("_flask_babel")
        locale = getattr(kept, "babel_locale", None)
        if isinstance(locale, Locale):
            return locale
    chosen = get_locale()  # the first time in a request: the locale selector chooses
    return chosen if isinstance(chosen, Locale) else None


def language() -> str:
    locale = current_locale()
    return locale.language if locale is not None else "es"


def format_locale() -> str:
    return formats.format_locale(language())


def money(amount: Decimal | int | None) -> str:
    """``$1,234.50`` (negative amounts with a minus sign): written alike in both languages,
    so a long table's amounts do not each ask for the reader's language."""
    if formats.SAME_IN_EVERY_LANGUAGE:
        return formats.money(amount, "es")
    return formats.money(amount, language())


def number(value: Decimal | int | None) -> str:
    if formats.SAME_IN_EVERY_LANGUAGE:
        return formats.number(value, "es")
    return formats.number(value, language())


def rate(value: Decimal | None) -> str:
    """A rate (a fraction: ``0.065``) as a percentage in the reader's language: ``6.5%``;
    the rates of the law are printed from their parameter, never written in text."""
    return formats.percent(value, language())


def admin_cap_rate(fiscal_year: FiscalYear | None = None) -> Decimal:
    """The administrative cap's rate (21 LPRA § 6653(6), ``district.admin_cap_rate``) of a
    fiscal year, by default the current one."""
    from tid.rules.admin_cap import admin_cap_rate as rate_on

    fy = fiscal_year or fiscal_year_of(clock.today(current_app.config))
    return rate_on(fy.end)[0]


def day(value: date | None, style: str = "medium") -> str:
    """A date in the reader's language: ``2 mar 2026`` / ``Mar 2, 2026``."""
    return formats.day(value, language(), style)


def moment(value: datetime | None) -> str:
    """A UTC timestamp shown in Puerto Rico's time."""
    if value is None:
        return "—"
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    local = value.astimezone(PUERTO_RICO)
    pattern = "d MMM y HH:mm" if language() == "es" else "MMM d, y h:mm a"
    return str(format_datetime(local, pattern, locale=format_locale()))


def localized(text: str) -> str:
    """A message of the core or the services (:class:`tid.rules.messages.Message`) in the
    reader's language; other text is data and is shown as it is."""
    from tid.rules.messages import render

    return render(text)


# A formula's tokens: a text between quotes (a class of use: data, kept as written), or a name.
_FORMULA_TOKEN = re.compile(r'"[^"]*"|[A-Za-z_][A-Za-z0-9_]*')


@pass_context
def formula_words(_context: Any, text: str) -> str:
    """A formula with each name the formula vocabulary knows, written in English or in
    Spanish, as a formula in the reader's language names it (``valor_tasado`` on a Spanish
    page, ``assessed_value`` on an English one); texts between quotes are kept as written.
    Both forms read the same, so a stored formula is shown in the reader's words. Taking
    the context keeps Jinja from folding it into the template once, in the first page's
    language."""
    from tid.rules.messages import render
    from tid.rules.vocab.formula_names import formula_code, formula_name

    def word(found: re.Match[str]) -> str:
        token = found.group()
        if token.startswith('"'):
            return token
        return render(formula_name(formula_code(token)))

    return _FORMULA_TOKEN.sub(word, str(text or ""))


def say(message: str) -> str:
    """A message a service or the core gave (an error, a refusal) in the reader's language:
    a :class:`~tid.rules.messages.Message` from its msgid and parameters, a plain msgid by
    gettext."""
    from flask_babel import gettext

    from tid.rules.messages import Message, render

    return render(message) if isinstance(message, Message) else str(gettext(message))


def request_translations(lang: str | None) -> tuple[Any, str | None] | None:
    """The app's translations for :func:`tid.rules.messages.render` inside an app (the
    reader's language when ``lang`` is None); None outside one."""
    from flask import has_app_context
    from flask_babel import force_locale, get_translations

    if not has_app_context():
        return None
    if lang is None:
        locale = current_locale()
        if locale is None:
            return get_translations(), None
        return _kept_translations(locale), locale.language
    with force_locale(lang):
        return get_translations(), lang


def _kept_translations(locale: Any) -> Any:
    """The catalogs of the current ``locale``, kept on the app as Flask-Babel keeps them: a
    page renders hundreds of messages, and asking Flask-Babel for each costs more than them."""
    app_context = _cv_app.get(None)
    if app_context is not None:  # the request's last answer, for the same locale object
        last = app_context.g.__dict__.get("_tid_kept_translations")
        if last is not None and last[0] is locale:
            return last[1]
    extensions = app_context.app.extensions if app_context is not None else current_app.extensions
    kept: dict[Locale, Any] = extensions.setdefault("tid.translations", {})
    found = kept.get(locale)
    if found is None:
        found = kept[locale] = get_translations()
    if app_context is not None:
        app_context.g.__dict__["_tid_kept_translations"] = (locale, found)
    return found


def warm_catalogs(app: Flask) -> None:
    """Load every language's catalogs into the app's kept ones (a worker starting)."""
    from flask_babel import force_locale

    for lang in app.config["LANGUAGES"]:
        with app.test_request_context(), force_locale(lang):
            locale = get_locale()
            if isinstance(locale, Locale):
                _kept_translations(locale)


def _page_translations() -> Any:
    """The translations a template's ``_()`` reads: the reader's (or ``force_locale``'s)."""
    from babel.support import NullTranslations

    locale = current_locale()
    return NullTranslations() if locale is None else _kept_translations(locale)


@pass_eval_context
def template_gettext(eval_ctx: EvalContext, string: str, /, **variables: Any) -> str:
    """A template's ``_('…', name=value)``: the text in the reader's language, escaped as
    the template is, with its ``%(name)s`` filled in (always formatted: ``%%`` is ``%``)."""
    return _filled(eval_ctx, _page_translations().ugettext(string), variables)


@pass_eval_context
def template_ngettext(
    eval_ctx: EvalContext, singular: str, plural: str, num: int, /, **variables: Any
) -> str:
    """A template's ``ngettext('…', '…', n)``: as :func:`template_gettext`, the form for
    ``n`` (``%(num)s`` is ``n`` unless given)."""
    variables.setdefault("num", num)
    return _filled(eval_ctx, _page_translations().ungettext(singular, plural, num), variables)


def _filled(eval_ctx: EvalContext, text: str, variables: dict[str, Any]) -> str:
    """A translated text as Jinja's "newstyle" gettext gives it: escaped as the template
    is, then %-formatted (a text with nothing to fill in is returned as it is)."""
    marked = Markup(text) if eval_ctx.autoescape else text
    return marked % variables if variables or "%" in text else marked


def init_app(app: Flask) -> None:
    """Flask-Babel with our catalogs and the formatting filters."""
    from tid.rules import messages

    messages.set_translations_provider(request_translations)
    messages.set_field_labels(_field_label_in_request)
    babel.init_app(
        app,
        locale_selector=select_locale,
        default_translation_directories=str(app.root_path + "/translations"),
    )
    # Flask-Babel's own gettext callables, reading the kept catalogs (the same translations),
    # then the ones the templates call, with the same meaning as Jinja's "newstyle" ones
    # (the text escaped when the template is, always %-formatted) but called directly: Jinja's
    # pass through ``_`` to ``gettext`` to the catalog costs three calls of its own, and a
    # long page asks for hundreds of texts.
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s: _page_translations().ugettext(s),
        ngettext=lambda s, p, n: _page_translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: _page_translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: _page_translations().unpgettext(c, s, p, n),
    )
    app.jinja_env.globals["_"] = app.jinja_env.globals["gettext"] = template_gettext
    app.jinja_env.globals["ngettext"] = template_ngettext
    app.jinja_env.filters["money"] = money
    app.jinja_env.filters["code"] = code
    app.jinja_env.filters["number"] = number
    app.jinja_env.filters["day"] = day
    app.jinja_env.filters["moment"] = moment
    app.jinja_env.filters["localized"] = localized
    app.jinja_env.filters["formula_words"] = formula_words
    from tid.rules.certified_mail import grouped_article_number

    app.jinja_env.filters["article_number"] = grouped_article_number
    from tid.rules.vocab.lien_kinds import after_impost, ahead_of_impost, ranked_line_label

    app.jinja_env.filters["rate"] = rate
    app.jinja_env.globals["admin_cap_rate"] = admin_cap_rate
    app.jinja_env.globals["language"] = language
    app.jinja_env.globals["ranked_line_label"] = ranked_line_label
    app.jinja_env.globals["ahead_of_impost"] = ahead_of_impost
    app.jinja_env.globals["after_impost"] = after_impost
    from tid.rules.vocab.closing_terms import issued_kind_label

    app.jinja_env.globals["issued_kind_label"] = issued_kind_label
    from tid.services.auth import access

    app.jinja_env.globals["access"] = access  # the one access policy, for the templates
    app.jinja_env.globals["memo_message"] = journal_memo
    app.jinja_env.globals["bill_explanation"] = bill_explanation
    from tid.services.audit_trail import audit_words

    app.jinja_env.globals["audit_action"] = audit_words.action_label
    app.jinja_env.globals["audit_field"] = audit_words.field_label
    app.jinja_env.globals["audit_entity"] = audit_words.entity_label
    app.jinja_env.globals["audit_shown"] = audit_words.shown_value
    app.jinja_env.globals["audit_shown_fields"] = audit_words.shown_fields
    app.jinja_env.globals["audit_actor"] = audit_words.actor_label
    from tid.services.audit_trail import record_names

    app.jinja_env.globals["batch_name"] = record_names.batch_name


def code(text: str) -> Markup:
    """``text`` (escaped) set as code: a name or an example a user types, given to a message
    of the catalogs as a value."""
    return Markup("<code>%s</code>") % text


def _field_label_in_request(path: str) -> str:
    """A calculator's field as a page names it (``Collected (row 3)``); outside a request (a
    job, the command line) the path of the document itself."""
    from tid.documents import calc_text

    return calc_text.field_label(path) if has_request_context() else path


def journal_row_labels(rows: Any, purposes: Mapping[int, str]) -> dict[str, dict[str, str]]:
    """The labels of the accounts and kinds of a page of journal entries (``rows``: their
    ``entry`` and ``lines``) in the reader's language, each rendered once (a page shows the
    same few on hundreds of lines): ``{"accounts": {…}, "kinds": {…}}``, for the template to
    look up on each line. An authorized purpose's account is labelled by its name, from
    ``purposes`` (by id)."""
    from tid.services import ledger

    accounts = {line.account for row in rows for line in row.lines}
    kinds = {row.entry.kind for row in rows}
    names = dict(purposes)
    return {
        "accounts": {a: localized(ledger.account_label(a, names)) for a in accounts},
        "kinds": {k: localized(ledger.entry_kind_label(k)) for k in kinds},
    }


def bill_explanation(bill: Any) -> str:
    """How a bill's amount was computed, in the reader's language (bills made before the
    explanations were kept as messages: their Spanish or English text)."""
    from tid.rules.messages import render_json

    if bill.explanation_message:
        return render_json(bill.explanation_message)
    if language() == "es" and bill.explanation_es:
        return str(bill.explanation_es)
    return str(bill.explanation)


def journal_memo(kind: str, memo: str, bills: Mapping[int, str] | None = None) -> str:
    from tid.services import ledger

    return localized(ledger.memo_message(kind, memo, bills))
