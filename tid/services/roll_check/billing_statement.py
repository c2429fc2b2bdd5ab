"""The verified billing statement of a district's fiscal year (21 LPRA § 6653(3)(b), (3)(d);
/readings#roll-yearly-check): signed once every change of the year's roll is answered (or with
the district's check turned off, which it then says), it states the roll's totals (properties,
assessed value, by class), the changes accepted, sent back and corrected, and the billing it
authorizes (total, count, by class, against the ordinance's expected amount). A document of
record: a reference, a verification code (tid/services/closing/issued.py's), its PDF archived once
under its SHA-256 (tid/services/archive/store.py)."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, func, select

from tid.models import RollChange, RollStatement
from tid.rules.errors import N_, InputError
from tid.rules.imposts import evaluate
from tid.rules.messages import Message
from tid.rules.periods import parse_fiscal_year
from tid.services.archive.store import archive
from tid.services.audit_trail import audit
from tid.services.billing.amounts import _read_the_roll
from tid.services.billing.ordinance_terms import ordinance_for
from tid.services.billing.parameters import parse_parameters
from tid.services.closing import issued
from tid.services.district_lock import lock_district
from tid.services.roll_check import gate
from tid.services.roll_check.changes import year_lines

PREFIX = "V"
ZERO = Decimal("0.00")


def _reference(session: Session, on: date) -> str:
    prefix = f"{PREFIX}-{on.year}-"
    last = session.exec(
        select(func.max(RollStatement.reference)).where(
            col(RollStatement.reference).startswith(prefix)
        )
    ).one()
    number = int(str(last).rsplit("-", 1)[1]) + 1 if last else 1
    return f"{prefix}{number:06d}"


def _by_class(lines: Any) -> dict[str, dict[str, str]]:
    classes: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0), ZERO])
    for line in lines:
        entry = classes[line.use_class or ""]
        entry[0] += 1
        entry[1] += line.assessed_value
    return {k: {"count": str(v[0]), "amount": str(v[1])} for k, v in sorted(classes.items())}


def _answers(session: Session, district_id: int, fy: str) -> dict[str, dict[str, int]]:
    found: dict[str, dict[str, int]] = defaultdict(dict)
    stmt = (
        select(RollChange.status, RollChange.kind, func.count())
        .where(RollChange.district_id == district_id, RollChange.fiscal_year == fy)
        .group_by(RollChange.status, RollChange.kind)
    )
    for status, kind, n in session.exec(stmt):
        found[status][kind] = int(n)
    return dict(found)


def figures(*, session: Session, district_id: int, fiscal_year: str) -> dict[str, Any]:
    """What the statement says: the roll, the answers, the billing it authorizes."""
    fy = parse_fiscal_year(fiscal_year).label
    ordinance = ordinance_for(session=session, district_id=district_id, fiscal_year=fy)
    params = parse_parameters(None)
    formula, properties, _ids = _read_the_roll(session, district_id, fy, ordinance, params)
    result = evaluate(formula, properties, params)
    lines = year_lines(session=session, district_id=district_id, fiscal_year=fy)
    classes: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0), ZERO])
    for prop, line in zip(properties, result.properties, strict=True):
        shown = lines.get(str(prop["id"]))
        entry = classes[shown.use_class if shown else str(prop.get("use_class", ""))]
        entry[0] += 1
        entry[1] += line.amount
    return {
        "properties": len(lines),
        "assessed_value": str(sum((x.assessed_value for x in lines.values()), ZERO)),
        "roll_by_class": _by_class(lines.values()),
        "answers": _answers(session, district_id, fy),
        "billed_count": len(properties),
        "billed_total": str(result.total),
        "billed_by_class": {
            k: {"count": str(v[0]), "amount": str(v[1])} for k, v in sorted(classes.items())
        },
        "expected_amount": str(ordinance.expected_amount),
        "formula": ordinance.formula,
    }


NOT_ANSWERED = N_(
    "%(count)s changes of the roll of %(fiscal_year)s wait for an answer: the statement is "
    "signed once every change is answered."
)


# A statement signed again with nothing changed since the last one (a form sent twice).
SIGNED_ALREADY = N_(
    "The year's statement %(reference)s was signed on %(day)s with these same figures; a new "
    "one is signed once the roll or its answers change."
)


def sign(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fiscal_year: str,
    signed_by: str,
    signed_on: date,
) -> RollStatement:
    """Record the year's verified billing statement, signed by ``signed_by`` (its PDF follows:
    :func:`attach_pdf`). Refused while a change waits for an answer, unless the district's
    check is off (the statement then says the roll was not checked)."""
    lock_district(session=session, district_id=district_id)
    fy = parse_fiscal_year(fiscal_year).label
    name = " ".join(signed_by.split())[:254]
    if not name:
        raise InputError("signed_by", Message("Write the name of who signs the statement."))
    checked = gate.setting(session=session, district_id=district_id).enabled
    waiting = gate.open_count(session=session, district_id=district_id, fiscal_year=fy)
    if checked and waiting:
        raise InputError("fiscal_year", Message(NOT_ANSWERED, count=waiting, fiscal_year=fy))
    said = figures(session=session, district_id=district_id, fiscal_year=fy)
    said_json = json.dumps(said, ensure_ascii=False, sort_keys=True)
    latest = session.exec(
        select(RollStatement)
        .where(RollStatement.district_id == district_id, RollStatement.fiscal_year == fy)
        .order_by(col(RollStatement.id).desc())
    ).first()
    if latest is not None and (latest.figures, latest.checked) == (said_json, checked):
        raise InputError(
            "signed_by",
            Message(SIGNED_ALREADY, reference=latest.reference, day=latest.signed_on),
        )
    statement = RollStatement(
        district_id=district_id,
        fiscal_year=fy,
        reference=_reference(session, signed_on),
        code=issued.new_code(),
        signed_by=name,
        signed_on=signed_on,
        checked=checked,
        properties=said["properties"],
        assessed_value=Decimal(said["assessed_value"]),
        billed_count=said["billed_count"],
        billed_total=Decimal(said["billed_total"]),
        expected_amount=Decimal(said["expected_amount"]),
        figures=said_json,
    )
    session.add(statement)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="roll_statement.sign",
        entity=statement,
        after=audit.snapshot(statement, exclude=("code", "figures")),
    )
    return statement


def attach_pdf(*, session: Session, statement: RollStatement, pdf: bytes) -> None:
    """Archive the statement's PDF as signed and keep its SHA-256."""
    statement.sha256 = archive(session=session, content=pdf)
    session.add(statement)
    session.flush()


def said(statement: RollStatement) -> dict[str, Any]:
    return dict(json.loads(statement.figures or "{}"))


def of_district(*, session: Session, district_id: int) -> list[RollStatement]:
    """The district's statements, the latest first."""
    return list(
        session.exec(
            select(RollStatement)
            .where(RollStatement.district_id == district_id)
            .order_by(col(RollStatement.id).desc())
        )
    )


def latest(*, session: Session, district_id: int, fiscal_year: str) -> RollStatement | None:
    return session.exec(
        select(RollStatement)
        .where(RollStatement.district_id == district_id, RollStatement.fiscal_year == fiscal_year)
        .order_by(col(RollStatement.id).desc())
    ).first()


def by_code(*, session: Session, code: str) -> RollStatement | None:
    """The statement signed under this code (as typed), or None."""
    wanted = issued.read_code(code)
    if len(wanted) != issued.CODE_LENGTH:
        return None
    return session.exec(select(RollStatement).where(RollStatement.code == wanted)).first()


def get(*, session: Session, district_id: int, statement_id: int) -> RollStatement | None:
    found = session.get(RollStatement, statement_id)
    return found if found is not None and found.district_id == district_id else None
