"""A petition's formula study as documents of record: its charts (SVG, each with the table
behind it), every property's amount under each variant as CSV, and the study report as
PDF/A, the one the study keeps in the archive when it is saved."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from sqlmodel import Session

from tid import csv_safe
from tid.documents.base import CSV, PDF, Document, Reader
from tid.models import Ordinance, Petition
from tid.render import charts
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message, render
from tid.rules.money import from_cents
from tid.services import studio

Say = Callable[[str], str]
NO_STUDY = N_("There is no such study.")


def usd(amount: Decimal) -> str:
    """``$1,234.50`` (the same in Spanish and English in Puerto Rico)."""
    return ("-" if amount < 0 else "") + f"${abs(amount):,.2f}"


def _cents(value: int) -> str:
    return usd(from_cents(value))


def _short(value: Decimal) -> str:
    return usd(value)[:-3]


def share(part: int, whole: int) -> Decimal:
    """A part of a total as a fraction to a tenth of a percent (a rate the pages print)."""
    return (Decimal(part) / Decimal(whole)).quantize(Decimal("0.001")) if whole else Decimal(0)


def class_label(code: str, say: Say) -> str:
    return code or say(N_("(no class)"))


def band_label(key: str) -> str:
    low, _sep, high = key.partition("-")
    if not high:
        return f"≥ {_short(Decimal(low))}"
    return f"{_short(Decimal(low))} – {_short(Decimal(high))}"


def _said(text: str, locale: str) -> str:
    """A message (or a msgid) in ``locale``; a name the user wrote stays as written."""
    return render(text if isinstance(text, Message) else Message(text), locale)


def study_charts(outcome: studio.Outcome, say: Say) -> list[charts.Chart]:
    """For each variant, the impost by class and by value band; for each comparison, the
    change by class. Each chart carries its table."""
    made: list[charts.Chart] = []
    for index, summary in enumerate(outcome.summaries, start=1):
        made.append(
            charts.signed_bars(
                id=f"chart-class-{index}",
                title=say(Message("%(variant)s: the impost by class", variant=summary.name)),
                description=say(N_("The total each class of property would pay.")),
                items=[(class_label(s.key, say), from_cents(s.total)) for s in summary.by_class],
                fmt=usd,
                tick_fmt=_short,
                value_label=say(N_("Total")),
            )
        )
        made.append(
            charts.signed_bars(
                id=f"chart-band-{index}",
                title=say(
                    Message("%(variant)s: the impost by assessed value", variant=summary.name)
                ),
                description=say(N_("The total the properties of each band of value would pay.")),
                items=[(band_label(s.key), from_cents(s.total)) for s in summary.by_band],
                fmt=usd,
                tick_fmt=_short,
                value_label=say(N_("Total")),
            )
        )
    for index, comparison in outcome.comparisons:
        made.append(
            charts.signed_bars(
                id=f"chart-change-{index + 1}",
                title=say(
                    Message(
                        "%(variant)s against %(base)s: the change by class",
                        variant=comparison.variant,
                        base=comparison.base,
                    )
                ),
                description=say(N_("What each class would pay more (right) or less (left).")),
                items=[
                    (class_label(k, say), from_cents(after - before))
                    for k, before, after in comparison.by_class
                ],
                fmt=usd,
                tick_fmt=_short,
                value_label=say(N_("Change")),
            )
        )
    return made


def amounts_csv(outcome: studio.Outcome, say: Say) -> bytes:
    """Every property of the roll with its amount under each variant and, for each variant
    compared, the difference from the formula it is compared with."""
    roll = outcome.roll
    if roll is None:
        raise InputError("study", NO_STUDY)
    header = [
        say(N_("Cadastral number")),
        say(N_("Class")),
        say(N_("Assessed value")),
        *(say(s.name) for s in outcome.summaries),
        *(
            say(Message("Difference: %(variant)s", variant=c.variant))
            for _i, c in outcome.comparisons
        ),
    ]
    base = outcome.evaluated[outcome.base_index or 0].cents
    compared = [i for i, _c in outcome.comparisons]
    rows = (
        [
            p["id"],
            roll.classes[n],
            roll.assessed[n],
            *(from_cents(e.cents[n]) for e in outcome.evaluated),
            *(from_cents(outcome.evaluated[i].cents[n] - base[n]) for i in compared),
        ]
        for n, p in enumerate(roll.properties)
    )
    text = csv_safe.write(header, rows, numbers=header[2:])
    return ("\ufeff" + text).encode("utf-8")


def report_pdf(
    outcome: studio.Outcome,
    *,
    reader: Reader,
    petition: Petition,
    title: str,
    voted: Ordinance | None = None,
) -> bytes:
    """The study report (PDF/A): what was tried on which roll, each variant's total against
    the expected amount and what would make them meet, its split by class and by value,
    the largest payers, and who pays more or less against the formula compared with."""

    def say(text: str) -> str:
        return _said(text, reader.locale)

    return reader.pdf(
        "pdf/formula_study.html",
        outcome=outcome,
        petition=petition,
        title=title,
        voted=voted,
        charts=study_charts(outcome, say),
        today=reader.today,
        class_label=lambda code: class_label(code, say),
        share=share,
        band_label=band_label,
        cents=_cents,
        explanation=lambda i, position: render(
            studio.explanation(outcome.evaluated[i], position), reader.locale
        ),
    )


def study_report(session: Session, *, reader: Reader, study: int) -> Document:
    """A saved study's report, made again from its roll (``tid document formula-study.pdf
    --study N``); the one archived when it was saved is :func:`tid.services.studio.report_bytes`."""
    row = studio.saved_study(session=session, study_id=study)
    if row is None:
        raise InputError("study", NO_STUDY)
    petition = session.get(Petition, row.petition_id)
    if petition is None:
        raise InputError("study", NO_STUDY)
    outcome = studio.reopen(session=session, study=row, voted=None)
    data = report_pdf(outcome, reader=reader, petition=petition, title=row.title)
    return Document(data, PDF, f"formula-study-{row.id}.pdf")


def study_csv(session: Session, *, reader: Reader, study: int) -> Document:
    """A saved study's amounts, every property under each variant, as CSV."""
    row = studio.saved_study(session=session, study_id=study)
    if row is None:
        raise InputError("study", NO_STUDY)
    outcome = studio.reopen(session=session, study=row, voted=None)
    data = amounts_csv(outcome, lambda text: _said(text, reader.locale))
    return Document(data, CSV, f"formula-study-{row.id}-amounts.csv")
