"""Spanish first, English second: every message the code and templates can show has its
Spanish translation in the catalog, and the catalog compiles."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "_l": None,
    "lazy_gettext": None,
    "N_": None,
    "Message": None,
}
# the parameter files' descriptions, citations and notes are msgids too (tid/babel.cfg)
METHODS = [
    ("**.py", "python"),
    ("**.html", "jinja2"),
    ("**.toml", "tid.rules.params:extract_messages"),
]


def _extracted() -> set[str | tuple[str, ...]]:
    ids: set[str | tuple[str, ...]] = set()
    # templates/_macros on its own: the walk skips folders whose names start with _.
    for folder in ("tid", "templates", "templates/_macros"):
        for _file, _line, message, _comments, _context in extract_from_dir(
            ROOT / folder, METHODS, keywords=KEYWORDS
        ):
            ids.add(message if isinstance(message, str) else tuple(message))
    return ids


def test_every_message_has_its_spanish_translation(tmp_path: Path) -> None:
    with (ROOT / "tid/translations/es/LC_MESSAGES/messages.po").open("rb") as fh:
        catalog = read_po(fh, locale="es")
    translated = {}
    for message in catalog:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else tuple(message.id)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        translated[key] = all(strings) and not message.fuzzy
    missing = sorted(str(m) for m in _extracted() if not translated.get(m))
    assert not missing, f"{len(missing)} messages lack Spanish (run make messages): {missing[:20]}"
    with (tmp_path / "messages.mo").open("wb") as out:
        write_mo(out, catalog)
