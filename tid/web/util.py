"""Small helpers shared by the blueprints."""

from __future__ import annotations

from datetime import date

from flask import current_app

from tid.clock import today_in_puerto_rico


def today() -> date:
    """Today in Puerto Rico, or the fixed ``TODAY`` of the configuration (tests, demos)."""
    fixed = current_app.config.get("TODAY")
    if fixed:
        return fixed if isinstance(fixed, date) else date.fromisoformat(str(fixed))
    return today_in_puerto_rico()
