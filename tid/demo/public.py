"""The demo's public side: the Condado association publishes its fiscal year 2025-26, ended
and not yet locked (the default publishes a year once it is locked), so that the public pages
show a district's money from the start."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import Session, select

from tid.demo.account import ACCOUNT_DISTRICT
from tid.demo.base import DEMO_ACTOR
from tid.models import District
from tid.rules.periods import parse_fiscal_year
from tid.services.public import publishing

PUBLISHED_YEARS = ("2025-26",)


def load_public(session: Session, _config: Mapping[str, Any]) -> None:
    """Publish the Condado district's demo years (a second run changes nothing)."""
    district = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).first()
    if district is None:
        return
    for label in PUBLISHED_YEARS:
        publishing.choose(
            session=session,
            actor=DEMO_ACTOR,
            district=district,
            fy=parse_fiscal_year(label),
            published=True,
        )
