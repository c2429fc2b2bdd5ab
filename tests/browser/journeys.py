"""What each kind of user does, in the browser, finding things by their label, role or text
(tests/browser/test_browser.py runs them, signed in already). Each journey checks every page
it reaches (``checker.check``), photographs its key pages and remembers their addresses, to
be read and photographed again at the other width."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from playwright.sync_api import Locator, Page, expect
from sqlmodel import Session, col, select

from tests.browser.harness import Checker, Site, set_language, shoot, t
from tests.pdf_checks import pdf_text
from tid.clock import today_in_puerto_rico, utcnow
from tid.demo.roll import roll_csv
from tid.jobs import background_jobs as job_service
from tid.jobs import tasks
from tid.models import District, Job, JobState, Notice
from tid.rules.certified_mail import check_digit
from tid.services.paging import PER_PAGE

JOB_SECONDS = 120_000  # a job (roll import, billing, notices, mailing) ends within this (ms)


class Journey:
    """One user's tab: goes to pages, checks each, remembers the addresses it read."""

    def __init__(
        self, page: Page, site: Site, checker: Checker, language: str, folder: Path, name: str
    ) -> None:
        self.page, self.site, self.checker, self.language = page, site, checker, language
        self.folder, self.name = folder, name
        self.key: list[tuple[str, str]] = []  # (what, address) of the pages photographed

    def t(self, msgid: str) -> str:
        return t(self.language, msgid)

    @property
    def main(self) -> Locator:
        return self.page.locator("main")

    def look(self, what: str, key: bool = False) -> None:
        """Check the page now shown; a key page is photographed and its address kept."""
        self.page.wait_for_load_state()
        self.checker.check(self.page, what, self.language)
        if key:
            shoot(self.page, self.folder, f"{self.name}-{len(self.key):02d}-{what}")
            self.key.append((what, self.page.url))

    def go(self, path: str, what: str, key: bool = False) -> None:
        self.page.goto(self.site.base + path)
        self.look(what, key)

    def area(self, label: str, what: str, key: bool = False) -> None:
        """Open an area from the main menu (behind the Menu button on a phone)."""
        menu = self.page.locator("details.menu")
        if menu.is_visible():
            if menu.get_attribute("open") is None:
                menu.locator("summary").click()
            nav = menu.locator("nav")
        else:
            nav = self.page.locator("header nav.wide")
        self.follow(nav.get_by_role("link", name=self.t(label), exact=True))
        self.look(what, key)

    def form_of(self, button: str) -> Locator:
        """The form whose submit button says ``button``."""
        return self.main.locator("form").filter(
            has=self.page.get_by_role("button", name=self.t(button), exact=True)
        )

    def follow(self, target: Locator) -> None:
        """Click a link or a form's button and wait for the page it leads to (a state, not
        a moment: the next look reads the new page, never the one it left)."""
        with self.page.expect_navigation():
            target.click()

    def submit(self, form: Locator, button: str, what: str, key: bool = False) -> None:
        self.follow(form.get_by_role("button", name=self.t(button), exact=True))
        self.look(what, key)

    def wait_for_job(self, what: str, key: bool = False) -> None:
        """A long action shows its job; wait until it offers its result, then open it."""
        result = self.main.get_by_role("link", name=self.t("See the result"))
        expect(result.first).to_be_visible(timeout=JOB_SECONDS)
        self.look(what + " (job)")
        href = result.first.get_attribute("href") or ""
        if re.search(r"\.(pdf|csv)(\?|$)", href):
            # The result is a document: it downloads, and the page stays.
            with self.page.expect_download():
                result.first.click()
        else:
            self.follow(result.first)
        self.look(what, key)


def _day(offset: int) -> str:
    """A day counted from today in Puerto Rico, as the app counts (from 8 p.m. in San Juan the
    machine's UTC date is already the next day, which the app calls the future)."""
    return (today_in_puerto_rico() + timedelta(days=offset)).isoformat()


# --------------------------------------------------------------------------- the clerk


