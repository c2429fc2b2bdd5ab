"""The administrative cap's rate lives in one place (``district.admin_cap_rate`` in
tid/rules/params/district.toml): a parameter file that makes it 6% from FY2028-29 changes
the account pages, the statement PDF and the cap refusals, and 5% still shows before; and no
template, catalog entry or code outside the parameter files writes the rate itself."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import People, login
from tests.pdf_checks import pdf_text
from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules import params
from tid.services.account import payments

PROJECT = Path(__file__).resolve().parent.parent
SHIPPED = Path(params.__file__).with_name("params")


@pytest.fixture
def six_percent_from_fy2028(tmp_path: Path) -> Iterator[None]:
    """The shipped parameter files plus one dated value: 6% from 2028-07-01 (FY2028-29)."""
    folder = tmp_path / "params"
    shutil.copytree(SHIPPED, folder)
    district = folder / "district.toml"
    text = district.read_text(encoding="utf-8")
    block = '[[district.admin_cap_rate.values]]\nfrom = 1998-08-08\nvalue = "0.05"\n'
    assert block in text
    head, _, rest = text.partition(block)
    first_value, _, after = rest.partition("\n\n")
    district.write_text(
        f"{head}{block}{first_value}\n\n"
        "[[district.admin_cap_rate.values]]\n"
        "from = 2028-07-01\n"
        'value = "0.06"\n'
        'citation = "21 LPRA § 6653(6), as amended (a test of the change)"\n\n'
        f"{after}",
        encoding="utf-8",
    )
    params.reload(folder)
    yield
    params.reload()


def _expend(client: FlaskClient, district_id: int, day: str, amount: str, token: str) -> str:
    response = client.post(
        f"/account/{district_id}/expenditures",
        data={
            "date": day,
            "amount": amount,
            "payee": "Oficina",
            "category": "admin",
            "token": token,
        },
    )
    return f"{response.status_code} {response.get_data(as_text=True)}"


@pytest.mark.usefixtures("six_percent_from_fy2028")
def test_six_percent_from_fy2028_is_one_parameter_change(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    s = Scaffold(session, people.district)
    bill = s.bill(s.property(), "2000.00")
    for paid_on, key in ((date(2027, 8, 1), "fy2027"), (date(2028, 8, 1), "fy2028")):
        payments.record_payment(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            paid_on=paid_on,
            amount=Decimal("1000.00"),
            today=paid_on,
            key=key,
            notice_number=str(bill.id),
        )
    session.commit()
    app.config["TODAY"] = "2028-09-01"
    login(client, people.association)
    d = s.district_id

    # The account pages.
    before = client.get(f"/account/{d}?fy=2027-28").get_data(as_text=True)
    after = client.get(f"/account/{d}?fy=2028-29").get_data(as_text=True)
    assert "El tope del 5%" in before and "Tope (5% de los recaudos)" in before
    assert "El tope del 6%" in after and "Tope (6% de los recaudos)" in after
    form = client.get(f"/account/{d}/expenditures").get_data(as_text=True)
    assert "Administrativo (tope del 6%)" in form  # today is in FY2028-29

    # The cap refusals: 5% × 1,000.00 = 50.00 in FY2027-28; 6% × 1,000.00 = 60.00 after.
    refused = _expend(client, d, "2027-09-01", "50.01", "t" * 20)
    assert refused.startswith("422") and "excedería el 5% de los recaudos" in refused
    refused = _expend(client, d, "2028-08-15", "60.01", "u" * 20)
    assert refused.startswith("422") and "excedería el 6% de los recaudos" in refused
    assert _expend(client, d, "2028-08-15", "55.00", "v" * 20).startswith("302")  # > 5%, ≤ 6%

    # The statement PDF.
    old = pdf_text(client.get(f"/account/{d}/statement.pdf?fy=2027-28").data)
    new = pdf_text(client.get(f"/account/{d}/statement.pdf?fy=2028-29").data)
    assert "Proporción administrativa (tope 5%)" in old
    assert "Proporción administrativa (tope 6%)" in new
    with client.session_transaction() as browser:
        browser["lang"] = "en"
    english = pdf_text(client.get(f"/account/{d}/statement.pdf?fy=2028-29").data)
    assert "Administrative ratio (cap 6%)" in english


# --------------------------------------------------------------------------- no literal rate


def _rate_patterns() -> list[re.Pattern[str]]:
    """The shipped rates of the cap as they could be written: 5%, 5 %, 5 percent,
    5 por ciento, five percent, cinco por ciento, 0.05."""
    words = {5: ("five", "cinco"), 6: ("six", "seis"), 10: ("ten", "diez")}
    patterns = []
    for value in params.history("district.admin_cap_rate").values:
        assert isinstance(value.value, Decimal)
        percent = f"{(value.value * 100).normalize():f}"
        number = rf"(?<![\d.,]){re.escape(percent)}(?![\d.,]\d)"
        patterns.append(re.compile(rf"{number}\s?(?:%|percent|por ciento|per cent)", re.I))
        patterns.append(re.compile(rf"(?<![\d.]){re.escape(value.text)}(?![\d\w])"))
        for word in words.get(int(percent), ()) if percent.isdigit() else ():
            patterns.append(re.compile(rf"\b{word} (?:percent|por ciento)", re.I))
    return patterns


# Text about other statutes' rates that happen to equal the cap's (Act 272-2003 § 31(B):
# 2 %, 5 % and 9 % of the room tax; the Convention Center's 5 % reserve): not the cap.
OTHER_STATUTES = {
    "tid/rules/distribution/__init__.py": "Act 272-2003 § 31(B): the 2 %, 5 % and 9 % shares",
    "tid/rules/waterfall.py": "Act 272-2003 § 31(B): the 2 %, 5 % and 9 % shares",
}
# (and the catalog entries that quote § 31(B) itself, from the parameter files)
OTHER_STATUTE_LINE = re.compile(r"Center|Centro|reserve|reserva|272-2003 § 31\(B\)|art\. 31\(B\)")


def _files() -> Iterator[Path]:
    yield from sorted((PROJECT / "templates").rglob("*.html"))
    yield from sorted((PROJECT / "templates").rglob("*.txt"))
    for path in sorted((PROJECT / "tid").rglob("*")):
        if path.suffix in {".py", ".html", ".po", ".pot", ".js", ".txt"} and path.is_file():
            yield path


def test_no_template_catalog_or_code_writes_the_cap_rate() -> None:
    patterns = _rate_patterns()
    found = []
    for path in _files():
        name = path.relative_to(PROJECT).as_posix()
        if name in OTHER_STATUTES:
            continue
        # A catalog entry is its msgid and msgstr lines; the Center's line is about Act 272.
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OTHER_STATUTE_LINE.search(line):
                continue
            if any(p.search(line) for p in patterns):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    assert found == []


def test_the_search_finds_a_written_rate() -> None:
    patterns = _rate_patterns()
    for line in (
        "{{ _('The %(rate)s cap', rate='5%') }}",
        'msgstr "excedería el 5 por ciento"',
        "up to five percent of the revenue",
        "el tope del 5 % de lo recaudado",
        'cap = Decimal("0.05")',
    ):
        assert any(p.search(line) for p in patterns), line
    for line in ("15%", "0.055", "2.5 %", "margin: 0.05in", "25 por ciento", "5,5 %"):
        assert not any(p.search(line) for p in patterns), line
