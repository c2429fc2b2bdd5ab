"""One loader of the words: a page and the core (a PDF, a job, the command line) read the
same catalog, even right after the Spanish .po is edited and before it is compiled."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import make_test_app
from tid.rules import messages
from tid.rules.messages import Message, render

ROOT = Path(__file__).resolve().parent.parent.parent
EDITED = "Entrar ahora mismo"


def _edited_translations(folder: Path) -> Path:
    """The package's catalogs, with the Spanish .po edited after its .mo was compiled."""
    shutil.copytree(ROOT / "tid" / "translations", folder)
    po = folder / "es" / "LC_MESSAGES" / "messages.po"
    text = po.read_text(encoding="utf-8")
    assert 'msgid "Log in"\nmsgstr "Iniciar sesión"\n' in text
    po.write_text(
        text.replace(
            'msgid "Log in"\nmsgstr "Iniciar sesión"\n', f'msgid "Log in"\nmsgstr "{EDITED}"\n'
        ),
        encoding="utf-8",
    )
    mo = po.with_suffix(".mo")
    older = po.stat().st_mtime - 60
    os.utime(mo, (older, older))
    return folder


def test_a_page_and_the_core_say_the_same_word_after_the_po_is_edited(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _edited_translations(tmp_path / "translations")
    monkeypatch.setattr(messages, "TRANSLATIONS", folder)
    app = make_test_app(database_url, tmp_path, BABEL_TRANSLATION_DIRECTORIES=str(folder))
    try:
        page = app.test_client().get("/login?lang=es")
        assert page.status_code == 200
        assert EDITED in page.get_data(as_text=True)
        with app.test_request_context("/?lang=es"):
            from flask_babel import gettext

            assert gettext("Log in") == EDITED
            assert render(Message("Log in")) == EDITED
    finally:
        app.extensions["tid.engine"].dispose()
    assert render(Message("Log in"), "es") == EDITED  # outside the app: a job, the CLI


def test_the_package_catalog_is_the_default() -> None:
    assert render(Message("Log in"), "es") == "Iniciar sesión"
    assert messages.catalog("es") is messages.catalog("es", [messages.TRANSLATIONS])
