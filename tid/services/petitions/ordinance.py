"""The legislature's decision and what follows it: the ordinance issued (or the petition
denied), sent to the mayor, approved or vetoed, published, and the copies sent to the CRIM
and received by the association (§ 6653(2)–(5)).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session, select

from tid.clock import utcnow
from tid.models import District, Finding, Ordinance, Petition
from tid.rules import calendar
from tid.rules.errors import N_
from tid.rules.imposts import Value
from tid.services import roll
from tid.services.audit_trail import audit
from tid.services.billing.parameters import parameters_json
from tid.services.petitions.errors import Collector, PetitionError
from tid.services.petitions.parsing import (
    MAX_NUMBER,
    date_field,
    formula_field,
    formula_names,
    long_text,
    name_field,
    parameters_field,
    parse_expected_amount,
    parse_term_years,
)
from tid.services.petitions.states import STATE_LABELS, S, require_state, transition
from tid.services.petitions.study import require_all_findings, unfavourable_factors


def ordinance_of(*, session: Session, petition: Petition) -> Ordinance | None:
    return session.exec(select(Ordinance).where(Ordinance.petition_id == petition.id)).first()


def _district_for(
    session: Session, actor: audit.Actor, petition: Petition, name: str, association: str
) -> District:
    """The District row the ordinance establishes: linked if it exists, created otherwise."""
    district = session.exec(
        select(District).where(
            District.municipality_id == petition.municipality_id, District.name == name
        )
    ).first()
    if district is not None:
        if not district.association_name:
            before = audit.snapshot(district)
            district.association_name = association
            session.add(district)
            audit.record(
                session=session,
                actor=actor,
                action="district.update",
                entity=district,
                before=before,
                after=audit.snapshot(district),
            )
        return district
    district = District(
        municipality_id=petition.municipality_id, name=name, association_name=association
    )
    session.add(district)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="district.create",
        entity=district,
        after=audit.snapshot(district),
    )
    return district


def _existing_district_id(session: Session, petition: Petition, name: str) -> int | None:
    """The district the ordinance would link to, when it exists already (its rolls name the
    columns a formula may use)."""
    return session.exec(
        select(District.id).where(
            District.municipality_id == petition.municipality_id, District.name == name
        )
    ).first()


def issue_ordinance(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    number: object,
    district_name: object,
    expected_amount: object,
    term_years: object,
    formula: object,
    association_name: object,
    issued_on: object,
    today: date,
    parameters: object = "",
) -> Ordinance:
    """§ 6653(2)–(4): the legislature issues the ordinance (under study → ordinance issued).

    It states the district's name, the amount expected to be collected, the term and the
    yearly formula per property (§ 6653(3)), and authorizes the association to collect
    (§ 6653(4)). All five findings of § 6653(1) must be recorded first; issuing over an
    unfavorable one is allowed and flagged. The ordinance creates (or links) the District.
    The formula names only the roll's columns and the ordinance's parameters, and uses each
    parameter.
    """
    require_state(petition, "issue")
    start = petition.study_started_on or petition.received_on
    check = Collector()
    check(lambda: require_all_findings(session=session, petition=petition), dict[str, Finding]())
    number_text = check(lambda: name_field(number, "number", required=False, limit=MAX_NUMBER), "")
    name = check(lambda: name_field(district_name, "district_name"), "")
    amount = check(lambda: parse_expected_amount(expected_amount), Decimal(0))
    years = check(lambda: parse_term_years(term_years), 0)
    formula_text = check(lambda: formula_field(formula), "")
    params: dict[str, Value] = check(lambda: parameters_field(parameters), {})
    association = check(lambda: name_field(association_name, "association_name"), "")
    if formula_text and not any(e.field == "parameters" for e in check.errors):
        columns = roll.district_attribute_names(
            session=session, district_id=_existing_district_id(session, petition, name)
        )
        check(lambda: formula_names(formula_text, params, columns=columns), None)
    issued = check(
        lambda: date_field(
            issued_on,
            "issued_on",
            today=today,
            after=start,
            after_msgid=N_("%(day)s is before the study started (%(after)s)."),
        ),
        today,
    )
    check.raise_any()
    district = _district_for(session, actor, petition, name, association)
    ordinance = Ordinance(
        petition_id=petition.id or 0,
        municipality_id=petition.municipality_id,
        district_id=district.id or 0,
        number=number_text,
        district_name=name,
        expected_amount=amount,
        term_years=years,
        formula=formula_text,
        parameters=parameters_json(params),
        association_name=association,
        issued_on=issued,
    )
    session.add(ordinance)
    session.flush()
    after = _flagged_snapshot(session, petition, ordinance)
    audit.record(
        session=session, actor=actor, action="ordinance.issue", entity=ordinance, after=after
    )
    transition(session=session, actor=actor, petition=petition, action="issue", changes={})
    return ordinance


def deny(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    on: object,
    notes: object,
    today: date,
) -> Petition:
    """§ 6653(1)–(2): the legislature concludes not to issue the ordinance (under study →
    denied). The determination rests on the five factors, so all five must be recorded."""
    require_state(petition, "deny")
    check = Collector()
    check(lambda: require_all_findings(session=session, petition=petition), dict[str, Finding]())
    return _decide(
        session=session,
        actor=actor,
        petition=petition,
        check=check,
        action="deny",
        on=on,
        notes=notes,
        today=today,
        after=petition.study_started_on or petition.received_on,
        after_msgid=N_("%(day)s is before the study started (%(after)s)."),
    )


def send_to_mayor(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Petition:
    """§ 6653(2): the mayor receives the ordinance; the mayor's 30 days start (ordinance
    issued → with the mayor)."""
    require_state(petition, "to_mayor")
    ordinance = _ordinance_or_error(session, petition)
    day = date_field(
        on,
        "on",
        today=today,
        after=ordinance.issued_on,
        after_msgid=N_("%(day)s is before the ordinance was issued (%(after)s)."),
    )
    return transition(
        session=session,
        actor=actor,
        petition=petition,
        action="to_mayor",
        changes={"sent_to_mayor_on": day},
    )


def _ordinance_or_error(session: Session, petition: Petition) -> Ordinance:
    ordinance = ordinance_of(session=session, petition=petition)
    if ordinance is None:
        raise PetitionError("state", N_("This petition has no ordinance yet."))
    return ordinance


def mayor_approves(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Petition:
    """§ 6653(2), (7): the mayor approves the ordinance (with the mayor → approved); the
    publication week starts the next day. An approval over an unfavorable finding is
    allowed and flagged in the audit trail."""
    require_state(petition, "approve")
    ordinance = _ordinance_or_error(session, petition)
    assert petition.sent_to_mayor_on is not None
    day = date_field(
        on,
        "on",
        today=today,
        after=petition.sent_to_mayor_on,
        after_msgid=N_("%(day)s is before the mayor received the ordinance (%(after)s)."),
    )
    before = audit.snapshot(ordinance)
    ordinance.approved_on = day
    ordinance.updated_at = utcnow()
    session.add(ordinance)
    after = _flagged_snapshot(session, petition, ordinance)
    audit.record(
        session=session,
        actor=actor,
        action="ordinance.approve",
        entity=ordinance,
        before=before,
        after=after,
    )
    return transition(
        session=session,
        actor=actor,
        petition=petition,
        action="approve",
        changes={"approved_on": day},
    )


def mayor_vetoes(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    on: object,
    notes: object,
    today: date,
) -> Petition:
    """§ 6653(2): the mayor denies the ordinance (with the mayor → vetoed)."""
    require_state(petition, "veto")
    assert petition.sent_to_mayor_on is not None
    return _decide(
        session=session,
        actor=actor,
        petition=petition,
        check=Collector(),
        action="veto",
        on=on,
        notes=notes,
        today=today,
        after=petition.sent_to_mayor_on,
        after_msgid=N_("%(day)s is before the mayor received the ordinance (%(after)s)."),
    )


# The day field each decision records.
_DECIDED_ON = {"deny": "denied_on", "veto": "vetoed_on"}


def _decide(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    check: Collector,
    action: str,
    on: object,
    notes: object,
    today: date,
    after: date,
    after_msgid: str,
) -> Petition:
    """A decision against the ordinance (the legislature's denial, the mayor's veto): its day,
    not before ``after``, and its notes, each checked at its field with ``check``'s others."""
    day = check(
        lambda: date_field(on, "on", today=today, after=after, after_msgid=after_msgid), today
    )
    text = check(lambda: long_text(notes, "notes", required=False), "")
    check.raise_any()
    values = {_DECIDED_ON[action]: day, "decision_notes": text}
    return transition(
        session=session, actor=actor, petition=petition, action=action, changes=values
    )


