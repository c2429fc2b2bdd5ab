"""The documents of record at a real district's size: the yearly statement's PDF and the
delinquency list's PDF — and the CSV files that hold their detail (the year's journal, the
aging, the delinquency list) — of the large-district generator's district (``tid demo --large``) at
2,000 and 20,000 properties × 10 fiscal years, each made by the job worker's own code (the
``account.pdf`` job: queued as the web queues it, run by ``tasks.run_pending``) in a child
process of its own, timed, with the child's peak resident memory (its ``VmHWM``: the
worker's peak, the database's pages and the layout's included).

Baseline, in the same run: the same documents of a district of the demo's size (500
properties × 1 fiscal year), made the same way; each figure is printed with its ratio to it.
Targets: every document's worker peak ≤ 512 MiB, and its time linear in its pages (the
seconds per page are printed beside the pages).

The districts are generated once and kept under the temporary folder
(``/tmp/tid-bench-documents-<properties>x<years>-<schema>.sqlite``, reused while the models
are unchanged); each run works on a copy.

Run: ``.venv/bin/python benchmarks/documents.py [--sizes 2000,20000] [--years 10]``
(``--smoke``: 20 properties × 1 year, the baseline's size, measured once, its five documents
made by one child process: the same job's code, one start of the app instead of five).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sizes import SMOKE, pick  # noqa: E402

# The PDFs, and the CSV files that hold their detail (pages for a PDF, rows for a CSV).
DOCUMENTS = ("statement", "delinquency", "journal.csv", "aging.csv", "delinquency.csv")
LIMIT_MIB = 512
CHILD = "--child"


def _schema() -> str:
    """A digest of the models: a kept district is made again when they change."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "tid" / "models").rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def district_file(properties: int, years: int) -> Path:
    """The generated district's SQLite file, made now unless kept from an earlier run."""
    kept = Path(tempfile.gettempdir()) / (
        f"tid-bench-documents-{properties}x{years}-{_schema()}.sqlite"
    )
    if kept.exists():
        return kept
    from sqlalchemy import text
    from sqlmodel import Session, SQLModel

    import tid.models  # noqa: F401  (every table)
    from tid.db import make_engine
    from tid.demo.large_district import make_large_district

    part = kept.with_suffix(".part")
    part.unlink(missing_ok=True)
    engine = make_engine(f"sqlite:///{part}")
    SQLModel.metadata.create_all(engine)
    with Session(engine, expire_on_commit=False) as session:
        made = make_large_district(session, properties=properties, years=years, user_email=None)
        session.commit()
    with engine.connect() as conn:
        conn.execute(text("ANALYZE"))
        conn.commit()
    engine.dispose()
    part.rename(kept)
    lines, seconds = made.lines, made.seconds
    print(f"generated {properties:,} × {years}: {lines:,} journal lines in {seconds:.0f} s")
    return kept


def child(database: str, whiches: str) -> None:
    """In the child process: run the ``account.pdf`` job for each of ``whiches`` (comma
    separated) of the district in ``database`` as the worker does, and print, a line each,
    what it made and the process's peak so far."""
    from tid import create_app

    folder = Path(database).parent
    app = create_app(
        {
            "DATABASE_URL": f"sqlite:///{database}",
            "INSTANCE_PATH": str(folder),
            "SECRET_KEY": "benchmark-secret",
            "REDIS_URL": "",
            "PDF_WARM_UP": False,
            "PAGE_WARM_UP": False,  # a worker's job serves no page
        }
    )
    for which in whiches.split(","):
        print(json.dumps(_make(app, which)))