def clerk(j: Journey) -> None:
    """Petition to publication, with one bad input seen as an error next to its field."""
    j.go("/", "home")
    j.area("Petitions", "petitions", key=True)
    # On a phone the list still shows when each petition is due and the days left.
    for label in ("Due", "Days left"):
        cell = j.main.locator(f'table.deadlines td[data-label="{j.t(label)}"]').first
        expect(cell).to_be_visible()
        box = cell.bounding_box()
        assert box is not None and box["x"] + box["width"] <= j.page.viewport_size["width"]
    j.follow(j.main.get_by_role("link", name=j.t("Record a petition")))
    j.look("new petition")
    name = f"Distrito de prueba ({j.language}, {j.page.viewport_size['width']} px)"
    j.main.get_by_label(j.t("Municipality")).select_option(label="San Juan")
    j.main.get_by_label(j.t("Proposed district name")).fill(name)
    j.main.get_by_label(j.t("Petitioner")).fill("Hon. Alcalde de San Juan")
    received = j.main.get_by_label(j.t("Date the legislature received the petition"))
    received.fill(_day(30))  # in the future: refused, next to the field
    j.submit(j.main.locator("form"), "Record the petition", "new petition, bad date", key=True)
    # the error next to its field, and a summary at the top that has the focus
    expect(received).to_have_attribute("aria-invalid", "true")
    summary = j.main.get_by_role("alert").first
    expect(summary).to_be_visible()
    expect(summary).to_be_focused()
    received.fill(_day(-40))
    j.submit(j.main.locator("form"), "Record the petition", "petition", key=True)
    expect(j.main.get_by_role("heading", level=1)).to_have_text(name)

    form = j.form_of("Start the study")
    form.get_by_label(j.t("Date"), exact=False).first.fill(_day(-38))
    j.submit(form, "Start the study", "petition under study")
    for index in range(5):
        form = j.form_of("Save the finding")
        form.get_by_label(j.t("Factor"), exact=True).select_option(index=index)
        form.get_by_label(j.t("favorable"), exact=True).check()
        form.get_by_label(j.t("Grounds"), exact=True).fill("Informe de la comisión.")
        form.get_by_label(j.t("Date of the finding"), exact=False).fill(_day(-30))
        j.submit(form, "Save the finding", f"finding {index + 1}")
    j.follow(j.main.get_by_role("link", name=j.t("Record the ordinance")))
    j.look("ordinance form")
    form = j.form_of("Record the ordinance")
    form.get_by_label(j.t("Ordinance number"), exact=False).fill("Ord. 1, Serie 2026")
    form.get_by_label(j.t("Amount expected to be collected ($)"), exact=False).fill("250,000.00")
    form.get_by_label(j.t("Term (years)"), exact=False).fill("5")
    form.get_by_label(j.t("Formula for the yearly amount of each property"), exact=False).fill(
        "max(250.00, 0.0035 * assessed_value)"
    )
    form.get_by_label(j.t("Association authorized to collect"), exact=False).fill(
        "Asociación del Distrito de Prueba, Inc."
    )
    form.get_by_label(j.t("Date the legislature issued the ordinance"), exact=False).fill(_day(-20))
    j.submit(form, "Record the ordinance", "petition with its ordinance")
    for button, day in (
        ("Ordinance received by the mayor", -15),
        ("Approved by the mayor", -6),
    ):
        form = j.form_of(button)
        form.get_by_label(j.t("Date"), exact=False).first.fill(_day(day))
        j.submit(form, button, button)
    form = j.form_of("Published")
    form.get_by_label(j.t("Date"), exact=False).first.fill(_day(-3))
    form.get_by_label(j.t("Newspaper of general circulation")).fill("El Nuevo Día")
    j.submit(form, "Published", "published petition", key=True)
    expect(j.main.locator(".lead .badge.good")).to_have_text(j.t("published"))


# --------------------------------------------------------------------------- the auditor


def auditor(j: Journey) -> None:
    """Reads every area; finds no way to write, and a write is refused."""
    j.go("/", "home")
    for area in ("Petitions", "Property roll and billing", "Notices", "Special account"):
        j.area(area, f"auditor: {area}")
        expect(j.main.locator("form[method=post]")).to_have_count(0)
    j.follow(j.main.get_by_role("link").filter(has_text="Condado").first)
    j.look("auditor: account", key=True)
    j.follow(j.main.get_by_role("navigation").get_by_role("link", name=j.t("Journal")))
    j.look("auditor: journal", key=True)
    expect(j.main.locator("table.data")).to_be_visible()
    response = j.page.goto(j.site.base + "/petitions/new")
    assert response is not None and response.status == 403
    j.look("auditor: refused")