def _flagged_snapshot(session: Session, petition: Petition, ordinance: Ordinance) -> dict[str, Any]:
    """The ordinance as the audit trail keeps it, with the unfavourable findings it was issued
    or approved over (§ 6653(1): the legislature may still conclude to issue it)."""
    after = audit.snapshot(ordinance) or {}
    unfavourable = unfavourable_factors(session=session, petition=petition)
    if unfavourable:
        after["unfavourable_findings"] = ", ".join(unfavourable)
    return after


def publish(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    on: object,
    newspaper: object,
    outside_window_confirmed: bool,
    today: date,
) -> Petition:
    """§ 6653(7): the ordinance is published once in a newspaper of general circulation
    during the week following the mayor's approval (approved → published).

    A date outside the week is refused with the window in the message, unless the clerk
    confirms it (the record must say what happened); a confirmed late publication is kept
    and flagged. A date on or before the approval is always refused.
    """
    require_state(petition, "publish")
    assert petition.approved_on is not None
    approved = petition.approved_on
    check = Collector()
    paper = check(lambda: name_field(newspaper, "newspaper"), "")
    window = calendar.publication_window(approved)
    day: date | None = check(
        lambda: date_field(
            on,
            "on",
            today=today,
            after=window.start,
            after_msgid=N_(
                "%(day)s is not after the mayor's approval (%(approved)s); "
                "the publication follows it."
            ),
            approved=approved,
        ),
        None,
    )
    outside = day is not None and not window.contains(day)
    if day is not None and outside and not outside_window_confirmed:
        check.errors.append(
            PetitionError(
                "on",
                N_(
                    "%(day)s is outside the publication week of § 6653(7), %(start)s to %(end)s. "
                    "If the ordinance really was published that day, tick the confirmation and "
                    "save again: it will be recorded as published outside the week."
                ),
                day=day,
                start=window.start,
                end=window.end,
            )
        )
    check.raise_any()
    assert day is not None
    return transition(
        session=session,
        actor=actor,
        petition=petition,
        action="publish",
        changes={"published_on": day, "newspaper": paper, "published_outside_window": outside},
    )


