"""The calculators' web pages: forms, errors next to the field, CSV in and out, PDF report."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pypdf
import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from tests.calc_documents import DOCUMENTS, FORM_DATA
from tests.pdf_checks import assert_archival
from tid import i18n
from tid.cli.calc import calc_command
from tid.documents import calc_tables, calc_text
from tid.rules import calculators
from tid.rules.calculators import inputs
from tid.rules.messages import render
from tid.rules.params import all_parameters
from tid.web import calc_csv

# The calculators store nothing: one database is enough (their bounds across workers, which
# are kept in the database, are tested on both in test_calc_bounds.py).
pytestmark = pytest.mark.one_database

AVAILABLE = [name for name in sorted(calculators.CALCULATORS) if calculators.available(name)]
BOM = "\ufeff"


def _page(response: Any) -> str:
    return str(response.get_data(as_text=True))


def _hidden_document(page: str) -> dict[str, Any]:
    match = re.search(r'name="document" value="([^"]*)"', page)
    assert match, "the result page carries its input document"
    document = json.loads(html.unescape(match.group(1)))
    assert isinstance(document, dict)
    return document


def _error_of(page: str, name: str) -> str:
    match = re.search(rf'<span class="field-error" id="e-{re.escape(name)}">([^<]*)</span>', page)
    assert match, f"no error shown next to {name}"
    return html.unescape(match.group(1))


def _text(page: str) -> str:
    """The visible text of a page, whitespace collapsed."""
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _unlinked(page: str) -> str:
    """A page without its links' tags (a text that names a reading links it inline)."""
    return html.unescape(re.sub(r"</?a\b[^>]*>", "", page))


def _warnings_as_shown(app: Flask, name: str, document: dict[str, Any]) -> list[str]:
    """A result's warnings as the Spanish page says them (the JSON's ``warnings_es`` keep
    the document's field names and ISO days)."""
    with app.test_request_context("/"):
        return [render(w) for w in calculators.run(name, document)["warnings"]]


def _money(app: Flask, amount: str) -> str:
    with app.test_request_context("/"):
        return i18n.money(Decimal(amount))


def _cli(name: str, document: dict[str, Any]) -> dict[str, Any]:
    result = CliRunner().invoke(calc_command, [name], input=json.dumps(document))
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert isinstance(out, dict)
    return out


def _pdf_text(data: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(data))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() for page in reader.pages))


# --------------------------------------------------------------------------------------
# Pages


def test_index_lists_every_calculator(client: FlaskClient) -> None:
    page = _page(client.get("/calc/"))
    for name in calculators.CALCULATORS:
        assert f'href="/calc/{name}"' in page
    assert 'href="/calc/parameters"' in page
    assert "Calculadoras" in page  # Spanish first


def _translated(app: Flask, text: str) -> str:
    """A text of the parameter files as the Spanish reader sees it."""
    with app.test_request_context():
        return calc_text.translated(text)


def test_parameters_page_has_an_anchor_and_citation_per_parameter(
    app: Flask, client: FlaskClient
) -> None:
    raw = _page(client.get("/calc/parameters"))
    page = _unlinked(raw)  # a citation's readings are links inside its text
    for parameter in all_parameters():
        assert f'id="p-{parameter["name"]}"' in raw
        assert _translated(app, parameter["description"]) in page
        for value in parameter["values"]:
            # the citation in the reader's language: a translation of its own, in Spanish
            translated = _translated(app, value["citation"])
            assert translated in page
            assert translated != value["citation"] or "LPRA" in translated
    english = _unlinked(_page(client.get("/calc/parameters?lang=en")))
    for parameter in all_parameters():
        assert parameter["description"] in english
        for value in parameter["values"]:
            assert value["citation"] in english


