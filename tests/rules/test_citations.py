"""Every citation a result shows says what its step does: it names a paragraph of a supplied
statute, and every text it quotes is in that statute's file (../shared/statutes/).

The statutes are found through ``TID_STATUTES`` (a folder), else ``<repo>/../shared/statutes``
(a clone with ``shared/`` beside it), else ``/work/shared/statutes``.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.calc_documents import DOCUMENTS
from tests.rules.cases import load_cases
from tests.rules.test_warnings_es import CASES, EXTRA
from tid.rules import params, readings
from tid.rules.calculators import run

# A citation's part → the statute file it names.
STATUTES = {
    "Act 272-2003": "act-272-2003-room-occupancy-tax.txt",
    "IRC 1994": "room-tax-irc1994-s2051-es.txt",
    "13 LPRA § 31751": "13-lpra-31751-excise-allocations.txt",
    "21 LPRA § 6653": "21-lpra-6653-tourism-improvement-districts.txt",
    "Municipal Equalization Fund": "municipal-equalization-fund-es.txt",
}
# Sources a citation may name that are not among the supplied statutes.
OTHER_SOURCES = ("1 LPRA § 72", "the ordinance", "given in the input")
QUOTE = re.compile(r'"([^"]+)"')
# A paragraph: a section sign, a pilcrow or a lettered/numbered clause like (a), (B)(iii), (5).
PARAGRAPH = re.compile(r"§\s*\d|¶|\((?:[a-zA-Z]{1,4}|\d{1,2})\)|^Act 272-2003, heading")


def statutes_dir() -> Path:
    repo = Path(__file__).resolve().parents[2]
    candidates = [Path(p) for p in [os.environ.get("TID_STATUTES", "")] if p]
    candidates += [repo.parent / "shared" / "statutes", Path("/work/shared/statutes")]
    for folder in candidates:
        if (folder / STATUTES["Act 272-2003"]).is_file():
            return folder
    pytest.fail(
        "the statutes were not found; set TID_STATUTES to their folder (tried "
        + ", ".join(str(c) for c in candidates)
        + ")"
    )


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@cache
def statute_text(file: str) -> str:
    return _normal((statutes_dir() / file).read_text("utf-8"))


def check_citation(citation: str, where: str) -> list[str]:
    """The problems of one citation: each ';'-part that quotes must name a supplied statute and
    a paragraph of it, and each quote (pieces between '...') must be in that statute's text."""
    problems = []
    current: str | None = None  # the statute file of the last part that named one
    # a part so far named a source (a statute, the project's readings, 1 LPRA § 72, …)
    sourced = False
    for part in citation.split("; "):
        named = [f for prefix, f in STATUTES.items() if part.startswith(prefix)]
        if part.startswith(readings.PREFIX):
            # a reading of the project: one it publishes (/readings), named by its title
            if readings.named(part) is None:
                problems.append(f"{where}: {part!r} names no published reading")
            current, sourced = None, True
        elif named:
            current, sourced = named[0], True
            if not PARAGRAPH.search(part):
                problems.append(f"{where}: {part!r} names no paragraph")
        elif part.startswith(OTHER_SOURCES):
            sourced = True
            if not part.startswith("History"):
                current = None
        elif part.startswith("History") and current:
            pass  # the history note of the statute just named
        elif not sourced:
            problems.append(f"{where}: {part!r} names no statute")
        for quote in QUOTE.findall(part):
            if current is None:
                problems.append(f"{where}: the quote {quote!r} names no statute")
                continue
            text = statute_text(current)
            at = 0
            for piece in (p.strip() for p in quote.split("...")):
                found = text.find(_normal(piece), at) if piece else at
                if found < 0:
                    problems.append(f"{where}: {piece!r} is not in {current}")
                    break
                at = found + len(piece)
    return problems


def test_every_parameter_quotes_its_statute() -> None:
    problems = []
    for entry in params.all_parameters():
        for value in entry["values"]:
            problems += check_citation(value["citation"], entry["name"])
    assert not problems, "\n".join(problems)


def _documents() -> list[tuple[str, dict[str, Any]]]:
    docs = [(name, doc) for name, doc in DOCUMENTS.items()]
    return docs + list(CASES) + list(EXTRA)


def _citation_of(name: str, on: dict[str, Any]) -> set[str]:
    return {v["citation"] for v in on[name]}


def test_every_trace_step_cites_a_paragraph_whose_quote_is_in_the_statute() -> None:
    by_name = {p["name"]: p["values"] for p in params.all_parameters()}
    problems: list[str] = []
    steps = 0
    for name, document in _documents():
        for step in run(name, document)["trace"]:
            steps += 1
            where = f"{name}: {step['step']}"
            problems += check_citation(step["citation"], where)
            parameter = step.get("parameter")
            if parameter:
                # The quote belongs to the step's parameter: its own citation is the one shown.
                own = _citation_of(parameter, by_name)
                if not any(c in step["citation"] for c in own):
                    problems.append(f"{where}: cites {step['citation']!r}, not {parameter}'s")
    assert steps > 300, steps
    assert not problems, "\n".join(sorted(set(problems)))


