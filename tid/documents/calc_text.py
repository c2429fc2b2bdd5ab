"""How a calculator's documents and results read for a person, on its pages and in its CSV
and PDF documents: the fields' labels, values by their kind (money, rates, dates, codes),
citations and parameters in the reader's language, the result's chart and the context of
its page and report."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from typing import Any

from markupsafe import Markup, escape

from tid.documents import calc_tables
from tid.render import charts, formats
from tid.rules import calculators, readings
from tid.rules.calculators.inputs import N_, FormSpec
from tid.rules.calculators.kit import SignedChart, StackedChart
from tid.rules.messages import (
    Amount,
    Message,
    current_language,
    month_text,
    render,
    translate,
)
from tid.rules.params import CODE_LABELS
from tid.rules.vocab import AUDIT_FIELDS, EXEMPTIONS, LIEN_KINDS, LODGING_TYPES


def _(msgid: str, **params: Any) -> str:
    """A msgid of the catalogs in the reader's language, filled with ``params``."""
    return render(Message(msgid, **params))


# The leaf labels of dotted columns get their group's name in front, except these groups.
_PLAIN_GROUPS = {"allocations", "collections"}


def label(key: str) -> str:
    """The translated label of a field of a document (``carried_shortfall.mba`` too)."""
    if "." in key:
        group, leaf = key.rsplit(".", 1)
        if group.rsplit(".", 1)[-1] in _PLAIN_GROUPS:
            return label(leaf)
        return f"{label(group)}: {label(leaf)}"
    if _MONTH_KEY.fullmatch(key):  # a month's figure (the Bank's transfer of 2024-07)
        return month_text(key, current_language())
    message = _label_msgid(key)
    return str(_(message)) if message else key.replace("_", " ")


_MONTH_KEY = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def _label_msgid(key: str) -> str | None:
    """The msgid of a field's label, or of a choice of a calculator's form: a lodging type,
    an exemption or a kind of lien (the vocabulary's, read when shown)."""
    for vocabulary in (LODGING_TYPES, EXEMPTIONS, LIEN_KINDS):
        term = vocabulary.get(key)
        if term is not None:
            return term.label
    found = calculators.labels().get(key)
    if found is None and key in AUDIT_FIELDS:  # a record's field (a notice's article number)
        found = AUDIT_FIELDS[key].label
    return found


_INDEX = re.compile(r"\[(\d+)\]")


def field_label(path: str) -> str:
    """A field's path (``months[2].collected``) as a reader names it: the field's label, and
    the row of its table (``Collected (row 3)``). The pages name the fields so
    (tid/i18n.py); the command line keeps the paths of the document it was given."""
    if not path:
        return path
    if "." in path and _is_parameter(path):  # a dated parameter (a trace step, a reform)
        return parameter_label(path)
    rows = [int(n) + 1 for n in _INDEX.findall(path)]
    leaf = _INDEX.sub("", path).rsplit(".", 1)[-1]
    shown = label(leaf)
    if rows:
        return str(_("%(field)s (row %(row)s)", field=shown, row=rows[-1]))
    return shown


def percent(value: Decimal) -> str:
    """A rate or ratio as a percentage, to 4 decimals or as many as the figure has (a ratio
    shown beside a verdict keeps the digits that decide it: 0.49999999 is 49.999999%)."""
    exponent = value.as_tuple().exponent
    places = max(4, -exponent - 2) if isinstance(exponent, int) else 4
    pattern = "#,##0." + "#" * places + "%"
    return formats.percent(value, current_language(), pattern)


def show(key: str, value: object) -> str:
    """A value of a document for a reader: money, a rate, a date, a number or text."""
    kind = calc_tables.kind_of(key, value)
    if kind == "flag":
        return str(_("Yes") if value else _("No"))
    if value is None:
        return "—"
    if kind == "money":
        return formats.money(Decimal(str(value)), current_language())
    if kind == "rate":
        return percent(Decimal(str(value)))
    if kind == "date":
        return formats.day(date.fromisoformat(str(value)), current_language())
    if kind == "number" and isinstance(value, int):
        return formats.number(value, current_language())
    if kind == "quantity":
        return formats.number(Decimal(str(value)), current_language())
    if isinstance(value, Message):
        return render(value)
    text = str(value)
    if key.rsplit(".", 1)[-1] == "citation":
        return cite(text)
    message = _label_msgid(text) if key.rsplit(".", 1)[-1] in _CHOICE_KEYS else None
    return _(message) if message else text