def _ordinance_date(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    on: object,
    today: date,
    attribute: str,
    action: str,
) -> Ordinance:
    if petition.state not in (S.APPROVED, S.PUBLISHED) or petition.approved_on is None:
        raise PetitionError(
            "on",
            N_(
                "This date can be recorded once the mayor has approved the ordinance (the "
                "petition is %(state)s)."
            ),
            state=STATE_LABELS.get(petition.state, petition.state),
        )
    ordinance = _ordinance_or_error(session, petition)
    day = date_field(
        on,
        "on",
        today=today,
        after=petition.approved_on,
        after_msgid=N_("%(day)s is before the mayor's approval (%(after)s)."),
    )
    before = audit.snapshot(ordinance)
    setattr(ordinance, attribute, day)
    ordinance.updated_at = utcnow()
    session.add(ordinance)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action=action,
        entity=ordinance,
        before=before,
        after=audit.snapshot(ordinance),
    )
    return ordinance


def record_crim_copy(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Ordinance:
    """§ 6653(4): the municipality sends the CRIM a copy of the approved ordinance."""
    return _ordinance_date(
        session=session,
        actor=actor,
        petition=petition,
        on=on,
        today=today,
        attribute="crim_copy_sent_on",
        action="ordinance.crim_copy",
    )


def record_association_receipt(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Ordinance:
    """§ 6653(5): the association receives the ordinance; its 30 days to notify every owner
    by certified mail start."""
    return _ordinance_date(
        session=session,
        actor=actor,
        petition=petition,
        on=on,
        today=today,
        attribute="received_by_association_on",
        action="ordinance.association_receipt",
    )
