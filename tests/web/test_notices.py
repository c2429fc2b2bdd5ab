"""The association's notice pages: the 30-day dashboard, a notice run, article numbers,
mailing with the manifest, delivery reports and re-mailing; other districts out of reach."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login, make_test_app
from tests.pdf_checks import assert_archival
from tests.services.notice_support import SENDER, article, make_ordinance, make_run, pdf_text
from tid import tasks
from tid.models import Notice, NoticeBatch
from tid.services import audit, notices


def _client(database_url: str, tmp_path: Path, day: str) -> FlaskClient:
    app = make_test_app(database_url, tmp_path, TODAY=day)
    return app.test_client()


def test_association_prepares_mails_and_remails_notices(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district, received=date(2026, 1, 5))
    billed = make_run(session, people.district, ordinance, owners=["Ana Ruiz", "Beto Cruz"])
    session.commit()
    client = _client(database_url, tmp_path, "2026-01-20")
    login(client, people.association)

    page = client.get("/notices").get_data(as_text=True)
    assert people.district.name in page and "2025-26" in page
    # Received 2026-01-05: the 30 days end 2026-02-04, 15 days after 2026-01-20.
    assert ">15<" in page.replace(" ", "")

    form = client.get(f"/notices/runs/{billed.run.id}/new")
    assert form.status_code == 200
    bad = client.post(
        f"/notices/runs/{billed.run.id}/new",
        data={**SENDER, "sender_name": "", "issued_on": "2026-01-20"},
    )
    assert bad.status_code == 422 and 'aria-invalid="true"' in bad.get_data(as_text=True)
    done = client.post(
        f"/notices/runs/{billed.run.id}/new", data={**SENDER, "issued_on": "2026-01-20"}
    )
    # The run is a background job: the page shows it waiting, a worker runs it, and the
    # same page then links to the notices. The same form sent again starts nothing new.
    assert done.status_code == 302 and "job=" in done.location
    waiting = client.get(done.location).get_data(as_text=True)
    assert "data-job-status" in waiting and 'http-equiv="refresh"' in waiting
    token = 'name="job_token" value="'
    assert tasks.run_pending(client.application) == 1
    finished = client.get(done.location).get_data(as_text=True)
    assert "data-job-status" not in finished and 'http-equiv="refresh"' not in finished
    link = finished.split('class="job-result" href="')[1].split('"')[0]
    session.expire_all()
    batch = session.get(NoticeBatch, int(link.rstrip("/").split("/")[-1]))
    assert batch is not None and batch.notice_count == 2
    assert token in finished
    found = notices.batch_notices(session, batch.id or 0)

    printed = client.get(f"/notices/batches/{batch.id}/print.pdf")
    assert printed.status_code == 200 and found[0].number in pdf_text(printed.data)
    assert_archival(printed.data, lang="es")

    csv = "".join(f"{n.number},{article(300 + i)}\n" for i, n in enumerate(found))
    response = client.post(
        f"/notices/batches/{batch.id}/articles",
        data={"file": (io.BytesIO(csv.encode()), "articles.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    mailed = client.post(
        f"/notices/batches/{batch.id}/mail",
        data={"mailed_on": "2026-01-20", "postage": "0.73", "certified_fee": "4.85"},
    )
    assert mailed.status_code == 302
    assert tasks.run_pending(client.application) == 1
    manifest = client.get(f"/notices/batches/{batch.id}/manifest.pdf")
    text = pdf_text(manifest.data)
    assert "PS Form 3877" in text and "$11.16" in text  # 2 × ($0.73 + $4.85)
    assert_archival(manifest.data, lang="en")

    session.expire_all()
    first = session.get(Notice, found[0].id)
    assert first is not None and first.mailed_on == date(2026, 1, 20)
    report = f"{first.article_number},refused,2026-01-20\n"
    client.post(
        "/notices/deliveries",
        data={"file": (io.BytesIO(report.encode()), "deliveries.csv")},
        content_type="multipart/form-data",
    )
    again = client.post(f"/notices/{first.id}/remail", data={"new_address": ""})
    assert again.status_code == 302
    assert tasks.run_pending(client.application) == 1
    session.expire_all()
    replacement = session.exec(select(Notice).where(Notice.remailing_of_id == first.id)).first()
    assert replacement is not None and replacement.bill_id == first.bill_id

    own = client.get(f"/notices/{replacement.id}.pdf")
    assert own.status_code == 200 and replacement.number in pdf_text(own.data)
    assert_archival(own.data, lang="es")


def test_other_districts_notices_are_forbidden(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance)
    batch = notices.create_batch(
        session=session,
        actor=audit.SYSTEM,
        billing_run_id=billed.run.id or 0,
        issued_on=date(2026, 1, 20),
        portal_base_url="http://127.0.0.1",
        secret="test-secret-key",
        workers=1,
        **SENDER,
    )
    session.commit()
    notice = notices.batch_notices(session, batch.id or 0)[0]
    client = _client(database_url, tmp_path, "2026-01-20")
    login(client, people.other_association)
    for url in (
        f"/notices/batches/{batch.id}",
        f"/notices/batches/{batch.id}/print.pdf",
        f"/notices/{notice.id}.pdf",
        f"/notices/runs/{billed.run.id}/new",
    ):
        assert client.get(url).status_code == 403, url
    assert people.district.name not in client.get("/notices").get_data(as_text=True)
    client.post("/logout")
    login(client, people.other_clerk)
    assert client.get(f"/notices/{notice.id}.pdf").status_code == 403
    client.post("/logout")
    login(client, people.clerk)
    assert client.get(f"/notices/{notice.id}.pdf").status_code == 200
