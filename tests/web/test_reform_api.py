"""Saved reforms through the API and on the command line: a signed-in program saves one
(POST /api/v1/reforms) and reads it back at its address; a bad one is refused naming the
parameter; a reform given by its id or its shareable address, or starting from a saved one,
gives the same result in the API, on the command line and on the web."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from tests.calc_documents import DOCUMENTS
from tests.conftest import People, login

LOTTERY = "equalization.lottery_share_rate"
GF = "equalization.gf_share_rate"
BASE = {
    "title": "Lottery at 40 %",
    "description": "More of the lottery for the fund.",
    "changes": [{"parameter": LOTTERY, "from": "2024-07-01", "value": "0.40"}],
}


def _save(client: FlaskClient, document: dict[str, Any]) -> Any:
    return client.post("/api/v1/reforms", json=document)


def test_a_program_saves_a_reform_and_reads_it_back(
    client: FlaskClient, people: People, app: Any
) -> None:
    anonymous = app.test_client()
    assert _save(anonymous, BASE).status_code == 401  # saving needs a login
    login(client, people.association)
    as_form = client.post("/api/v1/reforms", data={"title": "x"})
    assert as_form.status_code == 415  # only JSON: no page of another site can send it
    bad = _save(client, {**BASE, "changes": [{**BASE["changes"][0], "value": "1.4"}]})
    assert bad.status_code == 422
    assert bad.get_json()["field"] == "reform.changes[0].value"
    assert LOTTERY in bad.get_json()["error"] and "out of range" in bad.get_json()["error"]
    unknown = _save(client, {**BASE, "changes": [{**BASE["changes"][0], "parameter": "x.y"}]})
    assert unknown.get_json()["field"] == "reform.changes[0].parameter"
    assert _save(client, ["not", "a", "reform"]).get_json()["field"] == "reform"
    saved = _save(client, BASE)
    assert saved.status_code == 201, saved.get_data(as_text=True)
    document = saved.get_json()
    public_id = document["id"]
    assert saved.headers["Location"].endswith(f"/api/v1/reforms/{public_id}")
    read = anonymous.get(saved.headers["Location"])  # its address is public policy text
    assert read.status_code == 200 and read.get_json() == document
    assert document == {**BASE, "id": public_id}
    # A reform that starts from it, by its shareable address, stacks.
    top = _save(
        client,
        {
            "title": "And the General Fund at 3 %",
            "base": f"https://tid.example/reforms/{public_id}",
            "changes": [{"parameter": GF, "from": "2024-07-01", "value": "0.03"}],
        },
    )
    assert top.status_code == 201, top.get_data(as_text=True)
    assert top.get_json()["base"] == public_id
    missing = _save(client, {**BASE, "base": "nothing-here"})
    assert missing.status_code == 422 and missing.get_json()["field"] == "reform.base"


def test_a_saved_reform_by_id_or_address_the_same_three_ways(
    client: FlaskClient, people: People, runner: Any, tmp_path: Path
) -> None:
    login(client, people.clerk)
    base_id = _save(client, BASE).get_json()["id"]
    top = {
        "title": "And the General Fund at 3 %",
        "base": base_id,
        "changes": [{"parameter": GF, "from": "2024-07-01", "value": "0.03"}],
    }
    top_id = _save(client, top).get_json()["id"]
    document = DOCUMENTS["equalization"]
    by_id = client.post("/api/v1/calc/equalization", json={**document, "reform": top_id})
    address = f"http://localhost/reforms/{top_id}"
    by_address = client.post("/api/v1/calc/equalization", json={**document, "reform": address})
    inline = client.post("/api/v1/calc/equalization", json={**document, "reform": top})
    assert by_id.status_code == 200, by_id.get_data(as_text=True)
    result = by_id.get_json()
    assert (result["under_reform"]["lottery_rate"], result["under_reform"]["gf_rate"]) == (
        "0.40",
        "0.03",
    )
    assert [r["id"] for r in result["reform"]["stack"]] == [base_id, top_id]
    assert by_address.get_json() == result
    assert inline.get_json()["differences"] == result["differences"]
    # The command line: the saved reform by its id, and a file that starts from it.
    (tmp_path / "document.json").write_text(json.dumps(document), encoding="utf-8")
    cli = runner.invoke(
        args=["calc", "equalization", str(tmp_path / "document.json"), "--reform", top_id]
    )
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout) == result
    (tmp_path / "top.toml").write_text(
        f'title = "And the General Fund at 3 %"\nbase = "{address.replace(top_id, base_id)}"\n'
        f'[[changes]]\nparameter = "{GF}"\nfrom = 2024-07-01\nvalue = "0.03"\n',
        encoding="utf-8",
    )
    from_file = runner.invoke(
        args=[
            "calc",
            "equalization",
            str(tmp_path / "document.json"),
            "--reform",
            str(tmp_path / "top.toml"),
        ]
    )
    assert from_file.exit_code == 0, from_file.output
    stacked = json.loads(from_file.stdout)
    assert stacked["under_reform"] == result["under_reform"]
    assert stacked["differences"] == result["differences"]
    unknown = runner.invoke(
        args=["calc", "equalization", str(tmp_path / "document.json"), "--reform", "nothing-here"]
    )
    assert unknown.exit_code == 2
    assert json.loads(unknown.stderr.strip().splitlines()[-1])["field"] == "reform"
