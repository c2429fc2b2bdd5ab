"""Heavy work an attacker can ask for: do the login page and a clerk's pages stay fast?

Starts gunicorn with the default settings (``TID_WEB_WORKERS`` = 4 sync workers, a 30 s
timeout, as deploy/ runs it) on a throwaway SQLite instance with the demo loaded, on
loopback. Measures, with no attack (the baseline, once per run), then while each attack runs:

- the login page (``GET /login``, anonymous), and
- a signed-in clerk's petitions page (``GET /petitions/``),

each requested one after the other by one client for the phase's length (p50, p99, the
worst, how many answers were 5xx, and the p50's ratio to the baseline's). Each attack: 8
clients, each from an address of its own, each sending without pause:

- ``calc``: anonymous, in turn, the heaviest documents the calculators' bounds allow — the
  impost API with 5,000 properties under the largest formula the work bound admits, the
  impost's result page and its CSV for 5,000 rows, and its PDF at the most rows a PDF takes
  (200);
- ``reform``: anonymous, a saved reform stacked as deep as a reform may be saved
  (tid.rules.reform.MAX_DEPTH) holding as many changes as a stack may
  (tid.services.reform_library.MAX_STACK_CHANGES), each on a day of its own: its page in
  both languages, the page of each reform beneath it, its note (PDF), its fund page and the
  fund's CSV;
- ``thumbnail``: signed in (a thumbnail is for the petitions' readers), the thumbnail of a
  petition file's version whose PDF is crafted to take a renderer far longer than any
  budget (a page of 200,000 filled triangles: 5.6 MB of drawing, 14 KB compressed), at the
  address petition files' thumbnails have (``/petitions/file/version/<id>/thumbnail.png``);
  it measures whatever the code behind that address does. A request never draws: the
  picture is a background job's (``tid archive pictures``), not run here, so the address
  answers 404 ("not drawn yet") to every attacker, as the app means it to; the benchmark
  checks first that the version itself is there (its download answers 200), so the 404s
  are that answer and not an address that names nothing.

The attackers' answers are counted by status (200; 429 past the rate or for a client with
work under way; 503 when every place is taken or the budget ran out).

The targets: for each attack, p99 ≤ 1 s and no 5xx for the two measured pages.

Bounded: 60 s per attack (``--seconds``; ``--smoke``: 1 s per attack and a 1 s baseline,
2 attackers on 2 workers, the calc attack at 50 properties under a two-term formula and a
PDF of 5 rows, the reform attack on a reform of two changes on another, the workers warming
nothing up before their first request, about fifteen seconds in all), 20 s of baseline,
every request to 127.0.0.0/8 on this machine.

Run: ``.venv/bin/python benchmarks/calc_attack.py [--seconds 60] [--smoke]
[--attacks calc,reform,thumbnail]`` (needs gunicorn, a dependency of the app, and
pdftoppm, which the thumbnails use).
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
import zlib
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from sizes import SMOKE, no_warm_up_when_smoke, pick

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# The smoke run checks the run, not the figures: the same requests and code at sizes whose
# work ends within its second of attack (two attackers, 50 properties under a two-term
# formula, a PDF of 5 rows), so the pages measured do not wait seconds for it.
ATTACKERS = pick(8, 2)
BASELINE_SECONDS = 20.0
CLERK = "secretaria@demo.tid.pr"
PROPERTIES = pick(5_000, 50)
PDF_ROWS = pick(200, 5)
SMOKE_TERMS = 2
LOTTERY = "equalization.lottery_share_rate"
ATTACKS = ("calc", "reform", "thumbnail")


def _heaviest_formula() -> str:
    """The longest formula of this shape that the work bound (properties × the formula's
    nodes, tid.rules.limits.MAX_IMPOST_WORK) still admits for 5,000 properties; at the smoke
    size, one of two terms (the same code, little work)."""
    from tid.rules.imposts import compile_formula
    from tid.rules.limits import MAX_IMPOST_WORK

    def formula(terms: int) -> str:
        return " + ".join(["0.0001 * assessed_value"] * terms) + " + if(rooms > 10, 5, 0)"

    if SMOKE:
        return formula(SMOKE_TERMS)
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

    def multipart(
        self, path: str, fields: dict[str, str], upload: tuple[str, str, bytes]
    ) -> tuple[int, bytes, float]:
        boundary = f"tid-attack-{time.time_ns()}"
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
            for k, v in fields.items()
        ]
        name, filename, data = upload
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: application/pdf\r\n\r\n'.encode()
            + data
            + b"\r\n"
        )
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return self.request("POST", path, body, f"multipart/form-data; boundary={boundary}")

    def sign_in(self, email: str, password: str) -> None:
        token = self.token("/login")
        status, _, _ = self.form(
            "/login", {"csrf_token": token, "email": email, "password": password}
        )
        assert status == 302, f"{email} could not sign in ({status})"

    def token(self, path: str) -> str:
        _, page, _ = self.request("GET", path)
        found = re.search(rb'name="csrf_token" value="([^"]+)"', page)
        return found.group(1).decode() if found else ""


def _calc_attack(port: int, source: str, until: float, statuses: Counter[str]) -> None:
    client = Client(port, source)
    formula = _heaviest_formula()
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
    _shoot(shots, until, statuses)


Shot = tuple[str, Callable[[], tuple[int, bytes, float]]]


def _shoot(shots: list[Shot], until: float, statuses: Counter[str]) -> None:
    """Send the shots in turn, without pause, until ``until``; count the answers."""
    turn = 0
    while time.monotonic() < until:
        name, shoot = shots[turn % len(shots)]
        status, _, _ = shoot()
        statuses[f"{name} {status}"] += 1
        turn += 1


# --------------------------------------------------------------------------- a saved reform


def _reform_sizes() -> list[int]:
    """The changes of each reform of the deepest, largest stack the bounds let one save: the
    first ones as large as one reform may be, each after holding one change (at the smoke
    size, two reforms of two changes)."""
    from tid.rules.reform import MAX_CHANGES, MAX_DEPTH
    from tid.services.reform_library import MAX_STACK_CHANGES

    if SMOKE:  # a reform on a reform, of two changes each: the same pages, little work
        return [2, 2]
    sizes, left = [], MAX_STACK_CHANGES
    for level in range(MAX_DEPTH):
        size = max(1, min(MAX_CHANGES, left - (MAX_DEPTH - level - 1)))
        sizes.append(size)
        left -= size
    return sizes


def _save_reforms(clerk: Client) -> list[str]:
    """The deepest, largest stack of saved reforms, saved by the clerk: their ids, the first
    first. Every change moves the lottery's share on a day of its own."""
    ids: list[str] = []
    day = date(2024, 7, 1)
    for level, size in enumerate(_reform_sizes()):
        changes = []
        for _ in range(size):
            changes.append({"parameter": LOTTERY, "from": day.isoformat(), "value": "0.40"})
            day += timedelta(days=1)
        document: dict[str, object] = {"title": f"Stack {level + 1}", "changes": changes}
        if ids:
            document["base"] = ids[-1]
        status, body, _ = clerk.request(
            "POST", "/api/v1/reforms", json.dumps(document).encode(), "application/json"
        )
        assert status == 201, f"the reform was not saved ({status}): {body[:300]!r}"
        ids.append(json.loads(body)["id"])
    return ids


