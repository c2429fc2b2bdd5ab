"""Every warning of every calculator comes in Spanish too (``warnings_es``), line for line,
with the same figures as its English line."""

from __future__ import annotations

import pickle
import re
from typing import Any

import pytest

from tests.calc_documents import DOCUMENTS
from tests.rules.cases import load_cases
from tests.rules.imposts.helpers import D, one
from tid.rules import readings
from tid.rules.calculators import run
from tid.rules.messages import FieldRef, Message, render, render_all, render_json, to_json

# Numbers as a warning writes them: 2009-06-30, $9,600,000.00, 1/6, 6653(5) → 6653 and 5.
NUMBER = re.compile(r"\d[\d,./-]*\d|\d")


def test_a_message_is_its_english_text_and_renders_in_spanish_from_the_catalog() -> None:
    text = Message(
        "Act 272-2003 is taken to apply to stays from its approval, %(act272_from)s: "
        "the supplied text has no effective-date clause (%(reading)s).",
        act272_from="2003-09-09",
        reading=readings.note("in-force-from-approval"),
    )
    assert isinstance(text, str)
    assert text.startswith("Act 272-2003 is taken to apply to stays from its approval, 2003-09-09")
    es = render(text, "es")
    assert es.startswith("Se entiende que la Ley 272-2003") and "2003-09-09" in es
    # a message inside it (the reading it names) in the same language
    assert text.endswith("(Project reading: In force from approval).")
    assert es.endswith("(Lectura del proyecto: Vigencia desde la aprobación).")
    assert render(text, "en") == str(text)
    assert render("plain data", "es") == "plain data"
    assert render_all([text, "plain"], "es") == [es, "plain"]
    # A copy (results are cached and pickled by the web's worker processes) keeps its msgid.
    assert render(pickle.loads(pickle.dumps(text)), "es") == es
    # A message without parameters keeps its percent signs as they are.
    assert Message("5% of the total") == "5% of the total"


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_stored_message_renders_as_the_message_it_stores(lang: str) -> None:
    """A bill's stored explanation (nested messages, kept as JSON) renders straight from
    the JSON as the decoded message renders: the same text in each language."""
    explanations = [
        one("0.0125 * assessed_value + 1.50 * rooms", assessed_value=D("412000.00"), rooms=D(120)),
        one("x / 3", x=D(10)),
        one(
            "if(rooms > 100, 0.02, 0.01) * value + max(0, rooms - 10) * 2.00",
            rooms=D(120),
            value=D("250000"),
        ),
    ]
    nested = Message(
        "%(first)s; %(rest)s",
        first=Message("The field %(field)s is missing.", field=FieldRef("months[2].collected")),
        rest=Message("5% of the total"),
    )
    for text in [line.explanation for line in explanations] + [nested, "plain data"]:
        stored = to_json(text)
        assert render_json(stored, lang) == render(text, lang)
    spanish = render_json(to_json(explanations[0].explanation), "es")
    assert spanish.endswith("$412,000.00 de valor tasado + $1.50 × 120 habitaciones = $5,330.00")


# The worked cases of tests/rules/cases reach warnings the interface documents do not.
CASE_FILES = {
    "distribution": "room-tax-distribution",
    "equalization": "equalization",
    "excise": "excise-allocation",
    "room_tax": "room-tax",
}
CASES: list[tuple[str, dict[str, Any]]] = [
    (calculator, case["input"])
    for file, calculator in CASE_FILES.items()
    for case in load_cases(file)
]

