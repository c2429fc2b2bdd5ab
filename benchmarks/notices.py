"""Speed of the certified-mail notice run (21 LPRA § 6653(5)) against a naive loop.

The full run for N owners (default 2,000), on a fresh SQLite database in a temporary folder,
as the web starts it: a background job on the queue (SqliteHuey in the instance folder),
taken and run by the worker's own code (``tasks.run_pending``: dequeue, claim, run, mark
done in the work's transaction). The job is ``notices.create_batch`` (one bilingual PDF per
owner, archived with its SHA-256, and the merged print-ready PDF); then the article numbers
from a CSV file, and the mailing job (``notices.mail_batch``: the PS Form 3877 manifest,
archived). Before the mailing, the draft manifest's job (``notices.manifest``) and its
link's look-up, as a request makes it, are timed apart (not in the run's time). The naive
loop renders each notice as its own WeasyPrint document
(``tid.render.notice.render_one_naive``) for a sample of 200 notices of the same content, in
this process; the ratio compares notices per second.

Peak memory is the largest resident set of this process and of any child process
(``resource.getrusage``: RUSAGE_SELF and RUSAGE_CHILDREN, maxrss).

Run: ``.venv/bin/python benchmarks/notices.py 20000`` (``--sample 200``, ``--workers 2``)
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import Flask
from sizes import pick
from sqlmodel import Session, SQLModel, select

import tid.models  # noqa: F401  (every table)
from tid import create_app
from tid.demo import records
from tid.jobs import background_jobs as jobs
from tid.jobs import tasks
from tid.models import (
    Bill,
    District,
    Job,
    Municipality,
    NoticeBatch,
    Property,
    PropertyYear,
)
from tid.render import notice as notice_pdf
from tid.rules.certified_mail import check_digit
from tid.services import notices
from tid.services.audit_trail import audit

ACTOR = audit.Actor("benchmark")
ISSUED = date(2026, 1, 20)
FIRST_NAMES = ["María", "José", "Carmen", "Luis", "Ana", "Jorge", "Rosa", "Pedro", "Lucía"]
LAST_NAMES = ["Rodríguez", "Rivera", "Pérez", "Ortiz", "Colón", "Santiago", "Vázquez"]


def _article(seed: int) -> str:
    body = "9400" + f"{seed:017d}"
    return body + str(check_digit(body))


def _setup(session: Session, n: int) -> int:
    """A district, its ordinance and a billing run of ``n`` bills; returns the run's id."""
    municipality = Municipality(name="San Juan")
    session.add(municipality)
    session.flush()
    district = District(
        municipality_id=municipality.id or 0,
        name="Distrito de Mejoramiento Turístico del Viejo San Juan",
        association_name="Asociación del Distrito del Viejo San Juan, Inc.",
    )
    session.add(district)
    session.flush()
    ordinance = records.ordinance(
        session,
        municipality_id=municipality.id or 0,
        district_id=district.id or 0,
        district_name=district.name,
        petitioner="Alcalde",
        received_on=date(2025, 9, 1),
        number="Ord. 12, Serie 2025-2026",
        expected_amount=Decimal("2500000.00"),
        term_years=5,
        formula="0.01 * assessed_value",
        association_name=district.association_name,
        issued_on=date(2025, 11, 20),
        approved_on=date(2025, 12, 1),
        received_by_association_on=date(2026, 1, 5),
    )
    roll = records.roll_import(
        session,
        district_id=district.id or 0,
        fiscal_year="2025-26",
        sha256="0" * 64,
        rows=n,
        actor="benchmark",
    )
    run = records.billing_run(
        session,
        ordinance,
        fiscal_year="2025-26",
        property_count=n,
        run_on=date(2026, 1, 10),
        due_date=date(2026, 4, 30),
        fingerprint="0" * 64,
        actor="benchmark",
    )
    properties = [
        Property(
            district_id=district.id or 0,
            cadastral_number=f"040-{i // 1000:03d}-{i % 1000:03d}-05",
            physical_address=f"Calle Fortaleza {100 + i % 400}, San Juan",
        )
        for i in range(n)
    ]
    session.add_all(properties)
    session.flush()
    years = [
        PropertyYear(
            property_id=p.id or 0,
            district_id=district.id or 0,
            fiscal_year="2025-26",
            roll_import_id=roll.id or 0,
            owner_names=f"{FIRST_NAMES[i % 9]} {LAST_NAMES[i % 7]} {LAST_NAMES[(i // 7) % 7]}",
            mailing_urbanization="URB EL VEDADO" if i % 3 == 0 else "",
            mailing_line1=f"Calle Luna {10 + i % 90} Apt {i % 12 + 1}",
            mailing_city="San Juan",
            mailing_zip="00901-1234",
            physical_address=p.physical_address,
            assessed_value=Decimal(150000 + 37 * i),
        )
        for i, p in enumerate(properties)
    ]
    session.add_all(years)
    session.flush()
    bills = []
    for i, (p, y) in enumerate(zip(properties, years, strict=True)):
        amount = Decimal(1500 + (37 * i) // 100) + Decimal(i % 100) / 100
        bills.append(
            Bill(
                billing_run_id=run.id or 0,
                district_id=district.id or 0,
                property_id=p.id or 0,
                property_year_id=y.id or 0,
                fiscal_year="2025-26",
                amount=amount,
                explanation=f"1% of the assessed value ${y.assessed_value:,.2f} = ${amount:,.2f}",
                explanation_es=f"1% del valor tasado ${y.assessed_value:,.2f} = ${amount:,.2f}",
                due_date=date(2026, 4, 30),
            )
        )
    session.add_all(bills)
    session.commit()
    return run.id or 0


def _run_job(app: Flask, session: Session, kind: str, params: dict[str, Any]) -> Job:
    """Queue a job as the web does and run it as ``tid worker`` does; it must finish."""
    job, _created = jobs.start(
        session=session,
        token=jobs.new_token(),
        kind=kind,
        actor=ACTOR,
        params=params,
        district_id=None,
    )
    tasks.enqueue(app, job.id or 0)
    assert tasks.run_pending(app) >= 1  # the job, and the tasks it queues after it
    session.refresh(job)
    if job.state != "done":
        raise SystemExit(f"job {job.id} ({kind}) {job.state}: {job.error} {job.error_params}")
    return job


def _draft_manifest(app: Flask, session: Session, batch: NoticeBatch) -> float:
    """The draft PS Form 3877 before the mailing: laid out by its job, then found by the
    manifest's link as a request finds it (the run's rows read, the shelf looked up)."""
    from tid.app_reader import reader
    from tid.documents import notices as notice_documents

    params = {"batch_id": batch.id, "district_id": batch.district_id}
    started = time.perf_counter()
    job = _run_job(app, session, tasks.NOTICES_MANIFEST, params)
    laid_out = time.perf_counter() - started
    with app.test_request_context("/"):
        started = time.perf_counter()
        found = notice_documents.prepared_manifest(
            session, batch=batch.id or 0, reader=reader(job.locale)
        )
        looked_up = time.perf_counter() - started
    assert found is not None
    print(
        f"  draft manifest: its job {laid_out:.2f} s ({len(found.data) / 1024:.0f} KiB), "
        f"found by its link in {looked_up * 1000:.0f} ms (no layout)"
    )
    return laid_out + looked_up


def _peak_mib() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=pick(2000, 20))
    parser.add_argument(
        "--sample", type=int, default=pick(200, 5), help="notices in the naive loop"
    )
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "DATABASE_URL": f"sqlite:///{Path(folder) / 'bench.sqlite'}",
                "INSTANCE_PATH": folder,
                "SECRET_KEY": "benchmark-secret",
                "REDIS_URL": "",
                "PDF_WARM_UP": False,  # the benchmark's own work alone
                "PAGE_WARM_UP": False,
            }
        )
        engine = app.extensions["tid.engine"]
        SQLModel.metadata.create_all(engine)
        with Session(engine, expire_on_commit=False) as session:
            started = time.perf_counter()
            run_id = _setup(session, args.n)
            print(f"setup: {args.n} bills in {time.perf_counter() - started:.1f} s (not timed)")

            started = time.perf_counter()
            job = _run_job(
                app,
                session,
                tasks.NOTICES_CREATE,
                {
                    "billing_run_id": run_id,
                    "issued_on": ISSUED.isoformat(),
                    "sender_name": "Asociación del Distrito del Viejo San Juan, Inc.",
                    "sender_address": "PO Box 9020\nSan Juan PR 00902-0000",
                    "how_to_pay": "Cheque o giro a nombre de la Asociación.",
                    "how_to_pay_en": "Check or money order to the Association.",
                    "portal_base_url": "https://tid.example.pr",
                    "workers": args.workers,
                },
            )
            batch = session.exec(select(NoticeBatch)).one()
            rendered = time.perf_counter()
            print(f"  job {job.id}: {job.state}, progress {job.done}/{job.total}")
            found = notices.batch_notices(session=session, batch_id=batch.id or 0)
            csv_text = "notice,article\n" + "".join(
                f"{n.number},{_article(len(found) - i)}\n" for i, n in enumerate(found)
            )
            notices.import_article_numbers(
                session=session, actor=ACTOR, batch_id=batch.id or 0, data=csv_text.encode()
            )
            session.commit()
            drafted = _draft_manifest(app, session, batch)  # not counted in the run's time
            _run_job(
                app,
                session,
                tasks.NOTICES_MAIL,
                {
                    "batch_id": batch.id,
                    "mailed_on": "2026-01-22",
                    "postage": "0.73",
                    "certified_fee": "4.85",
                    "today": "2026-01-22",
                },
            )
            session.refresh(batch)
            finished = time.perf_counter()
            total = finished - started - drafted
            print_size = len(notices.archived_bytes(session=session, sha256=batch.print_sha256))
            manifest_size = len(
                notices.archived_bytes(session=session, sha256=batch.manifest_sha256)
            )
            sizes = [n.page_count for n in found]
            fast_rate = args.n / total
            print(
                f"notice run: {args.n} notices in {total:.1f} s "
                f"(render+archive {rendered - started:.1f} s, articles+mailing+manifest "
                f"{finished - rendered - drafted:.1f} s) = {fast_rate:.1f} notices/s"
            )
            print(
                f"  print file {batch.page_count} pages, {print_size / 2**20:.1f} MiB; "
                f"per-notice pages min {min(sizes)} max {max(sizes)}; "
                f"manifest {manifest_size / 1024:.0f} KiB"
            )
            sample = [
                notice_pdf.NoticeContent(
                    number=f"2026-{i:06d}",
                    access_code=notices.new_access_code(),
                    portal_url=notices.portal_url("https://tid.example.pr", f"2026-{i:06d}"),
                    issued_on=ISSUED,
                    kind="initial",
                    sender_name="Asociación del Distrito del Viejo San Juan, Inc.",
                    sender_lines=("PO Box 9020", "San Juan PR 00902-0000"),
                    association_name="Asociación del Distrito del Viejo San Juan, Inc.",
                    district_name="Distrito de Mejoramiento Turístico del Viejo San Juan",
                    municipality_name="San Juan",
                    ordinance_number="Ord. 12, Serie 2025-2026",
                    ordinance_issued_on=date(2025, 11, 20),
                    ordinance_approved_on=date(2025, 12, 1),
                    term_years=5,
                    period_label="2025-26",
                    cadastral_number=f"040-000-{i:03d}-05",
                    property_address="Calle Fortaleza 100, San Juan",
                    owner_name=n.owner_name,
                    mailing_lines=tuple(n.mailing_address.splitlines()),
                    amount=n.amount,
                    explanation="1% of the assessed value …",
                    explanation_es="1% del valor tasado …",
                    due_on=n.due_date,
                    how_to_pay="Cheque o giro a nombre de la Asociación.",
                    how_to_pay_en="Check or money order to the Association.",
                    lien_effective_on=date(2010, 1, 15),
                )
                for i, n in enumerate(found[: args.sample])
            ]
        engine.dispose()

    own, children = _peak_mib()
    started = time.perf_counter()
    for content in sample:
        notice_pdf.render_one_naive(content)
    naive = time.perf_counter() - started
    naive_rate = len(sample) / naive
    print(
        f"naive loop: {len(sample)} notices, one WeasyPrint document each, in {naive:.1f} s "
        f"= {naive_rate:.2f} notices/s"
    )
    print(f"speed-up: {fast_rate / naive_rate:.1f}x notices per second (target >= 8x)")
    print(
        f"peak memory (maxrss) during the notice run: this process {own:.0f} MiB, "
        f"largest child {children:.0f} MiB (target < 1024 MiB)"
    )


if __name__ == "__main__":
    main()
