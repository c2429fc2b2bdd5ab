"""The legislature's file in Chromium: the clerk attaches a document to a petition, replaces
another with a new version, records the mayor's approval and the publication with the
newspaper's page, writes and sends the CRIM transmittal, and finds a word inside a PDF and a
DOCX with the search; each document shows its first page, and the owners' signatures (a scan)
are flagged with the button that makes them searchable. On a desktop in English; the key
pages again on a phone in Spanish; every page checked (language, no sideways scroll,
axe-core) and photographed at both widths."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Browser, Page, expect

from tests import legislature_files as files
from tests.browser.harness import (
    CLERK,
    Checker,
    Logins,
    Site,
    new_page,
    screenshots_folder,
    shoot,
)
from tid import clock
from tid.demo.petitions import CONDADO, ISLA_VERDE

pytestmark = pytest.mark.xdist_group("legislature")


def _found(page: Page, site: Site, words: str) -> None:
    """The search finds ``words`` once the worker has read the new versions (a state)."""
    for _ in range(60):
        page.goto(f"{site.base}/petitions/search?q={words}")
        if page.locator("ol.search-results mark").count():
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"the search never found {words!r}")


# What a petition's history (its page) or its file says of the CRIM letter once sent and
# acknowledged, in each language.
CRIM_WORDS = {
    "en": {
        "history": ("Certified mail", "Sent on", "Acknowledgement of receipt from the CRIM"),
        "file": (
            r"Transmittal of ordinance Ord\. .+ to the CRIM",
            "Acknowledgement of receipt from",
        ),
    },
    "es": {
        "history": ("Correo certificado", "Enviado el", "Acuse de recibo del CRIM"),
        "file": (r"Envío de la ordenanza Ord\. .+ al CRIM", "Acuse de recibo del CRIM"),
    },
}


def _said_in_words(page: Page, language: str) -> None:
    """The history (a petition's page) or the file (its documents) says the CRIM letter in
    ``language``'s words: no code (``certified_mail``, ``sent_on``), no "Municipio 3"."""
    page.wait_for_load_state()  # after a click, the page whole (a state), not as far as parsed
    said = page.locator("main").inner_text()
    assert "certified_mail" not in said and "sent_on" not in said
    assert not re.search(r"Municipio \d", said), said
    words = CRIM_WORDS[language]["file" if page.url.endswith("/file") else "history"]
    for word in words:
        assert re.search(word, said), (language, word, said.replace("\n", " "))


def _petition_url(page: Page, site: Site, name: str) -> str:
    page.goto(site.base + "/petitions/")
    page.get_by_role("link", name=name).first.click()
    return page.url


def test_the_clerk_keeps_the_legislature_file(
    site: Site, browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = screenshots_folder(tmp_path_factory.mktemp("screenshots"))
    checker = Checker(folder)
    logins = Logins(site)
    today = clock.today(site.app.config)
    context, page = new_page(browser, 1280, "en", logins.state(CLERK, "en"))
    shots: dict[str, str] = {}
    try:
        condado = _petition_url(page, site, CONDADO)
        page.get_by_role("link", name=re.compile("documents in the file")).click()
        checker.check(page, "file", "en")
        # A new document: a PDF whose text says a word the search will find.
        main = page.locator("main")
        main.get_by_label("File", exact=True).set_input_files(
            {
                "name": "presupuesto.pdf",
                "mimeType": "application/pdf",
                "buffer": files.pdf("Presupuesto de las mejoras del distrito"),
            }
        )
        main.get_by_label("Title").fill("Presupuesto del distrito")
        main.get_by_label("Kind of document").select_option("study")
        main.get_by_role("button", name="Attach the document").click()
        expect(page.locator("main")).to_contain_text("presupuesto.pdf")
        shots["file"] = page.url
        # Each document shows its first page (the scan's and the PDFs'), in boxes of a fixed
        # size; a DOCX shows its type.
        for picture in main.locator("img.thumbnail").all():  # each loaded (they are lazy)
            picture.scroll_into_view_if_needed()
        page.wait_for_function(
            "() => [...document.querySelectorAll('main img.thumbnail')]"
            ".every(i => i.complete && i.naturalWidth > 0)"
        )
        drawn = main.locator("img.thumbnail").evaluate_all(
            "imgs => imgs.map(i => [i.naturalWidth > 0, i.offsetWidth, i.offsetHeight])"
        )
        assert drawn and all(row == [True, 60, 78] for row in drawn), drawn
        expect(main.locator('.file-tile[aria-hidden="true"]').first).to_have_text("DOCX")
        # The owners' signatures: a scan without a text layer, flagged; it can be read.
        page.get_by_role("link", name="Firmas de los dueños").click()
        expect(main.locator("#recognize")).to_contain_text("no text layer")
        expect(main.get_by_role("button", name="Make it searchable")).to_be_visible()
        checker.check(page, "scan", "en")
        shots["scan"] = page.url
        page.go_back()
        # A new version of the plan (a DOCX), with the reason.
        page.get_by_role("link", name="Plan de mejoras").click()
        main.get_by_label("File", exact=True).set_input_files(
            {
                "name": "plan-v2.docx",
                "mimeType": "application/octet-stream",
                "buffer": files.docx("Plan revisado: farolas solares en la avenida Ashford"),
            }
        )
        main.get_by_label("Why a new version").fill("Revisado por la comisión")
        main.get_by_role("button", name="Save the new version").click()
        expect(page.locator("main table.data")).to_contain_text("plan-v2.docx")
        expect(page.locator("main table.data")).to_contain_text("plan-de-mejoras.docx")
        checker.check(page, "document", "en")
        shots["document"] = page.url
        # Isla Verde: the mayor approves; the publication with the newspaper's page.
        isla_verde = _petition_url(page, site, ISLA_VERDE)
        page.locator("#f-approve-on").fill((today - timedelta(days=1)).isoformat())
        page.get_by_role("button", name="Approved by the mayor").click()
        page.locator("#f-publish-on").fill(today.isoformat())
        page.locator("#f-publish-newspaper").fill("El Nuevo Día")
        page.locator("#f-publish-proof").set_input_files(
            {"name": "pagina.png", "mimeType": "image/png", "buffer": files.png()}
        )
        page.get_by_role("button", name="Published").click()
        expect(page.locator("main")).to_contain_text("El Nuevo Día")
        expect(page.locator("main")).not_to_contain_text("has no proof in the file")
        checker.check(page, "petition", "en")
        shots["petition"] = isla_verde
        # The CRIM: the letter, then its sending.
        page.get_by_role("link", name=re.compile("Copy to the CRIM")).click()
        page.get_by_role("button", name="Write the letter").click()
        page.locator("#f-on").fill(today.isoformat())
        page.locator("#f-sent_by").select_option("certified_mail")
        page.locator("#f-reference").fill("9407 1111 2222 3333")
        page.get_by_role("button", name="Record the sending").click()
        expect(page.locator("main")).to_contain_text("9407 1111 2222 3333")
        page.locator("#f-file").set_input_files(
            {"name": "acuse.pdf", "mimeType": "application/pdf", "buffer": files.pdf("Recibido")}
        )
        page.locator("#f-on").fill(today.isoformat())
        page.get_by_role("button", name="Keep it").click()
        expect(page.locator("main")).not_to_contain_text("not yet received")
        checker.check(page, "crim", "en")
        shots["crim"] = page.url
        # The petition's history and its file say the letter and the acknowledgement in the
        # reader's words: how it was sent, the municipality by its name, the titles.
        page.goto(isla_verde)
        _said_in_words(page, "en")
        page.get_by_role("link", name=re.compile("documents in the file")).click()
        _said_in_words(page, "en")
        crim_file = page.url  # a page of a shape checked already (the file)
        # The search finds a word inside the PDF and one inside the DOCX's new version.
        _found(page, site, "presupuesto")
        expect(page.locator("ol.search-results")).to_contain_text("Presupuesto del distrito")
        _found(page, site, "farolas")
        expect(page.locator("ol.search-results")).to_contain_text("Plan de mejoras")
        checker.check(page, "search", "en")
        shots["search"] = page.url
        assert condado
        for name, url in shots.items():
            page.goto(url)
            shoot(page, folder, f"legislature-{name}")
    finally:
        context.close()
    context, page = new_page(browser, 390, "es", logins.state(CLERK, "es"))
    try:
        for name, url in shots.items():
            page.goto(url)
            checker.check(page, name, "es")
            shoot(page, folder, f"legislature-{name}")
            if name == "petition":
                _said_in_words(page, "es")
        page.goto(crim_file)
        _said_in_words(page, "es")
    finally:
        context.close()
    assert not checker.problems, "\n".join(checker.problems)
