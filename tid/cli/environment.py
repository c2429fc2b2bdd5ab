"""The language a command is said in before ``--lang`` says otherwise: the environment's."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any


def environment_language() -> str | None:
    """The language the environment asks for (the first of LC_ALL, LC_MESSAGES, LANG that is
    set: its two letters, ``en`` of ``en_US.UTF-8``), or None."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        chosen = os.environ.get(variable, "")[:2].lower()
        if chosen:
            return chosen
    return None


def command_language(config: Mapping[str, Any], lang: str | None = None) -> str:
    """The language a command speaks: ``lang`` (its ``--lang``), else the environment's when
    the installation offers it, else the installation's default (Spanish)."""
    languages = list(config.get("LANGUAGES") or ("es", "en"))
    chosen = lang or environment_language()
    if chosen is not None and chosen in languages:
        return chosen
    return str(config.get("BABEL_DEFAULT_LOCALE") or "es")
