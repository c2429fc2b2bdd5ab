"""The clerk's search over the petitions' files on PostgreSQL: a throwaway server (as the
tests start it, tests/pg.py), the demo with N generated documents (``tid demo --documents
N``; 10,000 by default, what ``tid demo --large`` attaches), then the search page for a
handful of queries (a common word, a rare one, two words, an accented word written without
its accent, an English word) and the login page, alternating, each request timed in this
process through the app's WSGI interface (no network, no other load).

Prints each query's hits and p50, the search's p50 over all queries, the login page's p50
and their ratio. Target: search p50 ≤ 100 ms with 10,000 documents.

Run: ``.venv/bin/python benchmarks/search.py [--documents N] [--rounds R]``
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sizes import pick  # noqa: E402
from sqlalchemy import text  # noqa: E402

from tests.pg import ThrowawayPostgres  # noqa: E402
from tid.db import make_engine  # noqa: E402
from tid.demo import DEMO_PASSWORD  # noqa: E402

BIN = Path(sys.executable).parent
QUERIES = ("informe", "expediente 04321", "aceras alumbrado", "participacion", "sidewalks")


def _p50(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=pick(10_000, 50))
    parser.add_argument("--rounds", type=int, default=pick(40, 1))
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tid-bench-search-"))
    server = ThrowawayPostgres()
    server.start()
    try:
        admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("CREATE DATABASE tid"))
        admin.dispose()
        url = server.url("tid")
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "TID_INSTANCE": str(folder / "instance"),
            "TID_SECRET_KEY": secrets.token_hex(32),
        }
        tid = str(BIN / "tid")
        subprocess.run([tid, "db", "upgrade"], check=True, env=env, capture_output=True)
        started = time.monotonic()
        made = subprocess.run(
            [tid, "demo", "--documents", str(args.documents)],
            env=env,
            capture_output=True,
            text=True,
        )
        if made.returncode:
            sys.exit(f"tid demo --documents failed:\n{made.stderr[-3000:]}")
        line = next(x for x in made.stdout.splitlines() if "documents added" in x)
        print(f"{line} (with the demo: {time.monotonic() - started:.0f} s in all)")
        with make_engine(url, isolation_level="AUTOCOMMIT").connect() as conn:
            conn.execute(text("ANALYZE"))
            entries = conn.execute(text("SELECT count(*) FROM search_entry")).scalar_one()
        print(f"search entries: {entries}")
        os.environ.update(env)
        from tid import create_app

        app = create_app({"DATABASE_URL": url, "WTF_CSRF_ENABLED": False, "PDF_WARM_UP": False})
        client = app.test_client()
        answer = client.post(
            "/login", data={"email": "secretaria@demo.tid.pr", "password": DEMO_PASSWORD}
        )
        if answer.status_code != 302:
            sys.exit("could not log in as the demo's clerk")
        anonymous = app.test_client()
        timings: dict[str, list[float]] = {q: [] for q in QUERIES}
        login: list[float] = []
        hits: dict[str, int] = {}
        for round_number in range(args.rounds + 2):
            for query in QUERIES:
                begun = time.perf_counter()
                page = client.get("/petitions/search", query_string={"q": query})
                spent = time.perf_counter() - begun
                assert page.status_code == 200, page.status_code
                hits[query] = page.get_data(as_text=True).count("<li>\n      ")
                begun = time.perf_counter()
                assert anonymous.get("/login").status_code == 200
                login_spent = time.perf_counter() - begun
                if round_number >= 2:  # the first two rounds warm the caches
                    timings[query].append(spent)
                    login.append(login_spent)
        for query in QUERIES:
            print(f"  {query!r:24} {hits[query]:>3} hits shown  p50 {_p50(timings[query]):7.1f} ms")
        search_p50 = _p50([t for values in timings.values() for t in values])
        login_p50 = _p50(login)
        print(
            f"search p50 {search_p50:.1f} ms over {args.documents} documents; login page p50 "
            f"{login_p50:.1f} ms; ratio {search_p50 / login_p50:.1f}× "
            f"(target: search ≤ 100 ms) — {'met' if search_p50 <= 100 else 'NOT met'}"
        )
        app.extensions["tid.engine"].dispose()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
