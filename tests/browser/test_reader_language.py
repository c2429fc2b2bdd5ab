"""The analyst's half in Chromium, in the reader's language: anyone tries a reform on the page
(without an account), sees it beside the law and downloads its note; a calculator sent nothing,
or a wrong value, or broken JSON, answers with its fields named by their labels, in Spanish; a
result's chart writes every label whole and at least 11 px high on a phone and on a desktop,
and a chart of differences that are all zero is said in words; the public register says since
when a petition is overdue; /verificar with a changed file heads the page with the mismatch.
One tab per language (Spanish on a phone, English on a desktop), each resized to the other
width where a chart is measured; every page checked as tests/browser/harness.py does."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import col, select

from tests.browser.harness import WIDTHS, Checker, Logins, Site, new_page, shoot, t
from tid.app_reader import reader, today
from tid.db import get_session
from tid.demo import ACCOUNT_DISTRICT
from tid.documents import closing
from tid.models import District, IssuedDocument, Petition
from tid.render.formats import day as format_day
from tid.rules import calendar
from tid.services.closing import issued
from tid.services.liens import impost_lien as liens

pytestmark = pytest.mark.xdist_group("reader_language")

# Each text of the charts on the page: its box and the chart's, and its size on the screen
# (the font's size times the drawing's scale).
CHART_TEXTS = """() => [...document.querySelectorAll('svg.chart')].flatMap(svg => {
  const frame = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('text')].map(text => {
    const box = text.getBoundingClientRect();
    const m = text.getScreenCTM();
    const size = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
    return {text: text.textContent.trim(), size,
            left: box.left - frame.left, right: frame.right - box.right,
            top: box.top - frame.top, bottom: frame.bottom - box.bottom,
            viewport: document.documentElement.clientWidth, x: box.right};
  });
})"""
SMALLEST_PX = 11


def chart_problems(page: Page) -> list[str]:
    """Each text of the page's charts that is cut by its drawing's edge, runs past the page,
    or is drawn under 11 px; [] when every label is whole and readable."""
    texts: list[dict[str, Any]] = page.evaluate(CHART_TEXTS)
    assert texts, "the page draws no chart"
    width = (page.viewport_size or {"width": 0})["width"]
    found = []
    for item in texts:
        if item["size"] < SMALLEST_PX:
            found.append(f"{width} px: {item['text']!r} drawn {item['size']:.1f} px high")
        if min(item["left"], item["right"], item["top"], item["bottom"]) < -0.5:
            found.append(f"{width} px: {item['text']!r} cut by the chart's edge")
        if item["x"] > item["viewport"] + 0.5:
            found.append(f"{width} px: {item['text']!r} runs past the page")
    return found


def _at_both_widths(page: Page, checker: Checker, folder: Path, what: str, lang: str) -> None:
    """The page's charts measured, checked and photographed at its width and the other."""
    current = (page.viewport_size or WIDTHS[390])["width"]
    for width in (current, 1280 if current == 390 else 390):
        page.set_viewport_size(WIDTHS[width])
        assert chart_problems(page) == []
        checker.check(page, what, lang)
        shoot(page, folder, what)
    page.set_viewport_size(WIDTHS[current])


def _summary_names_each_field(page: Page) -> list[str]:
    """Each line of the error summary that links to a field: it starts with the field's own
    label, as the reader sees it beside the field."""
    page.wait_for_load_state()  # a page the form's answer loads, whole: its every line
    lines = page.locator(".error-summary a[href^='#f-']")
    expect(lines.first).to_be_visible()
    named = []
    for i in range(lines.count()):
        link = lines.nth(i)
        target = str(link.get_attribute("href"))[1:]
        label = page.locator(f"label[for='{target}']").first.inner_text()
        # the label's first line, without the mark of a required field
        label = re.sub(r"\s+", " ", label.split("\n")[0]).strip().rstrip(" *")
        said = link.inner_text().strip()
        assert label and said.startswith(label), (said, label)
        named.append(said)
    return named


def _paste(page: Page, lang: str, document: str) -> None:
    """Paste a JSON document below a calculator's form (its details opened as a person does)."""
    page.get_by_text(
        t(lang, "Or paste the JSON document (as the API and the command line take it)")
    ).click()
    page.locator("#f-document_json").fill(document)


def _overdue_petition(site: Site) -> tuple[int, str]:
    """The demo's petition under study: its municipality's register, and the day from which
    its ordinance is overdue; the site's day set a month past its last day."""
    with site.app.app_context():
        petition = (
            get_session().exec(select(Petition).where(Petition.state == "under_study")).first()
        )
        assert petition is not None
        due = calendar.ordinance_due(petition.received_on).date
    site.app.config["TODAY"] = due + timedelta(days=30)
    return petition.municipality_id, format_day(due + timedelta(days=1), "es")


def _issued_quote(site: Site) -> tuple[str, bytes]:
    """A payoff quote the demo's treasurer issued: its code and its PDF."""
    with site.app.app_context():
        db = get_session()
        district = db.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
        rows = liens.delinquency(session=db, district_id=district.id or 0, today=today())
        assert rows, "the demo's treasurer has no delinquent property"
        made = closing.payoff_pdf(
            db,
            district=district.id or 0,
            property=rows[0].property.id or 0,
            reader=reader("es"),
            through=today() + timedelta(days=5),
            issued_by="Carmen",
        )
        db.commit()
        quote = db.exec(select(IssuedDocument).order_by(col(IssuedDocument.id).desc())).first()
        assert quote is not None
        return issued.shown_code(quote.code), made.data


