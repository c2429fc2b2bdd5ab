"""The language a command is said in before ``--lang`` says otherwise: the environment's."""

from __future__ import annotations

import os


def environment_language() -> str | None:
    """The language the environment asks for (the first of LC_ALL, LC_MESSAGES, LANG that is
    set: its two letters, ``en`` of ``en_US.UTF-8``), or None."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        chosen = os.environ.get(variable, "")[:2].lower()
        if chosen:
            return chosen
    return None
