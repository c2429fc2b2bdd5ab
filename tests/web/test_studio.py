"""The formula studio's pages: a clerk tries two variants on the district's roll, sees who
pays more and why, saves the study (its report archived) and finds it on the petition's
page; a bad formula comes back at its field; another municipality's clerk is refused."""

from __future__ import annotations

import io
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import PASSWORD, People, login
from tests.pdf_checks import assert_archival, pdf_text
from tests.services.billing.helpers import FORMULA, import_roll, make_ordinance
from tid.demo.roll import roll_csv
from tid.documents import studio_reports
from tid.jobs import tasks
from tid.models import ArchivedDocument, District, FormulaStudy, Job, User
from tid.services.audit_trail import audit
from tid.services.auth import users
from tid.services.studio import trials

FY = "2026-27"


def _form(people: People, **extra: str) -> dict[str, str]:
    return {
        "source": f"{people.district.id}:{FY}",
        "expected_amount": "6,000.00",
        "baseline": "in_force",
        "v1_name": "Propuesta",
        "v1_formula": FORMULA,
        "v2_name": "Tasa plana",
        "v2_formula": "0.015 * assessed_value",
        **extra,
    }


def test_a_clerk_studies_two_variants_and_saves_the_study(
    client: FlaskClient, people: People, session: Session
) -> None:
    import_roll(session, people)
    ordinance = make_ordinance(session, people)
    login(client, people.clerk)
    petition_id = ordinance.petition_id
    opened = client.get(f"/petitions/{petition_id}/studio")
    assert opened.status_code == 200
    page = opened.get_data(as_text=True)
    assert "Viejo San Juan · año fiscal 2026-27 (3 propiedades)" in page
    assert "<dt><code>area_terreno</code></dt>" in page  # the names a formula may use
    tried = client.post(f"/petitions/{petition_id}/studio", data=_form(people, action="try"))
    shown = tried.get_data(as_text=True)
    assert tried.status_code == 200, shown[:2000]
    assert "$5,768.75" in shown  # the formula in force's total
    assert "Hotel El Convento Inc" in shown  # owners shown to the signed-in clerk
    assert "040-010-001-02" in shown and "<svg" in shown
    assert session.exec(select(FormulaStudy)).first() is None  # a try writes nothing
    as_csv = client.post(f"/petitions/{petition_id}/studio", data=_form(people, action="csv"))
    assert as_csv.mimetype == "text/csv"
    assert "040-010-001-02,hotel,400000.00,5300.00,5300.00,6000.00" in as_csv.get_data(as_text=True)
    saved = client.post(
        f"/petitions/{petition_id}/studio",
        data=_form(people, action="save", title="Estudio de marzo"),
    )
    assert saved.status_code == 302 and "/jobs/" in saved.location
    assert session.exec(select(FormulaStudy)).first() is None  # saved by its job
    assert tasks.run_pending(client.application) == 1
    study = session.exec(select(FormulaStudy)).one()
    assert study.title == "Estudio de marzo" and study.property_count == 3
    assert session.get(ArchivedDocument, study.report_sha256) is not None
    done = client.get(saved.location).get_data(as_text=True)
    assert f"/petitions/studies/{study.id}" in done
    reopened = client.get(f"/petitions/studies/{study.id}").get_data(as_text=True)
    assert "Estudio de marzo" in reopened and "$6,532.50" in reopened
    # The petition's ordinance, as voted, is set beside every variant tried.
    assert "Frente a la ordenanza aprobada" in reopened and "$5,768.75" in reopened
    report = client.get(f"/petitions/studies/{study.id}/report.pdf")
    assert report.status_code == 200
    archived = assert_archival(report.data, lang="es", tagged=True)
    assert "Estudio de marzo" in pdf_text(report.data) and len(archived.pages) >= 2
    amounts = client.get(f"/petitions/studies/{study.id}/amounts.csv")
    text = amounts.get_data(as_text=True)
    assert text.splitlines()[0].startswith("\ufeffNúmero de catastro")
    assert "040-010-001-02,hotel,400000.00,5300.00,5300.00,6000.00" in text
    petition_page = client.get(f"/petitions/{petition_id}").get_data(as_text=True)
    assert f"/petitions/studies/{study.id}/report.pdf" in petition_page
    # The report is a document of the petition's file too: a study, as archived.
    filed = client.get(f"/petitions/{petition_id}/file").get_data(as_text=True)
    assert "Estudio de marzo" in filed and f"estudio-{study.id}.pdf" in filed
    # ``tid document`` gives the same amounts, and the report made again from the roll.
    runner = client.application.test_cli_runner()
    cli = runner.invoke(
        args=["document", "formula-study.csv", "--study", str(study.id), "--lang", "es"]
    )
    assert cli.exit_code == 0, cli.output
    assert cli.output.lstrip("\ufeff").splitlines() == text.lstrip("\ufeff").splitlines()
    missing = runner.invoke(args=["document", "formula-study.csv", "--study", "999"])
    assert missing.exit_code != 0 and "No existe ese estudio." in missing.output