# --------------------------------------------------------------------------- the owner


def owner(j: Journey) -> None:
    """The portal with a wrong code (refused, says so) and with the right one."""
    number, code = j.site.portal
    j.go("/", "home")
    set_language(j.page, j.site, j.language)
    j.area("Owner's portal", "portal", key=True)
    j.main.get_by_label(j.t("Notice number")).fill(number)
    j.main.get_by_label(j.t("Access code")).fill("AAAA-BBBB-CCCC")
    j.submit(j.main.locator("form").first, "See my notices", "portal, wrong code")
    expect(j.main.get_by_role("alert").first).to_be_visible()
    assert "/portal/notices" not in j.page.url
    j.main.get_by_label(j.t("Notice number")).fill(number)
    j.main.get_by_label(j.t("Access code")).fill(code)
    j.submit(j.main.locator("form").first, "See my notices", "portal, notices", key=True)
    expect(j.main.get_by_text(number).first).to_be_visible()
    with j.page.expect_download() as download:
        j.main.get_by_role("link", name=j.t("Download the notice (PDF)")).first.click()
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF")


# --------------------------------------------------------------------------- a calculator

MONTHS = "month,collected\r\n2024-07,900000.00\r\n2024-08,50000.00\r\n"


def calculator(j: Journey, tmp: Path) -> None:
    """The room-tax distribution with its months from a CSV file; the PDF report."""
    j.go("/", "home")
    set_language(j.page, j.site, j.language)
    j.area("Calculators", "calculators")
    j.go("/calc/room-tax-distribution", "calculator form", key=True)
    j.main.get_by_label(re.compile("^" + j.t("Fiscal year"))).first.fill("2024-25")
    j.main.locator("#f-bank_certified_amount").fill("1000000.00")
    upload = tmp / f"months-{j.language}.csv"
    upload.write_text(MONTHS, encoding="utf-8")
    j.main.get_by_label(j.t("Upload a CSV instead")).first.set_input_files(str(upload))
    j.submit(j.main.locator("form").last, "Calculate", "calculator result", key=True)
    with j.page.expect_download() as download:
        j.main.get_by_role("button", name=j.t("Download PDF report")).click()
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF")
    with j.page.expect_download() as download:
        j.main.get_by_role("button", name=j.t("Download CSV")).click()
    assert "2024-08" in Path(download.value.path()).read_text(encoding="utf-8-sig")


# --------------------------------------------------------------------------- the association

ROLL_SIZE = 4  # enough for a delivered and a returned notice; each is a PDF


