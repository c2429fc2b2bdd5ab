"""Start-up of ``tid calc`` against a bare interpreter started the same way.

``tid calc room-tax`` on a small document (a hotel, three nights at 200.00), run N times as a
fresh process through the installed entry point, against ``python -c pass`` with the same
interpreter; the two alternate, so that both are measured under the same load (the machine is
shared). Each run's time is its process's wall time, start to exit. Printed: the median and the
fastest of each, and the ratio of the medians (the figure to keep: it holds from one machine
to another better than the milliseconds do). The target: the command's median ≤ 0.6 s.

Before timing, the command's answer is checked, and the instance folder it is pointed at
(``TID_INSTANCE``, a folder that does not exist) is checked to be still absent after it.

Run: ``.venv/bin/python benchmarks/cli.py [N]`` (N: runs of each, 40 unless given)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sizes import pick

RUNS = pick(40, 3)
DOCUMENT = {"lodging_type": "hotel", "date": "2026-03-02", "nightly_rate": "200.00", "nights": 3}
TARGET_SECONDS = 0.6


def _tid() -> list[str]:
    """The installed ``tid`` beside this interpreter, else the same through ``-m``."""
    script = Path(sys.executable).with_name("tid")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tid.cli"]


def _seconds(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    with tempfile.TemporaryDirectory() as folder:
        document = Path(folder) / "room-tax.json"
        document.write_text(json.dumps(DOCUMENT), encoding="utf-8")
        instance = Path(folder) / "instance"
        env = {**os.environ, "TID_INSTANCE": str(instance)}
        calc = [*_tid(), "calc", "room-tax", str(document)]
        bare = [sys.executable, "-c", "pass"]
        answer = subprocess.run(calc, env=env, capture_output=True, text=True, check=True)
        assert json.loads(answer.stdout)["tax"] == "54.00", answer.stdout
        assert not instance.exists(), "tid calc made the instance folder"
        times: dict[str, list[float]] = {"calc": [], "bare": []}
        for _ in range(runs):
            times["calc"].append(_seconds(calc, env))
            times["bare"].append(_seconds(bare, env))
        assert not instance.exists(), "tid calc made the instance folder"
    calc_ms = statistics.median(times["calc"]) * 1000
    bare_ms = statistics.median(times["bare"]) * 1000
    print(f"{runs} cold runs each, alternating; wall time of each process (lower is better)")
    print(f"{'command':<44}{'median':>10}{'fastest':>10}")
    for name, label in (
        ("calc", "tid calc room-tax (a small document)"),
        ("bare", "python -c pass (the same interpreter)"),
    ):
        print(
            f"{label:<44}{statistics.median(times[name]) * 1000:>8.0f} ms"
            f"{min(times[name]) * 1000:>8.0f} ms"
        )
    print(
        f"tid calc ÷ python -c pass (medians): {calc_ms / bare_ms:.1f}×; "
        f"target: tid calc ≤ {TARGET_SECONDS * 1000:.0f} ms "
        f"({'met' if calc_ms <= TARGET_SECONDS * 1000 else 'NOT met'})"
    )
    print(f"rerun: .venv/bin/python benchmarks/cli.py {runs}")


if __name__ == "__main__":
    main()
