"""The web: thin blueprints that parse a request, call a service and render."""

from __future__ import annotations

import importlib

from flask import Blueprint

# Each module here defines ``bp``; add a line to register a new blueprint.
BLUEPRINT_MODULES = [
    "tid.web.auth",
    "tid.web.main",
    "tid.web.petitions",
    "tid.web.studio",
    "tid.web.petition_files",
    "tid.web.admin",
    "tid.web.calc",
    "tid.web.reform_pages",
    "tid.web.reform_try",
    "tid.web.readings",
    "tid.web.api",
    "tid.web.roll",
    "tid.web.roll_check_pages",
    "tid.web.account",
    "tid.web.leaving",
    "tid.web.notices",
    "tid.web.portal",
    "tid.web.verification_pages",
    "tid.web.closing_api",
    "tid.web.portal_account",
    "tid.web.portal_email",
    "tid.web.jobs",
    "tid.web.journal_labels",
    "tid.web.public_pages",
    "tid.web.public_api",
    "tid.web.public_publishing",
    "tid.web.field_labels",
]


def blueprints() -> list[Blueprint]:
    """Import every blueprint module (which also adds its navigation entry)."""
    result = []
    for name in BLUEPRINT_MODULES:
        module = importlib.import_module(name)
        result.append(module.bp)
    return result
