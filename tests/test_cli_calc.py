"""``tid calc NAME [FILE]`` (docs/calculators.md): JSON in, JSON out; exit 2 and one JSON error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.calc_documents import DOCUMENTS, INVALID, NUMBER_AMOUNT
from tests.conftest import examples
from tid.cli.calc import calc_command
from tid.rules import calculators
from tid.rules.errors import InputError

AVAILABLE = [name for name in sorted(calculators.CALCULATORS) if calculators.available(name)]


def test_every_calculator_has_a_worked_document() -> None:
    # A calculator added to the registry needs a document here (and so a test of its three ways).
    assert set(AVAILABLE) <= set(DOCUMENTS), set(AVAILABLE) - set(DOCUMENTS)
    assert set(DOCUMENTS) <= set(calculators.CALCULATORS)


def _invoke(args: list[str], stdin: str | None = None) -> Result:
    return CliRunner().invoke(calc_command, args, input=stdin, catch_exceptions=False)


def _error(result: Result) -> dict[str, Any]:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    error = json.loads(lines[0])
    assert isinstance(error, dict)
    assert set(error) >= {"error", "field"}
    assert error["error"]
    return error


@pytest.mark.parametrize("name", AVAILABLE)
def test_file_in_json_out(name: str, tmp_path: Path) -> None:
    path = tmp_path / "document.json"
    path.write_text(json.dumps(DOCUMENTS[name]), encoding="utf-8")
    result = _invoke([name, str(path)])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out == calculators.run(name, DOCUMENTS[name])
    assert isinstance(out["warnings"], list)
    assert out["trace"] and all({"step", "value", "citation"} <= set(s) for s in out["trace"])


@pytest.mark.parametrize("name", AVAILABLE)
def test_standard_input(name: str) -> None:
    result = _invoke([name], stdin=json.dumps(DOCUMENTS[name]))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == calculators.run(name, DOCUMENTS[name])


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_input_exits_2_naming_the_field(name: str) -> None:
    document, field = INVALID[name]
    error = _error(_invoke([name], stdin=json.dumps(document)))
    assert error["field"] == field


@pytest.mark.parametrize("name", sorted(NUMBER_AMOUNT))
def test_an_amount_as_a_json_number_is_refused(name: str) -> None:
    document, field = NUMBER_AMOUNT[name]
    error = _error(_invoke([name], stdin=json.dumps(document)))
    assert error["field"] == field
    assert "text" in error["error"]


def test_not_json() -> None:
    error = _error(_invoke(["deadlines"], stdin="{petition_received: 2026-03-02}"))
    assert error["field"] == ""
    assert "not valid JSON" in error["error"]


def test_missing_file(tmp_path: Path) -> None:
    error = _error(_invoke(["deadlines", str(tmp_path / "missing.json")]))
    assert error["field"] == "file"
    assert "missing.json" in error["error"]


def test_not_an_object() -> None:
    error = _error(_invoke(["liens"], stdin="[]"))
    assert error["field"] == ""


def test_unknown_calculator() -> None:
    error = _error(_invoke(["nope"], stdin="{}"))
    assert error["field"] == "name"
    assert "deadlines" in error["error"]  # the message lists the known calculators


def _tid(
    args: list[str], env: dict[str, str], given: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The installed ``tid`` (``.venv/bin/tid``) run with ``args``, ``given`` on its input."""
    tid = Path(sys.executable).with_name("tid")
    return subprocess.run(
        [str(tid), *args],
        input=given,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_the_installed_command(tmp_path: Path) -> None:
    """The real entry point (``.venv/bin/tid``), reading standard input."""
    env = {**os.environ, "TID_INSTANCE": str(tmp_path / "instance")}
    ok = _tid(["calc", "room-tax"], env, json.dumps(DOCUMENTS["room-tax"]))
    assert ok.returncode == 0, ok.stderr
    # 9% × 200.00 × 3 nights = 54.00
    assert json.loads(ok.stdout)["tax"] == "54.00"
    bad = _tid(["calc", "room-tax"], env, json.dumps(NUMBER_AMOUNT["room-tax"][0]))
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert json.loads(bad.stderr)["field"] == "nightly_rate"


def test_an_app_command_on_a_database_never_upgraded_says_what_to_run(tmp_path: Path) -> None:
    """The app's commands on a database without the schema: the command to run, no trace."""
    env = {
        **os.environ,
        "TID_INSTANCE": str(tmp_path / "instance"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite'}",
    }
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        env.pop(variable, None)
    out = tmp_path / "d.pdf"
    run = _tid(["document", "deadlines.pdf", "--lang", "en", "--out", str(out)], env)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.startswith("Error: la base de datos aún no tiene tablas")  # LANG unset
    assert "tid db upgrade" in run.stderr
    assert not out.exists()


# Run as the entry point runs it, then list what the interpreter loaded.
_RUN_AND_LIST_MODULES = """
import json, sys
listing = sys.argv.pop(1)
from tid.cli import main
try:
    main()
finally:
    with open(listing, "w", encoding="utf-8") as fh:
        json.dump(sorted(sys.modules), fh)
"""


def _run_calc_alone(
    tmp_path: Path, args: list[str], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``tid calc ARGS`` in a fresh interpreter: the process, and the modules it loaded."""
    listing = tmp_path / "modules.json"
    run = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST_MODULES, str(listing), "calc", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )
    return run, set(json.loads(listing.read_text(encoding="utf-8")))


WEB_APP_MODULES = ("flask", "flask_babel", "sqlalchemy", "sqlmodel", "weasyprint", "tid.web",
                   "tid.models", "tid.db", "tid.services", "tid.cli.app")  # fmt: skip


def test_the_calculators_command_runs_without_the_app(tmp_path: Path) -> None:
    instance = tmp_path / "no-instance"
    document = tmp_path / "room-tax.json"
    document.write_text(json.dumps(DOCUMENTS["room-tax"]), encoding="utf-8")
    run, loaded = _run_calc_alone(
        tmp_path, ["room-tax", str(document)], {"TID_INSTANCE": str(instance)}
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["tax"] == "54.00"
    assert "tid.rules.room_tax" in loaded and "click" in loaded
    assert sorted(m for m in loaded if m.startswith(WEB_APP_MODULES)) == []
    assert not instance.exists()  # neither made nor written to
    # The app's way, for comparison: `tid --help` lists the app's commands, so it loads Flask
    # and makes the instance folder.
    listing = subprocess.run(
        [str(Path(sys.executable).with_name("tid")), "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "TID_INSTANCE": str(instance)},
        timeout=120,
        check=False,
    )
    assert listing.returncode == 0 and "calc" in listing.stdout and "worker" in listing.stdout
    assert instance.is_dir()


def test_a_refused_document_exits_2_without_the_app(tmp_path: Path) -> None:
    instance = tmp_path / "no-instance"
    document = tmp_path / "room-tax.json"
    document.write_text(json.dumps(NUMBER_AMOUNT["room-tax"][0]), encoding="utf-8")
    run, loaded = _run_calc_alone(
        tmp_path, ["room-tax", str(document)], {"TID_INSTANCE": str(instance)}
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert json.loads(run.stderr)["field"] == "nightly_rate"
    assert sorted(m for m in loaded if m.startswith(WEB_APP_MODULES)) == []
    assert not instance.exists()


# 2026-08-06 + 30 days = 2026-09-05, a Saturday; 09-06 is a Sunday and 09-07 Labor Day.
SATURDAY_DEADLINE = {"ordinance_received_by_association": "2026-08-06"}


@pytest.mark.parametrize(
    ("environment", "config_toml", "deadline"),
    [
        (None, None, "2026-09-08"),  # the shipped district.toml: Saturdays are skipped
        ("false", None, "2026-09-05"),
        (None, "deadline_skip_saturday = false", "2026-09-05"),
        ("true", "deadline_skip_saturday = false", "2026-09-08"),  # the environment wins
    ],
)
def test_the_installations_saturday_setting_holds_without_the_app(
    tmp_path: Path, environment: str | None, config_toml: str | None, deadline: str
) -> None:
    # As the app applies it (TID_DEADLINE_SKIP_SATURDAY over instance/config.toml), so that
    # `tid calc deadlines` gives the deadline the pages and the jobs give.
    instance = tmp_path / "instance"
    env = {"TID_INSTANCE": str(instance), "TID_DEADLINE_SKIP_SATURDAY": environment or ""}
    if environment is None:
        env.pop("TID_DEADLINE_SKIP_SATURDAY")
    if config_toml is not None:
        instance.mkdir()
        (instance / "config.toml").write_text(config_toml + "\n", encoding="utf-8")
    document = tmp_path / "deadlines.json"
    document.write_text(json.dumps(SATURDAY_DEADLINE), encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if k != "TID_DEADLINE_SKIP_SATURDAY"}
    run = subprocess.run(
        [sys.executable, "-m", "tid.cli", "calc", "deadlines", str(document)],
        capture_output=True,
        text=True,
        env={**environ, **env},
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["initial_notice_due"]["date"] == deadline
    left = sorted(p.name for p in instance.iterdir()) if instance.exists() else None
    assert left == (["config.toml"] if config_toml else None)  # nothing made, nothing written


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
        ('{"nights": ' + "9" * 5000 + "}", "more digits"),
    ],
)
def test_unreadable_json_exits_2_not_a_traceback(text: str, words: str) -> None:
    error = _error(_invoke(["room-tax"], stdin=text))
    assert words in error["error"]


def test_a_document_past_a_bound_exits_2_naming_it() -> None:
    document = {"formula": "(1 + " * 70 + "x" + ")" * 70, "properties": [{"id": "p", "x": "1"}]}
    error = _error(_invoke(["impost"], stdin=json.dumps(document)))
    assert error["field"] == "formula"
    assert "nests more than 64 levels" in error["error"]


@pytest.mark.parametrize("name", AVAILABLE)
def test_an_unknown_field_anywhere_is_refused(name: str) -> None:
    # docs/calculators.md: a misspelt field never gives a quiet answer.
    document = {**DOCUMENTS[name], "sale_proceed": "1.00"}
    error = _error(_invoke([name], stdin=json.dumps(document)))
    assert error["field"] == "sale_proceed"
    assert "unknown" in error["error"] or "not an input" in error["error"]


NEAR_9999 = [
    ("deadlines", {"petition_received": "9999-12-01"}, "petition_received"),
    ("deadlines", {"ordinance_received_by_mayor": "9999-12-15"}, "ordinance_received_by_mayor"),
    ("deadlines", {"mayor_approved": "9999-12-30"}, "mayor_approved"),
    ("deadlines", {"ordinance_received_by_association": "9999-12-31"},
     "ordinance_received_by_association"),
    ("room-tax", {"lodging_type": "hotel", "date": "9999-12-15", "nightly_rate": "100.00",
                  "nights": 1}, "date"),
    ("room-tax-distribution", {"fiscal_year": "9999-00", "bank_certified_amount": "0",
                               "months": [{"month": "9999-07", "collected": "1.00"}]},
     "fiscal_year"),
    ("excise-allocation", {"fiscal_year": "9999-00", "months": []}, "fiscal_year"),
    ("equalization", {"fiscal_year": "9999-00", "lottery_net_income": "1.00",
                      "gf_net_revenues": "1.00"}, "fiscal_year"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "document", "field"), NEAR_9999)
def test_dates_the_calendar_cannot_carry_exit_2(
    name: str, document: dict[str, Any], field: str
) -> None:
    error = _error(_invoke([name], stdin=json.dumps(document)))
    assert error["field"] == field


@settings(max_examples=examples(300), deadline=None)
@given(
    st.dates(min_value=date(9999, 1, 1), max_value=date(9999, 12, 31))
    | st.dates(min_value=date(1, 1, 1), max_value=date(1, 12, 31)),
    st.sampled_from(
        ["petition_received", "ordinance_received_by_mayor", "mayor_approved",
         "ordinance_received_by_association", "room-tax", "liens"]
    ),
)  # fmt: skip
def test_any_date_at_the_calendar_edges_is_an_answer_or_a_field_error(
    day: date, where: str
) -> None:
    if where == "room-tax":
        name = "room-tax"
        document: dict[str, Any] = {
            "lodging_type": "hotel",
            "date": day.isoformat(),
            "nightly_rate": "100.00",
            "nights": 1,
        }
    elif where == "liens":
        name = "liens"
        document = {
            "liens": [{"id": "T", "kind": "tid_impost", "constituted_on": day.isoformat(),
                       "amount": "1.00"}],
            "sale_proceeds": "5.00",
        }  # fmt: skip
    else:
        name, document = "deadlines", {where: day.isoformat()}
    try:
        calculators.run(name, document)
    except InputError as exc:
        assert exc.field in document or exc.field == "date"
