"""The association's notice pages: the 30-day dashboard, a notice run, article numbers,
mailing with the manifest, delivery reports and re-mailing; other districts out of reach."""

from __future__ import annotations

import html
import io
import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login, make_test_app
from tests.pdf_checks import assert_archival, pdf_text
from tests.services.notice_support import SENDER, article, issue_notices, make_ordinance, make_run
from tid.jobs import tasks
from tid.models import Notice, NoticeBatch
from tid.render import pdf
from tid.services import notices
from tid.services.audit_trail import audit


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
    # Done: the page shows the result, not the form again (a link offers another run).
    assert token not in finished and "Avisos por correo certificado" in finished
    found = notices.batch_notices(session=session, batch_id=batch.id or 0)

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
    fees = client.post(
        f"/notices/batches/{batch.id}/fees", data={"postage": "0.73", "certified_fee": "4.85"}
    )
    assert fees.status_code == 302
    mailed = client.post(f"/notices/batches/{batch.id}/mail", data={"mailed_on": "2026-01-20"})
    assert mailed.status_code == 302
    # the mailing, then the owners' digital copies it queues once it is recorded
    assert tasks.run_pending(client.application) == 2
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
    run_page = f"/notices/batches/{batch.id}"
    remail = f"/notices/{first.id}/remail"
    # The returned notice, and it alone, may be mailed again: once.
    assert client.get(run_page).get_data(as_text=True).count("/remail") == 1
    assert remail in client.get(run_page).get_data(as_text=True)
    again = client.post(remail, data={"new_address": ""})
    assert again.status_code == 302
    assert tasks.run_pending(client.application) == 1
    assert remail not in client.get(run_page).get_data(as_text=True)
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
    batch, (notice, *_rest) = issue_notices(session, billed)
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


def test_the_run_page_sets_postage_before_the_manifest_and_filters_by_delivery(
    database_url: str,
    tmp_path: Path,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(pdf.KEPT_BYTES))  # no other test's manifest
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, owners=["Ana", "Beto", "Carla"])
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
    found = notices.batch_notices(session=session, batch_id=batch.id or 0)
    for i, notice in enumerate(found):
        notices.set_article_number(
            session=session,
            actor=audit.SYSTEM,
            notice_id=notice.id or 0,
            article_number=article(700 + i),
        )
    session.commit()
    client = _client(database_url, tmp_path, "2026-01-21")
    login(client, people.association)
    page = client.get(f"/notices/batches/{batch.id}").get_data(as_text=True)
    # The first run of the district is run #1, and the defaults of the day are filled in.
    assert "Tanda de avisos 1 ·" in page and 'value="0.78"' in page and 'value="5.30"' in page
    # the prices' source cited in the reader's language
    assert "lista de precios del Servicio Postal" in page and "price list of" not in page
    bad = client.post(
        f"/notices/batches/{batch.id}/fees",
        data={"postage": "abc", "certified_fee": "", "return_receipt": "1"},
    )
    text = bad.get_data(as_text=True)
    assert bad.status_code == 422
    assert 'id="e-postage"' in text and 'id="e-certified_fee"' in text
    assert 'id="e-return_receipt_fee"' in text and 'value="abc"' in text
    session.expire_all()
    unchanged = session.get(NoticeBatch, batch.id)
    assert unchanged is not None and unchanged.postage == Decimal("0.78")
    good = client.post(
        f"/notices/batches/{batch.id}/fees",
        data={
            "postage": "0.78",
            "certified_fee": "5.30",
            "return_receipt": "1",
            "return_receipt_fee": "4.40",
        },
    )
    assert good.status_code == 302
    page = client.get(f"/notices/batches/{batch.id}").get_data(as_text=True)
    assert "$10.48" in page and "$31.44" in page  # per piece, and the run of 3
    # The draft manifest is laid out by a job, then its link downloads it.
    assert client.post(f"/notices/batches/{batch.id}/manifest").status_code == 303
    assert tasks.run_pending(client.application) == 1
    manifest = pdf_text(client.get(f"/notices/batches/{batch.id}/manifest.pdf").data)
    assert "$13.20" in manifest and "$31.44" in manifest
    # One article number is written alike on the run's page and on the PS Form 3877: its
    # digits in groups of four.
    digits = found[0].article_number or ""
    grouped = " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))
    assert f"<code>{grouped}</code>" in page and digits not in page
    assert grouped in manifest
    # The auditor reads the page but cannot change the fees.
    client.post("/logout")
    login(client, people.auditor)
    assert client.post(f"/notices/batches/{batch.id}/fees", data={}).status_code == 403

    # Filters by delivery status, counted, in the query string (bookmarkable).
    notices.mail_batch(
        session=session,
        actor=audit.SYSTEM,
        batch_id=batch.id or 0,
        mailed_on=date(2026, 1, 20),
        today=date(2026, 1, 21),
    )
    notices.record_delivery(
        session=session,
        actor=audit.SYSTEM,
        notice_id=found[1].id or 0,
        status="returned unclaimed",
        occurred_on=date(2026, 1, 21),
        today=date(2026, 1, 21),
    )
    session.commit()
    listing = client.get(f"/notices/batches/{batch.id}?status=returned").get_data(as_text=True)
    assert found[1].number in listing
    assert found[0].number not in listing and found[2].number not in listing
    assert "status=returned_unclaimed" in listing and "(1)" in listing
    awaiting = client.get(f"/notices/batches/{batch.id}?status=awaiting").get_data(as_text=True)
    assert found[0].number in awaiting and found[1].number not in awaiting


