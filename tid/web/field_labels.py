"""What each form field is called, for the error summary: a summary's line names the field
its message belongs to ("Petitioner: This field is required."), as the label beside the field
does. The labels are the forms' own, read once from the templates' ``field()`` calls (the
first label a field name is given); a field no template labels that way is named by its
message alone."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from flask import Blueprint, current_app
from flask_babel import gettext

bp = Blueprint("field_labels", __name__)

_FIELD = re.compile(r"""(?:field|select)\(\s*'(\w+)',\s*_\('((?:[^'\\]|\\.)+)'\)""")


@functools.cache
def _labels(folder: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for template in sorted(Path(folder).rglob("*.html")):
        for name, label in _FIELD.findall(template.read_text(encoding="utf-8")):
            found.setdefault(name, label.replace("\\'", "'"))
    return found


@bp.app_template_global("summary_label")
def summary_label(name: str) -> str | None:
    """The label of the form field ``name`` in the reader's language (None: not known)."""
    folder = Path(current_app.root_path) / str(current_app.template_folder or "templates")
    label = _labels(str(folder)).get(name)
    return gettext(label) if label else None


# Messages that say nothing of the field they are about.
_GENERIC = (
    "This field is required.",
    "Write this on one line.",
    "Choose one of the options.",
    "Enter the date.",
)


@bp.app_template_global("generic_messages")
def generic_messages() -> list[str]:
    """The messages (in the reader's language) that need their field's name beside them."""
    return [gettext(m) for m in _GENERIC]
