"""Messages: what the core and the services say, as a msgid and its parameters.

A :class:`Message` is a ``str`` equal to its English sentence (so JSON, logs and code that
compare text keep working) that also carries its msgid and parameters, so that
:func:`render` can say it in any language from the gettext catalogs
(tid/translations; ``make messages`` extracts every ``Message("...")`` and ``N_("...")``).
Parameters are data (names, figures already written, dates, codes) or messages themselves
(rendered in the same language).

:func:`render` is the one way a message becomes a sentence: the web (in the reader's
language, or under ``flask_babel.force_locale``), the jobs, the emails, the iCal feed, the
CSV and PDF documents, and the calculators' ``warnings_es`` all go through it.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_currency
from babel.support import NullTranslations, Translations

TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"


def N_(message: str) -> str:  # noqa: N802 - the gettext convention
    """Mark a message for translation without translating it here (``pybabel extract -k N_``):
    a label looked up in the reader's language where it is shown."""
    return message


class FieldRef(str):
    """The path of a field inside a message (``months[2].collected``): as a ``str`` the path
    (the JSON interface names fields so), rendered by the field labels of the reader's
    language where they are known (:func:`set_field_labels`)."""


_field_labels: Callable[[str], str] | None = None


class Variants(str):
    """A word that is not translated but written otherwise in each language (a formula's
    name: ``assessed_value`` in English, ``valor_tasado`` in Spanish): as a ``str``, its
    English; inside a message, the reader's language's form (the English one where a
    language has none)."""

    forms: dict[str, str]

    def __new__(cls, english: str, /, **forms: str) -> Variants:
        word = super().__new__(cls, english)
        word.forms = forms
        return word

    def __reduce__(self) -> tuple[Any, ...]:
        return (_variants, (str(self), tuple(self.forms.items())))

    def said_in(self, lang: str | None) -> str:
        return self.forms.get(lang or "", str(self))


def _variants(english: str, forms: tuple[tuple[str, str], ...]) -> Variants:
    return Variants(english, **dict(forms))


_CENT = Decimal("0.01")


class Amount(str):
    """An amount of money inside a message (a warning's figure): rounded half up to cents;
    as a ``str``, written as the English pages write amounts (``$735,000.00``); rendered, as
    the pages of the reader's language write them."""

    value: Decimal

    def __new__(cls, amount: Decimal | int) -> Amount:
        value = Decimal(amount).quantize(_CENT, rounding=ROUND_HALF_UP)
        text = super().__new__(cls, amount_text(value, "en"))
        text.value = value
        return text

    @classmethod
    def of_cents(cls, cents: Fraction | int) -> Amount:
        """An exact amount of cents (before rounding), as an amount of dollars."""
        exact = Fraction(cents)
        return cls(Decimal(exact.numerator) / Decimal(exact.denominator) / 100)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Amount, (self.value,))


class Figure(Amount):
    """An amount inside a message whose ``str`` is the JSON's figure (``100000.00``, two
    decimals, no sign of currency): the machine's text is unchanged, while a page writes it as
    money in the reader's language (a trace's "owed 100000.00" reads "adeudado $100,000.00")."""

    def __new__(cls, amount: Decimal | int) -> Figure:
        value = Decimal(amount).quantize(_CENT, rounding=ROUND_HALF_UP)
        text = str.__new__(cls, str(value))
        text.value = value
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (Figure, (self.value,))


def amount_text(value: Decimal, lang: str) -> str:
    """``value`` in dollars and cents as the pages of ``lang`` write an amount."""
    return str(format_currency(value, "USD", locale=DAY_LOCALES.get(lang, "es_PR")))


def set_field_labels(labels: Callable[[str], str] | None) -> None:
    """Install the function that names a field path in the reader's language (the web's)."""
    global _field_labels
    _field_labels = labels


class Message(str):
    """A msgid with its parameters (``%(name)s`` placeholders); as a ``str``, its English."""

    msgid: str
    params: tuple[tuple[str, Any], ...]

    def __new__(cls, msgid: str, /, **params: Any) -> Message:
        text = super().__new__(cls, _format(msgid, params, None, None))
        text.msgid = msgid
        text.params = tuple(params.items())
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.msgid, self.params))

    def render(self, lang: str | None = None) -> str:
        return render(self, lang)


def _rebuild(msgid: str, params: tuple[tuple[str, Any], ...]) -> Message:
    return Message(msgid, **dict(params))


def _format(
    template: str,
    params: Mapping[str, Any],
    translations: NullTranslations | None,
    lang: str | None,
) -> str:
    """``template`` filled with ``params``: rendered in ``translations`` (of ``lang``), or
    raw (the msgids, the fields' keys) without them."""
    if not params:
        return template
    return template % {k: _param(v, translations, lang) for k, v in params.items()}