def test_a_refused_upload_or_article_number_says_why_and_saves_nothing(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance)
    batch, (notice, *_rest) = issue_notices(session, billed)
    client = _client(database_url, tmp_path, "2026-01-20")
    login(client, people.association)
    page = f"/notices/batches/{batch.id}"

    for url in (f"{page}/articles", "/notices/deliveries"):
        refused = client.post(url, data={}, content_type="multipart/form-data")
        assert refused.status_code == 422  # said beside the file's field
        text = refused.get_data(as_text=True)
        assert "No se guardó nada." in text and "Escoja un archivo CSV." in text, url

    bad = client.post(f"/notices/{notice.id}/article", data={"article_number": "12"})
    assert bad.status_code == 302 and bad.location.endswith(f"{page}#a-{notice.id}")
    assert "No se guardó nada." in client.get(page).get_data(as_text=True)
    session.expire_all()
    kept = session.get(Notice, notice.id)
    assert kept is not None and kept.article_number is None

    good = client.post(f"/notices/{notice.id}/article", data={"article_number": article(301)})
    assert good.status_code == 302
    assert "Número de artículo anotado." in client.get(page).get_data(as_text=True)
    session.expire_all()
    saved = session.get(Notice, notice.id)
    assert saved is not None and saved.article_number is not None


def test_a_refused_article_number_comes_back_at_its_row_on_its_page(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance)
    batch, (notice, *_rest) = issue_notices(session, billed)
    client = _client(database_url, tmp_path, "2026-01-20")
    login(client, people.association)
    listing = f"/notices/batches/{batch.id}"
    bad = client.post(
        f"/notices/{notice.id}/article",
        data={"article_number": "12", "page": "1", "status": ""},
    )
    # back to the list the row was on, at the row
    assert bad.status_code == 302
    assert bad.location.endswith(f"{listing}#a-{notice.id}")
    page = client.get(bad.location).get_data(as_text=True)
    assert re.search(rf'id="a-{notice.id}"[^>]*aria-invalid="true"', page)
    assert f'id="e-a-{notice.id}"' in page
    said = re.search(rf'id="e-a-{notice.id}">([^<]*)<', page)
    assert said and f"Aviso {notice.number}:" in html.unescape(said.group(1))
    # said once: the next look at the list is clean
    assert 'aria-invalid="true"' not in client.get(bad.location).get_data(as_text=True)
    later = client.post(
        f"/notices/{notice.id}/article",
        data={"article_number": "12", "page": "3", "status": "awaiting"},
    )
    assert later.location.endswith(f"{listing}?page=3&status=awaiting#a-{notice.id}")