def _trace(name: str, document: dict[str, Any]) -> list[dict[str, str]]:
    trace: list[dict[str, str]] = run(name, document)["trace"]
    return trace


def test_special_account_ii_and_the_recreational_fund_cite_their_own_sentences() -> None:
    trace = _trace(
        "room-tax-distribution",
        {"fiscal_year": "1998-99", "collections": {"hotel": "90.00"}, "bond_fund_amount": "0"},
    )
    (sa2,) = [s for s in trace if "Special Account II" in s["step"]]
    assert "el remanente punto cinco (.5) por ciento" in sa2["citation"]
    (rdf,) = [s for s in trace if s["step"].startswith("Recreational Development Fund")]
    assert "al Fondo para el Fomento Recreativo de Puerto Rico" in rdf["citation"]
    assert "Fondo Especial" not in rdf["citation"]


def test_an_untaxed_stay_says_why_instead_of_a_product() -> None:
    cheap = _trace(
        "room-tax", {"lodging_type": "motel", "date": "2020-01-10", "nightly_rate": "5.00",
                     "nights": 2}
    )  # fmt: skip
    assert not any(s["step"].startswith("Tax =") for s in cheap)
    (step,) = [s for s in cheap if s["step"].startswith("No tax")]
    assert "does not exceed the threshold of 5.00" in step["step"]
    assert step["value"] == "0.00"
    exempt = _trace(
        "room-tax", {"lodging_type": "hotel", "date": "2020-01-10", "nightly_rate": "10.00",
                     "nights": 1, "exemption": "timeshare"}
    )  # fmt: skip
    assert not any(s["step"].startswith("Tax =") for s in exempt)
    # the exemption by its label (tid/rules/vocab/lodging_types.py), not its code
    assert any("exempt (Timeshare)" in s["step"] for s in exempt)
    taxed = _trace(
        "room-tax", {"lodging_type": "hotel", "date": "2020-01-10", "nightly_rate": "10.00",
                     "nights": 1}
    )  # fmt: skip
    assert any(s["step"] == "Tax = 0.09 × 10.00" and s["value"] == "0.90" for s in taxed)


def test_hold_harmless_taken_from_the_others_cites_the_second_sentence() -> None:
    trace = _trace("equalization", DOCUMENTS["equalization"])
    (step,) = [s for s in trace if s["step"].startswith("Taken from the others")]
    assert "inversamente proporcional" in step["citation"]
    assert "cincuenta por ciento" not in step["citation"]


def test_prita_before_fy2015_16_cites_13_lpra() -> None:
    document = {**load_cases("excise")[0]["input"], "fiscal_year": "2012-13"}
    document["months"] = [{**document["months"][0], "month": "2012-07"}]
    trace = _trace("excise-allocation", document)
    (step,) = [s for s in trace if "not a recipient before" in s["step"]]
    assert step["citation"].startswith("13 LPRA § 31751(a)(5)")


_RESERVE = {
    "fiscal_year": "2010-11",
    "bank_certified_amount": "1200000.00",
    "convention_center_opened_on": "2005-11-17",
    "convention_center_operating_deficit": "2600000.00",
    "months": [{"month": "2010-07", "collected": "900000.00"}],
}
_AFTER_RESERVE = {**_RESERVE, "fiscal_year": "2017-18", "months": [{"month": "2017-07",
                  "collected": "900000.00"}]}  # fmt: skip
_IRC_SPECIAL = {"fiscal_year": "1998-99", "collections": {"hotel": "90.00", "casino_hotel":
                "110.00"}, "bond_fund_amount": "0"}  # fmt: skip
_IRC_LATER = {**_IRC_SPECIAL, "fiscal_year": "2001-02"}

