"""A reform's documents: the reform note (PDF/A: the whole reform first — what changes,
from when, the totals — then the details), and the Equalization Fund municipality by
municipality under the law and the reform (CSV and PDF)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from sqlmodel import Session

from tid import csv_safe
from tid.clock import utcnow
from tid.documents import calc_text
from tid.documents.base import CSV, PDF, Document, Reader
from tid.render import charts
from tid.rules import calculators, fund_compare, fund_example, reform_compare
from tid.rules.errors import N_, InputError
from tid.rules.reform import Reform, describe
from tid.services import reform_library

NO_REFORM = N_("There is no saved reform with this id.")


def _usd(amount: Decimal) -> str:
    """Dollars and cents as both of the app's languages write them (``-$1,234.50``)."""
    text = f"{amount:,.2f}"
    return f"-${text[1:]}" if text.startswith("-") else f"${text}"


def difference_chart(
    comparison: fund_compare.Comparison,
    name: str,
    say: Callable[[str], str],
    names: Callable[[str], str] = str,
) -> charts.Chart | None:
    """The differences, one bar each, largest gain first (right: more under the reform);
    None when every difference is zero (the page says so in words, not an empty frame)."""
    if not any(r.difference for r in comparison.rows):
        return None
    return charts.signed_bars(
        id=f"chart-{name}",
        title=say(N_("What the reform changes, one bar each")),
        description=say(
            N_("Bars right of zero: more under the reform than under the law; left of zero: less.")
        ),
        items=[(names(r.name), r.difference) for r in comparison.sorted("difference", True)],
        fmt=_usd,
        value_label=say(N_("Difference")),
    )


def _open(session: Session | None, reform: str | Reform) -> Reform:
    if isinstance(reform, Reform):
        return reform
    found = reform_library.open_reform(session=session, public_id=reform) if session else None
    if found is None:
        raise InputError("reform", NO_REFORM)
    return found


def page_context(reform: Reform) -> dict[str, Any]:
    """What a page about a reform shows of it: its changes, from when, where to try it (the
    calculators whose parameters it changes first)."""
    lines = describe(reform)
    touched = {name for line in lines for name in calculators.reading(line.parameter.split(".")[0])}
    every = [
        (name, c.form.title)
        for name, c in calculators.CALCULATORS.items()
        if calculators.available(name)
    ]
    return {
        "reform": reform,
        "lines": lines,
        "first_day": min(line.start for line in lines),
        "parameters": sorted({line.parameter for line in lines}),
        "titles": fund_compare.TITLES,
        "touches_fund": any(line.parameter.startswith("equalization.") for line in lines),
        "calculators": [(n, t) for n, t in every if n in touched],
        "other_calculators": [(n, t) for n, t in every if n not in touched],
    }


def fund_comparison(
    reform: Reform, document: Mapping[str, Any], scale: bool = True
) -> tuple[dict[str, Any], fund_compare.Comparison | None]:
    """The fund under the law and the reform for ``document``, and its municipalities (the
    bases moved with the General Fund share when ``scale``)."""
    return fund_compare.compare_fund(document, reform, scale=scale)


def reform_note_pdf(session: Session | None, *, reader: Reader, reform: str | Reform) -> Document:
    """The reform note: what changes and from when, the totals (the fund's, on the invented
    example figures, when the reform changes the fund), then every change in detail."""
    opened = _open(session, reform)
    lines = describe(opened)
    fund: dict[str, Any] | None = None
    if any(line.parameter.startswith("equalization.") for line in lines):
        compared, comparison = fund_comparison(opened, fund_example.document())
        fund = {"compared": compared, "comparison": comparison}
    pdf = reader.pdf(
        "pdf/reform_note.html",
        **calc_text.template_helpers(),
        titles=fund_compare.TITLES,
        reform=opened,
        lines=lines,
        first_day=min(line.start for line in lines),
        fund=fund,
        today=reader.today,
        generated_at=utcnow(),
    )
    name = opened.ident or "reform"
    return Document(pdf, PDF, f"reform-note-{name}.pdf")


