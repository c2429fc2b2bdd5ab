"""A reform that would make a calculator impossible is refused before any computation: 422
on the API and exit 2 from ``tid calc``, naming ``reform.changes[0].value`` and the values
allowed, and on the web next to the change's value in the reader's language. A field of any
calculator given a value of the wrong JSON type (a lien's kind as a list) is a 422 naming a
field. Never a 500, never a traceback."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from tests.calc_documents import DOCUMENTS
from tests.conftest import People, login
from tid.cli.calc import calc_command

pytestmark = pytest.mark.one_database

_IRC = {"collections": {"hotel": "1000000.00"}, "bond_fund_amount": "100000.00"}
# (calculator, document, the change, words of the values allowed)
IMPOSSIBLE: list[tuple[str, dict[str, Any], tuple[str, str, object], str]] = [
    (
        "room-tax",
        DOCUMENTS["room-tax"],
        ("room_tax.regime", "2004-01-01", "irc-1994"),
        "act-272-2003",
    ),
    (
        "room-tax-distribution",
        {"fiscal_year": "2001-02", **_IRC},
        ("distribution.irc1994.above_general_fund", "2001-07-01", "special_accounts"),
        "1997-07-01 to 2000-06-30",
    ),
    (
        "room-tax-distribution",
        DOCUMENTS["room-tax-distribution"],
        ("distribution.act272.bank_first_fiscal_month", "2024-07-01", 12),
        "from 1 to 3",
    ),
    (
        "room-tax-distribution",
        DOCUMENTS["room-tax-distribution"],
        ("distribution.act272.bank_installment_count", "2024-07-01", 0),
        "from 1 to 12",
    ),
    (
        "room-tax-distribution",
        {"fiscal_year": "1998-99", **_IRC},
        ("distribution.irc1994.pool_points", "1995-07-01", "0.20"),
        "from 0 to 0.07",
    ),
    (
        "room-tax",
        DOCUMENTS["room-tax"],
        ("room_tax.act272.remittance_day", "2004-01-01", 31),
        "from 1 to 28",
    ),
]
IDS = [change[0] for _n, _d, change, _w in IMPOSSIBLE]


def _reform(change: tuple[str, str, object]) -> dict[str, Any]:
    parameter, day, value = change
    return {
        "title": "Impossible",
        "changes": [{"parameter": parameter, "from": day, "value": value}],
    }


@pytest.mark.parametrize(("name", "document", "change", "allowed"), IMPOSSIBLE, ids=IDS)
def test_the_api_refuses_an_impossible_reform_naming_its_value(
    client: FlaskClient,
    name: str,
    document: dict[str, Any],
    change: tuple[str, str, object],
    allowed: str,
) -> None:
    response = client.post(f"/api/v1/calc/{name}", json={**document, "reform": _reform(change)})
    assert response.status_code == 422, response.get_data(as_text=True)[:500]
    body = response.get_json()
    assert body["field"] == "reform.changes[0].value"
    assert change[0] in body["error"] and allowed in body["error"]
    # The law alone still computes.
    assert client.post(f"/api/v1/calc/{name}", json=document).status_code == 200


@pytest.mark.parametrize(("name", "document", "change", "allowed"), IMPOSSIBLE, ids=IDS)
def test_tid_calc_refuses_an_impossible_reform_with_exit_2(
    tmp_path: Path,
    name: str,
    document: dict[str, Any],
    change: tuple[str, str, object],
    allowed: str,
) -> None:
    parameter, day, value = change
    (tmp_path / "document.json").write_text(json.dumps(document), encoding="utf-8")
    written = f'"{value}"' if isinstance(value, str) else str(value)
    (tmp_path / "reform.toml").write_text(
        f'title = "Impossible"\n[[changes]]\nparameter = "{parameter}"\nfrom = {day}\n'
        f"value = {written}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        calc_command,
        [name, str(tmp_path / "document.json"), "--reform", str(tmp_path / "reform.toml")],
    )
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    error = json.loads(result.stderr.strip().splitlines()[-1])
    assert error["field"] == "reform.changes[0].value"
    assert allowed in error["error"]


def test_the_web_refuses_an_impossible_reform_in_the_readers_language(
    client: FlaskClient, people: People
) -> None:
    login(client, people.clerk)
    data = {
        "title": "Remit on the 31st",
        "change-0-parameter": "room_tax.act272.remittance_day",
        "change-0-from": "2004-01-01",
        "change-0-value": "31",
    }
    for lang, words in (
        ("es", "fuera de rango (de 1 a 28)"),
        ("en", "out of range (from 1 to 28)"),
    ):
        client.post(f"/lang/{lang}")
        response = client.post("/reforms/new", data=data)
        assert response.status_code == 422
        match = re.search(r'id="e-change-0-value">([^<]*)<', response.get_data(as_text=True))
        assert match
        assert words in html.unescape(match.group(1))


@pytest.mark.parametrize("kind", [["mortgage"], {"kind": "mortgage"}, 7, True])
def test_a_lien_kind_of_the_wrong_type_is_422_naming_it(client: FlaskClient, kind: object) -> None:
    document = json.loads(json.dumps(DOCUMENTS["liens"]))
    document["liens"][0]["kind"] = kind
    response = client.post("/api/v1/calc/liens", json=document)
    assert response.status_code == 422
    assert response.get_json()["field"] == "liens[0].kind"


def test_the_api_pays_each_month_by_its_own_shares(client: FlaskClient) -> None:
    document = {
        "fiscal_year": "2024-25",
        "bank_certified_amount": "0.00",
        "months": [{"month": m, "collected": "1000000.00"} for m in ("2024-07", "2024-08")],
    }
    changes = [
        {
            "parameter": "distribution.act272.general_fund_share",
            "from": "2024-08-01",
            "value": "0.04",
        },
        {
            "parameter": "distribution.act272.tourism_company_admin_share",
            "from": "2024-08-01",
            "value": "0.03",
        },
    ]
    response = client.post(
        "/api/v1/calc/room-tax-distribution",
        json={**document, "reform": {"title": "From August", "changes": changes}},
    )
    assert response.status_code == 200
    august = response.get_json()["under_reform"]["months"][1]["allocations"]
    assert (august["general_fund"], august["tourism_company_admin"]) == ("40000.00", "30000.00")


WRONG: tuple[object, ...] = (["x"], {"x": 1}, 7, "x", True, None)


def _paths(value: Any, keys: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found: list[tuple[str | int, ...]] = []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        found.append((*keys, key))
        found += _paths(item, (*keys, key))
    return found


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_no_field_of_the_wrong_type_is_a_500(client: FlaskClient, name: str) -> None:
    """Every field of every calculator, given a list, an object, a number, a string, true and
    null: the API answers 200 or 422 naming a field, never 500."""
    for keys in _paths(DOCUMENTS[name]):
        for wrong in WRONG:
            document = json.loads(json.dumps(DOCUMENTS[name]))
            target: Any = document
            for key in keys[:-1]:
                target = target[key]
            target[keys[-1]] = wrong
            response = client.post(f"/api/v1/calc/{name}", json=document)
            assert response.status_code in (200, 422), (keys, wrong, response.status_code)
            if response.status_code == 422:
                assert response.get_json()["field"], (keys, wrong)
