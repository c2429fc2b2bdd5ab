"""The public register of petitions (21 LPRA § 6653(1)–(5), (7)): each petition before a
municipal legislature with its steps and their dates as the clerk recorded them — received,
study, findings, ordinance issued (or denied), sent to the mayor, the mayor's decision,
publication, the CRIM's copy — each step's statutory deadline and whether it was met (the
petitions' own clocks, :mod:`tid.services.petitions.deadlines`), and its ordinance; the
register's news (new petitions, steps and ordinances, newest first) for the Atom feed; the
public deadlines for the iCalendar. Rows leave here only through :func:`public_view`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from sqlalchemy import bindparam, case, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from tid.models import Finding, Municipality, Ordinance, Petition, PetitionDocument
from tid.rules.messages import N_
from tid.rules.vocab.document_kinds import DOCUMENT_KINDS
from tid.services.petitions import CLOCK_LABELS, Clock, clocks, running_clock
from tid.services.petitions.states import FACTORS, STATE_LABELS
from tid.services.public import versions
from tid.services.public.declared import public_view
from tid.services.public.public_documents import public_documents

# A petition's steps in lifecycle order: (code, label msgid, the clock whose deadline it meets).
STEPS: tuple[tuple[str, str, str | None], ...] = (
    ("received", N_("Petition received by the legislature"), None),
    ("study_started", N_("Study begun"), None),
    ("ordinance_issued", N_("Ordinance issued"), "ordinance"),
    ("denied", N_("Petition denied"), "ordinance"),
    ("sent_to_mayor", N_("Ordinance sent to the mayor"), None),
    ("approved", N_("Approved by the mayor"), "mayor"),
    ("vetoed", N_("Vetoed by the mayor"), "mayor"),
    ("published", N_("Ordinance published"), "publication"),
    ("crim_copy_sent", N_("Copy sent to the CRIM"), None),
)
STEP_LABELS = {code: label for code, label, _clock in STEPS}


@dataclass(frozen=True)
class PetitionRecord:
    """A petition as the public register shows it."""

    petition: dict[str, Any]
    municipality: str
    state_label: str
    steps: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    ordinance: dict[str, Any] | None
    deadlines: list[dict[str, Any]]  # every clock the petition started
    # the documents of its file the clerk made public, each with its versions (newest first)
    documents: list[dict[str, Any]] = field(default_factory=list)


def _step_dates(petition: Petition, ordinance: Ordinance | None) -> dict[str, date | None]:
    return {
        "received": petition.received_on,
        "study_started": petition.study_started_on,
        "ordinance_issued": ordinance.issued_on if ordinance else None,
        "denied": petition.denied_on,
        "sent_to_mayor": petition.sent_to_mayor_on,
        "approved": petition.approved_on,
        "vetoed": petition.vetoed_on,
        "published": petition.published_on,
        "crim_copy_sent": ordinance.crim_copy_sent_on if ordinance else None,
    }


def _deadline(clock: Clock) -> dict[str, Any]:
    return public_view(
        "deadline",
        {
            "kind": clock.kind,
            "label": CLOCK_LABELS[clock.kind],
            "due": clock.due,
            "starts": clock.start,
            "running": clock.running,
            "met": clock.met,
            "explanation": clock.explanation,
            "explanation_es": clock.explanation_es,
            "citation": clock.citation,
        },
    )


def pending(petition: Petition, ordinance: Ordinance | None, today: date) -> dict[str, Any]:
    """The deadline the petition waits on in its state (the legislature's 90 days, the
    mayor's 30, the publication week; 21 LPRA § 6653(2), (5)) and, once it has passed with
    the act still not done, the first day it is overdue."""
    clock = running_clock(petition, ordinance, today=today)
    return {
        "pending_due": clock.due if clock else None,
        "overdue_since": clock.due + timedelta(days=1) if clock and clock.overdue else None,
    }


def _record(
    petition: Petition,
    municipality: str,
    ordinance: Ordinance | None,
    findings: list[Finding],
    today: date,
) -> PetitionRecord:
    started = {c.kind: c for c in clocks(petition, ordinance, today=today)}
    dates = _step_dates(petition, ordinance)
    steps = []
    for code, label, kind in STEPS:
        on = dates[code]
        if on is None:
            continue
        clock = started.get(kind) if kind else None
        steps.append(
            public_view(
                "petition_step",
                {
                    "petition_id": petition.id,
                    "step": code,
                    "label": label,
                    "on": on,
                    "due": clock.due if clock else None,
                    "on_time": clock.met if clock else None,
                    "citation": clock.citation if clock else "",
                },
            )
        )
    return PetitionRecord(
        petition=public_view(
            "petition", {**petition.model_dump(), **pending(petition, ordinance, today)}
        ),
        municipality=municipality,
        state_label=STATE_LABELS.get(petition.state, petition.state),
        steps=steps,
        findings=[
            {**public_view("finding", f), "factor_label": FACTORS.get(f.factor, "")}
            for f in sorted(findings, key=lambda f: f.factor)
        ],
        ordinance=public_view("ordinance", ordinance) if ordinance else None,
        deadlines=[_deadline(c) for c in started.values() if c.kind != "notice"],
    )


# What the register is read from, in one look: how many petitions, ordinances and findings
# there are and when the last of each changed (every step, correction and finding touches its
# record). Built once: a public page asks it on every request.
VERSION_COLUMNS = (
    *(
        sa_select(func.count()).select_from(model).scalar_subquery()
        for model in (Petition, Ordinance, Finding)
    ),
    *(
        sa_select(func.max(model.updated_at)).scalar_subquery()
        for model in (Petition, Ordinance, Finding)
    ),
)
_VERSION = sa_select(*VERSION_COLUMNS)


def version(*, session: Session) -> tuple[Any, ...]:
    """The register's version: it changes whenever a petition, an ordinance or a finding
    is recorded or changed."""
    return tuple(versions.read_now(session=session, statement=_VERSION))


def petitions(
    *, session: Session, today: date, municipality_id: int | None = None
) -> list[PetitionRecord]:
    """Every petition (of one municipality, if given), the latest received first; computed
    once per change of the register and day, and kept by the worker."""
    return versions.kept(
        session=session,
        district_id=0,
        key=("register", municipality_id, today),
        make=lambda: _petitions(session, today, municipality_id),
        version=version(session=session),
    )


def _petitions(session: Session, today: date, municipality_id: int | None) -> list[PetitionRecord]:
    stmt = select(Petition, Municipality).join(
        Municipality, col(Municipality.id) == col(Petition.municipality_id)
    )
    if municipality_id is not None:
        stmt = stmt.where(Petition.municipality_id == municipality_id)
    pairs = list(
        session.exec(stmt.order_by(col(Petition.received_on).desc(), col(Petition.id).desc()))
    )
    ids = [p.id for p, _m in pairs]
    ordinances = {
        o.petition_id: o
        for o in session.exec(select(Ordinance).where(col(Ordinance.petition_id).in_(ids)))
    }
    findings: dict[int, list[Finding]] = {}
    for f in session.exec(select(Finding).where(col(Finding.petition_id).in_(ids))):
        findings.setdefault(f.petition_id, []).append(f)
    return [
        _record(p, m.name, ordinances.get(p.id or 0), findings.get(p.id or 0, []), today)
        for p, m in pairs
    ]


def petition(*, session: Session, petition_id: int, today: date) -> PetitionRecord | None:
    """One petition of the register (None: there is none)."""
    found = session.get(Petition, petition_id)
    if found is None:
        return None
    municipality = session.get(Municipality, found.municipality_id)
    ordinance = session.exec(select(Ordinance).where(Ordinance.petition_id == found.id)).first()
    findings = list(session.exec(select(Finding).where(Finding.petition_id == found.id)))
    record = _record(found, municipality.name if municipality else "", ordinance, findings, today)
    shown = public_documents(session=session, petition_id=found.id or 0)
    for entry in shown:
        entry["kind_label"] = DOCUMENT_KINDS.label(entry["kind"])
    return replace(record, documents=shown)


_DOCUMENTS = PetitionDocument.__table__  # type: ignore[attr-defined]
_OF_PETITION = _DOCUMENTS.c.petition_id == bindparam("petition_id")


def _of_petition(column: Any) -> Any:
    return sa_select(column).where(_OF_PETITION).scalar_subquery()


# A petition's page is read from the register and from its file's documents: a document
# added, replaced (its version only grows), made public or private, or withdrawn changes one
# of these (each weighted by the document's id, so that two changing at once are seen too).
# Built once, read in one round trip with the register's version.
_PETITION_VERSION = sa_select(
    *VERSION_COLUMNS,
    _of_petition(func.count()),
    _of_petition(func.max(_DOCUMENTS.c.id)),
    _of_petition(func.sum(_DOCUMENTS.c.version)),
    _of_petition(func.sum(case((_DOCUMENTS.c.public, _DOCUMENTS.c.id), else_=0))),
    _of_petition(func.sum(case((_DOCUMENTS.c.withdrawn_at.is_(None), 0), else_=_DOCUMENTS.c.id))),
)


def petition_version(*, session: Session, petition_id: int) -> tuple[Any, ...]:
    """What a petition's public page is read from: the register's version and its file's
    documents as they stand — a document made public, replaced or withdrawn changes it."""
    return tuple(
        versions.read_now(
            session=session, statement=_PETITION_VERSION, params={"petition_id": petition_id}
        )
    )


def municipality(*, session: Session, municipality_id: int) -> dict[str, Any] | None:
    found = session.get(Municipality, municipality_id)
    return public_view("municipality", found) if found is not None else None


@dataclass(frozen=True)
class News:
    """One item of a municipality's feed: a petition received, a step, an ordinance."""

    uid: str
    day: date
    petition_id: int
    title: str  # a message
    district_name: str


def news(*, session: Session, municipality_id: int, today: date) -> list[News]:
    """The municipality's register as news, newest first: each petition's steps (its
    receipt is the new petition, its ordinance issued the new ordinance)."""
    items = []
    for record in petitions(session=session, today=today, municipality_id=municipality_id):
        p = record.petition
        for step in record.steps:
            items.append(
                News(
                    uid=f"petition-{p['id']}-{step['step']}",
                    day=step["on"],
                    petition_id=p["id"],
                    title=step["label"],
                    district_name=p["district_name"],
                )
            )
    items.sort(key=lambda n: (n.day, n.uid), reverse=True)
    return items


def public_deadlines(
    *, session: Session, municipality_id: int, today: date
) -> list[tuple[PetitionRecord, dict[str, Any]]]:
    """Every deadline of the municipality's petitions (met, missed or running), by due date."""
    found = [
        (record, deadline)
        for record in petitions(session=session, today=today, municipality_id=municipality_id)
        for deadline in record.deadlines
    ]
    found.sort(key=lambda pair: (pair[1]["due"], pair[0].petition["id"]))
    return found
