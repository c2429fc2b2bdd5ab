"""The public calculators under attack: do the login page and a clerk's pages stay fast?

Starts gunicorn with the default settings (``TID_WEB_WORKERS`` = 4 sync workers, a 30 s
timeout, as deploy/ runs it) on a throwaway SQLite instance with the demo loaded, on
loopback. Measures, with no attack, then while the attack runs:

- the login page (``GET /login``, anonymous), and
- a signed-in clerk's petitions page (``GET /petitions/``),

each requested one after the other by one client for the phase's length (p50, p99, the
worst, and how many answers were 5xx). The attack: 8 anonymous clients, each from an address
of its own (127.0.0.11 … 127.0.0.18), each sending without pause, in turn, the heaviest
documents the bounds allow — the impost API with 5,000 properties under the largest formula
the work bound admits, the impost's result page and its CSV for 5,000 rows, and its PDF at
the most rows a PDF takes (200) — for 60 seconds. The attackers' answers are counted by
status (200, 429 past the rate or for a client with work under way, 503 when every place is
taken or the budget ran out).

The targets: p99 ≤ 1 s and no 5xx for the two measured pages during the attack.

Bounded: 60 s of attack, 20 s of baseline, every request to 127.0.0.0/8 on this machine.

Run: ``.venv/bin/python benchmarks/calc_attack.py [--seconds 60]`` (needs gunicorn, a
dependency of the app).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ATTACKERS = 8
BASELINE_SECONDS = 20.0
CLERK = "secretaria@demo.tid.pr"
PROPERTIES = 5_000
PDF_ROWS = 200


def _heaviest_formula() -> str:
    """The longest formula of this shape that the work bound (properties × the formula's
    nodes, tid.rules.limits.MAX_IMPOST_WORK) still admits for 5,000 properties."""
    from tid.rules.imposts import compile_formula
    from tid.rules.limits import MAX_IMPOST_WORK

    def formula(terms: int) -> str:
        return " + ".join(["0.0001 * assessed_value"] * terms) + " + if(rooms > 10, 5, 0)"

    terms = 1
    while PROPERTIES * compile_formula(formula(terms + 1)).size <= MAX_IMPOST_WORK:
        terms += 1
    return formula(terms)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _impost(rows: int, formula: str) -> dict[str, object]:
    return {
        "formula": formula,
        "properties": [
            {"id": f"p{i}", "assessed_value": "1000.00", "rooms": "3"} for i in range(rows)
        ],
    }


class Client:
    """One browser-like client: its own source address and its own cookies."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.port = port
        self.source = source
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, body: bytes | None = None, kind: str = ""
    ) -> tuple[int, bytes, float]:
        headers = {"Content-Type": kind} if kind else {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        start = time.perf_counter()
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=120, source_address=(self.source, 0)
        )
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
            status = response.status
        except (OSError, http.client.HTTPException):
            status, data = 599, b""  # no answer at all counts as a server failure
        finally:
            connection.close()
        return status, data, time.perf_counter() - start

    def form(self, path: str, fields: dict[str, str]) -> tuple[int, bytes, float]:
        body = urllib.parse.urlencode(fields).encode()
        return self.request("POST", path, body, "application/x-www-form-urlencoded")

    def token(self, path: str) -> str:
        _, page, _ = self.request("GET", path)
        found = re.search(rb'name="csrf_token" value="([^"]+)"', page)
        return found.group(1).decode() if found else ""


def _attack(port: int, source: str, formula: str, until: float, statuses: Counter[str]) -> None:
    client = Client(port, source)
    token = client.token("/calc/impost")
    big = json.dumps(_impost(PROPERTIES, formula))
    pdf = json.dumps(_impost(PDF_ROWS, formula))
    shots = [
        (
            "api",
            lambda: client.request("POST", "/api/v1/calc/impost", big.encode(), "application/json"),
        ),
        ("page", lambda: client.form("/calc/impost", {"csrf_token": token, "document_json": big})),
        ("csv", lambda: client.form("/calc/impost/csv", {"csrf_token": token, "document": big})),
        ("pdf", lambda: client.form("/calc/impost/pdf", {"csrf_token": token, "document": pdf})),
    ]
    turn = 0
    while time.monotonic() < until:
        name, shoot = shots[turn % len(shots)]
        status, _, _ = shoot()
        statuses[f"{name} {status}"] += 1
        turn += 1