def association(j: Journey, tmp: Path, fiscal_year: str) -> None:
    """Import a roll, bill it, prepare the notices, mail them, record deliveries."""
    j.go("/", "home")
    j.area("Property roll and billing", "roll")
    j.follow(j.main.get_by_role("link", name=re.compile("Viejo San Juan")).first)
    j.look("district")
    j.follow(j.main.get_by_role("link", name=j.t("Import a roll")))
    j.look("roll upload")
    # First a file whose headers are not a roll's: the columns it lacks named by their
    # labels (the headers that name them only in small print), and the file field again.
    wrong = tmp / f"wrong-headers-{fiscal_year}.csv"
    wrong.write_text("Catastro,Propietario\n040-010-000-10,Ana\n", encoding="utf-8")
    j.main.get_by_label(re.compile("^" + j.t("Fiscal year"))).fill(fiscal_year)
    j.main.get_by_label(j.t("CSV file")).set_input_files(str(wrong))
    j.submit(j.main.locator("form"), "Check the file", "roll with wrong headers", key=True)
    missing = j.main.locator(".missing-columns")
    expect(missing).to_contain_text(j.t("The columns the file lacks:"))
    for label in ("Assessed value", "ZIP code"):
        expect(missing).to_contain_text(j.t(label))
    words = missing.evaluate(
        "e => { const c = e.cloneNode(true); c.querySelectorAll('code').forEach(x => x.remove());"
        " return c.textContent }"
    )
    assert "assessed_value" not in words and "valor_tasado" not in words, words
    chooser = j.main.get_by_label(j.t("CSV file"))
    expect(chooser).to_have_attribute("aria-invalid", "true")
    roll = tmp / f"roll-{fiscal_year}.csv"
    roll.write_bytes(roll_csv(ROLL_SIZE))  # the same properties, year after year
    chooser.set_input_files(str(roll))  # another file, from the page that said what was wrong
    j.submit(j.main.locator("form"), "Check the file", "roll preview", key=True)
    j.follow(j.main.get_by_role("button", name=re.compile(rf"\b{ROLL_SIZE}\b")))
    j.wait_for_job("roll imported")

    j.area("Property roll and billing", "roll")
    j.follow(j.main.get_by_role("link", name=re.compile("Viejo San Juan")).first)
    j.follow(j.main.get_by_role("link", name=j.t("Run the billing")))
    j.look("billing form")
    j.main.get_by_label(re.compile("^" + j.t("Fiscal year"))).fill(fiscal_year)
    j.submit(j.form_of("Run the billing"), "Run the billing", "billing started")
    j.wait_for_job("billing run", key=True)

    j.area("Notices", "notices")
    row = j.main.locator("tr").filter(has_text=fiscal_year).filter(has_text="Viejo San Juan")
    j.follow(row.get_by_role("link", name=j.t("Prepare notices")))
    j.look("prepare notices")
    form = j.form_of("Prepare the notices")
    form.get_by_label(j.t("Date of the notices"), exact=False).fill(_day(0))
    for label, value in (
        ("Sender (the association)", "Asociación del Viejo San Juan"),
        ("Sender's mailing address", "PO Box 9020\nSan Juan PR 00902"),
        ("How to pay, in Spanish (the Spanish page)", "Cheque a nombre de la Asociación."),
        ("How to pay, in English (the English page)", "A check to the Association."),
    ):
        field = form.get_by_label(j.t(label), exact=False)
        if not field.input_value():
            field.fill(value)
    j.submit(form, "Prepare the notices", "notices started")
    j.wait_for_job("notice run", key=True)

    links = j.main.locator(f'td[data-label="{j.t("Notice")}"] a')
    numbers = links.all_inner_texts()
    assert len(numbers) == ROLL_SIZE, numbers
    # a notice's portal address is the one the site is served at (BASE_URL), not port 5000
    notice = j.page.request.get(j.site.base + (links.first.get_attribute("href") or ""))
    assert notice.ok and notice.headers["content-type"] == "application/pdf"
    printed = pdf_text(notice.body())
    served = j.site.base.removeprefix("http://")
    assert served in printed and "127.0.0.1:5000" not in printed, (served, printed)
    article_on_a_later_page(j)
    lines = ["notice,article"]
    for i, number in enumerate(numbers):
        body = f"94071118992{fiscal_year[2:4]}{i + 1:08d}"
        lines.append(f"{number},{body}{check_digit(body)}")
    articles = tmp / f"articles-{fiscal_year}.csv"
    articles.write_text("\n".join(lines) + "\n", encoding="utf-8")
    label = j.t("CSV file: notice number, article number")
    form = j.main.locator("form").filter(has=j.page.get_by_label(label))
    form.get_by_label(label).set_input_files(str(articles))
    j.submit(form, "Import", "article numbers")
    expect(j.main.get_by_role("button", name=j.t("Manifest PS Form 3877 (PDF)"))).to_be_visible()
    # postage and fees before the manifest is printed: a bad figure first, next to its field
    form = j.form_of("Save postage and fees")
    postage = form.get_by_label(j.t("Postage per piece"), exact=True)
    postage.fill("abc")
    form.get_by_label(j.t("Certified-mail fee per piece"), exact=True).fill("4.85")
    j.submit(form, "Save postage and fees", "fees, bad postage", key=True)
    expect(j.main.get_by_role("alert").first).to_be_visible()
    form = j.form_of("Save postage and fees")
    postage = form.get_by_label(j.t("Postage per piece"), exact=True)
    expect(postage).to_have_attribute("aria-invalid", "true")
    postage.fill("0.73")
    form.get_by_label(j.t("Certified-mail fee per piece"), exact=True).fill("4.85")
    j.submit(form, "Save postage and fees", "fees saved")
    expect(j.main.get_by_role("alert")).to_have_count(0)
    expect(j.main.locator("dl.kv")).to_contain_text("5.58")  # per piece: 0.73 + 4.85
    # the draft manifest is laid out by a job for the run as it stands, then downloaded
    j.submit(j.form_of("Manifest PS Form 3877 (PDF)"), "Manifest PS Form 3877 (PDF)", "manifest")
    j.wait_for_job("manifest ready")
    form = j.form_of("Record as mailed")
    form.get_by_label(j.t("Mailing date"), exact=True).fill(_day(0))
    j.submit(form, "Record as mailed", "mailing started")
    j.wait_for_job("mailed")

    deliveries = tmp / f"deliveries-{fiscal_year}.csv"
    deliveries.write_text(
        f"notice,status,date\n{numbers[0]},delivered,{_day(0)}\n"
        f"{numbers[1]},returned unclaimed,{_day(0)}\n",
        encoding="utf-8",
    )
    j.area("Notices", "notices")
    label = j.t("CSV file: article number, status, date")
    form = j.main.locator("form").filter(has=j.page.get_by_label(label))
    form.get_by_label(label).set_input_files(str(deliveries))
    j.submit(form, "Import", "deliveries recorded", key=True)
    expect(j.main.locator(".flash").first).to_contain_text("1")
    long_run(j)


