"""Scheduled jobs (APScheduler 3): run in exactly one process, ``tid scheduler``, or inside
the demo's development server."""

from __future__ import annotations

from flask import Flask


def start_in_process(app: Flask) -> None:
    """Start the scheduler inside this process (development server only)."""
    app.logger.info("in-process scheduler requested; no jobs are defined yet")
