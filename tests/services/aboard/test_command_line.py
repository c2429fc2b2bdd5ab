"""``tid aboard check`` names every bad row and books nothing (exit 2); ``tid aboard load``
books the folder once its totals are confirmed, and books nothing the second time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from flask import Flask
from flask.testing import FlaskCliRunner
from sqlmodel import Session, func, select

from tests.conftest import People
from tests.services.aboard.support import CONFIRMED, EXAMPLES, district_with_rolls
from tid.models import JournalEntry


def entries(session: Session) -> int:
    return int(session.exec(select(func.count()).select_from(JournalEntry)).one())


def test_check_then_load_a_folder(
    app: Flask, runner: FlaskCliRunner, session: Session, people: People, tmp_path: Path
) -> None:
    app.config["TODAY"] = "2026-02-15"
    district = str(district_with_rolls(session, people))
    folder = tmp_path / "moving-in"
    shutil.copytree(EXAMPLES / "en", folder)
    bills = folder / "bills.csv"
    good = bills.read_text()
    bills.write_text(good + "999-999-999-99,2024-25,10.00,0.00,2024-09-30,,,,,\n")
    bad = runner.invoke(args=["aboard", "check", str(folder), "--district", district])
    assert bad.exit_code == 2
    error = json.loads(bad.stderr.strip().splitlines()[-1])
    assert error["errors"] == [
        {
            "error": "This cadastral number is not in the district's roll.",
            "field": "bills.csv: cadastral_number",
            "row": 6,
        }
    ]
    bills.write_text(good)
    checked = runner.invoke(args=["aboard", "check", str(folder), "--district", district])
    assert checked.exit_code == 0, checked.output
    summary = json.loads(checked.output)
    assert summary["totals_to_confirm"] == {k: str(v) for k, v in CONFIRMED.items()}
    assert entries(session) == 0
    wrong = summary["confirm_with"].replace("bank=12500.00", "bank=12000.00")
    refused = runner.invoke(
        args=["aboard", "load", str(folder), "--district", district, "--confirm-totals", wrong]
    )
    assert refused.exit_code == 2 and json.loads(refused.stderr)["field"] == "bank"
    assert entries(session) == 0
    args = ["aboard", "load", str(folder), "--district", district]
    done = runner.invoke(args=[*args, "--confirm-totals", summary["confirm_with"]])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["booked"] is True
    booked = entries(session)
    assert booked == 6
    again = runner.invoke(args=[*args, "--confirm-totals", summary["confirm_with"]])
    assert again.exit_code == 0 and json.loads(again.output)["booked"] is False
    assert entries(session) == booked


def test_reverse_then_load_the_corrected_folder(
    app: Flask, runner: FlaskCliRunner, session: Session, people: People, tmp_path: Path
) -> None:
    """``tid aboard reverse`` reverses the position as one; the corrected folder then loads."""
    app.config["TODAY"] = "2026-02-15"
    district = str(district_with_rolls(session, people))
    folder = tmp_path / "moving-in"
    shutil.copytree(EXAMPLES / "en", folder)
    confirm = ",".join(f"{k}={v}" for k, v in CONFIRMED.items())
    args = ["aboard", "load", str(folder), "--district", district, "--confirm-totals"]
    assert runner.invoke(args=[*args, confirm]).exit_code == 0
    nothing = runner.invoke(args=["aboard", "reverse", "--district", district, "--reason", " "])
    assert nothing.exit_code == 2 and json.loads(nothing.stderr)["field"] == "reason"
    reason = "the bank balance was the one of November"
    done = runner.invoke(args=["aboard", "reverse", "--district", district, "--reason", reason])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["entries_reversed"] == 6
    assert entries(session) == 12
    again = runner.invoke(args=["aboard", "reverse", "--district", district, "--reason", reason])
    assert again.exit_code == 2 and json.loads(again.stderr)["field"] == "district"
    bank = folder / "bank.csv"
    bank.write_text(bank.read_text().replace("12,500.00", "12,400.00"))
    corrected = confirm.replace("bank=12500.00", "bank=12400.00")
    loaded = runner.invoke(args=[*args, corrected])
    assert loaded.exit_code == 0, loaded.output
    assert json.loads(loaded.output)["booked"] is True
    assert entries(session) == 18