def _measure(port: int, until: float) -> dict[str, list[tuple[int, float]]]:
    """The login page anonymously and the clerk's petitions page, in turn, until ``until``."""
    anonymous = Client(port)
    clerk = Client(port)
    token = clerk.token("/login")
    status, _, _ = clerk.form(
        "/login", {"csrf_token": token, "email": CLERK, "password": _password()}
    )
    assert status == 302, f"the clerk could not sign in ({status})"
    seen: dict[str, list[tuple[int, float]]] = {"login": [], "petitions": []}
    while time.monotonic() < until:
        status, _, took = anonymous.request("GET", "/login")
        seen["login"].append((status, took))
        status, _, took = clerk.request("GET", "/petitions/")
        seen["petitions"].append((status, took))
        time.sleep(0.05)
    return seen


def _password() -> str:
    from tid.demo import DEMO_PASSWORD

    return str(DEMO_PASSWORD)


def _line(name: str, answers: list[tuple[int, float]]) -> str:
    times = sorted(t for _, t in answers)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    failures = sum(1 for s, _ in answers if s >= 500)
    return (
        f"{name:<10} n={len(times):<4} p50 {statistics.median(times) * 1000:7.1f} ms   "
        f"p99 {p99 * 1000:7.1f} ms   worst {times[-1] * 1000:7.1f} ms   5xx {failures}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0, help="the attack's length")
    seconds = parser.parse_args().seconds
    instance = Path(tempfile.mkdtemp(prefix="tid-attack-"))
    env = {
        **os.environ,
        "TID_INSTANCE": str(instance),
        "DATABASE_URL": f"sqlite:///{instance / 'tid.sqlite'}",
    }
    tid = str(BIN / "tid")
    subprocess.run([tid, "db", "upgrade"], env=env, check=True, cwd=ROOT, capture_output=True)
    subprocess.run([tid, "demo"], env=env, check=True, cwd=ROOT, capture_output=True)
    port = _free_port()
    workers = os.environ.get("TID_WEB_WORKERS", "4")
    server = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            *("--workers", workers, "--timeout", "30"),
            *("--bind", f"127.0.0.1:{port}", "tid:create_app()"),
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            if Client(port).request("GET", "/login")[0] == 200:
                break
            time.sleep(0.1)
        quiet = _measure(port, time.monotonic() + BASELINE_SECONDS)
        formula = _heaviest_formula()
        statuses: Counter[str] = Counter()
        until = time.monotonic() + seconds
        attackers = [
            threading.Thread(
                target=_attack, args=(port, f"127.0.0.{11 + n}", formula, until, statuses)
            )
            for n in range(ATTACKERS)
        ]
        for thread in attackers:
            thread.start()
        time.sleep(2)  # the attack is under way before the measure starts
        during = _measure(port, until)
        for thread in attackers:
            thread.join()
    finally:
        server.terminate()
        server.wait(timeout=60)
    print(f"gunicorn: {workers} sync workers, SQLite with the demo; ", end="")
    print(f"{ATTACKERS} attackers for {seconds:g} s")
    print("attackers' answers: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    print(f"no attack ({BASELINE_SECONDS:g} s):")
    for name, answers in quiet.items():
        print("  " + _line(name, answers))
    print("during the attack:")
    for name, answers in during.items():
        print("  " + _line(name, answers))
    for name in during:
        q = statistics.median(t for _, t in quiet[name])
        d = statistics.median(t for _, t in during[name])
        print(f"  {name}: p50 during ÷ p50 with no attack = {d / q:.2f}")
    worst_p99 = max(
        sorted(t for _, t in a)[min(len(a) - 1, int(len(a) * 0.99))] for a in during.values()
    )
    failures = sum(1 for a in during.values() for s, _ in a if s >= 500)
    verdict = "met" if worst_p99 <= 1.0 and failures == 0 else "NOT met"
    print(f"target (p99 ≤ 1 s and no 5xx for both pages during the attack): {verdict}")


if __name__ == "__main__":
    main()