# A day as people read it in each language (tid/render/formats.py's ``day`` writes the same):
# ``2 mar 2026`` / ``Mar 2, 2026``. In a message's English ``str`` (what the JSON interface
# and the logs read) a day stays ISO: ``2026-03-02``.
DAY_PATTERNS = {"es": "d MMM y", "en": "MMM d, y"}
DAY_LOCALES = {"es": "es_PR", "en": "en_US"}


@functools.lru_cache(maxsize=4096)
def day_text(value: date, lang: str) -> str:
    """``value`` as the pages of ``lang`` write a day."""
    pattern = DAY_PATTERNS.get(lang, DAY_PATTERNS["es"])
    return str(format_date(value, pattern, locale=DAY_LOCALES.get(lang, "es_PR")))


class MonthLabel(str):
    """A month as the JSON interface writes it (``"2024-07"``), which a message rendered for
    a reader writes as the pages write a month (``jul 2024`` / ``Jul 2024``)."""

    __slots__ = ()


MONTH_PATTERN = "MMM y"


@functools.lru_cache(maxsize=1024)
def month_text(value: str, lang: str) -> str:
    """The month ``value`` (``"2024-07"``) as the pages of ``lang`` write a month."""
    first = date(int(value[:4]), int(value[5:7]), 1)
    return str(format_date(first, MONTH_PATTERN, locale=DAY_LOCALES.get(lang, "es_PR")))


_DAY = "%(day)s"  # a template of symbols only: not a catalog entry


def day_message(value: date) -> Message:
    """A day as a message of its own: ISO as a ``str``, the reader's format when rendered
    (for a list of days joined by :func:`joined`)."""
    return Message(_DAY, day=value)


# Set while a machine's document is written (the calculators' ``warnings_es``): its days stay
# ISO like every other date of the JSON interface, its fields named by their paths.
_iso_days: ContextVar[bool] = ContextVar("iso_days", default=False)


def _param(value: Any, translations: NullTranslations | None, lang: str | None) -> Any:
    if value.__class__ is date:
        if translations is None or _iso_days.get():
            return value.isoformat()
        return day_text(value, lang or "es")
    if isinstance(value, MonthLabel):
        if translations is None or _iso_days.get():
            return str.__str__(value)
        return month_text(value, lang or "es")
    if isinstance(value, FieldRef):
        # A machine's document (``warnings_es``) names the fields by their paths, as its
        # English does, whoever asks for it.
        if translations is None or _field_labels is None or _iso_days.get():
            return str(value)
        return _field_labels(value)
    if isinstance(value, Variants):
        return str(value) if translations is None else value.said_in(lang)
    if isinstance(value, Amount):
        return str(value) if translations is None else amount_text(value.value, lang or "es")
    if isinstance(value, Message):
        # A message inside a message: in its parent's catalog (a bill's explanation nests a
        # dozen; asking for the catalog again for each costs more than rendering them).
        return str(value) if translations is None else _rendered(value, translations, lang)
    return value


def catalog(lang: str, folders: Iterable[str | Path] | None = None) -> NullTranslations:
    """The catalog of ``lang`` from ``folders`` (the package's own by default), merged in
    order: the one loader of the words, for the core (PDFs, jobs, the command line) and the
    web's pages alike (tid/i18n.py's Flask-Babel domain asks here), so that both always read
    the same catalog. In each folder, the compiled catalog when it is current, else the .po
    itself (a catalog edited but not yet compiled still speaks, everywhere at once)."""
    chosen = (TRANSLATIONS,) if folders is None else tuple(Path(f) for f in folders)
    return _catalog(lang, chosen)


@functools.lru_cache(maxsize=16)
def _catalog(lang: str, folders: tuple[Path, ...]) -> NullTranslations:
    found = [_folder_catalog(folder / lang / "LC_MESSAGES") for folder in folders]
    translations = [t for t in found if isinstance(t, Translations)]
    if not translations:
        return NullTranslations()
    merged, *rest = translations
    for more in rest:
        merged.merge(more)
    return merged


def _folder_catalog(folder: Path) -> NullTranslations:
    po, mo = folder / "messages.po", folder / "messages.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fh:
            return Translations(fh)
    if po.exists():
        with po.open("rb") as fh:
            read = read_po(fh, locale=folder.parent.name)
        buffer = io.BytesIO()
        write_mo(buffer, read)
        buffer.seek(0)
        return Translations(buffer)
    return NullTranslations()


# The web installs the translations of the request here (tid/i18n.py), so that the core
# knows nothing of Flask: given a language or None (the reader's), it returns the
# translations and the language, or None outside a request (the package's catalogs apply).
Provider = Callable[[str | None], "tuple[NullTranslations, str | None] | None"]
_provider: Provider | None = None


def set_translations_provider(provider: Provider | None) -> None:
    global _provider
    _provider = provider


def _translations(lang: str | None) -> tuple[NullTranslations, str | None]:
    """The translations to use: the app's inside a request (its catalogs and ``force_locale``
    apply), the package's catalogs outside one."""
    if _provider is not None:
        found = _provider(lang)
        if found is not None:
            return found
    if lang is None:
        lang = "es"
    return catalog(lang), lang


