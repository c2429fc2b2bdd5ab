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


# The order of the areas in the menu: a year's work from petition to account, then tools.
ORDER = (
    "petitions",
    "roll",
    "notices",
    "account",
    "public",
    "calc",
    "reforms",
    "readings",
    "portal",
    "admin",
)


def _rank(item: NavItem) -> tuple[int, str]:
    area = item.endpoint.split(".")[0]
    return (ORDER.index(area) if area in ORDER else len(ORDER), item.endpoint)


def nav_items() -> list[NavItem]:
    return sorted(NAV, key=_rank)


# Extraction markers for the catalog (the labels are translated in the template).
_MARKERS = (_l("admin"), _l("clerk"), _l("association"), _l("auditor"))
