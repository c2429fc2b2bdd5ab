"""The cost of a new calculator: one module plus its parameters, its cases and the catalogs.

A calculator's module (tid/rules/calculators/) declares its rule's entry point, its form, the
labels of its fields and its chart; the registry lists the modules. The test writes a small
calculator's module, adds it to the registry's list as the one line a new calculator adds,
and checks that the web form, the JSON API (and its listing), ``tid calc`` and the PDF report
take it with no other file changed. A scan checks that no file outside the package lists the
calculators' names, so that nothing else would need the new one.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from tests.pdf_checks import pdf_text
from tests.source_trees import parsed
from tid.app_reader import reader
from tid.cli.calc import calc_command
from tid.documents import calc_reports
from tid.rules import calculators

pytestmark = pytest.mark.one_database

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tid" / "rules" / "calculators"

# A whole calculator: its rule (here in its module; a real one calls its rule module in
# tid/rules), its form, the labels of its result and its chart.
MODULE = """
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from tid.rules.calculators.inputs import N_, Field, FormSpec, Section
from tid.rules.calculators.kit import Calculator, SignedChart


def doubled_document(document: Mapping[str, Any]) -> dict[str, Any]:
    amount = Decimal(str(document["amount"]))
    return {
        "amount": f"{amount:.2f}",
        "twice_the_amount": f"{amount * 2:.2f}",
        "warnings": [],
        "warnings_es": [],
        "trace": [{"step": "Twice the amount", "value": f"{amount * 2:.2f}", "citation": "Law 1"}],
    }


def chart(result: Mapping[str, Any]) -> SignedChart:
    return SignedChart(
        "The doubling", "One bar", (("Doubled", Decimal(result["twice_the_amount"])),), "Amount"
    )


CALCULATOR = Calculator(
    name="doubling",
    rule=f"{__name__}:doubled_document",
    form=FormSpec(
        name="doubling",
        title=N_("Doubling"),
        description="Twice an amount.",
        citation="Law 1",
        sections=(Section("Amount", (Field("amount", "money", "Amount to double", True),)),),
    ),
    labels={"twice_the_amount": "Twice the amount"},
    chart=chart,
)
"""


@pytest.fixture
def doubling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The new calculator's module, listed last in the registry."""
    (tmp_path / "doubling_calculator.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("doubling_calculator")
    monkeypatch.setattr(
        calculators, "CALCULATORS", calculators.registry((*calculators.MODULES, module))
    )
    yield module
    sys.modules.pop("doubling_calculator", None)


def test_the_web_form_takes_a_new_calculator(doubling: ModuleType, client: FlaskClient) -> None:
    assert "Doubling" in client.get("/calc/").get_data(as_text=True)
    form = client.get("/calc/doubling")
    assert form.status_code == 200
    assert "Amount to double" in form.get_data(as_text=True)
    result = client.post("/calc/doubling", data={"amount": "21.50"})
    assert result.status_code == 200, result.get_data(as_text=True)
    page = result.get_data(as_text=True)
    assert "Twice the amount" in page
    assert "43.00" in page
    assert "The doubling" in page  # its chart


def test_the_api_takes_a_new_calculator(doubling: ModuleType, client: FlaskClient) -> None:
    listing = client.get("/api/v1/calc").get_json()["calculators"]
    entry = next(c for c in listing if c["name"] == "doubling")
    assert (entry["title"], entry["available"]) == ("Doubling", True)
    response = client.post("/api/v1/calc/doubling", json={"amount": "21.50"})
    assert response.status_code == 200
    assert response.get_json()["twice_the_amount"] == "43.00"


def test_the_command_line_takes_a_new_calculator(doubling: ModuleType, tmp_path: Path) -> None:
    document = tmp_path / "doubling.json"
    document.write_text(json.dumps({"amount": "21.50"}), encoding="utf-8")
    result = CliRunner().invoke(calc_command, ["doubling", str(document)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["twice_the_amount"] == "43.00"


def test_the_pdf_report_takes_a_new_calculator(doubling: ModuleType, client: FlaskClient) -> None:
    with client.application.test_request_context():
        report = calc_reports.report_pdf(
            None, calculator="doubling", input={"amount": "21.50"}, reader=reader("en")
        )
    text = pdf_text(report.data)
    assert "Twice the amount" in text
    assert "43.00" in text


def _names_in(path: Path) -> set[str]:
    """The calculators' names a file writes as strings."""
    names = set(calculators.CALCULATORS)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return {
            node.value
            for node in ast.walk(parsed(text))
            if isinstance(node, ast.Constant) and node.value in names
        }
    return {name for name in names if re.search(rf"""["']{re.escape(name)}["']""", text)}


def test_no_file_outside_the_calculators_lists_their_names(tmp_path: Path) -> None:
    # A field of a rule may share a calculator's name ("liens"), and a page may show one
    # as an example; a file that names two or more lists them, and would need a new one.
    files = [
        *(ROOT / "tid").rglob("*.py"),
        *(ROOT / "templates").rglob("*.html"),
    ]
    listing = {
        str(path.relative_to(ROOT)): sorted(found)
        for path in files
        if PACKAGE not in path.parents and len(found := _names_in(path)) > 1
    }
    assert listing == {}
    # The scan sees a list of names, in code and in a template.
    (tmp_path / "listing.py").write_text('NAMES = {"liens": 1, "deadlines": 2}\n')
    (tmp_path / "listing.html").write_text("{% for n in ['liens', 'impost'] %}{% endfor %}")
    assert _names_in(tmp_path / "listing.py") == {"liens", "deadlines"}
    assert _names_in(tmp_path / "listing.html") == {"liens", "impost"}
