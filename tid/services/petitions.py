"""The municipal legislature's petition tracker — 21 LPRA § 6653(1)–(5), (7).

A petition moves through explicit states (RULES.md § 1.1–1.3):

    received → under study → ordinance issued | denied → with the mayor → approved | vetoed
    → published

Every transition checks its preconditions, records its date, and leaves an audit event. The
clocks that run in each state (the legislature's 90 days, the mayor's 30 days, the
publication week, the association's 30 days to notify owners) come from
:mod:`tid.rules.calendar`; nothing here counts days itself.

Errors are :class:`PetitionError`: an :class:`InputError` whose English message is also kept as
a msgid with its parameters, so the web can show it in the user's language.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

from sqlmodel import Session, col, select

from tid.clock import utcnow
from tid.models import (
    AuditEvent,
    CalendarToken,
    District,
    Finding,
    Municipality,
    Ordinance,
    Petition,
    PetitionState,
    User,
)
from tid.rules import calendar
from tid.rules.errors import N_, InputError
from tid.rules.imposts import compile_formula
from tid.rules.messages import Message, render
from tid.rules.money import parse_money
from tid.services import audit


class PetitionError(InputError):
    """A user error about one field, with its msgid and parameters for translation."""

    def __init__(self, field: str, msgid: str, **params: Any) -> None:
        super().__init__(field, msgid % params if params else msgid)
        self.msgid = msgid
        self.params = params


class PetitionFieldsError(PetitionError):
    """Several field errors of one form at once; the first one names the field."""

    def __init__(self, errors: list[PetitionError]) -> None:
        first = errors[0]
        super().__init__(first.field, first.msgid, **first.params)
        self.errors = errors


T = TypeVar("T")


class _Collector:
    """Runs each field's parser and keeps every error, so a form shows them all at once."""

    def __init__(self) -> None:
        self.errors: list[PetitionError] = []

    def __call__(self, parse: Callable[[], T], fallback: T) -> T:
        try:
            return parse()
        except PetitionError as exc:
            self.errors.append(exc)
            return fallback

    def raise_any(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise PetitionFieldsError(self.errors)


# --------------------------------------------------------------------------- constants

S = PetitionState

# § 6653(1)(a)–(e): the factor letters and their English descriptions (msgids).
FACTORS: dict[str, str] = {
    "a": N_("The petition's statements have been established as true and correct."),
    "b": N_(
        "The district is consistent with the applicable municipal plans for land use, "
        "public infrastructure and public services."
    ),
    "c": N_("The district's land area is sufficiently large and sufficiently compact."),
    "d": N_(
        "The proposed projects are compatible with the capacity and uses of the existing "
        "municipal facilities and services."
    ),
    "e": N_(
        "The district is a good alternative for providing tourist development services and "
        "facilities in the area."
    ),
}
FACTOR_CITATION = "21 LPRA § 6653(1)"

# State labels (msgids) in lifecycle order.
STATE_LABELS: dict[str, str] = {
    S.RECEIVED: N_("received"),
    S.UNDER_STUDY: N_("under study"),
    S.ORDINANCE_ISSUED: N_("ordinance issued"),
    S.DENIED: N_("denied"),
    S.WITH_MAYOR: N_("with the mayor"),
    S.APPROVED: N_("approved"),
    S.VETOED: N_("vetoed"),
    S.PUBLISHED: N_("published"),
}
OPEN_STATES = (S.RECEIVED, S.UNDER_STUDY, S.ORDINANCE_ISSUED, S.WITH_MAYOR, S.APPROVED)
CLOSED_STATES = (S.DENIED, S.VETOED, S.PUBLISHED)

# action -> (states it may start from, state it leads to)
TRANSITIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "study": ((S.RECEIVED,), S.UNDER_STUDY),
    "issue": ((S.UNDER_STUDY,), S.ORDINANCE_ISSUED),
    "deny": ((S.UNDER_STUDY,), S.DENIED),
    "to_mayor": ((S.ORDINANCE_ISSUED,), S.WITH_MAYOR),
    "approve": ((S.WITH_MAYOR,), S.APPROVED),
    "veto": ((S.WITH_MAYOR,), S.VETOED),
    "publish": ((S.APPROVED,), S.PUBLISHED),
}
ACTION_LABELS: dict[str, str] = {
    "study": N_("start the study"),
    "issue": N_("issue the ordinance"),
    "deny": N_("deny the petition"),
    "to_mayor": N_("send the ordinance to the mayor"),
    "approve": N_("record the mayor's approval"),
    "veto": N_("record the mayor's veto"),
    "publish": N_("record the publication"),
}