@pytest.mark.parametrize("name", sorted(calculators.FORMS))
def test_form_page(client: FlaskClient, name: str) -> None:
    response = client.get(f"/calc/{name}")
    assert response.status_code == 200
    page = _page(response)
    assert 'enctype="multipart/form-data"' in page
    assert 'name="csrf_token"' in page
    assert 'name="document_json"' in page
    for item in calculators.FORMS[name].items():
        if isinstance(item, inputs.Field):
            assert f'name="{item.key}"' in page
        elif isinstance(item, inputs.Table) and item.csv:
            assert f'name="{item.key}_csv"' in page  # "Upload a CSV instead"


def test_form_labels_in_english_when_chosen(client: FlaskClient) -> None:
    spanish = _page(client.get("/calc/liens"))
    assert "Gravámenes" in spanish and "Producto de la venta" in spanish
    english = _page(client.get("/calc/liens?lang=en"))
    assert "Sale proceeds" in english and "Hipoteca" not in english


def test_parameter_values_shown_by_their_unit(client: FlaskClient) -> None:
    page = _text(_page(client.get("/calc/parameters?lang=en")))
    units = {p["unit"] for p in all_parameters()}
    assert "rate" in units
    # A rate of "0.09" reads 9%; an amount of dollars reads as money.
    assert "9%" in page
    if "usd" in units:
        assert "$375,000.00" in page


# --------------------------------------------------------------------------------------
# The same numbers three ways


@pytest.mark.parametrize("name", AVAILABLE)
def test_web_api_and_cli_agree(app: Flask, client: FlaskClient, name: str) -> None:
    document = DOCUMENTS[name]
    cli = _cli(name, document)
    api = client.post(f"/api/v1/calc/{name}", json=document)
    assert api.status_code == 200
    assert api.get_json() == cli

    web = client.post(f"/calc/{name}", data=FORM_DATA[name])
    page = _page(web)
    assert web.status_code == 200, re.findall(r'class="field-error"[^>]*>([^<]*)', page)
    # The form built the very document the API and the command line were given…
    assert _hidden_document(page) == document
    # …and the page shows the result's figures, formatted for the reader.
    text = _text(page)
    for key, value in calc_tables.summary(cli):
        if calc_tables.kind_of(key, value) == "money":
            assert _money(app, value) in text, key
    for table in calc_tables.result_tables(cli):
        for row in table.rows:
            for column, value in row.items():
                if calc_tables.kind_of(column, value) == "money":
                    assert _money(app, value) in text, (table.key, column)
    # The page is in Spanish (the default language): the warnings are the Spanish ones, their
    # days as the page writes them (ISO in the JSON), the fields they name by their labels.
    for warning in _warnings_as_shown(app, name, document):
        assert warning in _unlinked(page)
    # The CSV download re-runs the same document: the same numbers as the command line.
    download = client.post(f"/calc/{name}/csv", data={"document": json.dumps(document)})
    with app.test_request_context():
        shown = calc_text.result_csv(calculators.run(name, document))
    assert download.get_data(as_text=True) == BOM + shown
    # The file the reader gets names its columns and codes in the reader's language; its
    # figures are the very cells of the result's fields, row for row.
    machine = list(csv.reader(io.StringIO(calc_tables.result_csv(cli))))
    read = list(csv.reader(io.StringIO(shown)))
    assert [len(row) for row in read] == [len(row) for row in machine]

    def numbers(rows: list[list[str]]) -> list[str]:
        figure = r"-?\d+(\.\d+)?|\d{4}-\d{2}-\d{2}"  # amounts, counts and dates
        return [cell for row in rows for cell in row if re.fullmatch(figure, cell)]

    assert numbers(read) == numbers(machine) and numbers(read)
    assert "warnings" not in shown and "regime" not in shown


# --------------------------------------------------------------------------------------
# Errors next to the field, in the reader's language; nothing computed


def test_format_error_next_to_the_field_in_spanish(client: FlaskClient) -> None:
    response = client.post("/calc/deadlines", data={"petition_received": "2026-02-30"})
    assert response.status_code == 422
    page = _page(response)
    assert _error_of(page, "petition_received") == (
        "Escriba la fecha como año-mes-día, como «2026-03-02»."
    )
    assert 'id="f-petition_received" aria-invalid="true"' in page
    assert 'value="2026-02-30"' in page  # what was typed is kept
    assert "Cómo se calculó" not in page  # nothing was computed


