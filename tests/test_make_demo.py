"""``make demo``: the demo's data, its notices among them, is made with the address the web
will serve, so that the notices' portal link and QR code open the running demo."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _dry_run(*args: str) -> list[str]:
    make = shutil.which("make")
    assert make is not None, "make is needed to read the Makefile's recipes"
    done = subprocess.run(
        [make, "-n", "demo", *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_the_demo_is_made_with_the_address_it_is_served_at() -> None:
    lines = _dry_run("PORT=5077", "MAIL_PORT=8077", "HOST=127.0.0.9")
    made = [line for line in lines if re.search(r"/tid demo\b", line)]
    assert made, lines
    assert all("TID_BASE_URL=http://127.0.0.9:5077 " in line for line in made), made
    served = [line for line in lines if "tid run" in line]
    assert served and "--host 127.0.0.9 --port 5077" in served[0]
