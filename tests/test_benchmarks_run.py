"""Benchmarks that cannot rot: every script in benchmarks/ runs at its smoke size
(``--smoke``: seconds of work, the same code paths) to its end and prints its figures. What
the figures are is the benchmark's business, measured at its full size; here only that it
still runs, so a change that breaks one is seen the day it is made."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if p.name != "sizes.py")
# A figure as the benchmarks print them: a ratio (×, x) or a time or rate with its unit.
FIGURE = re.compile(r"\d[\d,.]*\s*(×|x\b|ms\b|s\b|/s\b|MiB\b|KB\b)")
# A hang guard, not a verdict: a smoke run takes seconds to a minute or two on a busy machine.
HANG = 1800


@pytest.mark.parametrize("script", BENCHMARKS)
def test_every_benchmark_runs_at_its_smoke_size_and_prints_its_figures(script: str) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        [sys.executable, f"benchmarks/{script}", "--smoke"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-3000:]
    assert "Traceback" not in said, said[-3000:]
    assert FIGURE.search(done.stdout), done.stdout[-2000:]


def test_every_benchmark_takes_the_smoke_size() -> None:
    """A new benchmark reads ``--smoke`` too (through benchmarks/sizes.py, or its own
    argument): a script that ignored it would run at its full size here."""
    for script in BENCHMARKS:
        text = (ROOT / "benchmarks" / script).read_text()
        assert "from sizes import" in text or '"--smoke"' in text, script


def test_the_smoke_size_holds_when_sizes_is_imported_again_under_another_name() -> None:
    """A benchmark that imports another's module (``benchmarks.billing``) imports
    ``sizes`` twice: the second import, after the first took ``--smoke`` off the command
    line, must still pick the smoke size."""
    code = (
        "import sys; sys.argv = ['bench', '--smoke']; sys.path.insert(0, 'benchmarks'); "
        "import sizes; import benchmarks.sizes as again; "
        "print(sizes.pick('full', 'smoke'), again.pick('full', 'smoke'), sys.argv[1:])"
    )
    env = {k: v for k, v in os.environ.items() if k != "TID_BENCHMARK_SMOKE"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.stdout.split() == ["smoke", "smoke", "[]"], done.stdout + done.stderr
