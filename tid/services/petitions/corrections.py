"""Corrections. A clerk corrects a recorded date or text (a typo, a date misread from the
stamp) with a reason; the audit trail keeps the value before and after, and the clocks —
computed from the recorded dates (tid/rules/calendar.py) — follow the corrected dates at once.

The ordinance's terms are corrected the same way: its formula and parameters (checked as
when it was recorded: every name a column of the roll or a parameter, every parameter
used), the expected amount and the term. A fiscal year billed by the ordinance before is
not rebilled by the correction: its run keeps what it applied, and the association bills
again (a superseding run, tid/services/billing/superseding.py) — :func:`runs_to_rebill`
names those runs.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlmodel import Session

from tid.clock import utcnow
from tid.models import BillingRun, Ordinance, Petition
from tid.rules import calendar
from tid.rules.errors import N_
from tid.services import billing, roll
from tid.services.audit_trail import audit
from tid.services.billing.parameters import parameters_json
from tid.services.petitions.errors import Collector, PetitionError
from tid.services.petitions.ordinance import ordinance_of
from tid.services.petitions.parsing import (
    date_field,
    formula_field,
    formula_names,
    long_text,
    name_field,
    parameters_field,
    parameters_text,
    parse_expected_amount,
    parse_term_years,
)
from tid.services.petitions.states import touch
from tid.services.petitions.study import findings_of

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
    "formula": ("ordinance", N_("Formula for the yearly amount of each property"), "formula"),
    "parameters": ("ordinance", N_("Parameters of the formula"), "parameters"),
    "expected_amount": ("ordinance", N_("Amount expected to be collected ($)"), "amount"),
    "term_years": ("ordinance", N_("Term (years)"), "term"),
}
# The ordinance's terms a billing run applies: correcting one after billing asks for a
# superseding run.
BILLED_TERMS = frozenset({"formula", "parameters", "expected_amount"})
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
    if field_name == "parameters":
        return parameters_text(str(value or "{}"))
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
    ordinance = ordinance_of(session=session, petition=petition)
    name = field_name if isinstance(field_name, str) else ""
    check = Collector()
    known = name in correctable_fields(petition, ordinance)
    if not known:
        check.errors.append(PetitionError("field", N_("Choose a recorded entry to correct.")))
    owner, _label, kind = CORRECTABLE.get(name, ("petition", "", ""))
    new: Any = check(lambda: _new_value(session, ordinance, kind, value, today), None)
    why = check(lambda: long_text(reason, "reason", required=True), "")
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
    touch(petition)
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
        session=session,
        actor=actor,
        action="petition.correct",
        entity=petition,
        before=was,
        after={**changed, "reason": why},
    )
    return petition


def _new_value(
    session: Session, ordinance: Ordinance | None, kind: str, value: object, today: date
) -> Any:
    """The corrected value of a field of ``kind``, checked as when it was recorded (its
    error on the form's ``value``)."""
    try:
        if kind == "date":
            return date_field(value, "value", today=today)
        if kind == "name":
            return name_field(value, "value")
        if kind == "text":
            return long_text(value, "value", required=False)
        if kind == "amount":
            return parse_expected_amount(value, "value")
        if kind == "term":
            return parse_term_years(value, "value")
        if kind in ("formula", "parameters") and ordinance is not None:
            return _formula_terms(session, ordinance, kind, value)
    except PetitionError as exc:
        if exc.field == "value":
            raise
        raise PetitionError("value", exc.msgid, **exc.params) from None
    return None


def _formula_terms(session: Session, ordinance: Ordinance, kind: str, value: object) -> str:
    """A corrected formula (or parameters, as JSON) that names only the roll's columns and
    the ordinance's parameters, and uses every parameter."""
    if kind == "formula":
        formula = formula_field(value)
        params = parameters_field(parameters_text(ordinance.parameters))
    else:
        formula = ordinance.formula
        params = parameters_field(value)
    columns = roll.district_attribute_names(session=session, district_id=ordinance.district_id)
    formula_names(formula, params, columns=columns)
    return formula if kind == "formula" else parameters_json(params)


def runs_to_rebill(*, session: Session, ordinance: Ordinance | None) -> list[BillingRun]:
    """The active billing runs made by ``ordinance`` with other terms than it now has (a
    formula, parameters or expected amount corrected since): each fiscal year the
    association bills again to apply the correction (a superseding run)."""
    if ordinance is None or ordinance.id is None:
        return []
    return [
        run
        for run in billing.active_runs_of(session=session, ordinance_id=ordinance.id)
        if billing.applies_other_terms(run, ordinance)
    ]


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
                b=b,
                earlier=CORRECTABLE[first][1],
                a=a,
            )
    approved, published = dates.get("approved_on"), dates.get("published_on")
    if approved is not None and published is not None and published <= approved:
        raise PetitionError(
            "value",
            N_(
                "%(day)s is not after the mayor's approval (%(approved)s); the publication "
                "follows it."
            ),
            day=published,
            approved=approved,
        )
    received = dates.get("received_on")
    if changed == "received_on" and received is not None:
        earliest = min(
            (f.recorded_on for f in findings_of(session=session, petition=petition).values()),
            default=None,
        )
        if earliest is not None and earliest < received:
            raise PetitionError(
                "value",
                N_("A finding was recorded on %(day)s, before %(received)s."),
                day=earliest,
                received=received,
            )