# Each step → the clause of the statute that says that step, and the neighbouring clauses it
# must not quote instead: (calculator, document, how the step's text begins, the clause, the
# clauses it is not).
CLAUSE_OF_STEP: list[tuple[str, dict[str, Any], str, str, tuple[str, ...]]] = [
    (
        "room-tax-distribution",
        _RESERVE,
        "Convention Center reserve held",
        "This five (5) percent shall be available during each fiscal year in a special reserve "
        "account",
        ("shall enter monthly into the General Fund",),
    ),
    (
        "room-tax-distribution",
        _RESERVE,
        "2010-07: Convention Center reserve",
        "This five (5) percent shall be available during each fiscal year in a special reserve "
        "account",
        ("shall enter monthly into the General Fund",),
    ),
    (
        "room-tax-distribution",
        _RESERVE,
        "Surplus released from the reserve",
        "any surplus after covering such operational deficit, if any, shall be released from "
        "the special reserve",
        ("any deficit in excess of", "shall enter monthly into the General Fund"),
    ),
    (
        "room-tax-distribution",
        _RESERVE,
        "Operating deficit",
        "any deficit in excess of the two million five hundred thousand (2,500,000) dollars",
        ("shall be released",),
    ),
    (
        "room-tax-distribution",
        _RESERVE,
        "Convention Center reserve:",
        "and during the ten (10) subsequent years",
        ("shall enter monthly into the General Fund",),
    ),
    (
        "room-tax-distribution",
        _AFTER_RESERVE,
        "2017-07: Treasury General Fund",
        "five (5) percent of the total Tax collected shall enter monthly into the General Fund",
        ("special reserve account",),
    ),
    (
        "room-tax-distribution",
        _RESERVE,
        "2010-07: Tourism Company, administration",
        "two (2) percent of the total Tax collected shall enter monthly into the general funds",
        ("nine (9) percent", "five (5) percent"),
    ),
    (
        "room-tax-distribution",
        _RESERVE,
        "2010-07: Tourism Company for the Convention Bureau",
        "nine (9) percent of the total Tax collected shall be covered monthly",
        ("two (2) percent", "five (5) percent"),
    ),
    (
        "room-tax-distribution",
        _RESERVE,
        "2010-07: Bank transfer",
        "one tenth (1/10)",
        ("percent of the total Tax",),
    ),
    (
        "room-tax-distribution",
        _IRC_SPECIAL,
        "hotel: Special Account II",
        "el remanente punto cinco (.5) por ciento",
        ("Fondo Especial",),
    ),
    (
        "room-tax-distribution",
        _IRC_SPECIAL,
        "casino_hotel: General Fund",
        "hasta el nueve (9) por ciento",
        ("cinco sextas",),
    ),
    (
        "room-tax-distribution",
        _IRC_LATER,
        "hotel: convention center account",
        "Luego de cumplido los primeros tres años fiscales",
        ("Cuenta Especial I",),
    ),
    (
        "room-tax-distribution",
        _IRC_SPECIAL,
        "Recreational Development Fund",
        "al Fondo para el Fomento Recreativo de Puerto Rico",
        ("Fondo Especial",),
    ),
    (
        "equalization",
        DOCUMENTS["equalization"],
        "Protected:",
        "cincuenta por ciento (50%) o más de sus ingresos",
        ("no menor de la recibida", "inversamente proporcional"),
    ),
    (
        "equalization",
        DOCUMENTS["equalization"],
        "Top-ups to the FY2007-08 allocation",
        "reciban una cantidad no menor de la recibida para el año fiscal 2007-2008",
        ("cincuenta por ciento", "inversamente proporcional"),
    ),
    (
        "equalization",
        DOCUMENTS["equalization"],
        "Taken from the others",
        "inversamente proporcional",
        ("cincuenta por ciento", "no menor de la recibida"),
    ),
]


@pytest.mark.parametrize(
    ("name", "document", "step", "clause", "not_clauses"),
    CLAUSE_OF_STEP,
    ids=[f"{row[0]}: {row[2]}" for row in CLAUSE_OF_STEP],
)
def test_each_step_quotes_the_clause_that_says_it(
    name: str, document: dict[str, Any], step: str, clause: str, not_clauses: tuple[str, ...]
) -> None:
    steps = [s for s in _trace(name, document) if s["step"].startswith(step)]
    assert steps, f"no step begins with {step!r}"
    for found in steps:
        citation = found["citation"]
        quoted = " ".join(QUOTE.findall(citation))
        assert _normal(clause) in _normal(quoted), (step, citation)
        for other in not_clauses:
            assert other not in quoted, (step, other, citation)
        assert not check_citation(citation, step)


def test_the_check_finds_what_it_looks_for() -> None:
    # The text of IRC 1994 writes "Amortizacíon": a quote with the accent where it belongs is
    # not the statute's text, and is reported.
    assert check_citation(
        'IRC 1994 § 2051, ¶ (5) ("Fondo Especial para la Amortización y Redención")', "x"
    )
    assert check_citation('Act 272-2003 ("one tenth (1/10)")', "x")  # no paragraph
    assert check_citation('("one tenth (1/10)")', "x")  # no statute
    assert not check_citation('Act 272-2003 § 31(A) ("one tenth (1/10)")', "x")
    assert not check_citation(
        'IRC 1994 § 2051, ¶ (5) ("El restante seis (6) por ciento ... cinco sextas (5/6)")', "x"
    )
    assert check_citation(  # the pieces around "..." must come in the statute's order
        'IRC 1994 § 2051, ¶ (5) ("cinco sextas (5/6) ... El restante seis (6) por ciento")', "x"
    )