def show_cell(key: str, value: object, link: bool) -> str:
    """:func:`show`, a citation's readings linked to their page when ``link`` (a page, not
    the PDF)."""
    leaf = key.rsplit(".", 1)[-1]
    if link and leaf == "citation" and isinstance(value, str) and not isinstance(value, Message):
        return cited(value)
    if link and calc_tables.kind_of(key, value) == "code":
        return Markup("<code>%s</code>") % show(key, value)
    return show(key, value)


# Fields whose values are codes with a label of their own (a lodging type, a kind of lien…).
_CHOICE_KEYS = {"lodging_type", "exemption", "kind", "part", "regime", "result"}


def show_parameter(unit: str, text: str) -> str:
    """A value of a dated parameter (tid/rules/params) for a reader, by its unit."""
    if unit == "code":
        return _(CODE_LABELS[text]) if text in CODE_LABELS else text
    if unit == "boolean":
        return str(_("Yes") if text == "true" else _("No"))
    if unit == "fiscal_month":
        return fiscal_month(int(text))
    try:
        if unit in ("rate", "ratio"):
            return percent(Decimal(text))
        if unit == "usd":
            return formats.money(Decimal(text), current_language())
        if unit == "date":
            return formats.day(date.fromisoformat(text), current_language())
    except (ArithmeticError, ValueError):
        return text
    return text


# The months of the fiscal year, July first (a parameter's ``fiscal_month``: 1 … 12).
FISCAL_MONTHS = (
    N_("July"),
    N_("August"),
    N_("September"),
    N_("October"),
    N_("November"),
    N_("December"),
    N_("January"),
    N_("February"),
    N_("March"),
    N_("April"),
    N_("May"),
    N_("June"),
)


def fiscal_month(number: int) -> str:
    """The name of the ``number``-th month of the fiscal year (1: July … 12: June)."""
    return str(_(FISCAL_MONTHS[number - 1])) if 1 <= number <= 12 else str(number)


def translated(msgid: str) -> str:
    """A msgid kept as data (a parameter's description, a citation) in the reader's language:
    the catalog's text as it is, without the ``%`` formatting of the templates' ``_()``."""
    from tid.rules.params import catalog_id

    if not msgid:
        return ""
    if "%" in msgid:  # a text of the parameter files: its % is %% in the catalogs
        found = translate(catalog_id(msgid))
        if found != catalog_id(msgid):
            return found.replace("%%", "%")
    return translate(msgid)


def _cite_law(citation: str) -> str:
    """A citation of the statutes in the reader's language: the catalog's text of the whole
    citation, or of each of its parts (``"21 LPRA § 6653(2); 1 LPRA § 72"``), each a msgid."""
    whole = translated(citation)
    if whole != citation or "; " not in citation:
        return whole
    # the longest run of parts that is a msgid of its own, from the left
    parts, shown, start = citation.split("; "), [], 0
    while start < len(parts):
        end = len(parts)
        while end > start + 1 and translated("; ".join(parts[start:end])) == "; ".join(
            parts[start:end]
        ):
            end -= 1
        shown.append(translated("; ".join(parts[start:end])))
        start = end
    return "; ".join(shown)


def reading_label(reading: readings.Reading) -> str:
    """How a citation names one of the project's readings, in the reader's language."""
    return str(_(readings.LABEL, title=_(reading.title)))


# Citations one after another (tid/rules/messages.py ``joined``).
_TOGETHER = "%(first)s; %(rest)s"


def cite(citation: str) -> str:
    """A citation in the reader's language: the catalog's text of the whole citation, else
    its parts that name the statutes from the catalog (:func:`_cite_law`) and each part that
    names a reading of the project by the reading's title (``"Project reading: <title>"``,
    tid/rules/readings.py)."""
    if isinstance(citation, Message):  # a reform's change, said with its value and day
        if citation.msgid == _TOGETHER:  # citations one after another, each cited
            together = dict(citation.params)
            return f"{cite(together['first'])}; {cite(together['rest'])}"
        return render(citation)
    whole = translated(citation)
    parts = citation.split("; ")
    if whole != citation or not any(readings.named(part) for part in parts):
        return whole if whole != citation else _cite_law(citation)
    shown: list[str] = []
    law: list[str] = []
    for part in parts:
        found = readings.named(part)
        if found is None:
            law.append(part)
            continue
        if law:
            shown.append(_cite_law("; ".join(law)))
            law = []
        shown.append(reading_label(found))
    if law:
        shown.append(_cite_law("; ".join(law)))
    return "; ".join(shown)


