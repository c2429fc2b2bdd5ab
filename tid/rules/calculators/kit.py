"""What each calculator's module declares (:class:`Calculator`): its name, its rule's entry
point, its form, the labels of its fields and its chart's data; and the labels every result
shares.

A chart here is data only (amounts as ``Decimal``, titles as msgids); the page and the PDF
translate it and draw it (tid/documents/calc_text.py, tid/render/charts.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tid.rules.calculators.inputs import N_, FormSpec


@dataclass(frozen=True)
class StackedChart:
    """Columns stacked by series: ``values[category][series]`` (series in their order)."""

    title: str
    description: str
    categories: tuple[str, ...]
    series: tuple[str, ...]
    values: Mapping[str, Mapping[str, Decimal]]
    total_label: str = N_("Total")


@dataclass(frozen=True)
class SignedChart:
    """One bar per item, right of zero when positive and left when negative."""

    title: str
    description: str
    items: tuple[tuple[str, Decimal], ...]
    value_label: str


ChartData = StackedChart | SignedChart
Chart = Callable[[Mapping[str, Any]], ChartData | None]


@dataclass(frozen=True)
class Calculator:
    """One calculator of the registry (tid/rules/calculators/__init__.py).

    ``rule`` is ``"module:function"``, the rule's entry point ``document -> result document``
    (docs/calculators.md), imported on first use; ``labels`` names (as msgids) the fields of its
    documents, in and out, that the shared labels do not; ``chart`` draws a result's chart's
    data (None: the result has none); ``reads`` names the parameter files
    (``tid/rules/params/<area>.toml``) whose parameters its rule reads, so that a reform of
    one of them points to it.
    """

    name: str
    rule: str
    form: FormSpec
    labels: Mapping[str, str] = field(default_factory=dict)
    chart: Chart | None = None
    reads: tuple[str, ...] = ()


def months_by_recipient(result: Mapping[str, Any]) -> StackedChart | None:
    """The months of a result stacked by recipient (its ``months[].allocations``)."""
    months = result.get("months")
    if not isinstance(months, list) or not months:
        return None
    keys: list[str] = []
    values: dict[str, dict[str, Decimal]] = {}
    for month in months:
        allocations = month.get("allocations") if isinstance(month, Mapping) else None
        if not isinstance(allocations, Mapping):
            return None
        keys.extend(k for k in allocations if k not in keys)
        values[str(month.get("month"))] = {k: Decimal(str(v)) for k, v in allocations.items()}
    return StackedChart(
        title=N_("Month by month, by recipient"),
        description=N_(
            "Stacked columns: for each month, what each recipient received, in the "
            "statute's order from the bottom up."
        ),
        categories=tuple(values),
        series=tuple(keys),
        values=values,
    )


# The labels of the fields every result may hold (its trace, its tables, its CSV).
SHARED_LABELS: dict[str, str] = {
    "date": N_("Date"),
    "citation": N_("Citation"),
    "fiscal_year": N_("Fiscal year"),
    "months": N_("Months"),
    "month": N_("Month"),
    "allocations": N_("Allocations"),
    "totals": N_("Totals"),
    "total": N_("Total"),
    "name": N_("Name"),
    "explanation": N_("Explanation"),
    "results": N_("Results"),
    "result": N_("Result"),
    "field": N_("Field"),
    "value": N_("Value"),
    "warning": N_("Warning"),
}
