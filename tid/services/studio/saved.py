"""A study saved with its petition: what was tried, on which roll (an uploaded file kept in
the archive by its SHA-256), the totals found and the report archived; reopened, it is
tried again on the same roll and set beside the ordinance finally voted."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from sqlmodel import Session, col, select

from tid.models import FormulaStudy, Ordinance, Petition
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message
from tid.rules.money import from_cents
from tid.services import roll as roll_files
from tid.services.archive.store import archive, archived_bytes
from tid.services.audit_trail import audit
from tid.services.billing.parameters import parse_parameters
from tid.services.petitions import attachments
from tid.services.studio.analysis import Variant
from tid.services.studio.trials import FILE, Outcome, StudyInput, try_study

CSV_TYPE = "text/csv"


def _variants_json(study: StudyInput) -> str:
    return json.dumps(
        [
            {
                # a name the form gave, or none (then said as "Variant N" in each language)
                "name": "" if isinstance(v.name, Message) else v.name,
                "formula": v.formula,
                "parameters": v.parameters_text,
            }
            for v in study.variants
        ],
        ensure_ascii=False,
    )


def _summary_json(outcome: Outcome) -> str:
    return json.dumps(
        {
            "roll": outcome.roll_label,
            "variants": [
                {"name": s.name, "formula": s.formula, "total": str(from_cents(s.total))}
                for s in outcome.summaries
            ],
        },
        ensure_ascii=False,
    )


def save_study(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    outcome: Outcome,
    report: bytes,
    title: str,
    uploads: Path | None = None,
    user_id: int | None = None,
    filed: tuple[attachments.Store, date] | None = None,
) -> FormulaStudy:
    """Keep the study with the petition: its inputs, its totals, the uploaded roll file (in
    the archive) and the study report (archived as a document of record); ``title`` names
    it when the form gave no title. With ``filed`` (the file's store and today), the report
    also joins the petition's file as a document of kind study, found by the search."""
    study = outcome.study
    place = study.district()
    file_sha = ""
    if place is None:
        if uploads is None:
            raise InputError("file", N_("Choose the roll's CSV file."))
        data, _meta = roll_files.load_upload(uploads, study.file_token, user_id=user_id)
        file_sha = archive(session=session, content=data, media_type=CSV_TYPE)
    title = study.title or title
    row = FormulaStudy(
        petition_id=petition.id or 0,
        title=title,
        source="file" if place is None else "roll",
        district_id=place[0] if place else None,
        fiscal_year=place[1] if place else "",
        file_name=study.file_name if place is None else "",
        file_sha256=file_sha,
        expected_amount=study.expected,
        variants=_variants_json(study),
        baseline=study.baseline,
        summary=_summary_json(outcome),
        report_sha256=archive(session=session, content=report),
        property_count=outcome.count,
        actor=actor.label,
        user_id=user_id,
    )
    session.add(row)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="formula_study.save",
        entity=row,
        after=audit.snapshot(row),
    )
    if filed is not None:
        store, today = filed
        attachments.attach_generated(
            session=session,
            actor=actor,
            petition_id=petition.id or 0,
            store=store,
            pdf=report,
            title=title,
            dated_on=today,
            filename=f"estudio-{row.id}.pdf",
        )
    return row


def studies_of(*, session: Session, petition_id: int) -> list[FormulaStudy]:
    """The petition's saved studies, newest first."""
    stmt = (
        select(FormulaStudy)
        .where(FormulaStudy.petition_id == petition_id)
        .order_by(col(FormulaStudy.created_at).desc(), col(FormulaStudy.id).desc())
    )
    return list(session.exec(stmt))


def saved_study(*, session: Session, study_id: int) -> FormulaStudy | None:
    return session.get(FormulaStudy, study_id)


def study_input(study: FormulaStudy) -> StudyInput:
    """The saved study's inputs, as the form gave them."""
    variants = tuple(
        Variant(
            v["name"] or Message("Variant %(number)s", number=number),
            v["formula"],
            parse_parameters(v["parameters"]),
            v["parameters"],
            number,
        )
        for number, v in enumerate(json.loads(study.variants), start=1)
    )
    source = FILE if study.source == "file" else f"{study.district_id}:{study.fiscal_year}"
    return StudyInput(
        source=source,
        expected=study.expected_amount,
        variants=variants,
        baseline=study.baseline,
        title=study.title,
        file_token=study.file_sha256,
        file_name=study.file_name,
    )


def form_values(study: FormulaStudy) -> dict[str, str]:
    """The saved study as the studio's form values (to try it again, changed)."""
    values = {
        "source": "file" if study.source == "file" else f"{study.district_id}:{study.fiscal_year}",
        "expected_amount": f"{study.expected_amount:,.2f}",
        "baseline": study.baseline,
        "title": study.title,
    }
    for number, v in enumerate(json.loads(study.variants), start=1):
        values[f"v{number}_name"] = v["name"]
        values[f"v{number}_formula"] = v["formula"]
        values[f"v{number}_parameters"] = v["parameters"]
    return values


def reopen(*, session: Session, study: FormulaStudy, voted: Ordinance | None) -> Outcome:
    """The saved study tried again on its roll; with the ordinance finally voted, that
    ordinance's formula is the one every variant is compared against."""
    asked = study_input(study)
    data = b""
    if study.source == "file":
        data = archived_bytes(session=session, sha256=study.file_sha256)
    if voted is not None:
        formula = Variant(
            Message("As voted: %(ordinance)s", ordinance=voted.number or "—"),
            voted.formula,
            {},
            "",
        )
        asked = StudyInput(
            source=asked.source,
            expected=voted.expected_amount,
            variants=(formula, *asked.variants),
            baseline="1",
            title=asked.title,
            file_token=asked.file_token,
            file_name=asked.file_name,
        )
    return try_study(session=session, study=asked, data=data)


def report_bytes(*, session: Session, study: FormulaStudy) -> bytes:
    """The study report exactly as archived when the study was saved."""
    return archived_bytes(session=session, sha256=study.report_sha256)
