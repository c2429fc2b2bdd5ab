"""The kinds of lien on a property and how 21 LPRA § 6653(8) ranks each (tid/rules/liens.py).

``rank``: ``ABOVE`` ranks above the impost lien whatever its date (group 1), under the
paragraph of § 6653(8) in ``paragraph``; ``IMPOST`` is the district's impost lien (group 2);
``BY_DATE`` ranks above it when constituted before the act took effect (group 1), else below
(group 3). ``what`` is how the ranking's reason names a lien of the kind; ``recorded``: users
record liens of the kind on a property (the impost lien comes from the district's bills).

A line of a ranking is a lien's secured amount (``SECURED``) or, for the impost lien, the
surcharges and interest it does not secure (``UNSECURED_CHARGES``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from tid.rules.messages import N_, Message, day_message
from tid.rules.vocab.terms import Term, Vocabulary

ABOVE = "above"
IMPOST = "impost"
BY_DATE = "by_date"
IMPOST_KIND = "tid_impost"
SECURED = "secured"
UNSECURED_CHARGES = "unsecured_charges"
_UNSECURED_LABEL = N_("surcharges and interest (not secured)")
# The kinds ranked by their date, as 21 LPRA § 6653(8)(c) ranks them around the impost lien.
BY_DATE_PARAGRAPH = "(c)"
_BEFORE_THE_ACT = N_("liens of any other kind constituted before the act took effect (%(date)s)")
_AFTER_THE_ACT = N_("liens of any other kind constituted after the act took effect (%(date)s)")
# A kind and a part put together with a dash: the same in every language, not a catalog entry.
_LINE = "%(kind)s — %(part)s"


@dataclass(frozen=True)
class LienKind(Term):
    what: str
    rank: str = BY_DATE
    paragraph: str | None = None
    recorded: bool = True


LIEN_KINDS: Vocabulary[LienKind] = Vocabulary(
    "lien kinds",
    (
        LienKind(
            "fiscal_transferred_tax_debt",
            N_("Fiscal lien (transferred tax debt)"),
            N_("the fiscal lien securing delinquent tax debts transferred under 13 LPRA § 5924"),
            ABOVE,
            "(a)",
        ),
        LienKind(
            "municipal_property_tax",
            N_("Municipal property tax"),
            N_("the municipal property-tax lien (Municipal Property Tax Act of 1991)"),
            ABOVE,
            "(b)",
        ),
        LienKind(
            "infrastructure_impost",
            N_("Infrastructure impost or tax"),
            N_("a tacit legal lien securing imposts or taxes that finance public infrastructure"),
            ABOVE,
            "(d)",
        ),
        LienKind(IMPOST_KIND, N_("District impost"), "", IMPOST, recorded=False),
        LienKind("mortgage", N_("Mortgage"), N_("a mortgage")),
        LienKind("judgment", N_("Judgment"), N_("a judgment lien")),
        LienKind("other", N_("Other"), N_("a lien")),
    ),
)


def recorded_kinds() -> tuple[str, ...]:
    """The kinds users record on a property (every kind but the district's impost lien)."""
    return LIEN_KINDS.codes(lambda kind: kind.recorded)


def ranked_by_kind() -> dict[str, str]:
    """The kinds that rank above the impost lien whatever their date, with the paragraph of
    21 LPRA § 6653(8) that says so."""
    return {k.code: k.paragraph for k in LIEN_KINDS if k.rank == ABOVE and k.paragraph}


def ranked_line_label(kind: str, part: str) -> str:
    """A line of a ranking by its label: the kind of lien, and for the impost's unsecured
    charges what they are (as a message)."""
    label = LIEN_KINDS.label(kind)
    if part != UNSECURED_CHARGES:
        return label
    return Message(_LINE, kind=label, part=Message(_UNSECURED_LABEL))


def _on(day: date | str) -> str:
    return day_message(day) if isinstance(day, date) else day


def ahead_of_impost(act_effective_on: date | str) -> tuple[Message, ...]:
    """What ranks ahead of the district's impost lien (21 LPRA § 6653(8)), in the order of
    its paragraphs: each kind ranked above it whatever its date (as the ranking's reason
    names it), and the liens constituted before the act took effect (a day, or the day as
    the page already writes it). The notice and the lien certificate list these."""
    items = [(k.paragraph or "", Message(k.what)) for k in LIEN_KINDS if k.rank == ABOVE]
    if any(k.rank == BY_DATE for k in LIEN_KINDS):
        before = Message(_BEFORE_THE_ACT, date=_on(act_effective_on))
        items.append((BY_DATE_PARAGRAPH, before))
    return tuple(message for _paragraph, message in sorted(items, key=lambda item: item[0]))


def after_impost(act_effective_on: date | str) -> tuple[Message, ...]:
    """What ranks after the district's impost lien: the liens of the kinds ranked by their
    date constituted after the act took effect."""
    if not any(k.rank == BY_DATE for k in LIEN_KINDS):
        return ()
    return (Message(_AFTER_THE_ACT, date=_on(act_effective_on)),)
