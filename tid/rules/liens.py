"""The impost lien and its rank — 21 LPRA § 6653(8).

The impost is a tacit legal lien on the property with priority over every other lien,
whether constituted before or after it, except that it ranks below (a) the fiscal lien of
delinquent tax debts transferred under 13 LPRA § 5924, (b) the municipal property-tax lien,
(c) any lien constituted before the act took effect, and (d) any tacit legal lien securing
imposts or taxes that finance public infrastructure. It secures only the imposts of the
ordinance: interest, surcharges and fees on a late impost are owed but unsecured.

Ranking = group 1 (a–d), then group 2 (the district's impost lien, its impost amount only),
then group 3 (every other lien); inside a group, the oldest constitution first, and liens of
the same day in the order they are listed (the order they were recorded), never by their ids:
the statute orders liens only relative to the impost lien.
The unsecured charges on an impost are not a lien: this project lists them after every lien
(in group 3, after its secured liens) as owed by the owner, and they are **not** paid from
the sale proceeds (/readings#lien-ranks-in-full): sale proceeds are paid rank by rank to the liens,
each in full before the next, never pro rata, and the whole surplus goes to the owner; the
association may claim the charges against that surplus only by a separate action."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from tid.rules import readings
from tid.rules.errors import field_error, field_names
from tid.rules.messages import N_, FieldRef, Figure, Message, render_all
from tid.rules.money import ZERO, json_money, money_str
from tid.rules.params import district_setting
from tid.rules.periods import parse_date
from tid.rules.trace import TraceStep
from tid.rules.vocab.lien_kinds import ABOVE
from tid.rules.vocab.lien_kinds import IMPOST_KIND as IMPOST_KIND
from tid.rules.vocab.lien_kinds import LIEN_KINDS as LIEN_KINDS
from tid.rules.vocab.lien_kinds import SECURED as SECURED
from tid.rules.vocab.lien_kinds import UNSECURED_CHARGES as UNSECURED_CHARGES
from tid.rules.waterfall import check_keys

CITATION = N_("21 LPRA § 6653(8)")
_LAST_SENTENCE = N_("21 LPRA § 6653(8), last sentence")
_GIVEN = N_("given in the input")
_EACH_RANK = readings.cite("lien-ranks-in-full")
_UNSECURED = readings.cite("unsecured-charges")

# The kinds of lien, their labels and their rank under § 6653(8) are the vocabulary's
# (tid/rules/vocab/lien_kinds.py); ``KINDS`` is their codes when this module is loaded.
KINDS = LIEN_KINDS.codes()


def kind_label(kind: str) -> str:
    """The label of a kind of lien, as a message (an unknown kind is shown as written)."""
    return LIEN_KINDS.label(kind)


@dataclass(frozen=True)
class Lien:
    """A lien on the property. ``unsecured_charges`` (interest, surcharges and fees on a late
    impost) only for ``tid_impost``."""

    id: str
    kind: str
    constituted_on: date
    amount: Decimal
    unsecured_charges: Decimal = ZERO


@dataclass(frozen=True)
class RankedLine:
    """One line of the ranking: a lien's secured amount, or an impost's unsecured charges."""

    rank: int
    id: str
    kind: str
    group: int
    part: str  # "secured" or "unsecured_charges"
    constituted_on: date
    secured_amount: Decimal
    owed: Decimal  # what this line is owed (the unsecured charges are not paid by a sale)
    reason: str


@dataclass(frozen=True)
class Payment:
    id: str
    part: str
    paid: Decimal
    unpaid: Decimal


@dataclass(frozen=True)
class LienResult:
    ranking: tuple[RankedLine, ...]
    act_effective_date: date
    sale_proceeds: Decimal | None
    distribution: tuple[Payment, ...] | None
    to_owner: Decimal | None
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def default_act_effective_date() -> tuple[date, str]:
    """21 LPRA § 6653(8)(c): the setting ``lien_act_effective_date`` (Act 171-2009, effective
    30 days after 2009-12-16; the reading ``/readings#lien-act-effective-date``) and its
    citation."""
    setting = district_setting("lien_act_effective_date")
    if not isinstance(setting.value, date):
        raise ValueError("district.toml: lien_act_effective_date must be a date")
    return setting.value, setting.citation


def _classify(lien: Lien, act_date: date) -> tuple[int, str]:
    """The group of a lien (1, 2 or 3) and the sentence that says why, citing § 6653(8)."""
    day = lien.constituted_on
    act = act_date
    kind = LIEN_KINDS[lien.kind]
    if kind.rank == ABOVE:
        para, what = kind.paragraph, kind.what
        if lien.constituted_on < act_date:
            return 1, Message(
                "Ranks above the impost lien: %(what)s (%(citation)s%(paragraph)s); also "
                "constituted on %(day)s, before the act took effect on %(act)s ((c)).",
                what=Message(what),
                citation=CITATION,
                paragraph=para,
                day=day,
                act=act,
            )
        return 1, Message(
            "Ranks above the impost lien: %(what)s (%(citation)s%(paragraph)s).",
            what=Message(what),
            citation=CITATION,
            paragraph=para,
        )
    if lien.kind == IMPOST_KIND:
        return 2, Message(
            "The district's impost lien: priority over every other lien, before or after it, "
            "except those of (%(citation)s(a)–(d)); it secures only the impost (%(amount)s).",
            citation=CITATION,
            amount=Figure(lien.amount),
        )
    what = Message(kind.what)
    if lien.constituted_on < act_date:
        return 1, Message(
            "Ranks above the impost lien: %(what)s constituted on %(day)s, before the act took "
            "effect on %(act)s (%(citation)s(c)).",
            what=what,
            day=day,
            act=act,
            citation=CITATION,
        )
    return 3, Message(
        "Ranks below the impost lien: %(what)s constituted on %(day)s, on or after the act "
        "took effect on %(act)s, and not one of the liens of %(citation)s(a)–(d).",
        what=what,
        day=day,
        act=act,
        citation=CITATION,
    )


# (sort key, lien, group, part, reason) of each line to rank; the key ends with the lien's
# place in the list, so that liens of the same day keep the order they were recorded in.
_Keyed = tuple[tuple[int, int, date, int], Lien, int, str, str]


def rank_liens(
    liens: Sequence[Lien],
    *,
    sale_proceeds: Decimal | None = None,
    act_effective_date: date | None = None,
) -> LienResult:
    """21 LPRA § 6653(8): rank the liens on a property around the impost lien and, given sale
    proceeds, pay them rank by rank, each in full before the next; the rest to the owner."""
    if act_effective_date is None:
        act_date, act_citation = default_act_effective_date()
        act_source = Message("the default")
    else:
        act_date = act_effective_date
        act_citation = f"{default_act_effective_date()[1]}; {_GIVEN}"
        act_source = Message("given in the input")
    warnings: list[str] = [
        Message(
            "The statute orders liens only relative to the impost lien (%(CITATION)s); "
            "inside each group the oldest constitution date ranks first, and liens "
            "constituted on the same day rank in the order they are listed (the order they "
            "were recorded), never by their identifiers (%(reading)s).",
            CITATION=CITATION,
            reading=readings.note("same-day-liens"),
        ),
        Message(
            "Liens constituted before %(act_date)s rank above the impost lien "
            "(%(CITATION)s(c)): the district setting “Effective date of the lien act” is "
            "%(act_date)s (%(act_source)s; Act 171-2009 took effect 30 days after "
            "%(enacted)s; %(reading)s).",
            act_date=act_date,
            enacted=date(2009, 12, 16),
            CITATION=CITATION,
            act_source=act_source,
            reading=readings.note("lien-act-effective-date"),
        ),
    ]
    trace = [
        TraceStep(
            Message("Effective date of the lien act (Act 171-2009)"),
            act_date.isoformat(),
            act_citation,
            "district.lien_act_effective_date",
        )
    ]
    keyed = _grouped(liens, act_date, warnings)
    ranking = _ranked(keyed, trace)
    distribution: tuple[Payment, ...] | None = None
    to_owner: Decimal | None = None
    if sale_proceeds is not None:
        distribution, to_owner = _paid_rank_by_rank(ranking, sale_proceeds, trace)
    return LienResult(
        ranking=tuple(ranking),
        act_effective_date=act_date,
        sale_proceeds=sale_proceeds,
        distribution=distribution,
        to_owner=to_owner,
        warnings=tuple(warnings),
        trace=tuple(trace),
    )


def _grouped(liens: Sequence[Lien], act_date: date, warnings: list[str]) -> list[_Keyed]:
    """21 LPRA § 6653(8)(a)–(c) and its last sentence: each lien in its group around the
    impost lien (the impost's unsecured charges apart, after every secured lien), sorted by
    group, then the oldest constitution date, then the order of ``liens`` (the order of
    recording; never the ids), with ``warnings`` on what the text leaves open."""
    keyed: list[_Keyed] = []
    for listed, lien in enumerate(liens):
        group, reason = _classify(lien, act_date)
        keyed.append(((group, 0, lien.constituted_on, listed), lien, group, SECURED, reason))
        if lien.kind == IMPOST_KIND and lien.constituted_on < act_date:
            warnings.append(
                Message(
                    "Impost lien %(id)s was constituted on %(constituted_on)s, before the act took "
                    "effect; it is still ranked as the impost lien (group 2).",
                    id=lien.id,
                    constituted_on=lien.constituted_on,
                )
            )
        if lien.unsecured_charges > 0:
            keyed.append(
                (
                    (3, 1, lien.constituted_on, listed),
                    lien,
                    3,
                    UNSECURED_CHARGES,
                    Message(
                        "Interest, surcharges and fees on the impost: owed by the owner but not "
                        "secured by the impost lien, which secures only the imposts of the "
                        "ordinance (%(citation)s, last sentence); not paid from the sale "
                        "proceeds — the association may claim them against the owner's surplus "
                        "only by a separate action.",
                        citation=CITATION,
                    ),
                )
            )
    if any(line[3] == UNSECURED_CHARGES for line in keyed):
        warnings.append(
            Message(
                "Interest, surcharges and fees on a late impost are owed by the owner but "
                "not secured by the impost lien (%(CITATION)s, last sentence): they are not "
                "paid from the sale proceeds, the owner receives the whole surplus, and the "
                "association may claim them against it only by a separate action.",
                CITATION=CITATION,
            )
        )
    if not any(lien.kind == IMPOST_KIND for lien in liens):
        warnings.append(
            Message(
                "No impost lien (tid_impost) in the list: the groups are still those of "
                "%(CITATION)s, which ranks liens only relative to the impost lien.",
                CITATION=CITATION,
            )
        )
    keyed.sort(key=lambda item: item[0])
    return keyed


def _ranked(keyed: list[_Keyed], trace: list[TraceStep]) -> list[RankedLine]:
    """21 LPRA § 6653(8): the ranks, 1 first, in the order of ``keyed`` (with their trace)."""
    ranking: list[RankedLine] = []
    for rank, (_, lien, group, part, reason) in enumerate(keyed, start=1):
        secured = lien.amount if part == SECURED else ZERO
        owed = lien.amount if part == SECURED else lien.unsecured_charges
        ranking.append(
            RankedLine(
                rank=rank,
                id=lien.id,
                kind=lien.kind,
                group=group,
                part=part,
                constituted_on=lien.constituted_on,
                secured_amount=secured,
                owed=owed,
                reason=reason,
            )
        )
        label = (
            kind_label(lien.kind)
            if part == SECURED
            else Message("%(kind)s, unsecured charges", kind=kind_label(lien.kind))
        )
        trace.append(
            TraceStep(
                Message(
                    "rank %(rank)s: %(id)s (%(label)s)",
                    rank=rank,
                    id=lien.id,
                    label=label,
                ),
                Message("group %(group)s, %(owed)s", group=group, owed=Figure(owed)),
                CITATION,
            )
        )
    return ranking


def _paid_rank_by_rank(
    ranking: list[RankedLine], sale_proceeds: Decimal, trace: list[TraceStep]
) -> tuple[tuple[Payment, ...], Decimal]:
    """21 LPRA § 6653(8); /readings#lien-ranks-in-full: the sale proceeds pay each rank in full
    before the next, never the unsecured charges (owed by the owner, a separate action); the whole
    surplus goes to the owner. The payments, and what the owner receives."""
    left = sale_proceeds
    payments = []
    for line in ranking:
        if line.part == UNSECURED_CHARGES:
            # Unsecured: owed by the owner, never paid from the proceeds
            # (/readings#unsecured-charges).
            payments.append(Payment(line.id, line.part, ZERO, line.owed))
            trace.append(
                TraceStep(
                    Message(
                        "rank %(rank)s: %(id)s, unsecured charges",
                        rank=line.rank,
                        id=line.id,
                    ),
                    Message(
                        "%(paid)s paid, %(owed)s owed by the owner (a separate action)",
                        paid=Figure(ZERO),
                        owed=Figure(line.owed),
                    ),
                    f"{_LAST_SENTENCE}; {_UNSECURED}",
                )
            )
            continue
        paid = min(left, line.owed)
        left -= paid
        payments.append(Payment(line.id, line.part, paid, line.owed - paid))
        trace.append(
            TraceStep(
                Message(
                    "pay rank %(rank)s: %(id)s",
                    rank=line.rank,
                    id=line.id,
                ),
                Message(
                    "%(paid)s paid, %(unpaid)s unpaid",
                    paid=Figure(paid),
                    unpaid=Figure(line.owed - paid),
                ),
                f"{CITATION}; {_EACH_RANK}",
            )
        )
    trace.append(
        TraceStep(Message("to the owner (the whole surplus)"), money_str(left), _UNSECURED)
    )
    return tuple(payments), left


LIEN_FIELDS = ("id", "kind", "constituted_on", "amount", "unsecured_charges")
DOCUMENT_FIELDS = ("liens", "sale_proceeds", "act_effective_date")


def _parse_lien(item: object, path: str) -> Lien:
    if not isinstance(item, Mapping):
        raise field_error(
            path,
            Message(
                "each lien is an object with %(fields)s",
                fields=field_names(("id", "kind", "constituted_on")),
            ),
        )
    check_keys(item, LIEN_FIELDS, path)
    raw_id = item.get("id")
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool) or str(raw_id).strip() == "":
        raise field_error(f"{path}.id", Message("every lien needs an id"))
    kind = item.get("kind")
    # A list or an object is no kind (and no key of the vocabulary can be looked up by it).
    if not isinstance(kind, str) or kind not in LIEN_KINDS:
        raise field_error(
            f"{path}.kind",
            Message(
                "%(kind)s is not a kind of lien; known: %(known)s",
                kind=repr(kind) if kind is not None else "—",
                known=field_names(LIEN_KINDS.codes()),
            ),
        )
    unsecured = ZERO
    if item.get("unsecured_charges") not in (None, ""):
        if kind != IMPOST_KIND:
            raise field_error(
                f"{path}.unsecured_charges",
                Message(
                    "only an impost lien (%(kind)s) has unsecured charges (interest, "
                    "surcharges and fees on a late impost)",
                    kind=FieldRef(IMPOST_KIND),
                ),
            )
        unsecured = json_money(item["unsecured_charges"], f"{path}.unsecured_charges")
    return Lien(
        id=str(raw_id).strip(),
        kind=str(kind),
        constituted_on=parse_date(item.get("constituted_on"), f"{path}.constituted_on"),
        amount=json_money(item.get("amount"), f"{path}.amount"),
        unsecured_charges=unsecured,
    )


def liens_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """docs/calculators.md `liens`: rank the liens (21 LPRA § 6653(8)) and distribute sale proceeds.

    An unknown field, here or in a lien, is refused (a misspelt ``sale_proceed`` must never
    give a quiet answer)."""
    check_keys(document, DOCUMENT_FIELDS)
    raw = document.get("liens")
    if not isinstance(raw, list):
        raise field_error("liens", Message("give the list of liens on the property"))
    liens = [_parse_lien(item, f"liens[{i}]") for i, item in enumerate(raw)]
    seen: set[str] = set()
    for i, lien in enumerate(liens):
        if lien.id in seen:
            raise field_error(f"liens[{i}].id", Message("%(id)s is used twice", id=repr(lien.id)))
        seen.add(lien.id)
    proceeds = (
        json_money(document["sale_proceeds"], "sale_proceeds")
        if document.get("sale_proceeds") not in (None, "")
        else None
    )
    act_date = (
        parse_date(document["act_effective_date"], "act_effective_date")
        if document.get("act_effective_date") not in (None, "")
        else None
    )
    result = rank_liens(liens, sale_proceeds=proceeds, act_effective_date=act_date)
    out: dict[str, Any] = {
        "ranking": [
            {
                "rank": line.rank,
                "id": line.id,
                "kind": line.kind,
                "group": line.group,
                "part": line.part,
                "constituted_on": line.constituted_on.isoformat(),
                "secured_amount": money_str(line.secured_amount),
                "owed": money_str(line.owed),
                "reason": line.reason,
            }
            for line in result.ranking
        ],
        "act_effective_date": result.act_effective_date.isoformat(),
    }
    if result.distribution is not None and result.to_owner is not None:
        out["distribution"] = [
            {"id": p.id, "part": p.part, "paid": money_str(p.paid), "unpaid": money_str(p.unpaid)}
            for p in result.distribution
        ]
        out["to_owner"] = money_str(result.to_owner)
    out["warnings"] = list(result.warnings)
    out["warnings_es"] = render_all(result.warnings, "es")
    out["trace"] = [t.as_json() for t in result.trace]
    return out