MAX_NAME = 200
MAX_NUMBER = 80
MAX_TEXT = 5000
MAX_TERM_YEARS = 99
# A ceiling far above any district's budget; it keeps amounts inside the cents column.
MAX_EXPECTED_AMOUNT = Decimal("1000000000000")
FIRST_DAY = date(1998, 8, 8)  # Act 207-1998 enacted § 6653

# Control characters cannot be stored (PostgreSQL refuses NUL) and have no place in a record.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_INTEGER = re.compile(r"^\s*\d{1,9}\s*$", re.ASCII)


# --------------------------------------------------------------------------- parsing


def _text(value: object, field: str, *, required: bool, limit: int, multiline: bool) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    text = text.strip()
    if not multiline and ("\n" in text or "\r" in text):
        raise PetitionError(field, N_("Write this on one line."))
    if _CONTROL.search(text):
        raise PetitionError(field, N_("This text contains control characters; remove them."))
    if required and not text:
        raise PetitionError(field, N_("This field is required."))
    if len(text) > limit:
        raise PetitionError(
            field,
            N_("Write at most %(limit)s characters (%(length)s given)."),
            limit=limit,
            length=len(text),
        )
    return text


def _name(value: object, field: str, *, required: bool = True, limit: int = MAX_NAME) -> str:
    return _text(value, field, required=required, limit=limit, multiline=False)


def _long(value: object, field: str, *, required: bool) -> str:
    return _text(value, field, required=required, limit=MAX_TEXT, multiline=True)


def _formula(value: object) -> str:
    """The ordinance's formula, checked as the billing run will read it (§ 6653(3)(d)): the
    language, its length and its nesting are the same bounds as the public calculator's, so
    no ordinance can hold a formula that ties up the billing run. Its names are the roll's
    attributes and the ordinance's parameters, known only when a fiscal year is billed."""
    text = _long(value, "formula", required=True)
    try:
        compile_formula(text)
    except InputError as exc:
        raise PetitionError(
            "formula", N_("The formula cannot be used: %(reason)s"), reason=exc.message
        ) from None
    return text


def _date(
    value: object,
    field: str,
    *,
    today: date,
    after: date | None = None,
    after_msgid: str = "",
    **after_params: Any,
) -> date:
    """A date that is not in the future, not before § 6653 was enacted and, when ``after`` is
    given, not before it (``after_msgid`` says why)."""
    if isinstance(value, date):
        day = value
    else:
        text = value.strip() if isinstance(value, str) else ""
        if not text:
            raise PetitionError(field, N_("Enter the date."))
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise PetitionError(
                field, N_("Write the date as YYYY-MM-DD, for example 2026-03-02.")
            ) from None
    if day > today:
        raise PetitionError(
            field,
            N_("%(day)s is in the future (today is %(today)s)."),
            day=day,
            today=today,
        )
    if day < FIRST_DAY:
        raise PetitionError(
            field,
            N_("%(day)s is before 21 LPRA § 6653 was enacted (%(first)s)."),
            day=day,
            first=FIRST_DAY,
        )
    if after is not None and day < after:
        raise PetitionError(field, after_msgid, day=day, after=after, **after_params)
    return day


def parse_expected_amount(value: object, field: str = "expected_amount") -> Decimal:
    """§ 6653(3)(b): the amount expected to be collected, in dollars and cents, above zero."""
    try:
        amount = parse_money(value if value is not None else "", field)
    except InputError:
        raise PetitionError(
            field, N_("Write an amount in dollars, like 1,250,000.00 (at most two decimals).")
        ) from None
    except ArithmeticError:  # more digits than Decimal's context holds
        raise PetitionError(field, N_("The expected amount is implausibly large.")) from None
    if amount <= 0:
        raise PetitionError(field, N_("The expected amount must be more than zero."))
    if amount > MAX_EXPECTED_AMOUNT:
        raise PetitionError(field, N_("The expected amount is implausibly large."))
    return amount


def parse_term_years(value: object, field: str = "term_years") -> int:
    """§ 6653(3)(c): the term of the imposts, in whole years (1 or more)."""
    if isinstance(value, bool):
        value = ""
    text = str(value) if isinstance(value, int) else (value if isinstance(value, str) else "")
    if not _INTEGER.match(text):
        raise PetitionError(field, N_("Write the term as a whole number of years, like 10."))
    years = int(text)
    if years < 1:
        raise PetitionError(field, N_("The term must be at least one year."))
    if years > MAX_TERM_YEARS:
        raise PetitionError(field, N_("The term can be at most %(max)s years."), max=MAX_TERM_YEARS)
    return years


def _id(value: object, field: str) -> int:
    text = str(value) if isinstance(value, int) else (value if isinstance(value, str) else "")
    if not _INTEGER.match(text):
        raise PetitionError(field, N_("Choose one of the options."))
    return int(text)


# --------------------------------------------------------------------------- writes


def _touch(petition: Petition) -> None:
    petition.updated_at = utcnow()


