"""Speed of a reform of the Equalization Fund over the 78 municipalities, against the law in
force on the same figures in the same run.

One case, the one a legislator waits for: the demo's 78 municipalities (invented figures)
under a reform of the lottery share, the General Fund share and the hold-harmless threshold,
computed under the law and under the reform with the difference line by line, the bases moved
with the General Fund share, and set side by side municipality by municipality
(``tid.rules.fund_compare.compare_fund``): what the fund page computes. The baseline is the
law-in-force run alone (``calculators.run``) on the same document. Target: ≤ 200 ms.

Run: ``.venv/bin/python benchmarks/studio_fund.py``. ``measure()`` returns the printed lines
(benchmarks/studio.py prints them beside its own).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from sizes import pick

from tid.rules import calculators, fund_compare, fund_example
from tid.rules.reform import parse_reform

TARGET_MS = 200.0
RUNS = pick(30, 3)
REFORM: dict[str, Any] = {
    "title": "Lottery at 40 %, General Fund at 2.7 %, threshold 45 %",
    "changes": [
        {"parameter": "equalization.lottery_share_rate", "from": "2025-07-01", "value": "0.40"},
        {"parameter": "equalization.gf_share_rate", "from": "2025-07-01", "value": "0.027"},
        {
            "parameter": "equalization.hold_harmless.threshold",
            "from": "2025-07-01",
            "value": "0.45",
        },
    ],
}


def _median_ms(work: Callable[[], object], runs: int = RUNS) -> float:
    work()  # warm: the parameter files are read and the caches filled once
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure() -> list[str]:
    """Time the reform and the law on the 78 municipalities; the lines to print."""
    document = fund_example.document()
    reform = parse_reform(REFORM)

    def under_reform() -> fund_compare.Comparison | None:
        return fund_compare.compare_fund(document, reform, scale=True)[1]

    def under_law() -> object:
        return calculators.run("equalization", document)

    comparison = under_reform()
    assert comparison is not None and len(comparison.rows) == 78
    reformed = _median_ms(under_reform)
    law = _median_ms(under_law)
    verdict = "within" if reformed <= TARGET_MS else "OVER"
    return [
        f"Equalization Fund, 78 municipalities (invented figures), median of {RUNS} runs:",
        f"  law in force alone:                 {law:8.2f} ms",
        f"  law and reform, side by side:       {reformed:8.2f} ms  "
        f"({verdict} the {TARGET_MS:.0f} ms target)",
        f"  ratio reform comparison / law run:  {reformed / law:8.2f}×",
        f"  winners {comparison.winners}, losers {comparison.losers}, "
        f"unchanged {comparison.unchanged}; held harmless {comparison.protected[0]} → "
        f"{comparison.protected[1]}",
    ]


def main() -> None:
    for line in measure():
        print(line)


if __name__ == "__main__":
    main()
