"""Reforms on the web, in the API and on the command line: the same reform gives the same
result three ways; a saved reform is public at its address; the fund municipality by
municipality; the reform note."""

from __future__ import annotations

import html
import io
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pypdf
import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from tests.calc_documents import DOCUMENTS, FORM_DATA
from tests.conftest import People, login
from tests.pdf_checks import assert_archival
from tid import i18n
from tid.cli.calc import calc_command
from tid.documents import calc_tables
from tid.rules import fund_example

LOTTERY = "equalization.lottery_share_rate"
THRESHOLD = "equalization.hold_harmless.threshold"
TOML = """title = "Lottery at 40 %, threshold 45 %"
[[changes]]
parameter = "equalization.lottery_share_rate"
from = 2024-07-01
value = "0.40"
[[changes]]
parameter = "equalization.hold_harmless.threshold"
from = 2024-07-01
value = "0.45"
"""


def _text(response: Any) -> str:
    page = response.get_data(as_text=True)
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _money(app: Flask, amount: str, lang: str = "es") -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return i18n.money(Decimal(amount))


def _save(client: FlaskClient, **fields: str) -> str:
    data = {
        "title": "Lottery at 40 %, threshold 45 %",
        "description": "More of the lottery for the fund; more municipalities held harmless.",
        "change-0-parameter": LOTTERY,
        "change-0-from": "2024-07-01",
        "change-0-value": "0.40",
        "change-2-parameter": THRESHOLD,
        "change-2-from": "2024-07-01",
        "change-2-value": "0.45",
        **fields,
    }
    response = client.post("/reforms/new", data=data)
    assert response.status_code == 302, _text(response)[:2000]
    match = re.search(r"/reforms/([A-Za-z0-9_-]+)$", response.headers["Location"])
    assert match
    return match.group(1)


def test_the_same_reform_the_same_result_three_ways(
    app: Flask, client: FlaskClient, people: People, tmp_path: Path
) -> None:
    login(client, people.clerk)
    public_id = _save(client)
    document = DOCUMENTS["equalization"]
    # The API, by the saved reform's id.
    api = client.post("/api/v1/calc/equalization", json={**document, "reform": public_id})
    assert api.status_code == 200, api.get_data(as_text=True)
    by_api = api.get_json()
    # The command line, from the TOML file of the same changes.
    (tmp_path / "reform.toml").write_text(TOML, encoding="utf-8")
    cli = CliRunner().invoke(
        calc_command,
        ["equalization", "-", "--reform", str(tmp_path / "reform.toml")],
        input=json.dumps(document),
    )
    assert cli.exit_code == 0, cli.stderr
    by_cli = json.loads(cli.stdout)
    assert by_cli["under_reform"] == by_api["under_reform"]
    assert by_cli["under_law"] == by_api["under_law"]
    assert by_cli["differences"] == by_api["differences"]
    assert by_api["under_reform"]["lottery_share"] == "40000000.00"
    # The web: the calculator's form with the reform's address shows the same figures.
    web = client.post(
        "/calc/equalization",
        data={**FORM_DATA["equalization"], "reform": f"http://localhost/reforms/{public_id}"},
    )
    assert web.status_code == 200, _text(web)[:3000]
    text = _text(web)
    changed = [d for d in by_api["differences"] if d["changed"] and d["difference"]]
    assert changed
    for line in changed:
        key = line["field"].rsplit(".", 1)[-1]
        if calc_tables.kind_of(key, line["reform"]) == "money":
            assert _money(app, line["reform"]) in text, line
    assert "el de la reforma" in text or "la reforma" in text
    # A request without a reform answers exactly as before.
    plain = client.post("/api/v1/calc/equalization", json=document).get_json()
    assert plain == by_api["under_law"] | {
        "trace": [{k: v for k, v in s.items() if k != "source"} for s in plain["trace"]]
    }


def test_a_saved_reform_is_public_and_names_no_one(
    client: FlaskClient, people: People, app: Flask
) -> None:
    login(client, people.clerk)
    public_id = _save(client)
    assert len(public_id) >= 12
    anonymous = app.test_client()
    page = anonymous.get(f"/reforms/{public_id}")
    assert page.status_code == 200
    text = _text(page)
    assert "Lottery at 40 %" in text and "35 %" in text and "40 %" in text
    for private in (people.clerk.email, people.clerk.name):
        assert private not in page.get_data(as_text=True)
    assert anonymous.get("/reforms/not-a-reform-id").status_code == 404
    # The address opens it; the list of saved reforms is not published.
    assert public_id not in anonymous.get("/reforms/").get_data(as_text=True)
    assert public_id in client.get("/reforms/").get_data(as_text=True)
    bad = anonymous.post(
        "/api/v1/calc/equalization",
        json={
            **DOCUMENTS["equalization"],
            "reform": {
                "title": "x",
                "changes": [{"parameter": LOTTERY, "from": "2024-07-01", "value": "2"}],
            },
        },
    )
    assert bad.status_code == 422
    assert bad.get_json()["field"] == "reform.changes[0].value"
    assert LOTTERY in bad.get_json()["error"]
    assert anonymous.get("/reforms/new").status_code == 302  # writing one needs a login
    as_json = anonymous.get(f"/api/v1/reforms/{public_id}").get_json()
    assert as_json["changes"][0] == {"parameter": LOTTERY, "from": "2024-07-01", "value": "0.40"}
    note = anonymous.get(f"/reforms/{public_id}/note.pdf")
    assert note.status_code == 200 and note.mimetype == "application/pdf"
    assert_archival(note.data, lang="es", tagged=True)
    text = re.sub(
        r"\s+",
        " ",
        " ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(note.data)).pages),
    )
    assert "Lottery at 40 %" in text