def readings_page(slug: str) -> str:
    """The address of a reading on the published page."""
    return f"/readings#{slug}"


def linked_readings(text: str, link_to: Callable[[str], str] = readings_page) -> Markup:
    """``text`` (already in the reader's language) as HTML, each reading of the project it
    names a link to the reading on the published page (``link_to(slug)``)."""
    shown = escape(text)
    prefix = str(_(readings.LABEL, title=""))
    if prefix not in text:
        return shown
    labels = {escape(reading_label(r)): r for r in readings.READINGS.values()}
    found = re.compile("|".join(re.escape(k) for k in sorted(labels, key=len, reverse=True)))

    def link(match: re.Match[str]) -> str:
        label = Markup(match.group(0))  # escaped already
        href = link_to(labels[label].slug)
        return str(Markup('<a href="%s" class="reading">%s</a>') % (href, label))

    return Markup(found.sub(link, str(shown)))


def cited(citation: str, link_to: Callable[[str], str] = readings_page) -> Markup:
    """A citation for a page: :func:`cite`, its readings linked to the published page."""
    return linked_readings(cite(citation), link_to)


def result_readings(result: Mapping[str, Any]) -> list[readings.Reading]:
    """The readings of the project a result relies on: those its trace, its warnings and
    its citations name, in order of first use."""
    texts: list[str] = []

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and (key in ("citation", "warnings") or "citation" in key):
            texts.append(value)

    walk(result)
    return readings.cited_in(texts)


def _is_parameter(name: str) -> bool:
    from tid.rules.params import history

    try:
        history(name)
    except KeyError:
        return False
    return True


def parameter_label(name: str) -> str:
    """A dated parameter as a reader names it: its description in the reader's language."""
    from tid.rules.params import history

    try:
        return translated(history(name).description)
    except KeyError:
        return name


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# The steps whose value is what a person wrote (a formula), set as code.
CODE_STEPS = frozenset({"formula"})


def step_value(step: Mapping[str, Any]) -> str:
    """The value of a trace step for a reader: a code a parameter holds by its label."""
    value = step.get("value")
    if step.get("step") in CODE_STEPS and isinstance(value, str):
        return Markup("<code>%s</code>") % value  # a formula a person wrote
    if isinstance(value, Amount):  # an amount, whatever the unit of the step's parameter
        return formats.money(value.value, current_language())
    if isinstance(value, str) and value in CODE_LABELS:
        return translated(CODE_LABELS[value])
    if isinstance(value, str) and _ISO_DAY.fullmatch(value):
        # A day of the trace (ISO in the JSON) as the page writes its other days; what only
        # looks like a day (a text typed as "2026-02-30") stays as it was written.
        try:
            return formats.day(date.fromisoformat(value), current_language())
        except ValueError:
            return value
    if isinstance(value, str) and not isinstance(value, Message):
        shown = _parameter_value(step.get("parameter"), value) or _figures(value)
        if shown is not None:
            return shown
    return render(value) if isinstance(value, str) else str(value)


_FIGURE = re.compile(r"-?\d+\.\d{2}")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def _parameter_value(name: object, value: str) -> str | None:
    """A step's value that is a figure of its parameter's unit, written by that unit (a share
    as a percentage, a cap as money); None for any other value."""
    from tid.rules.params import history

    if not isinstance(name, str) or not name:
        return None
    try:
        found = history(name)
    except KeyError:
        return None
    if found.unit not in ("rate", "ratio", "usd") or not _NUMBER.fullmatch(value):
        return None
    return show_parameter(found.unit, value)


def _figures(value: str) -> str | None:
    """A step's value that is an amount of the JSON (``100000.00``) or a list of them, as the
    page writes money (a list of equal amounts said once, with how many times)."""
    parts = value.split(", ")
    if not all(_FIGURE.fullmatch(part) for part in parts):
        return None
    amounts = [formats.money(Decimal(part), current_language()) for part in parts]
    if len(amounts) > 2 and len(set(amounts)) == 1:
        return str(_("%(count)s × %(amount)s", count=len(amounts), amount=amounts[0]))
    return ", ".join(amounts)


def csv_text(column: str, value: object) -> object:
    """A text cell of a result's CSV for a reader: flags, codes and citations by their
    labels, warnings in the reader's language (numbers stay as the result gives them)."""
    leaf = column.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return str(_("Yes") if value else _("No"))
    if not isinstance(value, str):
        return value
    if leaf == "citation":
        return cite(value)
    if isinstance(value, Message):  # a warning, a reason the rules give
        return render(value)
    message = _label_msgid(value) if leaf in _CHOICE_KEYS else None
    if message:
        return str(_(message))
    return value