def article_on_a_later_page(j: Journey) -> None:
    """A bad article number typed on row 3 of page 3 of a run's notices comes back at that
    row, on that page, naming the notice. The run (on its page) is made three pages long
    for the look by copies of its first notice, taken away after."""
    batch_id = int(re.search(r"/notices/batches/(\d+)", j.page.url).group(1))  # type: ignore[union-attr]
    engine = j.site.app.extensions["tid.engine"]
    with Session(engine) as session:
        first = session.exec(select(Notice).where(Notice.batch_id == batch_id)).first()
        assert first is not None
        shown = session.exec(select(Notice).where(Notice.batch_id == batch_id)).all()
        kept = first.model_dump(exclude={"id", "public_id", "number", "created_at"})
        copies = [
            Notice(**kept, public_id=f"journey-copy-{k:04d}", number=f"{first.number}c{k:03d}")
            for k in range(2 * PER_PAGE + 3 - len(shown))
        ]
        session.add_all(copies)
        session.commit()
        made = [c.id for c in copies]
    try:
        j.page.goto(f"{j.page.url.split('?')[0].split('#')[0]}?page=3")
        rows = j.main.locator("tr").filter(has=j.page.locator(f'td[data-label="{j.t("Notice")}"]'))
        row = rows.nth(2)
        number = row.locator(f'td[data-label="{j.t("Notice")}"] a').inner_text()
        row.get_by_label(j.t("Article number")).fill("12")
        j.follow(row.get_by_role("button", name=j.t("Save")))
        j.page.wait_for_load_state()  # a page of a shape the journey checks already
        assert "page=3" in j.page.url, j.page.url
        row = rows.nth(2)
        expect(row.get_by_label(j.t("Article number"))).to_have_attribute("aria-invalid", "true")
        expect(row.locator(".field-error")).to_contain_text(number)
    finally:
        with Session(engine) as session:
            for notice_id in made:
                session.delete(session.get(Notice, notice_id))
            session.commit()
    j.page.goto(f"{j.site.base}/notices/batches/{batch_id}")


def _count_and_left(text: str) -> tuple[int, int, int]:
    """A long run's progress as its page says it: done, of how many, and seconds left
    ("250 of 500 notices · about 25s left")."""
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)]
    assert len(numbers) == 3, text  # the count and the time left, both said
    return numbers[0], numbers[1], numbers[2]