def test_reforms_stack(client: FlaskClient, people: People) -> None:
    login(client, people.association)
    first = _save(client)
    second = _save(
        client,
        title="And the General Fund at 3 %",
        base=f"https://tid.example/reforms/{first}",
        **{
            "change-0-parameter": "equalization.gf_share_rate",
            "change-0-value": "0.03",
            "change-2-parameter": "",
            "change-2-from": "",
            "change-2-value": "",
        },
    )
    text = _text(client.get(f"/reforms/{second}"))
    assert "Lottery at 40 %" in text  # starts from the first
    # The editor, opened to start from the second, shows what the stack already changes.
    editor = client.get(f"/reforms/new?base={second}").get_data(as_text=True)
    assert 'id="base-changes"' in editor and "equalization.gf_share_rate" in editor
    assert "equalization.lottery_share_rate" in editor and f'value="{second}"' in editor
    assert 'id="base-changes"' not in client.get("/reforms/new?base=nothing-here").get_data(
        as_text=True
    )
    api = client.post(
        "/api/v1/calc/equalization", json={**DOCUMENTS["equalization"], "reform": second}
    ).get_json()
    reformed = api["under_reform"]
    assert (reformed["lottery_rate"], reformed["gf_rate"]) == ("0.40", "0.03")


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        (
            {"change-0-parameter": "equalization.nothing"},
            "change-0-parameter",
            "no es un parámetro",
        ),
        ({"change-0-value": "1.5"}, "change-0-value", "fuera"),
        ({"change-2-from": "1990-01-01"}, "change-2-from", "antes"),
        ({"title": ""}, "title", "título"),
    ],
)
def test_a_bad_reform_is_refused_next_to_its_field(
    client: FlaskClient, people: People, fields: dict[str, str], field: str, words: str
) -> None:
    login(client, people.clerk)
    data = {
        "title": "T",
        "change-0-parameter": LOTTERY,
        "change-0-from": "2024-07-01",
        "change-0-value": "0.40",
        "change-2-parameter": THRESHOLD,
        "change-2-from": "2024-07-01",
        "change-2-value": "0.45",
        **fields,
    }
    response = client.post("/reforms/new", data=data)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    match = re.search(rf'id="e-{field}">([^<]*)<', page)
    assert match, page[:3000]
    assert words in html.unescape(match.group(1)).lower() or words in html.unescape(match.group(1))
    assert client.get("/reforms/").status_code == 200


def test_the_fund_municipality_by_municipality(
    app: Flask, client: FlaskClient, people: People
) -> None:
    login(client, people.clerk)
    public_id = _save(client)
    anonymous = app.test_client()
    page = anonymous.get(f"/reforms/{public_id}/fund")
    assert page.status_code == 200
    text = _text(page)
    assert "inventad" in text.lower()
    for name in fund_example.MUNICIPALITIES:
        assert name in text
    assert "<svg" in page.get_data(as_text=True)
    by_name = anonymous.get(f"/reforms/{public_id}/fund?by=name-asc").get_data(as_text=True)
    table = by_name.split('id="side-by-side"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<th scope="row">([^<]+)', table)
    names = [r.strip() for r in rows if r.strip() in fund_example.MUNICIPALITIES]
    assert names == sorted(names) and len(names) == 78
    csv_file = anonymous.get(f"/reforms/{public_id}/fund?format=csv")
    assert csv_file.mimetype == "text/csv"
    lines = csv_file.get_data(as_text=True).strip().splitlines()
    assert len(lines) == 79 and "nventad" in lines[1]
    pdf = anonymous.get(f"/reforms/{public_id}/fund?format=pdf")
    assert pdf.mimetype == "application/pdf"
    assert_archival(pdf.data, lang="es", tagged=True)


