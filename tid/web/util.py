"""Small helpers shared by the blueprints."""

from __future__ import annotations

from datetime import date

from flask import current_app

from tid import clock


def today() -> date:
    """Today in Puerto Rico, or the fixed ``TODAY`` of the configuration (tests, demos)."""
    return clock.today(current_app.config)
