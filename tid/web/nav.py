"""The main navigation: one entry per area, shown to the roles it serves.

Labels and descriptions are English msgids, translated when rendered.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l


@dataclass(frozen=True)
class NavItem:
    endpoint: str
    label: str
    description: str
    roles: frozenset[str] | None  # None: everyone, logged in or not


NAV: list[NavItem] = []


def add(endpoint: str, label: str, description: str, roles: tuple[str, ...] | None) -> None:
    """Add an area to the navigation (called when its blueprint module is imported)."""
    if any(item.endpoint == endpoint for item in NAV):
        return
    NAV.append(NavItem(endpoint, label, description, frozenset(roles) if roles else None))


def nav_items() -> list[NavItem]:
    return NAV


# Extraction markers for the catalog (the labels are translated in the template).
_MARKERS = (_l("admin"), _l("clerk"), _l("association"), _l("auditor"))