def _make(app: Any, which: str) -> dict[str, Any]:
    """Run the ``account.pdf`` job for ``which`` as the worker does: what it made, how long
    it took and the process's peak."""
    from pypdf import PdfReader
    from sqlmodel import Session, select

    from tid.jobs import background_jobs as jobs
    from tid.jobs import tasks
    from tid.models import District
    from tid.services import notices
    from tid.services.audit_trail import audit

    with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
        district_id = session.exec(select(District.id)).first() or 0
        started = time.perf_counter()
        job, _created = jobs.start(
            session=session,
            token=jobs.new_token(),
            kind=tasks.ACCOUNT_PDF,
            actor=audit.Actor("benchmark"),
            params={"which": which, "district_id": district_id, "query": {}},
            district_id=district_id,
            target=f"pdf:{which}:{district_id}",
        )
        tasks.enqueue(app, job.id or 0)
        assert tasks.run_pending(app) >= 1
        session.refresh(job)
        seconds = time.perf_counter() - started
        if job.state != "done" or not job.result_sha256:
            raise SystemExit(f"job {job.id} {job.state}: {job.error} {job.error_params}")
        data = notices.archived_bytes(session=session, sha256=job.result_sha256)
    is_pdf = data.startswith(b"%PDF")
    pages = len(PdfReader(io.BytesIO(data)).pages) if is_pdf else data.count(b"\n") - 1
    peak = _peak_mib()
    return {"seconds": seconds, "mib": peak, "pages": pages, "bytes": len(data)}


def _peak_mib() -> float:
    """This process's peak resident memory since it began its program: ``VmHWM``, which a
    new program starts afresh (``ru_maxrss`` keeps, across the exec, the peak of the process
    that spawned it: the parent's, when it had just generated a large district)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(kept: Path, whiches: tuple[str, ...], folder: Path) -> list[dict[str, Any]]:
    """Make ``whiches`` in a child process, on a copy of the district ``kept``."""
    which = ",".join(whiches)
    work = folder / which
    work.mkdir()
    database = work / "district.sqlite"
    shutil.copyfile(kept, database)
    done = subprocess.run(
        [sys.executable, __file__, CHILD, str(database), which],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise SystemExit(f"{which}: the child failed\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    shutil.rmtree(work)
    lines = done.stdout.strip().splitlines()[-len(whiches) :]
    return [json.loads(line) for line in lines]


def measure_each(kept: Path, folder: Path) -> dict[str, dict[str, Any]]:
    """Each document made in a child process of its own (at the smoke size, where only the
    run is checked, all in one: one start of the app)."""
    if SMOKE:
        return dict(zip(DOCUMENTS, measure(kept, DOCUMENTS, folder), strict=True))
    return {which: measure(kept, (which,), folder)[0] for which in DOCUMENTS}


def _line(size: str, which: str, got: dict[str, Any], base: dict[str, Any]) -> str:
    per_page = got["seconds"] / max(got["pages"], 1)
    verdict = "ok" if got["mib"] <= LIMIT_MIB else "MISSED"
    return (
        f"{size:<14}{which:<16}{got['pages']:>7}{got['seconds']:>9.1f} s{per_page * 1000:>9.2f} ms"
        f"{got['mib']:>9.0f} MiB{got['seconds'] / base['seconds']:>9.1f}×"
        f"{got['mib'] / base['mib']:>8.1f}×  {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=pick("2000,20000", "20"))
    parser.add_argument("--years", type=int, default=pick(10, 1))
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(f"load average before: {' '.join(load)}")
    baseline_size = (pick(500, 20), pick(1, 1))
    ok = True
    with tempfile.TemporaryDirectory(prefix="tid-bench-documents-") as name:
        folder = Path(name)
        small = district_file(*baseline_size)
        base = measure_each(small, folder)
        print(
            f"{'district':<14}{'document':<16}{'pages':>7}{'time':>11}{'per page':>12}"
            f"{'peak':>13}{'time÷base':>10}{'mem÷base':>9}  target peak ≤ {LIMIT_MIB} MiB"
        )
        label = f"{baseline_size[0]:,}×{baseline_size[1]}"
        for which in DOCUMENTS:
            print(_line(label + " (base)", which, base[which], base[which]))
        for properties in sizes:
            kept = district_file(properties, args.years)
            for which in DOCUMENTS:
                # the baseline's own size (the smoke's) is measured once
                same = (properties, args.years) == baseline_size
                got = base[which] if same else measure(kept, (which,), folder)[0]
                ok = ok and got["mib"] <= LIMIT_MIB
                print(_line(f"{properties:,}×{args.years}", which, got, base[which]))
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(f"load average after: {' '.join(load)}")
    print("\nall targets met" if ok else "\nsome targets MISSED")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == CHILD:
        child(sys.argv[2], sys.argv[3])
    else:
        main()
