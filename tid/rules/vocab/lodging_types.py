"""The lodging types of the room tax and its exemptions (tid/rules/room_tax.py).

Every type of Act 272-2003 § 24(B), in its order; ``irc1994`` is a type's place in the list
of IRC 1994 § 2051(a) (None: not a type of that regime). An exemption carries the section of
Act 272-2003 that grants it (``citation``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tid.rules.messages import N_
from tid.rules.vocab.terms import Term, Vocabulary


@dataclass(frozen=True)
class LodgingType(Term):
    irc1994: int | None = None


@dataclass(frozen=True)
class Exemption(Term):
    citation: str


LODGING_TYPES: Vocabulary[LodgingType] = Vocabulary(
    "lodging types",
    (
        LodgingType("hotel", N_("Hotel"), irc1994=0),
        LodgingType("condohotel", N_("Condohotel")),
        LodgingType("apartment_hotel", N_("Apartment hotel"), irc1994=1),
        LodgingType("guest_house", N_("Guest house"), irc1994=2),
        LodgingType("hostelry", N_("Hostelry or inn not authorized as a parador (9 percent)")),
        LodgingType("casino_hotel", N_("Hotel with casino"), irc1994=3),
        LodgingType(
            "parador", N_("Parador (inn authorized by the Tourism Company, 7 percent)"), irc1994=5
        ),
        LodgingType("motel", N_("Motel"), irc1994=4),
        LodgingType("all_inclusive_hotel", N_("All-inclusive hotel")),
        LodgingType("short_term_rental", N_("Short-term rental")),
        LodgingType("government_recreational", N_("Government recreational facility")),
    ),
)

EXEMPTIONS: Vocabulary[Exemption] = Vocabulary(
    "room-tax exemptions",
    (
        Exemption(
            "film_production",
            N_("Film production crew"),
            N_("Act 272-2003 § 24(F) (rooms of certified film-production crews)"),
        ),
        Exemption(
            "timeshare",
            N_("Timeshare"),
            N_("Act 272-2003 § 24(G) (timeshare acquisition and maintenance)"),
        ),
    ),
)


def act272_types() -> tuple[str, ...]:
    """The lodging types of Act 272-2003 § 24(B)."""
    return LODGING_TYPES.codes()


def irc1994_types() -> tuple[str, ...]:
    """The lodging types of IRC 1994 § 2051(a), in its order."""
    listed = [t for t in LODGING_TYPES if t.irc1994 is not None]
    return tuple(t.code for t in sorted(listed, key=lambda t: t.irc1994 or 0))


def lodging_label(code: str) -> str:
    """A lodging type or an exemption by its label (as a message); unknown codes as written."""
    return EXEMPTIONS.label(code) if code in EXEMPTIONS else LODGING_TYPES.label(code)
