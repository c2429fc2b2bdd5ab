"""Speed of the statute core against a straight-line loop doing the same arithmetic.

Two cases, each computed 1,000 times:

- the excise allocation of a fiscal year's 12 months (13 LPRA § 31751: fuel to HTA, the
  cigarette waterfall HTA → MBA → PRITA → General Fund), through ``allocate_excise``;
- the Municipal Equalization Fund over 78 municipalities (shares of the FY and the
  hold-harmless), through ``fund_shares`` + ``hold_harmless``.

The straight line does the same arithmetic in plain integers with the figures written in, no
engine, no parameters, no trace; its results are checked equal to the engine's before timing.
The document functions (JSON in, JSON out, with parsing and trace) are timed too.

Run: ``.venv/bin/python benchmarks/calc.py``
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from decimal import ROUND_DOWN, Decimal
from typing import Any

from sizes import pick

from tid.rules.equalization import (
    Municipality,
    equalization_document,
    fund_shares,
    hold_harmless,
)
from tid.rules.excise import ExciseMonth, allocate_excise, excise_document
from tid.rules.periods import FiscalYear

RUNS = pick(1_000, 20)
FY = FiscalYear(2016)

# ---------------------------------------------------------------------------------------------
# Inputs

rng = random.Random(20260302)
EXCISE_ROWS = [
    (
        rng.randrange(0, 3_000_000_000),  # gasoline cents
        rng.randrange(0, 50_000_000),  # diesel gallons (whole)
        rng.randrange(0, 1_000_000_000),  # crude cents
        rng.randrange(0, 10_000_000),  # reimbursements cents
        rng.randrange(0, 1_200_000_000),  # cigarette cents
    )
    for _ in range(12)
]
EXCISE_MONTHS = [
    ExciseMonth(
        m,
        Decimal(g) / 100,
        Decimal(gal),
        Decimal(c) / 100,
        Decimal(r) / 100,
        Decimal(cig) / 100,
    )
    for m, (g, gal, c, r, cig) in enumerate(EXCISE_ROWS, 1)
]
EXCISE_DOC: dict[str, Any] = {
    "fiscal_year": FY.label,
    "months": [
        {
            "month": f"{2016 + (m > 6)}-{(m + 5) % 12 + 1:02d}",
            "gasoline_tax": str(e.gasoline_tax),
            "diesel_gallons": str(e.diesel_gallons),
            "crude_oil_excise": str(e.crude_oil_excise),
            "reimbursements": str(e.reimbursements),
            "cigarette_tax": str(e.cigarette_tax),
        }
        for m, e in enumerate(EXCISE_MONTHS, 1)
    ],
}

TOWNS = []
for i in range(78):
    income = rng.randrange(10_000_000, 10_000_000_000)
    protected = i % 6 == 0
    alloc = (
        income * rng.randrange(50, 90) // 100 if protected else income * rng.randrange(5, 45) // 100
    )
    base = alloc * rng.randrange(70, 130) // 100
    TOWNS.append((f"Municipio {i}", base, alloc, income))
MUNICIPALITIES = [
    Municipality(n, Decimal(b) / 100, Decimal(a) / 100, Decimal(inc) / 100)
    for n, b, a, inc in TOWNS
]
LOTTERY_CENTS, GF_CENTS, EXCLUDED_CENTS, FINES_CENTS = 9_000_000_000, 900_000_000_000, 0, 10**9
EQ_DOC: dict[str, Any] = {
    "fiscal_year": FY.label,
    "lottery_net_income": str(Decimal(LOTTERY_CENTS) / 100),
    "gf_net_revenues": str(Decimal(GF_CENTS) / 100),
    "excluded_revenues": str(Decimal(EXCLUDED_CENTS) / 100),
    "traffic_fines": str(Decimal(FINES_CENTS) / 100),
    "municipalities": [
        {
            "name": m.name,
            "base": str(m.base),
            "allocation_2007_08": str(m.allocation_2007_08),
            "income_2007_08": str(m.income_2007_08),
        }
        for m in MUNICIPALITIES
    ],
}

# ---------------------------------------------------------------------------------------------
# Engine


def engine_excise() -> list[tuple[int, ...]]:
    result = allocate_excise(FY, EXCISE_MONTHS)
    return [(f, *p.paid) for f, p in zip(result.hta_fuel, result.cigarette.periods, strict=True)]


def engine_equalization() -> tuple[list[int], list[int]]:
    shares = fund_shares(
        FY,
        Decimal(LOTTERY_CENTS) / 100,
        Decimal(GF_CENTS) / 100,
        excluded_revenues=Decimal(EXCLUDED_CENTS) / 100,
        traffic_fines=Decimal(FINES_CENTS) / 100,
    )
    adjusted = hold_harmless(FY, MUNICIPALITIES)
    head = [int(x * 100) for x in (shares.lottery_share, shares.gf_share, shares.public_works_fund)]
    return head, [int(r.final * 100) for r in adjusted.municipalities]


# ---------------------------------------------------------------------------------------------
# Straight line: the same arithmetic, figures written in


def straight_excise() -> list[tuple[int, ...]]:
    caps = ((250_000_000, 2_000_000_000), (80_000_000, 1_000_000_000), (300_000_000, 3_600_000_000))
    paid_to_date = [0, 0, 0]
    out = []
    for m in EXCISE_MONTHS:  # the same Decimal inputs as the engine, to cents
        fuel = (
            int(m.gasoline_tax * 100)
            + int(m.diesel_gallons * 4)
            + int(m.crude_oil_excise * 100)
            - int(m.reimbursements * 100)
        )
        left = int(m.cigarette_tax * 100)
        row = [fuel]
        for i, (monthly, annual) in enumerate(caps):
            owed = min(annual, monthly * m.fiscal_month) - paid_to_date[i]
            pay = owed if owed <= left else left
            left -= pay
            paid_to_date[i] += pay
            row.append(pay)
        row.append(left)
        out.append(tuple(row))
    return out


def straight_excise_cents() -> list[tuple[int, ...]]:
    """The same loop starting from amounts already in integer cents (no Decimal input)."""
    caps = ((250_000_000, 2_000_000_000), (80_000_000, 1_000_000_000), (300_000_000, 3_600_000_000))
    paid_to_date = [0, 0, 0]
    out = []
    for m, (g, gal, c, r, cig) in enumerate(EXCISE_ROWS, 1):
        fuel = g + gal * 4 + c - r
        left = cig
        row = [fuel]
        for i, (monthly, annual) in enumerate(caps):
            owed = min(annual, monthly * m) - paid_to_date[i]
            pay = owed if owed <= left else left
            left -= pay
            paid_to_date[i] += pay
            row.append(pay)
        row.append(left)
        out.append(tuple(row))
    return out


def straight_equalization(
    towns: list[tuple[str, int, int, int]] | None = None,
) -> tuple[list[int], list[int]]:
    lottery = (2 * 35 * LOTTERY_CENTS + 100) // 200
    gf = (2 * 25 * (GF_CENTS - EXCLUDED_CENTS) + 1000) // 2000
    works = (2 * 2 * FINES_CENTS + 100) // 200
    if towns is None:  # the same Decimal inputs as the engine, to cents
        towns = [
            (
                m.name,
                int(m.base * 100),
                int(m.allocation_2007_08 * 100),
                int(m.income_2007_08 * 100),
            )
            for m in MUNICIPALITIES
        ]
    n = len(towns)
    final = [b for _n, b, _a, _i in towns]
    protected = [2 * a >= inc for _n, _b, a, inc in towns]
    needed = 0
    for i, (_n, b, a, _inc) in enumerate(towns):
        if protected[i] and a > b:
            needed += a - b
            final[i] = a
    active = [i for i in range(n) if not protected[i]]
    weights = {i: Decimal(towns[i][3]) / Decimal(towns[i][2]) for i in active}
    remaining = needed
    while remaining:
        total_weight = sum(weights[i] for i in active)
        exact = [Decimal(remaining) * weights[i] / total_weight for i in active]
        floors = [int(e.to_integral_value(rounding=ROUND_DOWN)) for e in exact]
        order = sorted(range(len(active)), key=lambda k: (-(exact[k] - floors[k]), k))
        for k in order[: remaining - sum(floors)]:
            floors[k] += 1
        over = [i for i, take in zip(active, floors, strict=True) if take > towns[i][1]]
        if not over:
            for i, take in zip(active, floors, strict=True):
                final[i] -= take
            break
        for i in over:
            remaining -= towns[i][1]
            final[i] = 0
        active = [i for i in active if i not in over]
    return [lottery, gf, works], final


# ---------------------------------------------------------------------------------------------


def per_second(funcs: list[Callable[[], object]], rounds: int = 5) -> list[float]:
    """Calculations a second of each function: RUNS calls timed per round, rounds interleaved
    (the machine is shared, so each function is measured under the same load), best round."""
    for func in funcs:
        func()  # warm the caches (parameter files are read once, lazily)
    best = [float("inf")] * len(funcs)
    for _ in range(rounds):
        for k, func in enumerate(funcs):
            start = time.perf_counter()
            for _ in range(RUNS):
                func()
            best[k] = min(best[k], time.perf_counter() - start)
    return [RUNS / b for b in best]


def main() -> None:
    assert engine_excise() == straight_excise() == straight_excise_cents(), "excise differs"
    assert engine_equalization() == straight_equalization() == straight_equalization(TOWNS)
    print(f"{RUNS} calculations each, best of 5 interleaved rounds; per second (higher is better)")
    header = ("case", "engine", "straight", "ratio", "cents-in", "ratio", "document")
    print("{:<34}{:>10}{:>10}{:>8}{:>10}{:>8}{:>10}".format(*header))
    for name, engine, straight, straight_cents, document in (
        (
            "excise allocation, 12 months",
            engine_excise,
            straight_excise,
            straight_excise_cents,
            lambda: excise_document(EXCISE_DOC),
        ),
        (
            "equalization, 78 municipalities",
            engine_equalization,
            straight_equalization,
            lambda: straight_equalization(TOWNS),
            lambda: equalization_document(EQ_DOC),
        ),
    ):
        e, s, c, d = per_second([engine, straight, straight_cents, document])
        print(f"{name:<34}{e:>10,.0f}{s:>10,.0f}{s / e:>7.2f}×{c:>10,.0f}{c / e:>7.2f}×{d:>10,.0f}")
    print(
        "engine: the rule functions (allocate_excise; fund_shares + hold_harmless);\n"
        "straight: the same arithmetic inline from the same Decimal inputs (the target: the\n"
        "engine within 5× of it); cents-in: the straight line fed integer cents already;\n"
        "document: the JSON calculators (parsing, strings and the full trace)."
    )


if __name__ == "__main__":
    main()