def translate(msgid: str) -> str:
    """A msgid in the reader's language, as the catalog has it (no ``%`` formatting)."""
    translations, _lang = _translations(None)
    return str(translations.gettext(msgid))


def current_language() -> str:
    """The reader's language: the request's (or the one a block forces) inside the app,
    Spanish outside it."""
    return _translations(None)[1] or "es"


def render(text: str, lang: str | None = None) -> str:
    """``text`` in ``lang`` (the reader's language inside a request when ``lang`` is None;
    Spanish outside one). A plain ``str`` is data and is returned as it is."""
    if isinstance(text, Variants):
        return text.said_in(_translations(lang)[1])
    if not isinstance(text, Message):
        return str(text)
    translations, lang = _translations(lang)
    return _rendered(text, translations, lang)


def _rendered(text: Message, translations: NullTranslations, lang: str | None) -> str:
    template = translations.gettext(text.msgid)
    return _format(template or text.msgid, dict(text.params), translations, lang)


def joined(parts: list[str], separator: str = "; ") -> str:
    """Messages said one after another (``"; "`` or ``", "`` between them), as one message."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    first, rest = parts[0], joined(parts[1:], separator)
    if separator == "; ":
        return Message("%(first)s; %(rest)s", first=first, rest=rest)
    return Message("%(first)s, %(rest)s", first=first, rest=rest)


def cited_together(*citations: str) -> str:
    """Citations said one after another (``"; "``): a plain ``str`` when each is one (the
    statutes, looked up in the catalogs by their text where they are shown), one message
    when any is a message (a reform's change, said in the reader's words)."""
    if any(isinstance(c, Message) for c in citations):
        return joined(list(citations))
    return "; ".join(citations)


def gettext_of(lang: str) -> Callable[[str], str]:
    """The gettext of ``lang``'s catalog, whatever the reader's language: for a document
    whose parts are each in a language of their own (the notice's Spanish and English
    pages), drawn inside a request or in a worker without one."""
    translations, _lang = _translations(lang)
    return translations.gettext


def render_all(texts: Iterable[str], lang: str | None = None) -> list[str]:
    """:func:`render` of each text, for a machine's document (a result's ``warnings_es``:
    ``render_all(w, "es")``): the words in ``lang``, the days ISO as the JSON writes them."""
    token = _iso_days.set(True)
    try:
        return [render(t, lang) for t in texts]
    finally:
        _iso_days.reset(token)


def to_json(text: str) -> str:
    """A message as JSON (its msgid and parameters, nested messages too), to be stored and
    rendered later in whatever language its reader speaks (:func:`from_json`)."""
    return json.dumps(_encode(text), ensure_ascii=False, separators=(",", ":"))


def from_json(stored: str) -> str:
    """The message :func:`to_json` stored (a plain ``str`` stays one)."""
    decoded: str = _decode(json.loads(stored))
    return decoded


def render_json(stored: str, lang: str | None = None) -> str:
    """``render(from_json(stored), lang)`` without building the messages first: rendered
    straight from the stored tree (a page of bills renders a thousand nested messages)."""
    value = json.loads(stored)
    if not isinstance(value, dict) or "m" not in value:
        return str(_decode(value))
    translations, lang = _translations(lang)
    rendered: str = _render_tree(value, translations, lang)
    return rendered


def _render_tree(value: Any, translations: NullTranslations, lang: str | None) -> Any:
    """A stored message (or parameter) as :func:`_rendered` renders the decoded one."""
    if not isinstance(value, dict):
        return value
    if "f" in value:
        return _param(FieldRef(value["f"]), translations, lang)
    if "v" in value:
        return _param(Variants(value["v"], **value["w"]), translations, lang)
    if "d" in value:
        return _param(date.fromisoformat(value["d"]), translations, lang)
    if "a" in value:
        return _param(Amount(Decimal(value["a"])), translations, lang)
    msgid: str = value["m"]
    template = translations.gettext(msgid) or msgid
    params = value["p"]
    if not params:
        return template
    return template % {k: _render_tree(v, translations, lang) for k, v in params.items()}


def _encode(value: Any) -> Any:
    if isinstance(value, FieldRef):
        return {"f": str(value)}
    if isinstance(value, Variants):
        return {"v": str(value), "w": value.forms}
    if value.__class__ is date:
        return {"d": value.isoformat()}
    if isinstance(value, Amount):
        return {"a": str(value.value)}
    if isinstance(value, Message):
        return {"m": value.msgid, "p": {k: _encode(v) for k, v in value.params}}
    if isinstance(value, str | int):
        return value
    return str(value)


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "f" in value:
            return FieldRef(value["f"])
        if "v" in value:
            return Variants(value["v"], **value["w"])
        if "d" in value:
            return date.fromisoformat(value["d"])
        if "a" in value:
            return Amount(Decimal(value["a"]))
        return Message(value["m"], **{k: _decode(v) for k, v in value["p"].items()})
    return value
