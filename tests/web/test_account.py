"""The special account's pages: the association on its own district, the auditor reading
everything and writing nothing, payments by form and by file, the cap refusal with its
figures in Spanish, PDFs read back."""

from __future__ import annotations

import io
import re
from datetime import date
from decimal import Decimal
from pathlib import Path
from xml.etree import ElementTree

from flask.testing import FlaskClient
from pypdf import PdfReader
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.pdf_checks import assert_archival
from tests.services.ledger_support import ACTOR, Scaffold
from tid.models import AuthorizedPurpose, JournalEntry, Property
from tid.services import expenditures, ledger, liens, payments


def _setup(session: Session, people: People) -> tuple[Scaffold, int]:
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-01", owner="Marta <b>Ríos</b>")
    bill = s.bill(prop, "1000.00")
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="Ornato"
    )
    session.commit()
    return s, (bill.id or 0) + 0 * (purpose.id or 0)


def _text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def test_association_pays_by_form_once_and_sees_only_its_district(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = _setup(session, people)
    login(client, people.association)
    d = s.district_id
    assert client.get(f"/account/{people.other_district.id}").status_code == 403
    assert client.get("/account").status_code == 302
    form = {"date": "2025-08-01", "amount": "400.00", "notice_number": str(bill_id), "token": "t1"}
    first = client.post(f"/account/{d}/payments", data=form, follow_redirects=True)
    # 1,000.00 owed − 400.00 = 600.00 left.
    assert "$400.00 aplicados a la factura" in first.get_data(as_text=True)
    assert "aún se deben $600.00" in first.get_data(as_text=True)
    again = client.post(f"/account/{d}/payments", data=form, follow_redirects=True)  # double click
    assert "ya estaba registrado" in again.get_data(as_text=True)
    session.expire_all()
    assert ledger.balance(session, d, ledger.BANK) == Decimal("400.00")
    bad = client.post(f"/account/{d}/payments", data={**form, "amount": "0", "token": "t2"})
    assert bad.status_code == 422
    page = bad.get_data(as_text=True)
    assert "Un pago debe ser mayor que cero." in page and 'aria-invalid="true"' in page
    page = client.get(f"/account/{d}?fy=2025-26").get_data(as_text=True)
    assert "Cuenta especial" in page
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) == 2
    for svg in svgs:
        ElementTree.fromstring(svg)  # well-formed
    # August's revenue bar: 400.00 collected.
    assert "2025-08: $400.00" in svgs[0]


