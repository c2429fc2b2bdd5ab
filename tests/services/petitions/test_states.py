"""How a petition's state reads at a glance."""

from __future__ import annotations

from tid.models import PetitionState as S
from tid.services.petitions import state_tone


def test_a_refused_petition_reads_bad_and_a_published_one_good() -> None:
    assert {state: state_tone(state) for state in S} == {
        S.RECEIVED: "",
        S.UNDER_STUDY: "",
        S.ORDINANCE_ISSUED: "",
        S.DENIED: "bad",
        S.WITH_MAYOR: "",
        S.APPROVED: "",
        S.VETOED: "bad",
        S.PUBLISHED: "good",
    }
