"""A study tried: the form's values read (the roll, the expected amount, each variant's
formula and parameters, the formula to compare against), every variant evaluated once on
the roll, and the figures of each (:mod:`.analysis`). Nothing is written."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from sqlmodel import Session

from tid.models import BillingRun, District, Ordinance, Petition
from tid.rules import periods
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.messages import Message
from tid.rules.money import parse_money
from tid.rules.vocab import formula_name_label
from tid.rules.vocab.roll_columns import formula_columns
from tid.services import roll as roll_files
from tid.services.billing import active_run
from tid.services.billing.ordinance_terms import ordinance_for
from tid.services.billing.parameters import parse_parameters
from tid.services.studio.analysis import (
    EXPECTED,
    Comparison,
    Evaluated,
    Row,
    StudyRoll,
    Summary,
    Variant,
    compare,
    evaluate_variant,
    scaled_total,
    side_by_side,
    summarize,
)
from tid.services.studio.sources import district_roll, file_roll, roll_owners

MAX_VARIANTS = 3
IN_FORCE = "in_force"
FILE = "file"


@dataclass(frozen=True)
class StudyInput:
    """What the form asks, read: where the roll is, what the ordinance expects, the
    variants and the formula to compare them against."""

    source: str  # "<district id>:<fiscal year>" or "file"
    expected: Decimal
    variants: tuple[Variant, ...]
    baseline: str  # "in_force" or a variant's number ("1"…)
    title: str = ""
    file_token: str = ""
    file_name: str = ""

    def district(self) -> tuple[int, str] | None:
        if self.source == FILE:
            return None
        district, _sep, fy = self.source.partition(":")
        return int(district), fy


@dataclass(frozen=True)
class Meet:
    """What would make a variant's total meet the expected amount: its formula scaled by
    the factor, and what that gives (rounding and any floor or cap move it a little)."""

    factor: Decimal
    formula: str
    total: int


@dataclass(frozen=True)
class Outcome:
    """A study's figures: each variant's summary (and how it would meet the expected
    amount), and each variant against the formula compared with."""

    study: StudyInput
    roll_label: str
    count: int
    evaluated: tuple[Evaluated, ...]
    summaries: tuple[Summary, ...]
    meets: tuple[Meet | None, ...]
    base_index: int | None  # which of ``evaluated`` the others are compared with
    comparisons: tuple[tuple[int, Comparison], ...]  # (variant index, its comparison)
    owners: Mapping[str, str] = field(default_factory=dict)
    roll: StudyRoll | None = None

    @property
    def by_class(self) -> tuple[Row, ...]:
        return side_by_side(self.summaries, by="class")

    @property
    def by_band(self) -> tuple[Row, ...]:
        return side_by_side(self.summaries, by="band")


def _district_and_year(value: str) -> tuple[int, str] | None:
    district, sep, fy = value.partition(":")
    if not sep or not district.isdigit():
        return None
    try:
        return int(district), periods.parse_fiscal_year(fy).label
    except InputError:
        return None


def read_variants(values: Mapping[str, str]) -> tuple[list[Variant], list[Finding]]:
    """The variants written on the form (``name_1``, ``formula_1``, ``parameters_1``…);
    a variant without a formula is left out."""
    variants: list[Variant] = []
    findings: list[Finding] = []
    for number in range(1, MAX_VARIANTS + 1):
        text = values.get(f"v{number}_formula", "").strip()
        if not text:
            continue
        raw = values.get(f"v{number}_parameters", "")
        try:
            params = parse_parameters(raw)
        except InputError as exc:
            findings.append(Finding(f"v{number}_parameters", exc.message))
            params = {}
        name = " ".join(values.get(f"v{number}_name", "").split())[:80] or Message(
            "Variant %(number)s", number=number
        )
        variants.append(Variant(name, text, params, raw.strip(), number))
    if not variants:
        findings.append(Finding("v1_formula", N_("Write at least one formula to try.")))
    return variants, findings


def read_study(values: Mapping[str, str]) -> StudyInput:
    """The form's values checked, every problem next to its field."""
    findings: list[Finding] = []
    source = values.get("source", "")
    if source != FILE and _district_and_year(source) is None:
        findings.append(Finding("source", N_("Choose the roll to try the formulas on.")))
    if source == FILE and not values.get("file_token"):
        findings.append(Finding("file", N_("Choose the roll's CSV file.")))
    expected = Decimal(0)
    try:
        expected = parse_money(values.get("expected_amount", ""), "expected_amount")
    except InputError as exc:
        findings.append(Finding("expected_amount", exc.message))
    variants, problems = read_variants(values)
    findings += problems
    baseline = values.get("baseline", "") or "1"
    if baseline != IN_FORCE and baseline not in {str(i) for i in range(1, len(variants) + 1)}:
        baseline = "1"
    if findings:
        raise FindingsError(findings)
    place = _district_and_year(source)
    return StudyInput(
        source=FILE if place is None else f"{place[0]}:{place[1]}",
        expected=expected,
        variants=tuple(variants),
        baseline=baseline,
        title=" ".join(values.get("title", "").split())[:200],
        file_token=values.get("file_token", ""),
        file_name=values.get("file_name", "")[:255],
    )