# Documents that reach the warnings the documents and cases above do not, one or two each.
EXTRA: list[tuple[str, dict[str, Any]]] = [
    ("deadlines", {"petition_received": "2026-03-02", "skip_saturday": False}),
    # an impost lien older than the act, the act date given in the input
    (
        "liens",
        {
            "liens": [
                {
                    "id": "T0",
                    "kind": "tid_impost",
                    "constituted_on": "2009-05-01",
                    "amount": "10.00",
                }
            ],
            "act_effective_date": "2010-01-15",
        },
    ),
    # no impost lien at all
    (
        "liens",
        {
            "liens": [
                {"id": "M1", "kind": "mortgage", "constituted_on": "2015-06-01", "amount": "5"}
            ]
        },
    ),
    # the first fiscal year of Act 272-2003 (approved 2003-09-09)
    (
        "room-tax",
        {"lodging_type": "hotel", "date": "2003-10-01", "nightly_rate": "100", "nights": 2},
    ),
    # IRC 1994 with additional charges (and its remittance date)
    (
        "room-tax",
        {
            "lodging_type": "hotel",
            "date": "2001-02-14",
            "nightly_rate": "85.00",
            "nights": 2,
            "additional_charges": "10.00",
        },
    ),
    # a complimentary room in a hotel without a casino
    (
        "room-tax",
        {
            "lodging_type": "hotel",
            "date": "2019-08-31",
            "nights": 3,
            "complimentary": True,
            "average_daily_rate": "120.00",
        },
    ),
    # the Convention Bureau's floor on from FY2020-21, then off until FY2030-31
    *[
        (
            "room-tax-distribution",
            {
                "fiscal_year": "2024-25",
                "bank_certified_amount": "1000000.00",
                "bureau_floor_from_fy": floor_from,
                "months": [{"month": "2024-07", "collected": "900000.00"}],
            },
        )
        for floor_from in ("2020-21", "2030-31")
    ],
    # FY2003-04: transfers from October
    (
        "room-tax-distribution",
        {
            "fiscal_year": "2003-04",
            "bank_certified_amount": "1000000.00",
            "months": [{"month": "2003-10", "collected": "900000.00"}],
        },
    ),
    # FY1995-96: no Act 7-2009 exclusion and no Public Works share yet (from FY2005-06)
    (
        "equalization",
        {
            "fiscal_year": "1995-96",
            "lottery_net_income": "1000.00",
            "gf_net_revenues": "1000.00",
            "excluded_revenues": "10.00",
            "traffic_fines": "100.00",
        },
    ),
    # Mayagüez's 100.00 cannot give its share of San Juan's top-up: taken to zero
    (
        "equalization",
        {
            **DOCUMENTS["equalization"],
            "municipalities": [
                *DOCUMENTS["equalization"]["municipalities"][:2],
                {**DOCUMENTS["equalization"]["municipalities"][2], "base": "100.00"},
            ],
        },
    ),
    # The second reading (/readings: the deadlines, the liens, Act 272-2003 § 31, 13 LPRA § 31751,
    # the Equalization Fund):
    # the hold-harmless before FY2009-10 (the bases pass unchanged)
    ("equalization", {**DOCUMENTS["equalization"], "fiscal_year": "2005-06"}),
    # the Convention Center's reserve: without the deficit, with it, and after its ten years
    *[
        (
            "room-tax-distribution",
            {
                "fiscal_year": fy,
                "bank_certified_amount": "0",
                "convention_center_opened_on": "2005-11-17",
                "months": [{"month": month, "collected": "900000.00"}],
                **extra,
            },
        )
        for fy, month, extra in (
            ("2010-11", "2010-07", {}),
            ("2010-11", "2010-07", {"convention_center_operating_deficit": "2600000.00"}),
            ("2017-18", "2017-07", {"convention_center_operating_deficit": "2600000.00"}),
        )
    ],
    # the seam of 2003: the 1994 part-year, and September joining October (with a month
    # missing before it)
    (
        "room-tax-distribution",
        {
            "fiscal_year": "2003-04",
            "collections": {"hotel": "9000.00"},
            "bond_fund_amount": "0",
            "collections_until": "2003-09-08",
        },
    ),
    (
        "room-tax-distribution",
        {
            "fiscal_year": "2003-04",
            "bank_certified_amount": "900.00",
            "bureau_floor_from_fy": "2003-04",
            "months": [
                {"month": "2003-09", "collected": "100.00"},
                {"month": "2003-12", "collected": "900000.00"},
            ],
        },
    ),
    # The third reading (/readings#in-force-from-approval to /readings#recreational-fund-top-up):
    # the 1994 regime's first fiscal year, its points
    # above 7 / 9 before FY1997-98, and the $5 test on the nightly room rate alone
    (
        "room-tax-distribution",
        {
            "fiscal_year": "1994-95",
            "collections": {"hotel": "90.00", "casino_hotel": "110.00"},
            "bond_fund_amount": "10.00",
        },
    ),
    (
        "room-tax",
        {
            "lodging_type": "motel",
            "date": "1994-11-02",
            "nightly_rate": "4.00",
            "nights": 2,
            "additional_charges": "3.00",
        },
    ),
    (
        "room-tax",
        {
            "lodging_type": "motel",
            "date": "2020-01-01",
            "nightly_rate": "4.00",
            "nights": 2,
            "additional_charges": "3.00",
        },
    ),
    # excise: FY2010-11 from January, § 31668 reimbursements, MBA paid before HTA's $20M
    (
        "excise-allocation",
        {
            "fiscal_year": "2010-11",
            "months": [
                {
                    "month": "2011-02",
                    "gasoline_tax": "0",
                    "diesel_gallons": "0",
                    "crude_oil_excise": "0",
                    "reimbursements": "0",
                    "cigarette_tax": "9000000.00",
                    "cigarette_reimbursements": "10.00",
                }
            ],
        },
    ),
    # deadlines moved by the general election day and by an observed holiday
    ("deadlines", {"petition_received": "2028-08-09"}),
    ("deadlines", {"petition_received": "2026-04-04"}),
    # liens: the unsecured charges are not paid from the sale
    (
        "liens",
        {
            "liens": [
                {
                    "id": "T",
                    "kind": "tid_impost",
                    "constituted_on": "2020-01-01",
                    "amount": "10.00",
                    "unsecured_charges": "2.00",
                }
            ],
            "sale_proceeds": "50.00",
        },
    ),
    # 100.005 to apportion: $100.01 (half-up), split by the largest remainder
    (
        "impost",
        {
            "formula": "budget * assessed_value / sum(assessed_value)",
            "properties": [{"id": "A", "assessed_value": "1"}, {"id": "B", "assessed_value": "2"}],
            "parameters": {"budget": "100.005"},
        },
    ),
]


