"""A petition received and studied: recorded, taken under study, and its findings on each
factor of § 6653(1) recorded (the ordinance needs every factor found).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from sqlmodel import Session, select

from tid.clock import utcnow
from tid.models import Finding, Municipality, Petition
from tid.rules.errors import N_
from tid.services.audit_trail import audit
from tid.services.petitions.errors import Collector, PetitionError
from tid.services.petitions.parsing import date_field, id_field, long_text, name_field
from tid.services.petitions.states import FACTORS, STATE_LABELS, S, require_state, transition


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
    check = Collector()

    def _municipality() -> int:
        chosen = id_field(municipality_id, "municipality_id")
        if session.get(Municipality, chosen) is None or (
            allowed_municipalities is not None and chosen not in set(allowed_municipalities)
        ):
            raise PetitionError("municipality_id", N_("Choose your municipality."))
        return chosen

    municipality = check(_municipality, 0)
    name = check(lambda: name_field(district_name, "district_name"), "")
    who = check(lambda: name_field(petitioner, "petitioner"), "")
    received = check(lambda: date_field(received_on, "received_on", today=today), today)
    docs = check(lambda: long_text(documents, "documents", required=False), "")
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
    audit.record(
        session=session,
        actor=actor,
        action="petition.record",
        entity=petition,
        after=audit.snapshot(petition),
    )
    return petition


def start_study(
    *, session: Session, actor: audit.Actor, petition: Petition, on: object, today: date
) -> Petition:
    """The legislature takes the petition under study (received → under study)."""
    require_state(petition, "study")
    day = date_field(
        on,
        "on",
        today=today,
        after=petition.received_on,
        after_msgid=N_("%(day)s is before the petition was received (%(after)s)."),
    )
    return transition(
        session=session,
        actor=actor,
        petition=petition,
        action="study",
        changes={"study_started_on": day},
    )


def findings_of(*, session: Session, petition: Petition) -> dict[str, Finding]:
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
    check = Collector()
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
    text = check(lambda: long_text(grounds, "grounds", required=True), "")
    day = check(
        lambda: date_field(
            on,
            "on",
            today=today,
            after=petition.received_on,
            after_msgid=N_("%(day)s is before the petition was received (%(after)s)."),
        ),
        today,
    )
    check.raise_any()
    existing = findings_of(session=session, petition=petition).get(letter)
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
        session=session,
        actor=actor,
        action="finding.update" if existing else "finding.record",
        entity=finding,
        before=before,
        after=audit.snapshot(finding),
    )
    return finding


def require_all_findings(*, session: Session, petition: Petition) -> dict[str, Finding]:
    found = findings_of(session=session, petition=petition)
    missing = [f"({letter})" for letter in FACTORS if letter not in found]
    if missing:
        raise PetitionError(
            "findings",
            N_("Record the findings on every factor of § 6653(1) first; missing: %(missing)s."),
            missing=", ".join(missing),
        )
    return found


def unfavourable_factors(*, session: Session, petition: Petition) -> list[str]:
    """The factors found unfavorable (an ordinance issued over them is flagged)."""
    return sorted(
        f.factor
        for f in findings_of(session=session, petition=petition).values()
        if not f.favourable
    )
