"""The impost formula's cost per node, from 10 to 1,000 terms and nested 60 deep.

Each formula goes through the public calculator (``tid.rules.calculators.run("impost", …)``:
parse, compile, evaluate one property, explain it in both languages), the path an anonymous
request takes. The time of the best of several runs is divided by the formula's number of
nodes; a linear compiler keeps that figure flat, so the ratio between the largest and the
smallest per-node time (the baseline, measured in the same run) stays small. Targets: the
ratio ≤ 3, and the 1,000-term formula under 50 ms.

Two shapes: constants only (the attack of a formula of constant terms, which the compiler
once built twice per level) and a mixed sum of constants and per-property products.

Run: ``.venv/bin/python benchmarks/formula.py``
"""

from __future__ import annotations

import time
from typing import Any

from sizes import pick

from tid.rules.calculators import run
from tid.rules.imposts import compile_formula

PROPERTY = {"id": "p", "assessed_value": "412000.00", "rooms": "120"}


def _constants(terms: int) -> str:
    return " + ".join(["1"] * (terms - 1) + ["assessed_value"])


def _mixed(terms: int) -> str:
    return " + ".join("1.5" if i % 2 else "0.5 * rooms" for i in range(terms))


def _nested(depth: int) -> str:
    return "(1 + " * depth + "0.0125 * assessed_value" + ")" * depth


def _best(formula: str, repeat: int) -> float:
    document: dict[str, Any] = {"formula": formula, "properties": [PROPERTY]}
    run("impost", document)  # warm: the parser's tables are built once per process
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run("impost", document)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    cases = [
        ("constants, 10 terms", _constants(10)),
        ("constants, 100 terms", _constants(100)),
        ("constants, 1,000 terms", _constants(1000)),
        ("mixed, 10 terms", _mixed(10)),
        ("mixed, 100 terms", _mixed(100)),
        ("mixed, 1,000 terms", _mixed(1000)),
        ("nested 60 deep", _nested(60)),
    ]
    print(f"{'formula':<24} {'chars':>7} {'nodes':>6} {'best ms':>9} {'µs/node':>9}")
    per_node: dict[str, float] = {}
    totals: dict[str, float] = {}
    for name, formula in cases:
        nodes = compile_formula(formula).size
        seconds = _best(formula, repeat=pick(30 if nodes < 500 else 10, 2))
        per_node[name] = seconds / nodes * 1e6
        totals[name] = seconds * 1000
        print(
            f"{name:<24} {len(formula):>7,} {nodes:>6,} {seconds * 1000:>9.2f} "
            f"{per_node[name]:>9.2f}"
        )
    smallest, largest = min(per_node.values()), max(per_node.values())
    ratio = largest / smallest
    print()
    print(f"per-node time, largest ÷ smallest: {ratio:.2f}  (target ≤ 3)")
    print(
        f"1,000 constant terms: {totals['constants, 1,000 terms']:.1f} ms  (target < 50 ms); "
        f"1,000 mixed terms ({len(_mixed(1000)):,} characters): "
        f"{totals['mixed, 1,000 terms']:.1f} ms"
    )


if __name__ == "__main__":
    main()