def in_force(
    *, session: Session, district_id: int, fiscal_year: str
) -> tuple[Variant, Ordinance] | None:
    """The formula in force on the district's roll of the year: the ordinance whose term
    includes it, with the parameters of the year's active billing run."""
    try:
        ordinance = ordinance_for(session=session, district_id=district_id, fiscal_year=fiscal_year)
    except InputError:
        return None
    run: BillingRun | None = active_run(
        session=session, district_id=district_id, fiscal_year=fiscal_year
    )
    params_text = ""
    params: dict[str, Decimal | str | bool] = {}
    if run is not None and run.formula == ordinance.formula and run.parameters:
        raw = json.loads(run.parameters)
        raw.pop("expected_amount", None)
        params = parse_parameters(raw)
        params_text = "\n".join(f"{k} = {v}" for k, v in raw.items())
    name = Message("In force: %(ordinance)s", ordinance=ordinance.number or "—")
    return Variant(name, ordinance.formula, params, params_text), ordinance


def _roll_of(
    *, session: Session, study: StudyInput, uploads: Path | None, user_id: int | None, data: bytes
) -> tuple[StudyRoll, str]:
    place = study.district()
    if place is None:
        if not data:
            if uploads is None:
                raise InputError("file", N_("Choose the roll's CSV file."))
            data, _meta = roll_files.load_upload(uploads, study.file_token, user_id=user_id)
        return file_roll(data), study.file_name or "roll.csv"
    district_id, fy = place
    used: set[str] = set()
    for variant in study.variants:
        used.update(name for name in _names(variant.formula))
    found = in_force(session=session, district_id=district_id, fiscal_year=fy)
    if found is not None:
        used.update(_names(found[0].formula))
    roll = district_roll(session=session, district_id=district_id, fiscal_year=fy, used=used)
    district = session.get(District, district_id)
    name = district.name if district is not None else str(district_id)
    return roll, f"{name} · {fy}"


def _names(text: str) -> list[str]:
    """The names a formula uses (a formula that does not parse uses none here: it is
    refused when the variant is checked, next to its field)."""
    from tid.rules.imposts import compile_formula

    try:
        return list(compile_formula(text).names)
    except InputError:
        return []


def _meet(evaluated: Evaluated, summary: Summary) -> Meet | None:
    """The variant scaled to meet the expected amount, and what the scaled one gives."""
    if summary.factor is None or summary.apportioned or summary.difference == 0:
        return None
    scaled = f"{summary.factor} * ({evaluated.variant.formula})"
    return Meet(summary.factor, scaled, scaled_total(evaluated, summary.factor))


