"""Reads for the petition pages: the open petitions with their running clock, what is due
soon (the daily digest), and a petition's history.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from sqlmodel import Session, col, select

from tid.models import AuditEvent, Finding, Municipality, Ordinance, Petition
from tid.services.audit_trail import audit
from tid.services.petitions.deadlines import SOON_DAYS, Clock, running_clock
from tid.services.petitions.ordinance import ordinance_of
from tid.services.petitions.states import OPEN_STATES
from tid.services.petitions.study import findings_of


@dataclass(frozen=True)
class DashboardRow:
    petition: Petition
    municipality: str
    clock: Clock | None
    unfavourable: tuple[str, ...]


def dashboard(
    *,
    session: Session,
    today: date,
    municipality_ids: Iterable[int] | None = None,
    state: str | None = None,
) -> list[DashboardRow]:
    """Every open petition (or those in ``state``) with its running clock, most urgent first
    (overdue first, then fewest days left; petitions with no clock running last)."""
    stmt = select(Petition, Municipality).join(
        Municipality, col(Municipality.id) == col(Petition.municipality_id)
    )
    if municipality_ids is not None:
        stmt = stmt.where(col(Petition.municipality_id).in_(list(municipality_ids)))
    if state:
        stmt = stmt.where(Petition.state == state)
    else:
        stmt = stmt.where(col(Petition.state).in_([s.value for s in OPEN_STATES]))
    stmt = stmt.order_by(col(Petition.received_on), col(Petition.id))
    pairs = list(session.exec(stmt))
    ordinances = (
        {
            o.petition_id: o
            for o in session.exec(
                select(Ordinance).where(col(Ordinance.petition_id).in_([p.id for p, _m in pairs]))
            )
        }
        if pairs
        else {}
    )
    unfavourable = _unfavourable_of(session, [p.id or 0 for p, _m in pairs])
    rows = []
    for petition, municipality in pairs:
        ordinance = ordinances.get(petition.id or 0)
        clock = running_clock(petition, ordinance, today=today)
        rows.append(
            DashboardRow(
                petition=petition,
                municipality=municipality.name,
                clock=clock,
                unfavourable=tuple(sorted(unfavourable.get(petition.id or 0, ()))),
            )
        )
    rows.sort(
        key=lambda r: (r.clock is None, r.clock.days_left if r.clock else 0, r.petition.id or 0)
    )
    return rows


def _unfavourable_of(session: Session, petition_ids: list[int]) -> dict[int, list[str]]:
    """The factors found unfavorable, by petition: of every petition at once (one statement
    for a dashboard, not one a row)."""
    found: dict[int, list[str]] = {}
    if petition_ids:
        stmt = select(Finding).where(
            col(Finding.petition_id).in_(petition_ids), col(Finding.favourable).is_(False)
        )
        for finding in session.exec(stmt):
            found.setdefault(finding.petition_id, []).append(finding.factor)
    return found


def visible_dashboard(
    *,
    session: Session,
    today: date,
    scope: Iterable[int] | None,
    municipality: int | None = None,
    state: str | None = None,
) -> list[DashboardRow]:
    """The dashboard of the municipalities in ``scope`` (None: every one), narrowed to one
    ``municipality`` (none of its rows when it is outside the scope) and a ``state``."""
    ids = None if scope is None else list(scope)
    if municipality is not None:
        ids = [municipality] if ids is None or municipality in ids else []
    return dashboard(session=session, today=today, municipality_ids=ids, state=state or None)


def municipality_names(*, session: Session, scope: Iterable[int] | None) -> list[tuple[int, str]]:
    """(id, name) of the municipalities in ``scope`` (None: every one), by name."""
    stmt = select(Municipality).order_by(col(Municipality.name))
    if scope is not None:
        stmt = stmt.where(col(Municipality.id).in_(list(scope)))
    return [(m.id or 0, m.name) for m in session.exec(stmt)]


def due_soon(rows: Iterable[DashboardRow], within: int = SOON_DAYS) -> list[DashboardRow]:
    """The rows whose running clock is overdue or due within ``within`` days."""
    return [r for r in rows if r.clock is not None and r.clock.days_left <= within]


def history(*, session: Session, petition: Petition) -> list[AuditEvent]:
    """The audit events of the petition, its findings and its ordinance, oldest first."""
    keys: list[tuple[str, str]] = [("petition", str(petition.id))]
    keys += [
        ("finding", str(f.id)) for f in findings_of(session=session, petition=petition).values()
    ]
    ordinance = ordinance_of(session=session, petition=petition)
    if ordinance is not None:
        keys.append(("ordinance", str(ordinance.id)))
    events: list[AuditEvent] = []
    for entity_type, entity_id in keys:
        events += audit.history(session=session, entity_type=entity_type, entity_id=entity_id)
    events.sort(key=lambda e: (e.at, e.id or 0))
    return events


def petition(*, session: Session, petition_id: int) -> Petition | None:
    """The petition with this id (None: there is none)."""
    return session.get(Petition, petition_id)