def long_run(j: Journey) -> None:
    """A run of 500 notices as its page shows it while it runs: the count and the time left
    from its first report (an earlier run's pace: 100 notices in 10 s), the count moving as
    the run reports, the time left never growing though the run starts slower than that
    pace. The run reports on a stepped clock (the worker's ``progress``); the page reads
    it as it polls: states, not moments."""
    engine = j.site.app.extensions["tid.engine"]
    started = utcnow()
    with Session(engine) as session:
        district = session.exec(
            select(District).where(col(District.name).contains("Viejo San Juan"))
        ).one()
        common = {"kind": tasks.NOTICES_CREATE, "district_id": district.id, "actor": "journey"}
        earlier = Job(
            token=f"journey-earlier-{started.timestamp()}",
            state=JobState.DONE.value,
            total=100,
            done=100,
            started_at=started - timedelta(seconds=60),
            finished_at=started - timedelta(seconds=50),
            **common,  # type: ignore[arg-type]
        )
        running = Job(
            token=f"journey-500-{started.timestamp()}",
            state=JobState.RUNNING.value,
            total=500,
            started_at=started,
            **common,  # type: ignore[arg-type]
        )
        session.add_all([earlier, running])
        session.commit()
        job_id, earlier_id = running.id or 0, earlier.id or 0
    job_service.progress(engine, job_id, 0, 500, now=started)
    j.page.goto(f"{j.site.base}/jobs/{job_id}")
    said = j.main.locator(".job-text")
    first = _count_and_left(said.inner_text())
    assert first[:2] == (0, 500) and 0 < first[2] <= 50, first
    # 100 notices in 40 s: by its own pace the rest would take 160 s, later than first said
    job_service.progress(engine, job_id, 100, 500, now=started + timedelta(seconds=40))
    expect(said).to_contain_text("100 ")  # the page polls once a second
    now = _count_and_left(said.inner_text())
    assert now[:2] == (100, 500) and now[2] <= first[2], (first, now)
    with Session(engine) as session:  # the module's other journeys see no run left going
        for made in (job_id, earlier_id):
            session.delete(session.get(Job, made))
        session.commit()


def treasurer(j: Journey, amount: str) -> None:
    """A payment, an administrative expenditure the 5% cap refuses, a property's liens."""
    j.go("/", "home")
    j.area("Special account", "account", key=True)
    account_nav = j.main.get_by_role("navigation")
    j.follow(account_nav.get_by_role("link", name=j.t("Delinquency and liens")))
    j.look("delinquency")
    cadastral = j.main.locator(f'td[data-label="{j.t("Cadastral number")}"] a').first.inner_text()
    j.follow(j.main.get_by_role("navigation").get_by_role("link", name=j.t("Payments")))
    j.look("payments")
    form = j.form_of("Book the payment")
    form.get_by_label(j.t("Date of the deposit"), exact=False).fill("2026-03-02")
    form.get_by_label(j.t("Amount"), exact=False).fill(amount)
    form.get_by_label(re.compile("^" + re.escape(j.t("Cadastral number")))).fill(cadastral)
    j.submit(form, "Book the payment", "payment booked")
    # booked, and the page says to which bill (the journal's first page shows the year's start)
    expect(j.main.locator(".flash:not(.error)").first).to_be_visible()
    expect(j.main.locator(".flash").filter(has_text=amount.split(".")[0])).not_to_have_count(0)
    expect(j.main.get_by_role("alert")).to_have_count(0)

    j.follow(j.main.get_by_role("navigation").get_by_role("link", name=j.t("Expenditures")))
    j.look("expenditures")
    form = j.form_of("Book the expenditure")
    form.get_by_label(j.t("Date"), exact=True).fill("2026-03-02")
    form.get_by_label(j.t("Amount"), exact=True).fill("25,000.00")
    form.get_by_label(j.t("Paid to"), exact=True).fill("Oficina Central, Inc.")
    form.get_by_label(j.t("Purpose"), exact=True).select_option(value="admin")
    form.get_by_label(j.t("Description"), exact=True).fill("Alquiler de oficina")
    j.submit(form, "Book the expenditure", "expenditure refused by the cap", key=True)
    expect(j.main.get_by_role("alert").first).to_be_visible()
    expect(j.main.get_by_text("Oficina Central, Inc.", exact=True)).to_have_count(0)

    account_nav = j.main.get_by_role("navigation")
    j.follow(account_nav.get_by_role("link", name=j.t("Delinquency and liens")))
    j.look("delinquency")
    j.follow(j.main.get_by_role("link", name=cadastral, exact=True).first)
    j.look("liens")
    j.main.get_by_label(j.t("Sale price")).fill("150,000.00")
    j.submit(j.main.locator("form.filters"), "Distribute", "liens with a sale", key=True)
