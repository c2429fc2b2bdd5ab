"""The petition's states and the actions that move it between them (21 LPRA § 6653(1)–(3)), the
factors of § 6653(1)(a)–(e), and the one check-and-record step every transition takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import Session

from tid.clock import utcnow
from tid.models import Petition, PetitionState
from tid.rules.errors import N_
from tid.services.audit_trail import audit
from tid.services.petitions.errors import PetitionError

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


def state_tone(state: str) -> str:
    """How a state reads at a glance: ``bad`` (the petition was refused), ``good`` (its
    ordinance is in force) or ``""``."""
    if state in (S.DENIED, S.VETOED):
        return "bad"
    return "good" if state == S.PUBLISHED else ""


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


def touch(petition: Petition) -> None:
    petition.updated_at = utcnow()


def require_state(petition: Petition, action: str) -> None:
    allowed, _target = TRANSITIONS[action]
    if petition.state not in allowed:
        raise PetitionError(
            "state",
            N_("You cannot %(action)s while the petition is %(state)s."),
            action=ACTION_LABELS[action],
            state=STATE_LABELS.get(petition.state, petition.state),
        )


def transition(
    *,
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
    touch(petition)
    session.add(petition)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action=f"petition.{action}",
        entity=petition,
        before=before,
        after=audit.snapshot(petition),
    )
    return petition
