"""``tid calc NAME FILE --reform REFORM.toml``: the law, the reform and the difference; a
reform file may start from another beside it; a bad one is exit 2 naming the parameter."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.calc_documents import DOCUMENTS
from tid.cli.calc import calc_command
from tid.rules import calculators

BASE = """title = "Lottery at 40 %"
[[changes]]
parameter = "equalization.lottery_share_rate"
from = 2024-07-01
value = "0.40"
"""
TOP = """title = "And the General Fund at 3 %"
base = "base.toml"
[[changes]]
parameter = "equalization.gf_share_rate"
from = 2024-07-01
value = "0.03"
"""


def _run(tmp_path: Path, reform: str) -> tuple[int, str, str]:
    (tmp_path / "document.json").write_text(json.dumps(DOCUMENTS["equalization"]))
    result = CliRunner().invoke(
        calc_command,
        ["equalization", str(tmp_path / "document.json"), "--reform", str(tmp_path / reform)],
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout, result.stderr


def test_a_stacked_reform_file(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(BASE, encoding="utf-8")
    (tmp_path / "top.toml").write_text(TOP, encoding="utf-8")
    code, out, err = _run(tmp_path, "top.toml")
    assert code == 0, err
    result = json.loads(out)
    assert result["under_law"] == {
        **calculators.run("equalization", DOCUMENTS["equalization"]),
        "trace": result["under_law"]["trace"],
    }
    reformed = result["under_reform"]
    assert (reformed["lottery_rate"], reformed["gf_rate"]) == ("0.40", "0.03")
    assert [r["title"] for r in result["reform"]["stack"]] == [
        "Lottery at 40 %",
        "And the General Fund at 3 %",
    ]
    sources = {s.get("parameter"): s["source"] for s in reformed["trace"]}
    assert sources["equalization.gf_share_rate"] == "reform"


def test_a_bad_reform_file_is_exit_2_naming_the_parameter(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(BASE.replace('"0.40"', '"forty"'), encoding="utf-8")
    code, out, err = _run(tmp_path, "bad.toml")
    assert code == 2 and out == ""
    error = json.loads(err.strip().splitlines()[-1])
    assert error["field"] == "reform.changes[0].value"
    assert "equalization.lottery_share_rate" in error["error"]
    code, out, err = _run(tmp_path, "missing.toml")
    assert code == 2 and json.loads(err.strip().splitlines()[-1])["field"] == "reform"