def _require_state(petition: Petition, action: str) -> None:
    allowed, _target = TRANSITIONS[action]
    if petition.state not in allowed:
        raise PetitionError(
            "state",
            N_("You cannot %(action)s while the petition is %(state)s."),
            action=ACTION_LABELS[action],
            state=STATE_LABELS.get(petition.state, petition.state),
        )


def record_petition(
    *,
    session: Session,
    actor: audit.Actor,
    municipality_id: object,
    district_name: object,
    petitioner: object,
    received_on: object,
    documents: object,
    today: date,
    allowed_municipalities: Iterable[int] | None = None,
) -> Petition:
    """§ 6653(2): the legislature receives the mayor's petition; its 90 days start the day
    after ``received_on``. ``allowed_municipalities`` limits a clerk to their own."""
    check = _Collector()

    def _municipality() -> int:
        chosen = _id(municipality_id, "municipality_id")
        if session.get(Municipality, chosen) is None or (
            allowed_municipalities is not None and chosen not in set(allowed_municipalities)
        ):
            raise PetitionError("municipality_id", N_("Choose your municipality."))
        return chosen

    municipality = check(_municipality, 0)
    name = check(lambda: _name(district_name, "district_name"), "")
    who = check(lambda: _name(petitioner, "petitioner"), "")
    received = check(lambda: _date(received_on, "received_on", today=today), today)
    docs = check(lambda: _long(documents, "documents", required=False), "")
    check.raise_any()
    petition = Petition(
        municipality_id=municipality,
        district_name=name,
        petitioner=who,
        received_on=received,
        documents=docs,
    )
    session.add(petition)
    session.flush()
    audit.record(session, actor, "petition.record", petition, after=audit.snapshot(petition))
    return petition


def _transition(
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    action: str,
    changes: Mapping[str, Any],
) -> Petition:
    before = audit.snapshot(petition)
    for key, value in changes.items():
        setattr(petition, key, value)
    petition.state = TRANSITIONS[action][1]
    _touch(petition)
    session.add(petition)
    session.flush()
    audit.record(
        session,
        actor,
        f"petition.{action}",
        petition,
        before=before,
        after=audit.snapshot(petition),
    )
    return petition


