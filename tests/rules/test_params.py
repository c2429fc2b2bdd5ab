"""The dated parameters: every file loads under the strict rules, and a bad file is refused."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from tid.rules import params
from tid.rules.params import (
    PARAMS_DIR,
    UNITS,
    NotInForceError,
    ParameterFileError,
    all_parameters,
    history,
    load_file,
    load_parameters,
    param,
    param_or_none,
)
from tid.rules.periods import FiscalYear


def test_every_shipped_file_loads_and_every_value_is_cited() -> None:
    files = sorted(PARAMS_DIR.glob("*.toml"))
    assert {f.name for f in files} >= {
        "room_tax.toml",
        "distribution.toml",
        "excise.toml",
        "equalization.toml",
    }
    registry = load_parameters(files)
    for parameter in registry.values():
        for value in parameter.values:
            assert value.citation.strip()
            assert value.unit in UNITS
        starts = [v.start for v in parameter.values]
        assert starts == sorted(starts) and len(set(starts)) == len(starts)


def test_all_parameters_lists_full_history_with_stable_dotted_names() -> None:
    listing = all_parameters()
    names = [p["name"] for p in listing]
    assert names == sorted(names)
    by_name = {p["name"]: p for p in listing}
    gf = by_name["equalization.gf_share_rate"]
    # 2.02 %, 2.1 %, 2.2 %, 2.3 %, 2.4 %, 2.5 %: six dated values, each cited.
    expected = ["0.0202", "0.021", "0.022", "0.023", "0.024", "0.025"]
    assert [v["value"] for v in gf["values"]] == expected
    assert all(v["citation"] for v in gf["values"])
    assert gf["values"][0]["from"] == "1991-07-01"
    assert by_name["room_tax.act272.rate.hotel"]["unit"] == "rate"


def test_param_returns_the_value_in_force_and_its_citation() -> None:
    # The lottery share is 25 % in FY1991-92, 30 % in FY1992-93, 35 % from FY1993-94.
    assert param("equalization.lottery_share_rate", date(1991, 7, 1)).value == Decimal("0.25")
    assert param("equalization.lottery_share_rate", date(1993, 6, 30)).value == Decimal("0.30")
    v = param("equalization.lottery_share_rate", date(2020, 1, 1))
    assert v.value == Decimal("0.35") and "(b)" in v.citation
    assert param("distribution.irc1994.pool_named_part", date(2000, 1, 1)).value == Fraction(5, 6)
    assert param("excise.cigarette.mba.monthly_cap", date(2020, 1, 1)).cents == 80_000_000
    assert param("distribution.act272.bank_installment_count", date(2003, 7, 1)).integer == 9
    assert param("distribution.act272.bank_installment_count", date(2004, 7, 1)).integer == 10
    ref = param("equalization.hold_harmless.reference_fiscal_year", date(2010, 7, 1))
    assert ref.value == FiscalYear(2007)


def test_param_before_the_statute_or_after_its_end() -> None:
    with pytest.raises(NotInForceError, match="2015-07-01"):
        param("excise.cigarette.prita.annual_cap", date(2015, 6, 30))
    assert param_or_none("excise.cigarette.prita.annual_cap", date(2015, 6, 30)) is None
    # The 1994 rates end the day before Act 272-2003 was approved (2003-09-09).
    assert param_or_none("room_tax.irc1994.rate.hotel", date(2003, 9, 8)) is not None
    assert param_or_none("room_tax.irc1994.rate.hotel", date(2003, 9, 9)) is None
    with pytest.raises(KeyError):
        param("no.such.parameter", date(2020, 1, 1))
    assert history("excise.fuel.diesel_cents_to_hta").values[0].text == "0.04"


GOOD = """
[a.b]
description = "A rate"
[[a.b.values]]
from = 2001-07-01
value = "0.02"
unit = "rate"
citation = "Some Act § 1"
"""


def _write(tmp_path: Path, text: str, name: str = "x.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file_loads(tmp_path: Path) -> None:
    loaded = load_file(_write(tmp_path, GOOD))
    assert loaded["a.b"].values[0].value == Decimal("0.02")
    assert loaded["a.b"].bounds == (Decimal(0), Decimal(1))  # a rate's, by its unit
    narrowed = GOOD.replace('description = "A rate"', 'description = "A rate"\nmax = "0.10"')
    assert load_file(_write(tmp_path, narrowed))["a.b"].bounds == (Decimal(0), Decimal("0.10"))


def test_every_value_of_the_law_is_one_a_reform_may_give() -> None:
    """The law's own values lie within what each parameter declares (so a reform that sets
    the law's value is never refused for it)."""
    from tid.rules import params

    for entry in params.all_parameters():
        parameter = params.history(entry["name"])
        if parameter.bounds is None:
            continue
        low, high = parameter.bounds
        for v in parameter.values:
            assert low <= v.value and (high is None or v.value <= high), (parameter.name, v)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD.replace('citation = "Some Act § 1"', ""), "missing 'citation'"),
        (GOOD.replace('citation = "Some Act § 1"', 'citation = " "'), "needs a citation"),
        (GOOD.replace('unit = "rate"', 'unit = "percent"'), "unknown unit"),
        (GOOD.replace('unit = "rate"', 'unit = "rate"\ncolour = "red"'), "unknown key"),
        (GOOD.replace('description = "A rate"', 'description = "A rate"\nx = 1'), "unknown key"),
        (GOOD.replace('value = "0.02"', "value = 0.02"), "written as text"),
        (GOOD.replace('value = "0.02"', 'value = "abc"'), "not a number"),
        (GOOD.replace("from = 2001-07-01", 'from = "2001-07-01"'), "TOML dates"),
        (GOOD.replace("from = 2001-07-01", "from = 2001-07-01\nsince = 2001-07-01"), "once"),
        (
            GOOD + GOOD.split("\n", 3)[3].replace("2001-07-01", "2000-07-01"),
            "not sorted",
        ),
        (
            GOOD.replace("from = 2001-07-01", "from = 2001-07-01\nuntil = 2005-06-30")
            + GOOD.split("\n", 3)[3].replace("2001-07-01", "2004-07-01"),
            "overlaps",
        ),
        (GOOD + GOOD.split("\n", 3)[3].replace('unit = "rate"', 'unit = "usd"'), "differs"),
        ("[a.b]\n", "empty table"),
        ("top = 3\n", "unknown key"),
        ("[a.b]\ndescription = 'x'\nvalues = []\n", "non-empty list"),
        ("[a.B]\ndescription = 'x'\n", "lower-case"),
        ("not toml = = 3", "not valid TOML"),
        (GOOD.replace('description = "A rate"', 'description = "A rate"\nmin = "0.05"'), "outside"),
        (GOOD.replace('description = "A rate"', 'description = "A rate"\nmax = 5'), "as text"),
        (
            GOOD.replace('"0.02"', '"x"')
            .replace('"rate"', '"code"')
            .replace('description = "A rate"', 'description = "A rate"\nmin = "a"'),
            "bounds a number",
        ),
    ],
)
def test_a_bad_file_is_refused(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ParameterFileError, match=message):
        load_file(_write(tmp_path, text))


def test_a_name_defined_in_two_files_is_refused(tmp_path: Path) -> None:
    paths = [_write(tmp_path, GOOD, "one.toml"), _write(tmp_path, GOOD, "two.toml")]
    with pytest.raises(ParameterFileError, match="already defined"):
        load_parameters(paths)


def test_files_are_read_lazily_and_cached() -> None:
    params._registry.cache_clear()
    params._index.cache_clear()
    assert params._registry.cache_info().currsize == 0
    param("equalization.public_works_rate", date(2006, 1, 1))
    param("equalization.public_works_rate", date(2007, 1, 1))
    assert params._registry.cache_info().currsize == 1
    assert params._index.cache_info().hits >= 1