def result_csv(result: Mapping[str, Any]) -> str:
    """A result as the CSV a reader downloads: columns and codes named in their language
    (docs/calculators.md fixes the JSON documents, not this file; the JSON API and ``tid calc``
    are the machine interface)."""
    return calc_tables.result_csv(result, label, csv_text)


def unit_label(unit: str) -> str:
    """The msgid that names a parameter's unit (tid/rules/params.py)."""
    from tid.rules.params import UNIT_LABELS

    return UNIT_LABELS.get(unit, unit)


def is_number(key: str, value: object) -> bool:
    return calc_tables.kind_of(key, value) in ("money", "rate", "number", "quantity")


def template_helpers(link_to: Callable[[str], str] = readings_page) -> dict[str, Any]:
    """What the calculators' templates call (their pages and the PDF report); ``link_to``
    gives a reading's address."""
    return {
        "label": label,
        "show": show,
        "show_cell": show_cell,
        "is_number": is_number,
        "show_parameter": show_parameter,
        "unit_label": unit_label,
        "translated": translated,
        "cite": cite,
        "cited": functools.partial(cited, link_to=link_to),
        "linked_readings": functools.partial(linked_readings, link_to=link_to),
        "reading_label": reading_label,
        "parameter_label": parameter_label,
        "step_value": step_value,
    }


# --------------------------------------------------------------------------------------
# Showing a result


def _money_ticks(amount: Decimal) -> str:
    return formats.whole_dollars(amount, current_language())


def build_chart(spec: FormSpec, result: Mapping[str, Any]) -> charts.Chart | None:
    """The chart of a result, when the calculator has one and the result has its data (its
    module gives the data, tid/rules/calculators/; here it is translated and laid out)."""
    calculator = calculators.CALCULATORS.get(spec.name)
    data = calculator.chart(result) if calculator and calculator.chart else None
    if isinstance(data, StackedChart):
        return charts.stacked_bars(
            id=f"chart-{spec.name}",
            title=_(data.title),
            description=_(data.description),
            categories=list(data.categories),
            series=[(k, label(k)) for k in data.series],
            values=data.values,
            fmt=lambda a: formats.money(a, current_language()),
            tick_fmt=_money_ticks,
            total_label=_(data.total_label),
        )
    if isinstance(data, SignedChart):
        return charts.signed_bars(
            id=f"chart-{spec.name}",
            title=_(data.title),
            description=_(data.description),
            items=list(data.items),
            fmt=lambda a: formats.money(a, current_language()),
            tick_fmt=_money_ticks,
            value_label=_(data.value_label),
        )
    return None


def localized(value: Any) -> Any:
    """The result as a reader sees it: Spanish explanations where the result has them."""
    if isinstance(value, Mapping):
        out = {k: localized(v) for k, v in value.items()}
        if isinstance(value.get("explanation"), Message):
            out["explanation"] = render(value["explanation"])
        elif current_language() == "es" and "explanation_es" in value:
            out["explanation"] = value["explanation_es"]
        return out
    if isinstance(value, list):
        return [localized(v) for v in value]
    return value


def shown_warnings(result: Mapping[str, Any]) -> list[str]:
    """The result's warnings in the reader's language (each rendered from its message)."""
    return [render(w) for w in result.get("warnings") or []]


def result_context(
    spec: FormSpec,
    document: Mapping[str, Any],
    result: Mapping[str, Any],
    *,
    today: date,
    most_rows: int | None = None,
) -> dict[str, Any]:
    """What the result page and the PDF show, dated ``today``; ``most_rows``: each table's
    first rows only."""
    shown = localized(result)
    return {
        "spec": spec,
        "document": document,
        "document_json": json.dumps(document, ensure_ascii=False, separators=(",", ":")),
        "result": result,
        "figures": calc_tables.summary(shown),
        "tables": calc_tables.result_tables(shown, most_rows),
        "input_figures": calc_tables.summary(document),
        "input_tables": calc_tables.result_tables(document, most_rows),
        "warnings": shown_warnings(result),
        "trace": list(result.get("trace") or []),
        "citations": calculators.citations(result),
        "readings": result_readings(result),
        "chart": build_chart(spec, result),
        "today": today,
        "pdf": False,
    }