def start_study(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Petition:
    """The legislature takes the petition under study (received → under study)."""
    _require_state(petition, "study")
    day = _date(
        on,
        "on",
        today=today,
        after=petition.received_on,
        after_msgid=N_("%(day)s is before the petition was received (%(after)s)."),
    )
    return _transition(session, actor, petition, "study", {"study_started_on": day})


def findings_of(session: Session, petition: Petition) -> dict[str, Finding]:
    """The recorded findings of a petition, by factor letter."""
    rows = session.exec(select(Finding).where(Finding.petition_id == petition.id))
    return {f.factor: f for f in rows}


def record_finding(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    factor: object,
    favourable: object,
    grounds: object,
    on: object,
    today: date,
) -> Finding:
    """§ 6653(1): record (or correct) the legislature's finding on one factor (a)–(e),
    favorable or not, with its grounds. Allowed while the petition is received or under
    study."""
    if petition.state not in (S.RECEIVED, S.UNDER_STUDY):
        raise PetitionError(
            "factor",
            N_(
                "Findings can be recorded only while the petition is received or under study "
                "(it is %(state)s)."
            ),
            state=STATE_LABELS.get(petition.state, petition.state),
        )
    check = _Collector()
    letter = factor.strip().lower() if isinstance(factor, str) else ""
    if letter not in FACTORS:
        check.errors.append(PetitionError("factor", N_("Choose one of the factors (a) to (e).")))
    is_favourable = False
    if favourable in (True, "yes", "1", "true"):
        is_favourable = True
    elif favourable not in (False, "no", "0", "false"):
        check.errors.append(
            PetitionError("favourable", N_("Say whether the finding is favorable or not."))
        )
    text = check(lambda: _long(grounds, "grounds", required=True), "")
    day = check(
        lambda: _date(
            on,
            "on",
            today=today,
            after=petition.received_on,
            after_msgid=N_("%(day)s is before the petition was received (%(after)s)."),
        ),
        today,
    )
    check.raise_any()
    existing = findings_of(session, petition).get(letter)
    before = audit.snapshot(existing)
    finding = existing or Finding(
        petition_id=petition.id or 0,
        factor=letter,
        favourable=is_favourable,
        grounds=text,
        recorded_on=day,
    )
    finding.favourable = is_favourable
    finding.grounds = text
    finding.recorded_on = day
    finding.updated_at = utcnow()
    session.add(finding)
    session.flush()
    audit.record(
        session,
        actor,
        "finding.update" if existing else "finding.record",
        finding,
        before=before,
        after=audit.snapshot(finding),
    )
    return finding


def _require_all_findings(session: Session, petition: Petition) -> dict[str, Finding]:
    found = findings_of(session, petition)
    missing = [f"({letter})" for letter in FACTORS if letter not in found]
    if missing:
        raise PetitionError(
            "findings",
            N_("Record the findings on every factor of § 6653(1) first; missing: %(missing)s."),
            missing=", ".join(missing),
        )
    return found


def unfavourable_factors(session: Session, petition: Petition) -> list[str]:
    """The factors found unfavorable (an ordinance issued over them is flagged)."""
    return sorted(f.factor for f in findings_of(session, petition).values() if not f.favourable)


def ordinance_of(session: Session, petition: Petition) -> Ordinance | None:
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
                session,
                actor,
                "district.update",
                district,
                before=before,
                after=audit.snapshot(district),
            )
        return district
    district = District(
        municipality_id=petition.municipality_id, name=name, association_name=association
    )
    session.add(district)
    session.flush()
    audit.record(session, actor, "district.create", district, after=audit.snapshot(district))
    return district


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
) -> Ordinance:
    """§ 6653(2)–(4): the legislature issues the ordinance (under study → ordinance issued).

    It states the district's name, the amount expected to be collected, the term and the
    yearly formula per property (§ 6653(3)), and authorizes the association to collect
    (§ 6653(4)). All five findings of § 6653(1) must be recorded first; issuing over an
    unfavorable one is allowed and flagged. The ordinance creates (or links) the District.
    """
    _require_state(petition, "issue")
    start = petition.study_started_on or petition.received_on
    check = _Collector()
    check(lambda: _require_all_findings(session, petition), dict[str, Finding]())
    number_text = check(lambda: _name(number, "number", required=False, limit=MAX_NUMBER), "")
    name = check(lambda: _name(district_name, "district_name"), "")
    amount = check(lambda: parse_expected_amount(expected_amount), Decimal(0))
    years = check(lambda: parse_term_years(term_years), 0)
    formula_text = check(lambda: _formula(formula), "")
    association = check(lambda: _name(association_name, "association_name"), "")
    issued = check(
        lambda: _date(
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
        association_name=association,
        issued_on=issued,
    )
    session.add(ordinance)
    session.flush()
    unfavourable = unfavourable_factors(session, petition)
    after = audit.snapshot(ordinance) or {}
    if unfavourable:
        after["unfavourable_findings"] = ", ".join(unfavourable)
    audit.record(session, actor, "ordinance.issue", ordinance, after=after)
    _transition(session, actor, petition, "issue", {})
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
    _require_state(petition, "deny")
    start = petition.study_started_on or petition.received_on
    check = _Collector()
    check(lambda: _require_all_findings(session, petition), dict[str, Finding]())
    day = check(
        lambda: _date(
            on,
            "on",
            today=today,
            after=start,
            after_msgid=N_("%(day)s is before the study started (%(after)s)."),
        ),
        today,
    )
    text = check(lambda: _long(notes, "notes", required=False), "")
    check.raise_any()
    return _transition(session, actor, petition, "deny", {"denied_on": day, "decision_notes": text})


def send_to_mayor(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Petition:
    """§ 6653(2): the mayor receives the ordinance; the mayor's 30 days start (ordinance
    issued → with the mayor)."""
    _require_state(petition, "to_mayor")
    ordinance = _ordinance_or_error(session, petition)
    day = _date(
        on,
        "on",
        today=today,
        after=ordinance.issued_on,
        after_msgid=N_("%(day)s is before the ordinance was issued (%(after)s)."),
    )
    return _transition(session, actor, petition, "to_mayor", {"sent_to_mayor_on": day})


def _ordinance_or_error(session: Session, petition: Petition) -> Ordinance:
    ordinance = ordinance_of(session, petition)
    if ordinance is None:
        raise PetitionError("state", N_("This petition has no ordinance yet."))
    return ordinance


def mayor_approves(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Petition:
    """§ 6653(2), (7): the mayor approves the ordinance (with the mayor → approved); the
    publication week starts the next day. An approval over an unfavorable finding is
    allowed and flagged in the audit trail."""
    _require_state(petition, "approve")
    ordinance = _ordinance_or_error(session, petition)
    assert petition.sent_to_mayor_on is not None
    day = _date(
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
    after = audit.snapshot(ordinance) or {}
    unfavourable = unfavourable_factors(session, petition)
    if unfavourable:
        after["unfavourable_findings"] = ", ".join(unfavourable)
    audit.record(session, actor, "ordinance.approve", ordinance, before=before, after=after)
    return _transition(session, actor, petition, "approve", {"approved_on": day})


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
    _require_state(petition, "veto")
    assert petition.sent_to_mayor_on is not None
    sent = petition.sent_to_mayor_on
    check = _Collector()
    day = check(
        lambda: _date(
            on,
            "on",
            today=today,
            after=sent,
            after_msgid=N_("%(day)s is before the mayor received the ordinance (%(after)s)."),
        ),
        today,
    )
    text = check(lambda: _long(notes, "notes", required=False), "")
    check.raise_any()
    return _transition(session, actor, petition, "veto", {"vetoed_on": day, "decision_notes": text})


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
    _require_state(petition, "publish")
    assert petition.approved_on is not None
    approved = petition.approved_on
    check = _Collector()
    paper = check(lambda: _name(newspaper, "newspaper"), "")
    window = calendar.publication_window(approved)
    day: date | None = check(
        lambda: _date(
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
    return _transition(
        session,
        actor,
        petition,
        "publish",
        {"published_on": day, "newspaper": paper, "published_outside_window": outside},
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
    day = _date(
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
    audit.record(session, actor, action, ordinance, before=before, after=audit.snapshot(ordinance))
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


# --------------------------------------------------------------------------- corrections
# A clerk corrects a recorded date or text (a typo, a date misread from the stamp) with a
# reason; the audit trail keeps the value before and after, and the clocks — computed from
# the recorded dates (tid/rules/calendar.py) — follow the corrected dates at once.

# field → (record it belongs to, label msgid, kind)
CORRECTABLE: dict[str, tuple[str, str, str]] = {
    "district_name": ("petition", N_("Proposed district name"), "name"),
    "petitioner": ("petition", N_("Petitioner"), "name"),
    "documents": ("petition", N_("Documents received"), "text"),
    "received_on": ("petition", N_("Date the petition was received"), "date"),
    "study_started_on": ("petition", N_("Date the study started"), "date"),
    "denied_on": ("petition", N_("Date the petition was denied"), "date"),
    "issued_on": ("ordinance", N_("Date the ordinance was issued"), "date"),
    "sent_to_mayor_on": ("petition", N_("Date the mayor received the ordinance"), "date"),
    "approved_on": ("petition", N_("Date the mayor approved the ordinance"), "date"),
    "vetoed_on": ("petition", N_("Date the mayor vetoed the ordinance"), "date"),
    "published_on": ("petition", N_("Date the ordinance was published"), "date"),
    "newspaper": ("petition", N_("Newspaper of general circulation"), "name"),
    "decision_notes": ("petition", N_("Grounds or notes"), "text"),
    "crim_copy_sent_on": ("ordinance", N_("Date the copy was sent to the CRIM"), "date"),
    "received_by_association_on": (
        "ordinance",
        N_("Date the association received the ordinance"),
        "date",
    ),
}
# Each date comes on or after the ones before it (what the transitions check one by one).
_DATE_ORDER: tuple[tuple[str, str], ...] = (
    ("received_on", "study_started_on"),
    ("received_on", "denied_on"),
    ("study_started_on", "denied_on"),
    ("received_on", "issued_on"),
    ("study_started_on", "issued_on"),
    ("issued_on", "sent_to_mayor_on"),
    ("sent_to_mayor_on", "approved_on"),
    ("sent_to_mayor_on", "vetoed_on"),
    ("approved_on", "crim_copy_sent_on"),
    ("approved_on", "received_by_association_on"),
)


def correctable_fields(petition: Petition, ordinance: Ordinance | None) -> list[str]:
    """The fields that have a recorded value to correct (a date not yet recorded is
    recorded by its step, not corrected)."""
    result = []
    for name, (owner, _label, kind) in CORRECTABLE.items():
        record = petition if owner == "petition" else ordinance
        if record is None:
            continue
        value = getattr(record, name)
        if kind == "date" and value is None:
            continue
        if name in ("newspaper",) and petition.published_on is None:
            continue
        result.append(name)
    return result


def recorded_value(petition: Petition, ordinance: Ordinance | None, field_name: str) -> str:
    owner = CORRECTABLE[field_name][0]
    record = petition if owner == "petition" else ordinance
    value = getattr(record, field_name) if record is not None else None
    if isinstance(value, date):
        return value.isoformat()
    return "" if value is None else str(value)


def correct_petition(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    field_name: object,
    value: object,
    reason: object,
    today: date,
) -> Petition:
    """Correct one recorded date or text of a petition (or of its ordinance), with a reason.
    Every field's error is reported at once; the dates must stay in the order of the
    lifecycle; the publication-week flag is recomputed from the corrected dates."""
    ordinance = ordinance_of(session, petition)
    name = field_name if isinstance(field_name, str) else ""
    check = _Collector()
    known = name in correctable_fields(petition, ordinance)
    if not known:
        check.errors.append(PetitionError("field", N_("Choose a recorded entry to correct.")))
    owner, _label, kind = CORRECTABLE.get(name, ("petition", "", ""))
    new: Any = None
    if kind == "date":
        new = check(lambda: _date(value, "value", today=today), None)
    elif kind == "name":
        new = check(lambda: _name(value, "value"), "")
    elif kind == "text":
        new = check(lambda: _long(value, "value", required=False), "")
    why = check(lambda: _long(reason, "reason", required=True), "")
    check.raise_any()
    record: Any = petition if owner == "petition" else ordinance
    old = getattr(record, name)
    if old == new:
        raise PetitionError("value", N_("This is already the recorded value."))
    dates = _recorded_dates(session, petition, ordinance)
    dates[name] = new if kind == "date" else dates.get(name)
    if kind == "date":
        _check_date_order(session, petition, dates, name)
    before_p, before_o = audit.snapshot(petition), audit.snapshot(ordinance)
    setattr(record, name, new)
    if name == "approved_on" and ordinance is not None:
        ordinance.approved_on = new  # the mayor's approval is kept on both records
    if name in ("approved_on", "published_on") and petition.published_on is not None:
        assert petition.approved_on is not None
        window = calendar.publication_window(petition.approved_on)
        petition.published_outside_window = not window.contains(petition.published_on)
    _touch(petition)
    session.add(petition)
    if ordinance is not None:
        ordinance.updated_at = utcnow()
        session.add(ordinance)
    session.flush()
    changed = {
        k: v
        for k, v in (audit.snapshot(petition) or {}).items()
        if (before_p or {}).get(k) != v and k != "updated_at"
    }
    if ordinance is not None:
        changed.update(
            {
                f"ordinance.{k}": v
                for k, v in (audit.snapshot(ordinance) or {}).items()
                if (before_o or {}).get(k) != v and k != "updated_at"
            }
        )
    was = {
        k: (before_o or {}).get(k.removeprefix("ordinance."))
        if k.startswith("ordinance.")
        else (before_p or {}).get(k)
        for k in changed
    }
    audit.record(
        session,
        actor,
        "petition.correct",
        petition,
        before=was,
        after={**changed, "reason": why},
    )
    return petition


def _recorded_dates(
    session: Session, petition: Petition, ordinance: Ordinance | None
) -> dict[str, date | None]:
    dates: dict[str, date | None] = {
        name: getattr(petition if owner == "petition" else ordinance, name, None)
        for name, (owner, _label, kind) in CORRECTABLE.items()
        if kind == "date"
    }
    return dates


def _check_date_order(
    session: Session, petition: Petition, dates: dict[str, date | None], changed: str
) -> None:
    for first, then in _DATE_ORDER:
        a, b = dates.get(first), dates.get(then)
        if a is not None and b is not None and b < a and changed in (first, then):
            raise PetitionError(
                "value",
                N_("“%(later)s” (%(b)s) cannot be before “%(earlier)s” (%(a)s)."),
                later=CORRECTABLE[then][1],
                b=b.isoformat(),
                earlier=CORRECTABLE[first][1],
                a=a.isoformat(),
            )
    approved, published = dates.get("approved_on"), dates.get("published_on")
    if approved is not None and published is not None and published <= approved:
        raise PetitionError(
            "value",
            N_(
                "%(day)s is not after the mayor's approval (%(approved)s); the publication "
                "follows it."
            ),
            day=published.isoformat(),
            approved=approved.isoformat(),
        )
    received = dates.get("received_on")
    if changed == "received_on" and received is not None:
        earliest = min(
            (f.recorded_on for f in findings_of(session, petition).values()), default=None
        )
        if earliest is not None and earliest < received:
            raise PetitionError(
                "value",
                N_("A finding was recorded on %(day)s, before %(received)s."),
                day=earliest.isoformat(),
                received=received.isoformat(),
            )


# --------------------------------------------------------------------------- clocks


@dataclass(frozen=True)
class Clock:
    """One statutory clock of a petition: when it is due, how many days are left (negative:
    overdue), whether it still runs, and the explanation in both languages."""

    kind: str  # "ordinance", "mayor", "publication", "notice"
    label: str  # msgid
    due: date
    start: date | None  # first day of a window (publication), else None
    days_left: int
    running: bool
    stopped_on: date | None
    explanation: str
    explanation_es: str
    citation: str
    warnings: tuple[str, ...] = field(default=())

    @property
    def overdue(self) -> bool:
        return self.running and self.days_left < 0

    @property
    def soon(self) -> bool:
        return self.running and 0 <= self.days_left <= SOON_DAYS

    @property
    def met(self) -> bool | None:
        """Whether the act came in time (``None`` while the clock runs)."""
        if self.stopped_on is None:
            return None
        return self.stopped_on <= self.due and (self.start is None or self.stopped_on >= self.start)


SOON_DAYS = 10  # the daily digest flags what is due within this many days

CLOCK_LABELS = {
    "ordinance": N_("Ordinance due"),
    "mayor": N_("Mayor's decision due"),
    "publication": N_("Publication week ends"),
    "notice": N_("Owners' notice due"),
}


def _deadline_clock(
    kind: str, deadline: calendar.Deadline, today: date, stopped_on: date | None
) -> Clock:
    return Clock(
        kind=kind,
        label=CLOCK_LABELS[kind],
        due=deadline.date,
        start=None,
        days_left=calendar.days_left(deadline, today),
        running=stopped_on is None,
        stopped_on=stopped_on,
        explanation=deadline.explanation,
        explanation_es=deadline.explanation_es,
        citation=deadline.citation,
        warnings=deadline.warnings,
    )


def clocks(
    petition: Petition,
    ordinance: Ordinance | None,
    *,
    today: date,
) -> list[Clock]:
    """Every clock the petition has started, in lifecycle order; the one that runs in the
    current state has ``running`` set."""
    result = []
    issued_or_denied = ordinance.issued_on if ordinance else petition.denied_on
    result.append(
        _deadline_clock(
            "ordinance",
            calendar.ordinance_due(petition.received_on),
            today,
            issued_or_denied if issued_or_denied else None,
        )
    )
    if petition.sent_to_mayor_on is not None:
        result.append(
            _deadline_clock(
                "mayor",
                calendar.mayor_decision_due(petition.sent_to_mayor_on),
                today,
                petition.approved_on or petition.vetoed_on,
            )
        )
    if petition.approved_on is not None:
        window = calendar.publication_window(petition.approved_on)
        result.append(
            Clock(
                kind="publication",
                label=CLOCK_LABELS["publication"],
                due=window.end,
                start=window.start,
                days_left=calendar.days_left(window, today),
                running=petition.published_on is None,
                stopped_on=petition.published_on,
                explanation=window.explanation,
                explanation_es=window.explanation_es,
                citation=window.citation,
                warnings=window.warnings,
            )
        )
    if ordinance is not None and ordinance.received_by_association_on is not None:
        # The association's clock: shown with the petition, it never blocks the lifecycle.
        notice = calendar.initial_notice_due(ordinance.received_by_association_on)
        clock = _deadline_clock("notice", notice, today, None)
        result.append(clock)
    return result


def running_clock(
    petition: Petition,
    ordinance: Ordinance | None,
    *,
    today: date,
) -> Clock | None:
    """The legislature's or the mayor's clock that runs in the petition's current state:
    the 90 days while received or under study, the 30 days while with the mayor, the
    publication week once approved; none otherwise."""
    kind = {
        S.RECEIVED: "ordinance",
        S.UNDER_STUDY: "ordinance",
        S.WITH_MAYOR: "mayor",
        S.APPROVED: "publication",
    }.get(S(petition.state))
    if kind is None:
        return None
    for clock in clocks(petition, ordinance, today=today):
        if clock.kind == kind and clock.running:
            return clock
    return None


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class DashboardRow:
    petition: Petition
    municipality: str
    clock: Clock | None
    unfavourable: tuple[str, ...]


def dashboard(
    session: Session,
    *,
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
    rows = []
    for petition, municipality in pairs:
        ordinance = ordinances.get(petition.id or 0)
        clock = running_clock(petition, ordinance, today=today)
        rows.append(
            DashboardRow(
                petition=petition,
                municipality=municipality.name,
                clock=clock,
                unfavourable=tuple(unfavourable_factors(session, petition)),
            )
        )
    rows.sort(
        key=lambda r: (r.clock is None, r.clock.days_left if r.clock else 0, r.petition.id or 0)
    )
    return rows


def visible_dashboard(
    session: Session,
    *,
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
    return dashboard(session, today=today, municipality_ids=ids, state=state or None)


def municipality_names(session: Session, scope: Iterable[int] | None) -> list[tuple[int, str]]:
    """(id, name) of the municipalities in ``scope`` (None: every one), by name."""
    stmt = select(Municipality).order_by(col(Municipality.name))
    if scope is not None:
        stmt = stmt.where(col(Municipality.id).in_(list(scope)))
    return [(m.id or 0, m.name) for m in session.exec(stmt)]


def due_soon(rows: Iterable[DashboardRow], within: int = SOON_DAYS) -> list[DashboardRow]:
    """The rows whose running clock is overdue or due within ``within`` days."""
    return [r for r in rows if r.clock is not None and r.clock.days_left <= within]


def history(session: Session, petition: Petition) -> list[AuditEvent]:
    """The audit events of the petition, its findings and its ordinance, oldest first."""
    keys: list[tuple[str, str]] = [("petition", str(petition.id))]
    keys += [("finding", str(f.id)) for f in findings_of(session, petition).values()]
    ordinance = ordinance_of(session, petition)
    if ordinance is not None:
        keys.append(("ordinance", str(ordinance.id)))
    events: list[AuditEvent] = []
    for entity_type, entity_id in keys:
        events += audit.history(session, entity_type, entity_id)
    events.sort(key=lambda e: (e.at, e.id or 0))
    return events


# --------------------------------------------------------------------------- calendar feed
# A calendar program subscribes to a URL and cannot log in, so the URL carries a secret. Only
# its SHA-256 is stored; issuing a new one revokes the old; the feed shows what the token's
# owner may see *today* (a deactivated account or a changed role stops or narrows it).


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_calendar_token(*, session: Session, actor: audit.Actor, user: User) -> str:
    """A new secret for ``user``'s calendar URL; any earlier one stops working."""
    revoke_calendar_tokens(session=session, actor=actor, user=user, record=False)
    token = secrets.token_urlsafe(32)
    row = CalendarToken(user_id=user.id or 0, token_hash=_token_hash(token))
    session.add(row)
    session.flush()
    audit.record(session, actor, "calendar_token.issue", ("user_account", user.id))
    return token


def revoke_calendar_tokens(
    *, session: Session, actor: audit.Actor, user: User, record: bool = True
) -> int:
    """Revoke every live calendar secret of ``user``; returns how many were live."""
    live = list(
        session.exec(
            select(CalendarToken).where(
                CalendarToken.user_id == user.id,
                CalendarToken.revoked_at == None,  # noqa: E711
            )
        )
    )
    for row in live:
        row.revoked_at = utcnow()
        session.add(row)
    if record and live:
        audit.record(session, actor, "calendar_token.revoke", ("user_account", user.id))
    return len(live)


def has_calendar_token(session: Session, user_id: int) -> bool:
    return (
        session.exec(
            select(CalendarToken).where(
                CalendarToken.user_id == user_id,
                CalendarToken.revoked_at == None,  # noqa: E711
            )
        ).first()
        is not None
    )


def user_for_calendar_token(session: Session, token: str) -> User | None:
    """The active user whose live calendar secret is ``token``, or None."""
    if not token or len(token) > 100:
        return None
    row = session.exec(
        select(CalendarToken).where(
            CalendarToken.token_hash == _token_hash(token),
            CalendarToken.revoked_at == None,  # noqa: E711
        )
    ).first()
    if row is None:
        return None
    user = session.get(User, row.user_id)
    return user if user is not None and user.active else None


def visible_municipalities(user: User) -> list[int] | None:
    """The municipalities whose petitions ``user`` may see (None: all of them)."""
    from tid.services import access

    return access.visible_municipalities(user)


def _ical_escape(text: str) -> str:
    return (
        text.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
        .replace("\r", "\\n")
    )


def _ical_fold(line: str) -> str:
    """RFC 5545 § 3.1: lines longer than 75 octets are folded (CRLF + one space), never
    inside a UTF-8 character."""
    out: list[str] = []
    current = ""
    size = 0
    limit = 75
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            out.append(current)
            current = " "
            size = 1
        current += char
        size += width
    out.append(current)
    return "\r\n".join(out)


@dataclass(frozen=True)
class FeedEvent:
    uid: str
    day: date
    summary: str
    description: str


def ical_document(events: Iterable[FeedEvent], *, stamp: datetime, name: str) -> str:
    """An RFC 5545 calendar of all-day events (CRLF line ends, folded lines)."""
    dtstamp = stamp.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//tid//Tourism improvement districts//ES",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{_ical_escape(name)}",
    ]
    for event in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{event.uid}",
            f"DTSTAMP:{dtstamp}",
            f"DTSTART;VALUE=DATE:{event.day.strftime('%Y%m%d')}",
            f"DTEND;VALUE=DATE:{(event.day + timedelta(days=1)).strftime('%Y%m%d')}",
            f"SUMMARY:{_ical_escape(event.summary)}",
            f"DESCRIPTION:{_ical_escape(event.description)}",
            "TRANSP:TRANSPARENT",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(_ical_fold(line) + "\r\n" for line in lines)


def feed_event(row: DashboardRow, clock: Clock, *, lang: str) -> FeedEvent:
    """One clock of one petition as an all-day calendar event, in ``lang``."""
    petition = row.petition
    summary: str = Message(
        "%(clock)s: %(district)s (%(municipality)s)",
        clock=Message(CLOCK_LABELS[clock.kind]),
        district=petition.district_name,
        municipality=row.municipality,
    )
    description: str = Message(
        "%(explanation)s. %(citation)s.", explanation=clock.explanation, citation=clock.citation
    )
    summary, description = render(summary, lang), render(description, lang)
    return FeedEvent(
        uid=f"tid-petition-{petition.id}-{clock.kind}@tid.pr",
        day=clock.due,
        summary=summary,
        description=description,
    )
