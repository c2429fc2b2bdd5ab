"""The clerk's documents of record: the report of the open petitions and their deadlines."""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import Session

from tid.clock import utcnow
from tid.documents.base import PDF, Document, Reader
from tid.models import Municipality, PetitionState
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message, render
from tid.services import petitions as svc

STATES = tuple(s.value for s in PetitionState)
NO_MUNICIPALITY = N_("There is no such municipality.")


def state_label(state: str, locale: str | None = None) -> str:
    """A petition's state in ``locale`` (by default the reader's language of the request)."""
    return render(Message(svc.STATE_LABELS.get(state, state)), locale)


def deadlines_pdf(
    session: Session,
    *,
    reader: Reader,
    municipality: int | None = None,
    state: str | None = None,
    scope: Iterable[int] | None = None,
) -> Document:
    """The open petitions (or those in ``state``) of the municipalities in ``scope`` (None:
    every one), or of one ``municipality``, most urgent first, with their running clocks.
    A municipality outside ``scope`` has no rows to show."""
    if state and state not in STATES:
        raise InputError(
            "state",
            Message(
                "There is no such state of a petition: write one of %(states)s.",
                states=", ".join(STATES),
            ),
        )
    names = dict(svc.municipality_names(session=session, scope=scope))
    on = reader.today
    rows = svc.visible_dashboard(
        session=session, today=on, scope=scope, municipality=municipality, state=state
    )
    filters = {"municipality": str(municipality or ""), "state": state or ""}
    pdf = reader.pdf(
        "pdf/deadlines.html",
        rows=rows,
        filters=filters,
        municipality_name=names.get(municipality) if municipality is not None else None,
        state_name=state_label(state, reader.locale) if state else None,
        today=on,
        generated_at=utcnow(),
        soon_days=svc.SOON_DAYS,
    )
    return Document(pdf, PDF, f"deadlines-{on.isoformat()}.pdf")


def deadlines_report(
    session: Session, *, reader: Reader, municipality: int | None = None, state: str | None = None
) -> Document:
    """The deadline report of every municipality, or of one that must exist."""
    if municipality is not None and session.get(Municipality, municipality) is None:
        raise InputError("municipality", NO_MUNICIPALITY)
    return deadlines_pdf(session, reader=reader, municipality=municipality, state=state)