def test_the_same_error_in_english(client: FlaskClient) -> None:
    response = client.post(
        "/calc/room-tax?lang=en", data={**FORM_DATA["room-tax"], "nights": "3.5"}
    )
    assert response.status_code == 422
    assert _error_of(_page(response), "nights") == "Write a whole number, like 3."


def test_required_cell_of_a_row(client: FlaskClient) -> None:
    data = {**FORM_DATA["liens"]}
    del data["liens-3-amount"]
    page = _page(client.post("/calc/liens", data=data))
    assert _error_of(page, "liens-3-amount") == "Este valor es obligatorio."


def test_a_calculators_error_goes_to_the_row_it_names(client: FlaskClient) -> None:
    # Row 0 is blank, so the document's months[1] is the form's row 2.
    data = {
        "fiscal_year": "2024-25",
        "bank_certified_amount": "1000.00",
        "months-1-month": "2024-07",
        "months-1-collected": "10.00",
        "months-2-month": "2023-08",
        "months-2-collected": "10.00",
    }
    response = client.post("/calc/room-tax-distribution", data=data)
    assert response.status_code == 422
    error = _error_of(_page(response), "months-2-month")
    assert error.startswith("No aceptado: ago 2023 ")  # the path "months[1].month" left out
    assert "months[1]" not in error


def test_a_pasted_json_document(client: FlaskClient) -> None:
    document = DOCUMENTS["room-tax"]
    page = _page(client.post("/calc/room-tax", data={"document_json": json.dumps(document)}))
    assert _hidden_document(page) == document
    bad = client.post("/calc/room-tax", data={"document_json": "{nights: 3"})
    assert bad.status_code == 422
    assert _error_of(_page(bad), "document_json").startswith("Esto no es JSON válido")
    refused = client.post(
        "/calc/room-tax", data={"document_json": json.dumps({**document, "nightly_rate": 1.5})}
    )
    assert refused.status_code == 422
    # The field by its label and the reason in the reader's language, never the JSON path.
    error = _error_of(_page(refused), "document_json")
    assert error.startswith("Tarifa por noche: escriba la cantidad como texto"), error
    assert "nightly_rate" not in error


def test_change_the_input_fills_the_form_again(client: FlaskClient) -> None:
    document = DOCUMENTS["excise-allocation"]
    page = _page(
        client.post("/calc/excise-allocation", data={"edit": "1", "document": json.dumps(document)})
    )
    assert 'name="months-0-cigarette_tax" id="f-months-0-cigarette_tax"' in page
    assert re.search(r'value="5000000.00"\s+name="months-0-cigarette_tax"', page)
    assert re.search(r'value="2024-25"\s+name="fiscal_year"', page)


# --------------------------------------------------------------------------------------
# CSV upload


def _upload(client: FlaskClient, name: str, field: str, content: bytes, **data: str) -> Any:
    return client.post(
        f"/calc/{name}",
        data={**data, field: (io.BytesIO(content), "rows.csv")},
        content_type="multipart/form-data",
    )


def test_months_from_a_csv_with_a_bom(client: FlaskClient) -> None:
    content = (BOM + "month,collected\r\n2024-07,900000.00\r\n\r\n2024-08,50000.00\r\n").encode()
    response = _upload(
        client,
        "room-tax-distribution",
        "months_csv",
        content,
        fiscal_year="2024-25",
        bank_certified_amount="1000000.00",
        **{"months-0-month": "2025-01", "months-0-collected": "1.00"},  # replaced by the file
    )
    assert response.status_code == 200
    assert _hidden_document(_page(response)) == DOCUMENTS["room-tax-distribution"]


def test_excise_months_from_a_csv_without_a_bom(client: FlaskClient) -> None:
    content = (
        b"month,gasoline_tax,diesel_gallons,crude_oil_excise,reimbursements,cigarette_tax\n"
        b"2024-07,10000000.00,5000000,1000000.00,250000.00,5000000.00\n"
    )
    response = _upload(client, "excise-allocation", "months_csv", content, fiscal_year="2024-25")
    assert response.status_code == 200
    assert _hidden_document(_page(response)) == DOCUMENTS["excise-allocation"]