def fund_csv(
    session: Session | None,
    *,
    reader: Reader,
    reform: str | Reform,
    document: Mapping[str, Any],
    example: bool = False,
    scale: bool = True,
) -> Document:
    """Every municipality under the law and the reform, as a spreadsheet."""
    opened = _open(session, reform)
    _compared, comparison = fund_comparison(opened, document, scale)
    say = reader.say
    header = [
        say(N_("Municipality")),
        say(N_("Under the law")),
        say(N_("Under the reform")),
        say(N_("Difference")),
        say(N_("Difference in percent")),
        say(N_("Held harmless under the law")),
        say(N_("Held harmless under the reform")),
    ]
    rows: list[tuple[object, ...]] = [
        (
            row.name,
            row.law,
            row.reform,
            row.difference,
            row.percent,
            say(N_("yes")) if row.law_protected else say(N_("no")),
            say(N_("yes")) if row.reform_protected else say(N_("no")),
        )
        for row in (comparison.sorted("name", False) if comparison else [])
    ]
    if example:  # every row says the figures are invented, wherever it is pasted
        header.append(say(N_("Figures")))
        invented = say(N_("Invented, for trying the reform only"))
        rows = [(*row, invented) for row in rows]
    text = csv_safe.write(header, rows, numbers=header[1:5], lineterminator="\r\n")
    name = opened.ident or "reform"
    return Document(
        ("\ufeff" + text).encode("utf-8"), CSV, f"fund-{name}{'-invented' if example else ''}.csv"
    )


def fund_pdf(
    session: Session | None,
    *,
    reader: Reader,
    reform: str | Reform,
    document: Mapping[str, Any],
    example: bool = False,
    scale: bool = True,
) -> Document:
    """Every municipality under the law and the reform, as a PDF/A."""
    opened = _open(session, reform)
    compared, comparison = fund_comparison(opened, document, scale)
    pdf = reader.pdf(
        "pdf/reform_fund.html",
        **calc_text.template_helpers(),
        titles=fund_compare.TITLES,
        reform=opened,
        lines=describe(opened),
        compared=compared,
        comparison=comparison,
        rows=comparison.sorted("difference", True) if comparison else [],
        example=example,
        scale=scale,
        today=reader.today,
        generated_at=utcnow(),
    )
    name = opened.ident or "reform"
    return Document(pdf, PDF, f"fund-{name}.pdf")


def _compared(
    reform: Reform, calculator: str, document: Mapping[str, Any]
) -> tuple[dict[str, Any], fund_compare.Comparison | None]:
    compared = reform_compare.compare(calculator, document, reform)
    return compared, fund_compare.side_by_side(compared["under_law"], compared["under_reform"])


def compared_csv(
    session: Session | None,
    *,
    reader: Reader,
    reform: str | Reform,
    calculator: str,
    document: Mapping[str, Any],
) -> Document:
    """A calculator's result under the law and the reform, line by line, as a spreadsheet:
    every line of the result, the law's value, the reform's and the difference."""
    opened = _open(session, reform)
    compared, _comparison = _compared(opened, calculator, document)
    say = reader.say
    header = [
        say(N_("Line")),
        say(N_("Row")),
        say(N_("Field")),
        say(N_("Under the law")),
        say(N_("Under the reform")),
        say(N_("Difference")),
    ]
    rows = [
        (
            calc_text.label(line["field"].rsplit(".", 1)[-1].split("[")[0]),
            line["row"],
            line["field"],
            line["law"],
            line["reform"],
            line["difference"],
        )
        for line in compared["differences"]
    ]
    text = csv_safe.write(header, rows, numbers=header[3:], lineterminator="\r\n")
    name = opened.ident or "reform"
    return Document(("\ufeff" + text).encode("utf-8"), CSV, f"{calculator}-{name}.csv")


def compared_pdf(
    session: Session | None,
    *,
    reader: Reader,
    reform: str | Reform,
    calculator: str,
    document: Mapping[str, Any],
) -> Document:
    """A calculator's result under the law and the reform (PDF/A): the recipients side by
    side, every line that changes, then the reform."""
    opened = _open(session, reform)
    compared, comparison = _compared(opened, calculator, document)
    pdf = reader.pdf(
        "pdf/reform_compared.html",
        **calc_text.template_helpers(),
        titles=fund_compare.TITLES,
        spec=calculators.CALCULATORS[calculator].form,
        reform=opened,
        lines=describe(opened),
        compared=compared,
        comparison=comparison,
        rows=comparison.sorted("difference", True) if comparison else [],
        changed=[d for d in compared["differences"] if d["changed"]],
        today=reader.today,
        generated_at=utcnow(),
    )
    name = opened.ident or "reform"
    return Document(pdf, PDF, f"{calculator}-{name}.pdf")