def test_a_bad_formula_comes_back_at_its_field(
    client: FlaskClient, people: People, session: Session
) -> None:
    import_roll(session, people)
    ordinance = make_ordinance(session, people)
    login(client, people.clerk)
    refused = client.post(
        f"/petitions/{ordinance.petition_id}/studio",
        data=_form(people, action="try", v2_formula="0.01 * valor_inventado"),
    )
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert 'href="#f-v2_formula"' in page and 'id="e-v2_formula"' in page
    assert "valor_inventado" in page


def test_a_roll_file_is_tried_and_nothing_is_imported(
    client: FlaskClient, people: People, session: Session
) -> None:
    ordinance = make_ordinance(session, people)
    login(client, people.clerk)
    form = {**_form(people, action="try"), "source": "file", "baseline": "1"}
    tried = client.post(
        f"/petitions/{ordinance.petition_id}/studio",
        data={**form, "file": (io.BytesIO(roll_csv(30)), "crim.csv")},
        content_type="multipart/form-data",
    )
    page = tried.get_data(as_text=True)
    assert tried.status_code == 200, page[:3000]
    assert "crim.csv" in page and "30 propiedades" in page
    bad = client.post(
        f"/petitions/{ordinance.petition_id}/studio",
        data={**form, "file": (io.BytesIO(b"cadastral_number,owner\n1,2\n"), "bad.csv")},
        content_type="multipart/form-data",
    )
    assert bad.status_code == 422 and 'id="e-file"' in bad.get_data(as_text=True)


def test_another_municipality_is_refused(
    client: FlaskClient, people: People, session: Session
) -> None:
    ordinance = make_ordinance(session, people)
    login(client, people.other_clerk)
    assert client.get(f"/petitions/{ordinance.petition_id}/studio").status_code == 403
    login(client, people.other_association)
    assert client.get(f"/petitions/{ordinance.petition_id}/studio").status_code == 403


def _second_district(session: Session, people: People) -> User:
    """A second San Juan district (Condado) and its association's login."""
    condado = District(
        municipality_id=people.municipality.id or 0, name="Condado", association_name="A"
    )
    session.add(condado)
    session.flush()
    return users.create_user(
        session=session,
        actor=audit.Actor("tests"),
        email="assoc@condado.example.pr",
        name="Condado",
        password=PASSWORD,
        role="association",
        district_id=condado.id,
    )


