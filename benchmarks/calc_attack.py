"""The public calculators under attack: does the home page stay fast?

Starts gunicorn (2 sync workers, the shape of the report) on a throwaway SQLite instance on
loopback, measures the home page's latency alone (the baseline), then again while two dozen
copies of the report's attack — a formula of 30 constant terms, once exponential — are sent
to ``POST /api/v1/calc/impost`` from 24 threads at once. Prints each attack's answer time and
status, the home page's p50 and p95 in both phases and their ratio.

Bounded: 24 attack requests and 60 home-page requests per phase, all to 127.0.0.1.

Run: ``.venv/bin/python benchmarks/calc_attack.py`` (needs gunicorn: ``pip install gunicorn``)
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ATTACKS = 24
PAGES = 60
FORMULA = "+".join(["1"] * 30) + " + assessed_value"
DOCUMENT = {"formula": FORMULA, "properties": [{"id": "p", "assessed_value": "1"}]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _get(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
    return time.perf_counter() - start


def _attack(url: str, out: list[tuple[float, int, str]]) -> None:
    body = json.dumps(DOCUMENT).encode()
    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, total = response.status, json.loads(response.read())["total"]
    except urllib.error.HTTPError as err:
        status, total = err.code, ""
    out.append((time.perf_counter() - start, status, total))


def _pages(url: str) -> list[float]:
    return [_get(url) for _ in range(PAGES)]


def _summary(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.95) - 1] * 1000


def main() -> None:
    instance = Path(tempfile.mkdtemp(prefix="tid-attack-"))
    env = {
        **os.environ,
        "TID_INSTANCE": str(instance),
        "DATABASE_URL": f"sqlite:///{instance / 'tid.sqlite'}",
        "TID_CALC_RATE_LIMIT": "1000",  # this benchmark measures the cost, not the limit
    }
    subprocess.run([str(BIN / "tid"), "db", "upgrade"], env=env, check=True, cwd=ROOT)
    port = _free_port()
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "-w", "2", "-b", f"127.0.0.1:{port}", "tid:create_app()"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                _get(base + "/")
                break
            except OSError:
                time.sleep(0.1)
        alone = _pages(base + "/")
        results: list[tuple[float, int, str]] = []
        threads = [
            threading.Thread(target=_attack, args=(base + "/api/v1/calc/impost", results))
            for _ in range(ATTACKS)
        ]
        for thread in threads:
            thread.start()
        during = _pages(base + "/")
        for thread in threads:
            thread.join()
    finally:
        server.terminate()
        server.wait(timeout=30)
    statuses = sorted({status for _, status, _ in results})
    totals = sorted({total for _, _, total in results})
    slowest = max(t for t, _, _ in results) * 1000
    print(f"{ATTACKS} attacks at once: statuses {statuses}, totals {totals}, ", end="")
    print(f"slowest {slowest:.0f} ms")
    p50_alone, p95_alone = _summary(alone)
    p50_during, p95_during = _summary(during)
    print(f"home page alone:          p50 {p50_alone:.1f} ms, p95 {p95_alone:.1f} ms")
    print(f"home page during attacks: p50 {p50_during:.1f} ms, p95 {p95_during:.1f} ms")
    print(f"ratio of the p50s (during ÷ alone): {p50_during / p50_alone:.2f}")


if __name__ == "__main__":
    main()