def test_import_with_bad_rows_books_nothing_and_names_the_rows(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = _setup(session, people)
    login(client, people.association)
    body = (
        "fecha,monto,referencia,aviso\n"
        f"2025-08-01,100.00,D1,{bill_id}\n"
        f"2025-08-02,-3.00,D2,{bill_id}\n"
    ).encode()
    response = client.post(
        f"/account/{s.district_id}/payments/import",
        data={"file": (io.BytesIO(body), "banco.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "Fila 3" in response.get_data(as_text=True)
    session.expire_all()
    assert ledger.balance(session, s.district_id, ledger.BANK) == 0
    good = body.decode().splitlines()[:2]
    response = client.post(
        f"/account/{s.district_id}/payments/import",
        data={"file": (io.BytesIO(("\n".join(good) + "\n").encode()), "banco.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    session.expire_all()
    assert ledger.balance(session, s.district_id, ledger.BANK) == Decimal("100.00")


def test_cap_refusal_shows_the_figures_in_spanish(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = _setup(session, people)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("1000.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    session.commit()
    login(client, people.association)
    form = {
        "date": "2025-08-02",
        "amount": "50.01",
        "payee": "Oficina",
        "category": "admin",
        "token": "x",
    }
    response = client.post(f"/account/{s.district_id}/expenditures", data=form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    # 5% × 1,000.00 = 50.00; nothing spent yet: headroom 50.00.
    assert "excedería el 5% de los recaudos" in page
    assert "1,000.00" in page and "margen disponible $50.00" in page
    ok = client.post(f"/account/{s.district_id}/expenditures", data={**form, "amount": "50.00"})
    assert ok.status_code == 302
    # Spending on an authorized purpose: the journal names its account by the purpose.
    purpose = session.exec(select(AuthorizedPurpose)).one()
    on_purpose = {**form, "amount": "20.00", "category": str(purpose.id), "token": "y"}
    assert client.post(f"/account/{s.district_id}/expenditures", data=on_purpose).status_code == 302
    journal = client.get(f"/account/{s.district_id}/journal?fy=2025-26").get_data(as_text=True)
    assert "Gastos: Ornato" in journal and "Gastos administrativos" in journal


def test_auditor_reads_everything_and_writes_nothing(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = _setup(session, people)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("100.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    session.commit()
    entry = session.exec(select(JournalEntry).where(JournalEntry.kind == "payment")).one()
    login(client, people.auditor)
    d = s.district_id
    for path in (
        "",
        "/payments",
        "/journal",
        "/expenditures",
        "/purposes",
        "/bank",
        "/delinquency",
        "/statement",
    ):
        assert client.get(f"/account/{d}{path}").status_code == 200, path
    assert client.get(f"/account/{people.other_district.id}").status_code == 200
    writes = [
        (
            f"/account/{d}/payments",
            {"date": "2025-08-01", "amount": "5", "notice_number": str(bill_id)},
        ),
        (
            f"/account/{d}/expenditures",
            {"date": "2025-08-01", "amount": "5", "payee": "x", "category": "admin"},
        ),
        (f"/account/{d}/purposes", {"name": "x"}),
        (f"/account/{d}/bank", {"as_of": "2025-08-01", "balance": "1"}),
        (f"/account/{d}/delinquency", {"surcharge_rate": "0.1", "annual_interest_rate": "0"}),
        (f"/account/{d}/entries/{entry.id}/reverse", {"reason": "x"}),
    ]
    for path, data in writes:
        assert client.post(path, data=data).status_code == 403, path
    session.expire_all()
    assert ledger.balance(session, d, ledger.BANK) == Decimal("100.00")


def test_statement_lien_certificate_and_delinquency_documents(
    client: FlaskClient, session: Session, people: People, app: object
) -> None:
    s, bill_id = _setup(session, people)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("400.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    liens.add_lien(
        session=session,
        actor=ACTOR,
        property_id=prop.id or 0,
        kind="mortgage",
        holder="<script>Banco</script>",
        constituted_on=date(2001, 1, 1),
        amount=Decimal("9000.00"),
        today=date(2025, 8, 1),
    )
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0",
    )
    session.commit()
    login(client, people.auditor)
    d = s.district_id
    pdf = client.get(f"/account/{d}/statement.pdf?fy=2025-26")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    text = _text(pdf.data)
    assert "Estado de la cuenta especial, AF 2025-26" in text and "400.00" in text
    assert "123-456-789-01" in text  # the PDF lists the receivables bill by bill
    assert_archival(pdf.data, lang="es", tagged=True)
    # The page has the figures: the receivables by age with their count and total, and the
    # way to the bills (the delinquency page, the PDF) rather than the bills themselves.
    shown = " ".join(
        client.get(f"/account/{d}/statement?fy=2025-26").get_data(as_text=True).split()
    )
    assert "Cuentas por cobrar al 30 jun 2026, por antigüedad" in shown
    assert '1 factura adeudada</td><td class="num">$600.00' in shown
    assert "123-456-789-01" not in shown and f"/account/{d}/delinquency" in shown
    page = client.get(f"/account/{d}/properties/{prop.id}/liens?sale_price=9500").get_data(
        as_text=True
    )
    assert "&lt;script&gt;Banco&lt;/script&gt;" in page and "<script>Banco" not in page
    # The ranking's warnings in the page's language (Spanish by default).
    assert "La ley ordena los gravámenes solo en relación" in page
    assert "The statute orders liens only" not in page
    # The page gives the rule's reasons, as the certificate does.
    assert "Intereses, recargos y cargos sobre la imposición: los adeuda el dueño" in page
    cert = client.get(f"/account/{d}/properties/{prop.id}/lien-certificate.pdf")
    text = _text(cert.data)
    assert_archival(cert.data, lang="es", tagged=True)
    # 1,000.00 − 400.00 = 600.00 secured; the 2001 mortgage ranks first, the impost second.
    assert "600.00" in text and "Rango del gravamen de la imposición" in text
    assert "Rango del gravamen de la imposición 2" in " ".join(text.split())
    # The rule's reasons, in Spanish: the 2001 mortgage predates the act (2010-01-15); the
    # impost's surcharges are never paid from the sale proceeds.
    said = " ".join(text.split())
    assert "Tiene prioridad sobre el gravamen de la imposición: una hipoteca" in said
    assert "el 2001-01-01, antes de que la ley entrara en vigor el 2010-01-15" in said
    unsecured = "Intereses, recargos y cargos sobre la imposición: los adeuda el dueño"
    assert unsecured in said and "lo que quede" not in said
    csv_text = client.get(f"/account/{d}/delinquency.csv").get_data(as_text=True)
    assert "123-456-789-01" in csv_text and "600.00" in csv_text and "60.00" in csv_text
    # The page shows the terms its charges were figured with: the 10% surcharge of 600.00.
    page = " ".join(client.get(f"/account/{d}/delinquency").get_data(as_text=True).split())
    assert "<dd>0.10</dd>" in page and 'data-label="Recargo">$60.00</td>' in page
    delinquent = client.get(f"/account/{d}/delinquency.pdf").data
    assert "Facturas en mora" in _text(delinquent)
    assert_archival(delinquent, lang="es", tagged=True)
    old = client.get(f"/account/{d}/statement?fy=2025-26&booked_by=2025-01-01")
    assert "Según estaba el diario" in old.get_data(as_text=True)
    journal = client.get(f"/account/{d}/statement.csv?fy=2025-26&part=journal").get_data(
        as_text=True
    )
    # headed in the reader's language (Spanish), for a spreadsheet
    assert journal.startswith("Asiento,Fecha,Clase,Concepto")


def test_reversal_from_the_page_and_no_redirect_elsewhere(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = _setup(session, people)
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("100.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    session.commit()
    login(client, people.association)
    url = f"/account/{s.district_id}/entries/{paid.entry_id}/reverse"
    response = client.post(url, data={"reason": "cheque devuelto", "back": "https://evil.example/"})
    assert response.status_code == 302
    assert response.location.endswith(f"/account/{s.district_id}/journal")
    session.expire_all()
    assert ledger.balance(session, s.district_id, ledger.BANK) == 0
    twice = client.post(url, data={"reason": "otra vez"}, follow_redirects=True)
    assert "Este asiento ya fue revertido." in twice.get_data(as_text=True)


def test_owner_credit_shown_and_applied_from_the_property_page(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, bill_id = _setup(session, people)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("1200.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    session.commit()
    prop = session.exec(select(Property).where(Property.district_id == s.district_id)).one()
    login(client, people.association)
    page = client.get(f"/account/{s.district_id}/properties/{prop.id}/liens").get_data(as_text=True)
    # 1,200.00 paid − 1,000.00 owed = 200.00 held; nothing owed, so no button.
    assert "$200.00" in page and "apply-credit" not in page
    response = client.post(
        f"/account/{s.district_id}/properties/{prop.id}/apply-credit",
        data={"token": "credit-1"},
        follow_redirects=True,
    )
    assert "Nada se debe" in response.get_data(
        as_text=True
    ) or "No se debe nada" in response.get_data(as_text=True)
    found = client.get(f"/account/{s.district_id}/delinquency?cadastral=123-456-789-01")
    assert found.status_code == 302 and found.location.endswith(f"/properties/{prop.id}/liens")
    missing = client.get(f"/account/{s.district_id}/delinquency?cadastral=000")
    assert missing.status_code == 422


def test_the_expenditures_page_is_one_fiscal_year_and_says_when_it_has_no_collections(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    from tests.conftest import make_test_app

    s, bill_id = _setup(session, people)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("1000.00"),
        today=date(2025, 8, 1),
        key="p",
        notice_number=str(bill_id),
    )
    session.commit()
    # Today is in FY 2026-27, which has nothing booked yet.
    client = make_test_app(database_url, tmp_path, TODAY="2026-07-15").test_client()
    login(client, people.association)
    d = s.district_id
    page = client.get(f"/account/{d}/expenditures").get_data(as_text=True)
    # By default the latest fiscal year with activity, 2025-26: cap panel, list and form.
    assert "Tope administrativo, AF 2025-26" in page and "Gastos del AF 2025-26" in page
    assert "$1,000.00" in page  # the revenue of 2025-26 in the cap panel
    assert 'value="2026-06-30"' in page  # a new expenditure is dated in the year shown
    # An administrative expense dated today (FY 2026-27) is refused, saying why.
    form = {
        "date": "2026-07-15",
        "amount": "10.00",
        "payee": "Oficina",
        "category": "admin",
        "token": "y",
    }
    refused = client.post(f"/account/{d}/expenditures", data=form)
    assert refused.status_code == 422
    text = refused.get_data(as_text=True)
    assert "El AF 2026-27 aún no tiene ingresos de la derrama cobrados" in text
    assert "5%" in text and "21 LPRA § 6653(6)" in text
    # The whole page is then FY 2026-27: the panel (no revenue) and the list.
    assert "Tope administrativo, AF 2026-27" in text and "Gastos del AF 2026-27" in text
    assert "Gastos del AF 2025-26" not in text
    # The same expense dated in 2025-26 is booked, and the page shows that year.
    ok = client.post(f"/account/{d}/expenditures", data={**form, "date": "2026-06-30"})
    assert ok.status_code == 302 and ok.location.endswith("fy=2025-26")
    # Chosen with the selector: ?fy= shows that year throughout.
    chosen = client.get(f"/account/{d}/expenditures?fy=2026-27").get_data(as_text=True)
    assert "Tope administrativo, AF 2026-27" in chosen and "Gastos del AF 2026-27" in chosen
    assert 'value="2026-07-15"' in chosen


def test_the_journal_pages_fifty_entries_with_first_and_last_page_links(
    client: FlaskClient, session: Session, people: People
) -> None:
    """120 entries make three pages of 50; the pager links to the first and the last page
    from the pages that are not next to them."""
    s = Scaffold(session, people.district)
    for _ in range(120):
        s.bill(s.property(), "10.00")
    ledger.sync_bills(session, actor=ACTOR, district_id=s.district_id)
    session.commit()
    login(client, people.association)
    d = s.district_id
    url = f"/account/{d}/journal?fy=2025-26"

    def pager(page: int) -> tuple[str, set[str]]:
        html = client.get(f"{url}&page={page}").get_data(as_text=True)
        links = set(re.findall(r'href="[^"]*[?&]page=(\d+)[^"]*"', html.replace("&amp;", "&")))
        return html, links

    first, links = pager(1)
    assert "Página 1 de 3" in first and first.count('data-label="Asiento"') == 50
    assert "Primera página" not in first and "Última página" in first and links == {"2", "3"}
    middle, links = pager(2)
    assert "Página 2 de 3" in middle and links == {"1", "3"}
    assert "Primera página" not in middle and "Última página" not in middle  # next to both
    last, links = pager(3)
    assert "Página 3 de 3" in last and "Primera página" in last and links == {"1", "2"}
    assert last.count('data-label="Asiento"') == 20
