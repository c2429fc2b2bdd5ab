"""What each form field is called, for the error summary: a summary's line names the field
its message belongs to ("Petitioner: This field is required."), in the words the page itself
gives the field — its ``<label for>``, its ``aria-label`` or ``aria-labelledby``, a
fieldset's legend. The names are read from the rendered page (the ``named_fields`` filter
around every page's content), so a field is called what its own form calls it, never what
another form calls a field of the same name."""

from __future__ import annotations

import functools
import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path

from flask import Blueprint, current_app, g, session
from flask_babel import gettext
from markupsafe import Markup

bp = Blueprint("field_labels", __name__)

_FIELD = re.compile(r"""(?:field|select)\(\s*'(\w+)',\s*_\('((?:[^'\\]|\\.)+)'\)""")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


class _Names(HTMLParser):
    """The accessible name of every element with an id, as far as a form's fields need it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.label_for: dict[str, list[str]] = {}
        self.attrs: dict[str, dict[str, str]] = {}
        self.texts: dict[str, list[str]] = {}
        self.legends: dict[str, list[str]] = {}
        # the open elements: (tag, id, the name it collects, whether it is a hint)
        self._open: list[tuple[str, str | None, list[str] | None, bool]] = []
        self._fieldsets: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        ident = values.get("id") or None
        if ident:
            self.attrs.setdefault(ident, values | {"tag": tag})
            self.texts.setdefault(ident, [])
        if tag in _VOID:
            return
        collect: list[str] | None = None
        if tag == "label" and values.get("for"):
            collect = self.label_for.setdefault(values["for"], [])
        elif tag == "legend" and self._fieldsets and self._fieldsets[-1]:
            collect = self.legends.setdefault(str(self._fieldsets[-1]), [])
        if tag == "fieldset":
            self._fieldsets.append(ident)
        # a hint inside a label or a legend says how to fill the field, not what it is
        hint = "hint" in values.get("class", "").split()
        self._open.append((tag, ident, collect, hint))

    def handle_endtag(self, tag: str) -> None:
        if tag == "fieldset" and self._fieldsets:
            self._fieldsets.pop()
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index][0] == tag:
                del self._open[index:]
                return

    def handle_data(self, data: str) -> None:
        in_hint = any(hint for *_rest, hint in self._open)
        for _tag, ident, collect, _hint in self._open:
            if ident is not None:
                self.texts[ident].append(data)
            if collect is not None and not in_hint:
                collect.append(data)

    def name(self, ident: str) -> str | None:
        """The words that name the element ``ident`` (None: nothing names it)."""
        attrs = self.attrs.get(ident, {})
        labelled_by = attrs.get("aria-labelledby", "").split()
        found = [
            " ".join(self.label_for.get(ident, [])),
            attrs.get("aria-label", ""),
            " ".join(" ".join(self.texts.get(i, [])) for i in labelled_by),
            " ".join(self.legends.get(ident, [])),
        ]
        for words in found:
            words = " ".join(words.split()).rstrip(" *:")
            if words:
                return words
        return None


_SUMMARY = re.compile(r"<div[^>]*data-error-summary.*?</div>", re.S)
_LINK = re.compile(r'(<a href="#([^"]+)">)(?!<span class="summary-field">)([^<]*)')


def name_fields(page: str) -> str:
    """``page`` with each line of its error summary starting with the name of the field it
    links to, as the page names that field (a line that already starts with it is kept)."""
    if "data-error-summary" not in page:
        return page
    names = _Names()
    names.feed(page)
    names.close()

    def line(match: re.Match[str]) -> str:
        name = names.name(match.group(2))
        message = match.group(3)
        if not name or Markup(message).unescape().lower().startswith(name.lower()):
            return match.group(0)
        return f'{match.group(1)}<span class="summary-field">{escape(name)}</span>: {message}'

    return _SUMMARY.sub(lambda summary: _LINK.sub(line, summary.group(0)), page)


@bp.app_template_filter("named_fields")
def named_fields(content: str) -> Markup:
    """The page's content with its error summary's lines naming their fields."""
    return Markup(name_fields(str(content)))


@functools.cache
def _labels(folder: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for template in sorted(Path(folder).rglob("*.html")):
        for name, label in _FIELD.findall(template.read_text(encoding="utf-8")):
            found.setdefault(name, label.replace("\\'", "'"))
    return found


@bp.app_template_global("summary_label")
def summary_label(name: str) -> str | None:
    """The label of a form field called ``name`` in the reader's language, for a list of a
    file's rows where no field of the page stands for the column (None: not known)."""
    folder = Path(current_app.root_path) / str(current_app.template_folder or "templates")
    label = _labels(str(folder)).get(name)
    return gettext(label) if label else None


@bp.app_template_global("field_error")
def field_error(field: str) -> str | None:
    """The error of a row's field (its id) a refused form of the list left for this page
    (tid/web/forms.py ``refused_at``), said once: the next page opens clean."""
    if "field_errors" not in g:
        g.field_errors = session.pop("field_errors", None) or {}
    found = g.field_errors.get(field)
    return str(found) if found else None
