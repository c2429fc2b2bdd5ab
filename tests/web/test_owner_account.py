"""The owner's account in the portal: one notice's code opens its property's account across
the years (every bill, payment and credit, the balance), a payoff quote good through today +
30 days and the certificate to download — never another property's."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People
from tests.pdf_checks import assert_archival, pdf_text
from tests.services.notice_support import (
    ACTOR,
    issue_notices,
    mail_all,
    make_ordinance,
    make_run,
)
from tid.clock import today_in_puerto_rico
from tid.models import IssuedDocument, Property
from tid.services import notices
from tid.services.account import payments


def test_one_code_opens_the_property_account_across_the_years(
    client: FlaskClient, session: Session, people: People
) -> None:
    ordinance = make_ordinance(session, people.district)
    first = make_run(session, people.district, ordinance, owners=["Vendedor Uno", "Otra Dueña"])
    prop = session.get(Property, first.bills[0].property_id)
    assert prop is not None
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        paid_on=date(2026, 2, 1),
        amount=Decimal("1300.00"),
        today=date(2026, 2, 1),
        key="pay-1",
        cadastral_number=prop.cadastral_number,
    )
    second = make_run(
        session,
        people.district,
        ordinance,
        fiscal_year="2026-27",
        owners=["Compradora Dos"],
        amounts=[Decimal("1500.00")],
        properties=[prop],
        due=date(2027, 4, 30),
    )
    session.commit()
    batch, found = issue_notices(session, second)
    mail_all(session, batch, found, seed=70)
    notice = found[0]
    match = re.search(
        r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}",
        pdf_text(notices.notice_pdf_bytes(session=session, notice=notice)),
    )
    assert match
    opened = client.post("/portal", data={"number": notice.number, "code": match.group(0)})
    assert opened.status_code == 302
    listing = client.get("/portal/notices").get_data(as_text=True)
    url = f"/portal/account/{notice.public_id}"
    assert url in listing
    page = " ".join(client.get(url).get_data(as_text=True).split())
    assert "2025-26" in page and "2026-27" in page and prop.cadastral_number in page
    # 1,234.56 billed in 2025-26, 1,300.00 paid: 65.44 held as credit; 1,500.00 owed now.
    assert "$1,234.56" in page and "$1,500.00" in page and "$65.44" in page
    assert "Vendedor Uno" not in page and "Otra Dueña" not in page
    good_through = (today_in_puerto_rico() + timedelta(days=30)).isoformat()
    assert good_through[:4] in page
    pdf = client.post(f"{url}/payoff.pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert_archival(pdf.data, lang="es", tagged=True)
    quote = session.exec(select(IssuedDocument)).one()
    assert quote.good_through == today_in_puerto_rico() + timedelta(days=30)
    assert quote.property_id == prop.id and "/verificar/" in pdf_text(pdf.data)
    certificate = client.post(f"{url}/lien-certificate.pdf")
    assert certificate.status_code == 200
    # Another property's notice, never opened with these codes, is not reachable.
    other = first.bills[1]
    assert other.property_id != prop.id
    assert client.get("/portal/account/not-a-notice").status_code == 404
    assert client.post("/portal/account/not-a-notice/payoff.pdf").status_code == 404
    client.post("/portal/leave")
    assert client.get(url).status_code == 404