def _try_example(page: Page, site: Site, example: str, lang: str) -> None:
    page.goto(f"{site.base}/reforms/try/?example={example}")
    page.get_by_role("button", name=t(lang, "Try the reform")).click()
    expect(page.locator("#diff-title")).to_be_visible()


def test_the_analysts_pages_in_the_readers_language(
    site: Site, browser: Browser, logins: Logins, checker: Checker, folder: Path
) -> None:
    municipality, since = _overdue_petition(site)
    code, pdf = _issued_quote(site)
    context, page = new_page(browser, 390, "es", logins.state(None, "es"))
    try:
        # A calculator sent nothing: each field named by its label, in Spanish.
        page.goto(f"{site.base}/calc/room-tax")
        page.get_by_role("button", name=t("es", "Calculate")).click()
        named = _summary_names_each_field(page)
        assert len(named) >= 3 and all("obligatorio" in line for line in named), named
        checker.check(page, "calculator sent nothing", "es")
        shoot(page, folder, "calc-empty")
        # …a wrong value: said beside its field and in the summary by the field's label.
        page.get_by_label(t("es", "Lodging type")).select_option("hotel")
        page.get_by_label(t("es", "Date of the stay")).fill("2026-03-02")
        page.get_by_label(t("es", "Nightly rate")).fill("12abc")
        page.get_by_label(t("es", "Nights")).fill("3")
        page.get_by_role("button", name=t("es", "Calculate")).click()
        expect(page.locator("#e-nightly_rate")).to_have_text(
            re.compile(r"Escriba una cantidad en dólares")
        )
        assert _summary_names_each_field(page) == [
            t("es", "Nightly rate") + ": " + page.locator("#e-nightly_rate").inner_text()
        ]
        # …and JSON that does not parse: said in Spanish, naming where.
        page.goto(f"{site.base}/calc/deadlines")
        _paste(page, "es", '{"petition_received": "2026-03-02",')
        page.get_by_role("button", name=t("es", "Calculate")).click()
        summary = page.locator(".error-summary")
        expect(summary).to_contain_text("no es JSON válido")
        expect(summary).not_to_contain_text("Expecting")
        checker.check(page, "calculator sent bad JSON", "es")
        shoot(page, folder, "calc-bad-json")
        # A year of the room tax: its chart's labels whole and readable at both widths.
        year = [
            {"month": f"{2024 if m >= 7 else 2025}-{m:02d}", "collected": "50000.00"}
            for m in (7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6)
        ]
        page.goto(f"{site.base}/calc/room-tax-distribution")
        _paste(
            page,
            "es",
            json.dumps(
                {"fiscal_year": "2024-25", "bank_certified_amount": "1000000.00", "months": year}
            ),
        )
        page.get_by_role("button", name=t("es", "Calculate")).click()
        expect(page.locator("svg.chart")).to_be_visible()
        _at_both_widths(page, checker, folder, "room-tax-distribution", "es")
        # The public register: the petition under study, overdue since the day after its last.
        page.goto(f"{site.base}/publico/municipios/{municipality}")
        expect(page.locator("main")).to_contain_text(f"vencida desde el {since}")
        checker.check(page, "public register", "es")
        # /verificar with a file changed by one byte: the heading says it is not the document.
        page.goto(f"{site.base}/verificar/{code}")
        changed = bytearray(pdf)
        changed[len(changed) // 2] ^= 1
        page.set_input_files(
            "#f-pdf",
            files=[{"name": "otra.pdf", "mimeType": "application/pdf", "buffer": bytes(changed)}],
        )
        page.get_by_role("button", name=t("es", "Check the file")).click()
        expect(page.locator("h1")).to_have_text(
            t("es", "The file is not the document issued under this code")
        )
        checker.check(page, "verification of a changed file", "es")
        shoot(page, folder, "verify-changed")
        # Anyone, in Spanish, tries a reform whose differences are all zero: said in words.
        page.goto(f"{site.base}/reforms/try/?example=prita-cap")
        page.select_option("#f-change-0-parameter", "room_tax.act272.rate.hotel")
        page.fill("#f-change-0-value", "0.07")
        page.select_option("#f-change-1-parameter", "")
        page.fill("#f-change-1-from", "")
        page.fill("#f-change-1-value", "")
        page.get_by_role("button", name=t("es", "Try the reform")).click()
        expect(page.locator("main")).to_contain_text(
            "cada diferencia entre la ley y la reforma es cero"
        )
        expect(page.locator("main svg.chart")).to_have_count(0)
        checker.check(page, "reform that changes nothing", "es")
        shoot(page, folder, "reform-zero")
    finally:
        context.close()
        site.app.config.pop("TODAY", None)

    # Anyone, in English, on a desktop: a reform tried, side by side, its note downloaded.
    context, page = new_page(browser, 1280, "en", logins.state(None, "en"))
    try:
        _try_example(page, site, "general-fund-share", "en")
        expect(page.locator("h1")).to_contain_text(t("en", "the law and the reform"))
        expect(page.locator("#side-title")).to_be_visible()  # side by side
        changes = page.locator("section[aria-labelledby='diff-title'] tbody tr")
        expect(changes.first).to_be_visible()  # and what changes, line by line
        _at_both_widths(page, checker, folder, "reform-tried", "en")
        with page.expect_download() as download:
            page.get_by_role("button", name=t("en", "Download the reform note")).click()
        note = Path(download.value.path()).read_bytes()
        assert note.startswith(b"%PDF")
        (folder / "reform-note-tried-en.pdf").write_bytes(note)
    finally:
        context.close()