def test_the_fund_from_a_csv_names_the_bad_row(client: FlaskClient, people: People) -> None:
    login(client, people.clerk)
    public_id = _save(client)
    rows = (
        "name,base,allocation_2007_08,income_2007_08\nA,1000.00,900.00,1500.00\nB,abc,1.00,2.00\n"
    )
    response = client.post(
        f"/reforms/{public_id}/fund",
        data={
            "fiscal_year": "2025-26",
            "lottery_net_income": "1000000.00",
            "gf_net_revenues": "1000000.00",
            "municipalities_csv": (io.BytesIO(rows.encode()), "fund.csv"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert re.search(r"(Fila|Row) 3", _text(response)), _text(response)[:3000]
    good = rows.replace("B,abc,1.00,2.00", "B,2000.00,100.00,5000.00")
    response = client.post(
        f"/reforms/{public_id}/fund",
        data={
            "fiscal_year": "2025-26",
            "lottery_net_income": "1000000.00",
            "gf_net_revenues": "1000000.00",
            "municipalities_csv": (io.BytesIO(good.encode()), "fund.csv"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 200, _text(response)[:3000]
    assert "inventad" not in _text(response).lower()


def test_the_room_tax_and_excise_recipients_side_by_side(
    client: FlaskClient, people: People
) -> None:
    login(client, people.clerk)
    public_id = _save(
        client,
        title="Bureau 12 %, General Fund 2 %, Bus Authority 1,000,000.00 a month",
        **{
            "change-0-parameter": "distribution.act272.general_fund_share",
            "change-0-value": "0.02",
            "change-2-parameter": "distribution.act272.convention_bureau_share",
            "change-2-value": "0.12",
            "change-3-parameter": "excise.cigarette.mba.monthly_cap",
            "change-3-from": "2024-07-01",
            "change-3-value": "1000000.00",
        },
    )
    anonymous = client.application.test_client()
    for name, recipient in (
        ("room-tax-distribution", "Negociado de Convenciones"),
        ("excise-allocation", "Autoridad Metropolitana de Autobuses"),
    ):
        page = anonymous.post(f"/calc/{name}", data={**FORM_DATA[name], "reform": public_id})
        assert page.status_code == 200, _text(page)[:2000]
        text = _text(page)
        table = page.get_data(as_text=True).split('id="side-by-side"', 1)[1]
        assert recipient in html.unescape(table)
        assert "Reciben más 1" in text and "Reciben menos 1" in text, text[:3000]
        # …as CSV (every line, the law's, the reform's, the difference) and PDF.
        body = {"document": json.dumps(DOCUMENTS[name])}
        csv_file = anonymous.post(f"/reforms/{public_id}/calc/{name}/csv", data=body)
        assert csv_file.mimetype == "text/csv"
        assert "totals.convention_bureau" in csv_file.get_data(as_text=True) or (
            "totals.mba" in csv_file.get_data(as_text=True)
        )
        pdf = anonymous.post(f"/reforms/{public_id}/calc/{name}/pdf", data=body)
        assert pdf.mimetype == "application/pdf"
        assert_archival(pdf.data, lang="es", tagged=True)
    # An unknown reform is refused next to its field, the rest of the form kept.
    page = anonymous.post(
        "/calc/excise-allocation", data={**FORM_DATA["excise-allocation"], "reform": "nope-nope"}
    )
    assert page.status_code == 422
    assert 'id="e-reform"' in page.get_data(as_text=True)


def test_the_reform_note_from_the_command_line(
    runner: Any, client: FlaskClient, people: People, tmp_path: Path
) -> None:
    login(client, people.clerk)
    public_id = _save(client)
    out = tmp_path / "note.pdf"
    result = runner.invoke(
        args=[
            "document",
            "reform-note.pdf",
            "--reform",
            public_id,
            "--out",
            str(out),
            "--lang",
            "en",
        ]
    )
    assert result.exit_code == 0, result.output
    text = " ".join(p.extract_text() for p in pypdf.PdfReader(str(out)).pages)
    assert "The reform in brief" in re.sub(r"\s+", " ", text)
    missing = runner.invoke(
        args=["document", "reform-note.pdf", "--reform", "nope", "--out", str(out)]
    )
    assert missing.exit_code != 0


def _changes_fieldsets(page: str) -> str:
    """The table of changes, as a page writes it."""
    start = page.index("<legend>Cambios</legend>")
    return " ".join(page[start : page.index("Más filas", start)].split())


def test_the_reform_editor_is_one_macro_on_the_saving_page_and_the_trying_page(
    client: FlaskClient, people: People
) -> None:
    root = Path(__file__).resolve().parents[2] / "templates"
    for name in ("reforms/new.html", "reforms/try.html"):
        source = (root / name).read_text()
        assert "r.reform_fields(" in source, name
        assert "change-%d-parameter" not in source and "<table" not in source, name
    tried = client.get("/reforms/try/").get_data(as_text=True)
    login(client, people.association)
    saving = client.get("/reforms/new").get_data(as_text=True)
    # The same fields and table; the saving page adds the reform it starts from.
    assert 'name="change-0-parameter"' in tried and 'name="change-0-parameter"' in saving
    assert 'name="base"' in saving and 'name="base"' not in tried
    assert _changes_fieldsets(saving) == _changes_fieldsets(tried)