def _reform_attack(
    port: int, source: str, ids: list[str], until: float, statuses: Counter[str]
) -> None:
    client = Client(port, source)
    top = ids[-1]

    def get(path: str) -> Callable[[], tuple[int, bytes, float]]:
        return lambda: client.request("GET", path)

    shots: list[Shot] = [
        ("page", get(f"/reforms/{top}")),
        ("page-en", get(f"/reforms/{top}?lang=en")),
        ("note", get(f"/reforms/{top}/note.pdf")),
        ("fund", get(f"/reforms/{top}/fund")),
        ("fund-csv", get(f"/reforms/{top}/fund?format=csv")),
        *((f"below-{n + 1}", get(f"/reforms/{below}")) for n, below in enumerate(ids[:-1])),
    ]
    _shoot(shots, until, statuses)


# --------------------------------------------------------------------------- a thumbnail


def heavy_pdf(triangles: int = 200_000) -> bytes:
    """A one-page PDF of ``triangles`` filled triangles, one on the other: small on the
    wire, far longer to draw than any budget."""
    drawing = zlib.compress(b"0 0 m 600 800 l 600 0 l h f\n" * triangles, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(drawing)
        + drawing
        + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _attach_heavy_pdf(clerk: Client) -> str:
    """Attach the crafted PDF to a petition of the demo, through the petition's file page:
    the address of its version's thumbnail."""
    _, page, _ = clerk.request("GET", "/petitions/")
    found = re.search(rb'href="/petitions/(\d+)"', page)
    assert found, "the demo has no petition"
    petition = found.group(1).decode()
    fields = {
        "csrf_token": clerk.token(f"/petitions/{petition}/file"),
        "title": "A crafted PDF",
        "kind": "study",
        "step": "",
        "dated_on": "2025-01-15",
        "public": "no",
    }
    status, _, _ = clerk.multipart(
        f"/petitions/{petition}/file", fields, ("file", "heavy.pdf", heavy_pdf())
    )
    assert status == 302, f"the PDF was not attached ({status})"
    _, page, _ = clerk.request("GET", f"/petitions/{petition}/file")
    versions = [int(v) for v in re.findall(rb"/petitions/file/version/(\d+)", page)]
    assert versions, "the attached PDF has no version on the file page"
    version = f"/petitions/file/version/{max(versions)}"
    status, _, _ = clerk.request("GET", version)
    assert status == 200, f"the attached version is not at {version} ({status})"
    return f"{version}/thumbnail.png"


def _thumbnail_attack(
    port: int, source: str, address: str, until: float, statuses: Counter[str]
) -> None:
    client = Client(port, source)
    client.sign_in(CLERK, _password())
    _shoot([("thumbnail", lambda: client.request("GET", address))], until, statuses)


def _signed_in_clerk(port: int) -> Client:
    clerk = Client(port)
    clerk.sign_in(CLERK, _password())
    return clerk


def _measure(port: int, until: float, clerk: Client) -> dict[str, list[tuple[int, float]]]:
    """The login page anonymously and the clerk's petitions page, in turn, until ``until``."""
    anonymous = Client(port)
    seen: dict[str, list[tuple[int, float]]] = {"login": [], "petitions": []}
    while time.monotonic() < until or not seen["login"]:
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


def _p99(answers: list[tuple[int, float]]) -> float:
    times = sorted(t for _, t in answers)
    return times[min(len(times) - 1, int(len(times) * 0.99))]


def _start(env: dict[str, str], workers: str) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
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
    for _ in range(300):
        if Client(port).request("GET", "/login")[0] == 200:
            break
        time.sleep(0.1)
    return server, port


def _prepare(port: int, attacks: list[str]) -> dict[str, object]:
    """What the attacks need, made by the clerk before any is measured."""
    clerk = Client(port)
    clerk.sign_in(CLERK, _password())
    made: dict[str, object] = {}
    if "reform" in attacks:
        made["reform"] = _save_reforms(clerk)
    if "thumbnail" in attacks:
        made["thumbnail"] = _attach_heavy_pdf(clerk)
    return made


def _run_attack(
    port: int, name: str, number: int, made: object, seconds: float
) -> tuple[Counter[str], dict[str, list[tuple[int, float]]]]:
    """One attack for ``seconds``, its clients at addresses of their own; the pages measured
    while it runs."""
    statuses: Counter[str] = Counter()
    clerk = _signed_in_clerk(port)  # before the attack: its sign-in is not what is measured
    until = time.monotonic() + seconds
    attackers = []
    for n in range(ATTACKERS):
        source = f"127.0.{number + 1}.{11 + n}"
        if name == "calc":
            args: tuple[object, ...] = (port, source, until, statuses)
            target: Callable[..., None] = _calc_attack
        elif name == "reform":
            args, target = (port, source, made, until, statuses), _reform_attack
        else:
            args, target = (port, source, made, until, statuses), _thumbnail_attack
        attackers.append(threading.Thread(target=target, args=args))
    for thread in attackers:
        thread.start()
    time.sleep(min(2.0, seconds / 5))  # the attack is under way before the measure starts
    during = _measure(port, until, clerk)
    for thread in attackers:
        thread.join()
    return statuses, during


def _report(
    name: str,
    statuses: Counter[str],
    quiet: dict[str, list[tuple[int, float]]],
    during: dict[str, list[tuple[int, float]]],
) -> bool:
    print(f"attack {name!r}: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    for page, answers in during.items():
        q = statistics.median(t for _, t in quiet[page])
        d = statistics.median(t for _, t in answers)
        print(f"  {_line(page, answers)}   p50 ÷ baseline p50 = {d / q:.2f}")
    worst_p99 = max(_p99(a) for a in during.values())
    failures = sum(1 for a in during.values() for s, _ in a if s >= 500)
    met = worst_p99 <= 1.0 and failures == 0
    print(f"  target (p99 ≤ 1 s and no 5xx for both pages): {'met' if met else 'NOT met'}")
    return met


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0, help="each attack's length")
    parser.add_argument("--attacks", default=",".join(ATTACKS), help="of " + ",".join(ATTACKS))
    options = parser.parse_args()
    # the smoke: each phase long enough for a few requests of each page, no more
    seconds = pick(options.seconds, 0.3)
    baseline = pick(BASELINE_SECONDS, 0.3)
    attacks = [a for a in options.attacks.split(",") if a]
    assert set(attacks) <= set(ATTACKS), f"the attacks are {', '.join(ATTACKS)}"
    instance = Path(tempfile.mkdtemp(prefix="tid-attack-"))
    env = {
        **os.environ,
        "TID_INSTANCE": str(instance),
        "DATABASE_URL": f"sqlite:///{instance / 'tid.sqlite'}",
    }
    tid = str(BIN / "tid")
    subprocess.run([tid, "db", "upgrade"], env=env, check=True, cwd=ROOT, capture_output=True)
    subprocess.run([tid, "demo"], env=env, check=True, cwd=ROOT, capture_output=True)
    no_warm_up_when_smoke(instance)
    # the smoke runs the same code on two workers: it checks the run, not the figures
    workers = os.environ.get("TID_WEB_WORKERS", pick("4", "2"))
    server, port = _start(env, workers)
    results = []
    try:
        made = _prepare(port, attacks)
        quiet = _measure(port, time.monotonic() + baseline, _signed_in_clerk(port))
        for number, name in enumerate(attacks):
            statuses, during = _run_attack(port, name, number, made.get(name), seconds)
            results.append((name, statuses, during))
    finally:
        server.terminate()
        server.wait(timeout=60)
    print(
        f"gunicorn: {workers} sync workers, SQLite with the demo; {ATTACKERS} attackers, ", end=""
    )
    print(f"{seconds:g} s per attack")
    print(f"no attack ({baseline:g} s):")
    for name, answers in quiet.items():
        print("  " + _line(name, answers))
    verdicts = [_report(name, statuses, quiet, during) for name, statuses, during in results]
    print(f"every attack's target: {'met' if all(verdicts) else 'NOT met'}")


if __name__ == "__main__":
    main()