def test_municipalities_from_a_csv_with_semicolons(client: FlaskClient) -> None:
    content = (
        "name;base;allocation_2007_08;income_2007_08\n"
        "San Juan;25000.00;30000.00;50000.00\n"
        "Ponce;10000.00;1000.00;100000.00\n"
        "Mayagüez;5000.00;2000.00;100000.00\n"
    ).encode()
    response = _upload(
        client,
        "equalization",
        "municipalities_csv",
        content,
        fiscal_year="2024-25",
        lottery_net_income="100000000.00",
        gf_net_revenues="1000000.00",
    )
    assert response.status_code == 200
    assert _hidden_document(_page(response)) == DOCUMENTS["equalization"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # row 3 is the second data row (the header is row 1)
        (
            b"month,collected\n2024-07,1.00\n2024-08,12abc\n",
            "Fila 3, columna collected: Escriba una cantidad en dólares, como 1,234.50.",
        ),
        (b"month,collected\n2024-07,1.00\n2024-13,2.00\n", "Fila 3, columna month"),
        (b"month,collected\n2024-07,\n", "Fila 2, columna collected: este valor es obligatorio."),
        (b"month,collected,extra\n", "Fila 1: columna desconocida «extra»"),
        (b"month\n2024-07\n", "Fila 1: falta la columna «collected»."),
        (b"month,collected\n2024-07,1.00,3\n", "Fila 2: 3 celdas"),
        (b"", "El archivo está vacío"),
        (b"month,collected\n", "encabezado pero ninguna fila"),
        # A spreadsheet's Windows-1252 file is read (its "ñ" is not a number); a binary file
        # (a workbook sent instead of its CSV) is not text.
        ("month;collected\n2024-07;1.00 ñ\n".encode("cp1252"), "Fila 2, columna collected"),
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "Este no es un archivo de texto CSV."),
    ],
)
def test_a_bad_file_names_the_row_and_column_and_computes_nothing(
    client: FlaskClient, content: bytes, expected: str
) -> None:
    response = _upload(
        client,
        "room-tax-distribution",
        "months_csv",
        content,
        fiscal_year="2024-25",
        bank_certified_amount="1000.00",
    )
    assert response.status_code == 422
    page = _page(response)
    assert expected in _error_of(page, "months_csv")
    assert "Cómo se calculó" not in page