def try_study(
    *,
    session: Session,
    study: StudyInput,
    uploads: Path | None = None,
    user_id: int | None = None,
    data: bytes = b"",
    progress: Callable[[int, int], None] | None = None,
) -> Outcome:
    """Every variant of the study on its roll, each against the formula compared with;
    ``progress(done, total)`` is told after the roll is read and after each variant."""
    steps = len(study.variants) + 3
    roll, label = _roll_of(
        session=session, study=study, uploads=uploads, user_id=user_id, data=data
    )
    if progress is not None:
        progress(1, steps)
    variants = list(study.variants)
    fields = [f"v{v.number or i}" for i, v in enumerate(variants, start=1)]
    base_index: int | None = int(study.baseline) - 1 if study.baseline != IN_FORCE else None
    place = study.district()
    if study.baseline == IN_FORCE and place is not None:
        found = in_force(session=session, district_id=place[0], fiscal_year=place[1])
        if found is not None:
            variants.insert(0, found[0])
            fields.insert(0, "baseline")
            base_index = 0
    if base_index is None:
        base_index = 0
    evaluated: list[Evaluated] = []
    problems: list[Finding] = []
    for done, (variant, name) in enumerate(zip(variants, fields, strict=True), start=2):
        try:
            evaluated.append(evaluate_variant(variant, roll, study.expected, name))
        except InputError as exc:
            problems.append(Finding(exc.field, exc.message))
        if progress is not None:
            progress(min(done, steps - 1), steps)
    if problems:
        raise FindingsError(problems)
    summaries = [summarize(e, roll, study.expected) for e in evaluated]
    meets = [_meet(e, s) for e, s in zip(evaluated, summaries, strict=True)]
    comparisons = tuple(
        (i, compare(evaluated[base_index], e, roll))
        for i, e in enumerate(evaluated)
        if i != base_index
    )
    owners = _owners(session, study, roll, summaries, comparisons)
    return Outcome(
        study=study,
        roll_label=label,
        count=len(roll.properties),
        evaluated=tuple(evaluated),
        summaries=tuple(summaries),
        meets=tuple(meets),
        base_index=base_index,
        comparisons=comparisons,
        owners=owners,
        roll=roll,
    )


def _owners(
    session: Session,
    study: StudyInput,
    roll: StudyRoll,
    summaries: Sequence[Summary],
    comparisons: Sequence[tuple[int, Comparison]],
) -> dict[str, str]:
    """The owners of the properties the study shows (the largest payers and changes)."""
    shown = {p.cadastral for s in summaries for p in s.largest}
    for _i, c in comparisons:
        shown.update(ch.cadastral for ch in (*c.largest_raises, *c.largest_cuts))
    place = study.district()
    if place is None:
        return {k: roll.owners.get(k, "") for k in shown}
    return roll_owners(
        session=session, district_id=place[0], fiscal_year=place[1], cadastral=sorted(shown)
    )


# A study larger than this is tried in the background (a job with its progress), not in
# the request: a roll of more properties, or a roll file of more bytes (some 1,500 rows,
# as the roll's own check: reading and checking a file costs more than evaluating it).
IN_REQUEST_PROPERTIES = 20_000
IN_REQUEST_BYTES = 256 * 1024


def too_large(
    *, session: Session, study: StudyInput, uploads: Path | None, user_id: int | None
) -> bool:
    """Whether the study is work for the background: its roll's size."""
    place = study.district()
    if place is None:
        if uploads is None or not study.file_token:
            return False
        data, _meta = roll_files.load_upload(uploads, study.file_token, user_id=user_id)
        return len(data) > IN_REQUEST_BYTES
    counts = dict(roll_files.fiscal_years(session=session, district_id=place[0]))
    return counts.get(place[1], 0) > IN_REQUEST_PROPERTIES


def formula_names(*, session: Session, source: str) -> list[tuple[str, str]]:
    """The names a formula may use on the roll ``source`` (a district's roll of a year, or
    a file: its standard columns), each with what it is, and the expected amount."""
    place = _district_and_year(source)
    if place is None:
        names = list(formula_columns())
    else:
        names = roll_files.attribute_names(
            session=session, district_id=place[0], fiscal_year=place[1]
        )
    named = [(name, formula_name_label(name) or "") for name in names]
    return [*named, (EXPECTED, Message("the amount the ordinance expects (the form's)"))]


def roll_choices(
    *, session: Session, petition: Petition, districts: Sequence[District]
) -> list[tuple[str, str]]:
    """The rolls a study of the petition may use: each year's roll of the districts given
    (those of the petition's municipality the person may see), newest year first."""
    options: list[tuple[str, str]] = []
    for district in districts:
        if district.municipality_id != petition.municipality_id or district.id is None:
            continue
        for fy, count in roll_files.fiscal_years(session=session, district_id=district.id):
            label = Message(
                "%(district)s · fiscal year %(year)s (%(count)s properties)",
                district=district.name,
                year=fy,
                count=f"{count:,}",
            )
            options.append((f"{district.id}:{fy}", label))
    return options
