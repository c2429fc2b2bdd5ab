"""The benchmarks' two sizes: the one each measures at (its default), and the smoke size
(``--smoke``) at which ``make test`` runs every benchmark in seconds to check that it still
runs to its end and prints its figures — never what the figures are. A script imports this
before it reads its arguments: ``--smoke`` is taken off the command line here."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# Kept in the environment too: the flag is taken off the command line by the first import,
# and this module imported again under another name (``benchmarks.sizes``) must still see it.
SMOKE = "--smoke" in sys.argv or os.environ.get("TID_BENCHMARK_SMOKE") == "1"
if SMOKE:
    sys.argv = [arg for arg in sys.argv if arg != "--smoke"]
    os.environ["TID_BENCHMARK_SMOKE"] = "1"


def pick(full: T, smoke: T) -> T:
    """``full`` when measuring, ``smoke`` under ``--smoke``."""
    return smoke if SMOKE else full


def no_warm_up_when_smoke(instance: Path) -> None:
    """Under ``--smoke``, the web workers of the instance ``instance`` compile and lay out
    what their pages ask for, none in advance (config.toml's ``pdf_warm_up`` and
    ``page_warm_up``): a smoke run's few requests do not pay a whole warm-up."""
    if SMOKE:
        instance.mkdir(parents=True, exist_ok=True)
        with (instance / "config.toml").open("a") as config:
            config.write("pdf_warm_up = false\npage_warm_up = false\n")