def test_a_file_too_large_is_refused_before_parsing(client: FlaskClient) -> None:
    content = b"month,collected\n" + b"2024-07,1.00\n" * (calc_csv.MAX_CSV_BYTES // 10)
    assert len(content) > calc_csv.MAX_CSV_BYTES
    response = _upload(
        client, "room-tax-distribution", "months_csv", content, fiscal_year="2024-25"
    )
    assert response.status_code == 422
    assert "demasiado grande" in _error_of(_page(response), "months_csv")


def test_a_calculators_error_on_a_file_row_names_the_row(client: FlaskClient) -> None:
    # The months must come in order: the calculator refuses months[1], line 3 of the file.
    content = b"month,collected\n2024-08,1.00\n2024-07,2.00\n"
    response = _upload(
        client,
        "room-tax-distribution",
        "months_csv",
        content,
        fiscal_year="2024-25",
        bank_certified_amount="1000.00",
    )
    assert response.status_code == 422
    error = _error_of(_page(response), "months_csv")
    assert error.startswith("Fila 3 del archivo: ")
    assert "jul 2024" in error and "months[1]" not in error


# --------------------------------------------------------------------------------------
# The result page: warnings, trace with links to the parameters, chart


def _cited(app: Flask, citation: str) -> str:
    """A citation as the Spanish reader sees it (the catalogs' text of its parts)."""
    with app.test_request_context():
        return calc_text.cite(citation)


def test_result_shows_warnings_trace_and_parameter_links(app: Flask, client: FlaskClient) -> None:
    document = DOCUMENTS["room-tax-distribution"]
    result = calculators.run("room-tax-distribution", document)
    raw = _page(client.post("/calc/room-tax-distribution", data=FORM_DATA["room-tax-distribution"]))
    page = _unlinked(raw)
    assert result["warnings_es"]
    for warning in _warnings_as_shown(app, "room-tax-distribution", document):
        assert f"</strong> {warning}</p>" in page
    with_parameter = [s for s in result["trace"] if s.get("parameter")]
    assert with_parameter
    for step in with_parameter:
        assert f'href="/calc/parameters#p-{step["parameter"]}"' in raw
    for step in result["trace"]:
        assert _cited(app, step["citation"]) in page
    # each reading of the project the result relies on links to its place on /readings
    cited = calc_text.result_readings(result)
    assert cited
    for reading in cited:
        assert raw.count(f'href="/readings#{reading.slug}"') >= 2, reading.slug
    # the law is cited in Spanish: "Ley 272-2003, art. 31(B)(i)", not "Act 272-2003 § 31(B)(i)"
    assert "Ley 272-2003, art. 31(B)(i)" in page and "Act 272-2003" not in page
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in page
    assert (
        '<title id="chart-room-tax-distribution-title">Mes a mes, por destinatario</title>' in page
    )


def test_chart_and_table_escape_user_text(client: FlaskClient) -> None:
    hostile = '<script>alert("x")</script>'
    document = json.loads(json.dumps(DOCUMENTS["equalization"]))
    document["municipalities"][1]["name"] = hostile
    page = _page(client.post("/calc/equalization", data={"document_json": json.dumps(document)}))
    assert "<script>" not in page
    assert "&lt;script&gt;alert(" in page
    assert 'class="chart" id="chart-equalization"' in page


# --------------------------------------------------------------------------------------
# Downloads


def test_csv_download(client: FlaskClient) -> None:
    document = DOCUMENTS["excise-allocation"]
    response = client.post("/calc/excise-allocation/csv", data={"document": json.dumps(document)})
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert 'filename="excise-allocation.csv"' in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True).removeprefix(BOM))))
    header = rows[0]
    assert header[0] == "Mes"  # the columns are named in the reader's language (Spanish)
    july = dict(zip(header, rows[1], strict=True))
    # Cigarettes 5,000,000.00 in July: HTA 2,500,000.00 (its monthly cap), the Bus Authority
    # 800,000.00 (its cap), PRITA 5,000,000 − 2,500,000 − 800,000 = 1,700,000.00.
    assert july["Autoridad de Carreteras (cigarrillos)"] == "2500000.00"
    assert july["Autoridad Metropolitana de Autobuses"] == "800000.00"
    assert july["Autoridad de Transporte Integrado"] == "1700000.00"
    # Fuel: 10,000,000 + 4¢ × 5,000,000 gal + 1,000,000 − 250,000 = 10,950,000.00
    assert july["Autoridad de Carreteras (combustibles)"] == "10950000.00"


def test_download_of_a_bad_document(client: FlaskClient) -> None:
    assert client.post("/calc/liens/csv", data={"document": "not json"}).status_code == 400
    bad = client.post("/calc/liens/pdf", data={"document": json.dumps({"liens": "x"})})
    assert bad.status_code == 422


@pytest.mark.parametrize("name", AVAILABLE)
def test_pdf_report_has_the_citations_and_totals(
    app: Flask, client: FlaskClient, name: str
) -> None:
    document = DOCUMENTS[name]
    result = calculators.run(name, document)
    response = client.post(f"/calc/{name}/pdf", data={"document": json.dumps(document)})
    assert response.status_code == 200
    assert response.mimetype == "application/pdf"
    assert_archival(response.data, lang="es", tagged=True)
    text = _pdf_text(response.data)
    for citation in calculators.citations(result):
        assert re.sub(r"\s+", " ", _cited(app, citation)) in text, citation
    figures = [
        (key, value)
        for key, value in calc_tables.summary(result)
        if key.startswith("totals.")
        or key in ("total", "tax", "to_owner", "gf_share", "lottery_share")
    ]
    assert figures or name == "deadlines"
    for key, value in figures:
        assert _money(app, value) in text, key
    with app.test_request_context("/"):  # the warnings as the Spanish page says them
        warnings = calc_text.shown_warnings(result)
    assert len(warnings) == len(result["warnings_es"])
    for warning in warnings:
        assert re.sub(r"\s+", " ", warning)[:60] in text
    assert "Página 1 /" in text


