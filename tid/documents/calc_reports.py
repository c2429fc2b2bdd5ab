"""The calculators' documents: a result as a PDF report (the input, the result, its trace
and citations) and as CSV, computed from the calculator's JSON document (docs/calculators.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import Session

from tid.documents import calc_text
from tid.documents.base import CSV, PDF, Document, Reader
from tid.rules import calculators
from tid.rules.calculators.inputs import FormSpec
from tid.rules.errors import N_, InputError

NO_CALCULATOR = N_("There is no such calculator.")


def spec_of(calculator: str) -> FormSpec:
    """The calculator's form; an unknown calculator is an :class:`InputError`."""
    found = calculators.CALCULATORS.get(calculator)
    if found is None:
        raise InputError("calculator", NO_CALCULATOR)
    return found.form


def _computed(
    calculator: str, input: Mapping[str, Any], result: Mapping[str, Any] | None
) -> tuple[FormSpec, Mapping[str, Any]]:
    spec = spec_of(calculator)
    return spec, result if result is not None else calculators.run(calculator, dict(input))


def report_pdf(
    session: Session | None,
    *,
    calculator: str,
    input: Mapping[str, Any],
    reader: Reader,
    result: Mapping[str, Any] | None = None,
) -> Document:
    """The result of ``calculator`` on the document ``input`` as a PDF report (``result``:
    already computed from it)."""
    spec, result = _computed(calculator, input, result)
    with reader.speaking():
        context = {
            **calc_text.template_helpers(),
            **calc_text.result_context(spec, input, result, today=reader.today),
            "pdf": True,
        }
    pdf = reader.pdf("pdf/calc_report.html", **context)
    return Document(pdf, PDF, f"{calculator}.pdf")


def result_csv(
    session: Session | None,
    *,
    calculator: str,
    input: Mapping[str, Any],
    reader: Reader,
    result: Mapping[str, Any] | None = None,
) -> Document:
    """The result of ``calculator`` on ``input`` as CSV, its columns and codes named in the
    reader's language (a byte-order mark first, so spreadsheets read it as UTF-8)."""
    _, result = _computed(calculator, input, result)
    with reader.speaking():
        text = "\ufeff" + calc_text.result_csv(result)
    return Document(text.encode("utf-8"), CSV, f"{calculator}.csv")