def test_the_district_association_studies_its_own_roll(
    client: FlaskClient, people: People, session: Session
) -> None:
    """The association of the district a petition is about tries formulas on its roll (the
    owners shown), downloads the amounts and opens the studies saved on its roll; it cannot
    save, nor try another district's roll; another district's association is refused."""
    import_roll(session, people)
    ordinance = make_ordinance(session, people)
    condado = _second_district(session, people)
    session.commit()
    url = f"/petitions/{ordinance.petition_id}/studio"
    login(client, people.clerk)
    saved = client.post(url, data=_form(people, action="save", title="Estudio de la clerk"))
    assert saved.status_code == 302 and tasks.run_pending(client.application) == 1
    study = session.exec(select(FormulaStudy)).one()
    login(client, people.association)
    district_page = client.get(f"/roll/{people.district.id}").get_data(as_text=True)
    assert url in district_page and f"/petitions/studies/{study.id}" in district_page
    assert f'href="/petitions/{ordinance.petition_id}"' not in district_page
    opened = client.get(url)
    assert opened.status_code == 200
    assert f'href="/roll/{people.district.id}#petitions"' in opened.get_data(as_text=True)
    tried = client.post(url, data=_form(people, action="try"))
    assert tried.status_code == 200 and "Hotel El Convento Inc" in tried.get_data(as_text=True)
    assert client.post(url, data=_form(people, action="csv")).mimetype == "text/csv"
    report = client.post(url, data=_form(people, action="pdf", title="Propuesta de la asociación"))
    assert report.mimetype == "application/pdf"
    assert "Propuesta de la asociación" in pdf_text(report.data)
    assert client.post(url, data=_form(people, action="save")).status_code == 403
    assert session.exec(select(FormulaStudy)).one() == study  # the association saved nothing
    assert client.get(f"/petitions/studies/{study.id}").status_code == 200
    assert client.get(f"/petitions/studies/{study.id}/amounts.csv").status_code == 200
    elsewhere = client.post(
        url, data=_form(people, action="try", source=f"{condado.district_id}:{FY}")
    )
    assert elsewhere.status_code == 422 and 'id="e-source"' in elsewhere.get_data(as_text=True)
    # The association of another district of the same municipality, and of another one.
    for other in (condado, people.other_association):
        login(client, other)
        assert client.get(url).status_code == 403
        assert client.post(url, data=_form(people, action="try")).status_code == 403
        assert client.get(f"/petitions/studies/{study.id}").status_code == 403
        assert client.get(f"/petitions/studies/{study.id}/report.pdf").status_code == 403
        assert url not in client.get(f"/roll/{other.district_id}").get_data(as_text=True)


def test_a_large_roll_is_studied_in_the_background(
    client: FlaskClient, people: People, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the size a request answers in time, the clerk's study is a job: its page shows
    the progress, and its result is the saved study; a reader who cannot save is told so."""
    monkeypatch.setattr(trials, "IN_REQUEST_PROPERTIES", 2)
    import_roll(session, people)
    ordinance = make_ordinance(session, people)
    login(client, people.auditor)
    url = f"/petitions/{ordinance.petition_id}/studio"
    refused = client.post(url, data=_form(people, action="try"))
    assert refused.status_code == 422 and 'id="e-source"' in refused.get_data(as_text=True)
    login(client, people.clerk)
    started = client.post(url, data=_form(people, action="try", title="Estudio grande"))
    assert started.status_code == 302 and "/jobs/" in started.location
    assert session.exec(select(FormulaStudy)).first() is None
    assert tasks.run_pending(client.application) == 1
    study = session.exec(select(FormulaStudy)).one()
    assert study.title == "Estudio grande" and study.property_count == 3
    done = client.get(started.location).get_data(as_text=True)
    assert f"/petitions/studies/{study.id}" in done


def test_saving_a_study_is_a_job_whose_progress_shows_from_its_first_step(
    client: FlaskClient, people: People, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saving lays out the study's report: the request queues a job and answers with its
    page; the job has said how far it is (the roll read) before the report is laid out."""
    import_roll(session, people)
    ordinance = make_ordinance(session, people)
    login(client, people.clerk)
    url = f"/petitions/{ordinance.petition_id}/studio"
    saved = client.post(url, data=_form(people, action="save", title="Estudio en cola"))
    assert saved.status_code == 302 and "/jobs/" in saved.location
    job = session.exec(select(Job).where(Job.kind == tasks.STUDIO_SAVE)).one()
    assert job.state == "queued" and session.exec(select(FormulaStudy)).first() is None
    seen: list[tuple[int, int]] = []
    real = studio_reports.report_pdf

    def report_pdf(*args: Any, **kwargs: Any) -> bytes:
        with Session(client.application.extensions["tid.engine"]) as other:
            found = other.get(Job, job.id)
            assert found is not None
            seen.append((found.done, found.total))
        return real(*args, **kwargs)

    monkeypatch.setattr(studio_reports, "report_pdf", report_pdf)
    assert tasks.run_pending(client.application) == 1
    assert len(seen) == 1 and seen[0][0] > 0 and seen[0][1] >= seen[0][0]
    study = session.exec(select(FormulaStudy)).one()
    assert study.title == "Estudio en cola"
    assert f"/petitions/studies/{study.id}" in client.get(saved.location).get_data(as_text=True)