def test_pdf_report_of_the_deadlines(app: Flask, client: FlaskClient) -> None:
    document = DOCUMENTS["deadlines"]
    response = client.post("/calc/deadlines/pdf", data={"document": json.dumps(document)})
    text = _pdf_text(response.data)
    # 90 days from 2026-03-02 is Sunday 2026-05-31, moved to Monday 2026-06-01; the
    # publication week runs 2026-03-06 to 2026-03-12.
    with app.test_request_context("/"):
        for day in ("2026-06-01", "2026-05-31", "2026-03-06", "2026-03-12"):
            assert i18n.day(date.fromisoformat(day)) in text, day
    assert "21 LPRA § 6653(2)" in text


def test_pdf_report_totals_of_the_waterfall(app: Flask, client: FlaskClient) -> None:
    document = DOCUMENTS["room-tax-distribution"]
    response = client.post(
        "/calc/room-tax-distribution/pdf", data={"document": json.dumps(document)}
    )
    text = _pdf_text(response.data)
    # 2% of 900,000.00 = 18,000.00; 5% = 45,000.00; 9% = 81,000.00; the Authority 100,000.00
    # in July and 50,000.00 in August = 150,000.00; the remainder 656,000.00.
    for amount in ("18000.00", "45000.00", "81000.00", "150000.00", "656000.00", "950000.00"):
        assert _money(app, amount) in text
    assert "Ley 272-2003, art. 31(B)(i)" in text
    assert "Mes a mes, por destinatario" in text  # the chart's title


def test_collections_by_lodging_type_up_to_2002_03(client: FlaskClient) -> None:
    data = {
        "fiscal_year": "2001-02",
        "collections-hotel": "900000.00",
        "collections-casino_hotel": "1100000.00",
        "bond_fund_amount": "500000.00",
    }
    response = client.post("/calc/room-tax-distribution", data=data)
    assert response.status_code == 200
    document = _hidden_document(_page(response))
    assert document == {
        "fiscal_year": "2001-02",
        "collections": {"hotel": "900000.00", "casino_hotel": "1100000.00"},
        "bond_fund_amount": "500000.00",
    }
    # The same figures as the calculator, shown as the reader's money.
    result = calculators.run("room-tax-distribution", document)
    text = _text(_page(response))
    for key, amount in result["allocations"].items():
        assert _money(client.application, amount) in text, key


def test_error_summary_links_to_each_field(client: FlaskClient) -> None:
    data = {"fiscal_year": "2024-2x", "months-0-month": "2024-07", "months-0-collected": "12abc"}
    page = _page(client.post("/calc/room-tax-distribution", data=data))
    assert (  # named by its label, without the label's hint
        '<a href="#f-fiscal_year"><span class="summary-field">Año fiscal</span>: '
        "Escriba un año fiscal como 2024-25.</a>"
    ) in page
    assert '<a href="#f-months-0-collected">' in page
    assert 'id="f-months-0-collected"' in page


def test_csv_download_does_not_let_a_spreadsheet_run_a_name(client: FlaskClient) -> None:
    document = json.loads(json.dumps(DOCUMENTS["equalization"]))
    document["municipalities"][1]["name"] = "=HYPERLINK(1)"
    response = client.post("/calc/equalization/csv", data={"document": json.dumps(document)})
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True).removeprefix(BOM))))
    names = [row[0] for row in rows[1:4]]
    assert names == ["San Juan", "'=HYPERLINK(1)", "Mayagüez"]
    adjustments = [row[rows[0].index("Ajuste")] for row in rows[1:4]]
    assert all(
        a.startswith(("-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")) for a in adjustments
    )
    assert any(a.startswith("-") for a in adjustments)  # negative amounts stay numbers