def _assert_translated(result: dict[str, object]) -> None:
    english, spanish_lines = result["warnings"], result["warnings_es"]
    assert isinstance(english, list) and isinstance(spanish_lines, list)
    assert len(spanish_lines) == len(english)
    for en, es in zip(english, spanish_lines, strict=True):
        assert isinstance(es, str)
        assert es != en, en
        missing = set(NUMBER.findall(en)) - set(NUMBER.findall(es))
        assert not missing, (missing, en, es)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_each_warning_has_its_spanish_with_the_same_figures(name: str) -> None:
    _assert_translated(run(name, DOCUMENTS[name]))


@pytest.mark.parametrize(("name", "document"), CASES + EXTRA)
def test_the_worked_cases_warnings_have_their_spanish(name: str, document: dict[str, Any]) -> None:
    _assert_translated(run(name, document))


def test_the_documents_touch_warnings_of_every_kind() -> None:
    # The check above proves something only if the documents produce warnings at all.
    touched = [name for name in DOCUMENTS if run(name, DOCUMENTS[name])["warnings"]]
    assert len(touched) >= 5, touched
    for name, document in EXTRA:
        assert len(run(name, document)["warnings"]) >= 1, name
    lines = {w for name, document in CASES + EXTRA for w in run(name, document)["warnings"]}
    assert len(lines) >= 25, len(lines)


def test_money_in_a_warning_is_written_the_same_in_spanish() -> None:
    # FY2024-25: the Metropolitan Bus Authority can get 12 × $800,000.00 = $9,600,000.00,
    # under the $10,000,000.00 a year of 13 LPRA § 31751(a)(4).
    result = run("excise-allocation", DOCUMENTS["excise-allocation"])
    (es,) = [w for w in result["warnings_es"] if w.startswith("Autoridad Metropolitana")]
    for amount in ("$800,000.00", "$9,600,000.00", "$10,000,000.00"):
        assert amount in es