def test_pdf_resources_come_from_the_static_folder_only(app: Flask, tmp_path: Path) -> None:
    from tid.render import pdf

    with app.app_context():
        tid_static = pdf.static_base_url()
        assert tid_static.startswith("file://") and tid_static.endswith("/")
        outside = tmp_path / "secret.css"
        outside.write_text("body { color: red }")
        fetcher = pdf._fetcher_for(Path(app.static_folder or "").resolve())
        with pytest.raises(ValueError):
            fetcher.fetch("http://example.com/logo.png")
        with pytest.raises(ValueError):
            fetcher.fetch(outside.as_uri())
        inside = fetcher.fetch(tid_static + "tid.css")
        assert inside is not None
        # A document that links to a remote image still renders (the image is left out).
        data = pdf.html_to_pdf('<p>Hola</p><img src="http://example.com/x.png">')
        assert data.startswith(b"%PDF")


def test_quantities_read_as_numbers_not_money(client: FlaskClient) -> None:
    page = _page(client.post("/calc/excise-allocation", data=FORM_DATA["excise-allocation"]))
    # the diesel gallons of the input, and the cigarette tax, an amount
    assert re.search(r'<td class="num" data-label="[^"]+">5,000,000</td>', page)
    assert re.search(r'<td class="num" data-label="[^"]+">\$5,000,000\.00</td>', page)


def test_uploaded_rows_stay_in_the_form_when_another_field_is_wrong(client: FlaskClient) -> None:
    content = b"name,base,allocation_2007_08,income_2007_08\nSan Juan,25000.00,30000.00,50000.00\n"
    response = _upload(
        client, "equalization", "municipalities_csv", content, fiscal_year="2024-25"
    )  # the revenues are missing
    assert response.status_code == 422
    page = _page(response)
    assert _error_of(page, "lottery_net_income") == "Este valor es obligatorio."
    assert re.search(r'value="San Juan"\s+name="municipalities-0-name"', page)
    assert re.search(r'value="30000.00"\s+name="municipalities-0-allocation_2007_08"', page)


def test_a_far_row_number_does_not_blow_up_the_page(client: FlaskClient) -> None:
    data = {
        "fiscal_year": "2024-25",
        "bank_certified_amount": "1000.00",
        "months-0-month": "2024-07",
        "months-0-collected": "10.00",
        "months-99999999-month": "2024-08",
        "months-99999999-collected": "10.00",
    }
    response = client.post("/calc/room-tax-distribution", data=data)
    assert response.status_code == 422
    assert len(response.data) < 500_000
    # Nothing is computed from part of the rows.
    assert "suba un archivo CSV" in _error_of(_page(response), "months")


def test_excise_warnings_in_the_readers_language(client: FlaskClient) -> None:
    # FY2024-25: the Metropolitan Bus Authority's 12 × $800,000.00 = $9,600,000.00 a year is
    # under its $10,000,000.00 of the text; the warning says so in the page's language.
    form = FORM_DATA["excise-allocation"]
    spanish = html.unescape(_page(client.post("/calc/excise-allocation", data=form)))
    english = html.unescape(_page(client.post("/calc/excise-allocation?lang=en", data=form)))
    es = "Autoridad Metropolitana de Autobuses: 12 pagos mensuales de $800,000.00 como máximo"
    en = "Metropolitan Bus Authority: 12 monthly payments of at most $800,000.00"
    assert es in spanish and en not in spanish
    assert en in english and es not in english
    document = json.dumps(DOCUMENTS["excise-allocation"])
    pdf_es = _pdf_text(client.post("/calc/excise-allocation/pdf", data={"document": document}).data)
    pdf_en = _pdf_text(
        client.post("/calc/excise-allocation/pdf?lang=en", data={"document": document}).data
    )
    assert "Autoridad Metropolitana de Autobuses: 12 pagos" in pdf_es
    assert "Metropolitan Bus Authority: 12 monthly payments" in pdf_en


# --------------------------------------------------------------------------------------
# The inputs of the law's second reading (Act 272-2003 § 31 and 13 LPRA § 31751), typed into the
# forms

SECOND_READING: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    (
        "room-tax-distribution",
        {
            "fiscal_year": "2010-11",
            "bank_certified_amount": "0.00",
            "convention_center_opened_on": "2005-11-17",
            "convention_center_operating_deficit": "2800000.00",
            "months": [{"month": "2010-07", "collected": "10000000.00"}],
        },
        {
            "fiscal_year": "2010-11",
            "bank_certified_amount": "0.00",
            "convention_center_opened_on": "2005-11-17",
            "convention_center_operating_deficit": "2800000.00",
            "months-0-month": "2010-07",
            "months-0-collected": "10000000.00",
        },
    ),
    (
        "room-tax-distribution",
        {
            "fiscal_year": "2003-04",
            "collections": {"hotel": "900000.00"},
            "bond_fund_amount": "100000.00",
            "collections_until": "2003-09-08",
        },
        {
            "fiscal_year": "2003-04",
            "collections-hotel": "900000.00",
            "bond_fund_amount": "100000.00",
            "collections_until": "2003-09-08",
        },
    ),
    (
        "excise-allocation",
        {
            "fiscal_year": "2020-21",
            "months": [
                {
                    "month": "2020-07",
                    "gasoline_tax": "0.00",
                    "diesel_gallons": "0",
                    "crude_oil_excise": "0.00",
                    "reimbursements": "0.00",
                    "cigarette_tax": "5000000.00",
                    "cigarette_reimbursements": "1500000.00",
                }
            ],
        },
        {
            "fiscal_year": "2020-21",
            "months-0-month": "2020-07",
            "months-0-gasoline_tax": "0.00",
            "months-0-diesel_gallons": "0",
            "months-0-crude_oil_excise": "0.00",
            "months-0-reimbursements": "0.00",
            "months-0-cigarette_tax": "5000000.00",
            "months-0-cigarette_reimbursements": "1500000.00",
        },
    ),
]


@pytest.mark.parametrize(("name", "document", "form"), SECOND_READING)
def test_the_forms_take_the_new_inputs(
    app: Flask, client: FlaskClient, name: str, document: dict[str, Any], form: dict[str, str]
) -> None:
    api = client.post(f"/api/v1/calc/{name}", json=document)
    assert api.status_code == 200
    result = api.get_json()
    web = client.post(f"/calc/{name}", data=form)
    page = _page(web)
    assert web.status_code == 200, re.findall(r'class="field-error"[^>]*>([^<]*)', page)
    assert _hidden_document(page) == document
    assert len(result["warnings_es"]) == len(_warnings_as_shown(app, name, document))
    for warning in _warnings_as_shown(app, name, document):
        assert warning in _unlinked(page)
    spanish = _page(client.get(f"/calc/{name}"))
    english = _page(client.get(f"/calc/{name}?lang=en"))
    for key in document:
        if key not in ("months", "collections", "fiscal_year"):
            assert f'name="{key}"' in spanish
    assert ("Convention Center opened on" in english) == (name == "room-tax-distribution")
    assert ("Apertura del Centro de Convenciones" in html.unescape(spanish)) == (
        name == "room-tax-distribution"
    )


def test_hostelry_and_parador_cannot_be_confused(client: FlaskClient) -> None:
    spanish = html.unescape(_page(client.get("/calc/room-tax")))
    assert "Hospedería o posada no autorizada como parador (9 por ciento)" in spanish
    assert "Parador (posada autorizada por la Compañía de Turismo, 7 por ciento)" in spanish
    english = html.unescape(_page(client.get("/calc/room-tax?lang=en")))
    assert "Hostelry or inn not authorized as a parador (9 percent)" in english
    assert "Parador (inn authorized by the Tourism Company, 7 percent)" in english
