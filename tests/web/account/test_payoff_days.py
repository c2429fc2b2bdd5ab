"""What a payoff quote says each day after its day adds, on the days before, on and after a
surcharge lands: the daily interest to the cent (never the one-time surcharge), and the
surcharge listed apart with its day and amount — on the quote's page, its PDF, the
verification page and the JSON."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from decimal import Decimal

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.pdf_checks import pdf_text
from tests.services.ledger_support import ACTOR, Scaffold
from tid.clock import today_in_puerto_rico
from tid.models import IssuedDocument
from tid.rules.messages import day_text
from tid.services.closing.issued import shown_code
from tid.services.liens import impost_lien as liens


def _flat(html: str) -> str:
    """A page's text, its tags dropped and its whitespace made single spaces."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _quote(client: FlaskClient, district_id: int, property_id: int, through: date) -> str:
    """Issue a payoff quote good through ``through``: its reference."""
    done = client.post(
        f"/account/{district_id}/properties/{property_id}/payoff",
        data={"good_through": through.isoformat()},
    )
    assert done.status_code == 302, done.get_data(as_text=True)[:500]
    return str(done.headers["Location"]).rsplit("/", 1)[1]


def test_a_quote_says_the_daily_interest_and_lists_the_surcharge_apart(
    client: FlaskClient, session: Session, people: People
) -> None:
    # One impost of 393.75 due in 2 days; the ordinance: a 10 % surcharge and 6 % a year.
    # The surcharge 39.375 → 39.38 lands the day after the due date; interest 0.0647… a day.
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-01")
    due = today_in_puerto_rico() + timedelta(days=2)
    s.bill(prop, "393.75", due=due)
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0.06",
    )
    session.commit()
    d, lands = s.district_id, due + timedelta(days=1)
    login(client, people.association)
    before, on_due, after = (due - timedelta(days=1), due, lands)
    refs = {day: _quote(client, d, prop.id or 0, day) for day in (before, on_due, after)}
    listed = f"El {day_text(lands, 'es')} se causa, una sola vez, un recargo de $39.38"
    for day, ref in refs.items():
        quote = session.exec(select(IssuedDocument).where(IssuedDocument.reference == ref)).one()
        page = _flat(client.get(f"/account/{d}/issued/{ref}").get_data(as_text=True))
        pdf = pdf_text(client.get(f"/account/{d}/issued/{ref}.pdf").data)
        public = _flat(client.get(f"/verificar/{shown_code(quote.code)}").get_data(as_text=True))
        read = client.get(f"/api/v1/account/{d}/issued/{ref}").get_json()
        shown = f"Cada día después del {day_text(day, 'es')}"
        for text in (page, pdf, public):
            # 39.44 = the surcharge and a day's interest: the charges of the day after only
            assert ("$39.44" in text) == (day == after)
            if day == before:  # nothing late yet: no interest a day; the surcharge apart
                assert f"{shown} no añade intereses" in text, text
                assert listed in text and "su interés añade $0.06 al día" in text
            elif day == on_due:  # the interest of a day; the surcharge of tomorrow apart
                assert f"{shown} añade $0.06 de intereses" in text and listed in text
                assert "su interés añade" not in text
            else:  # the surcharge is in the total; nothing more lands in 30 days
                assert f"{shown} añade $0.06 de intereses" in text and listed not in text
                assert "Ningún cargo único se causa en los 30 días después" in text
        charges = [
            (c["on"], c["surcharge"], c["per_day_from_then"]) for c in read["one_time_charges"]
        ]
        expected = {
            before: ("393.75", "0.00", [(lands.isoformat(), "39.38", "0.06")]),
            on_due: ("393.75", "0.06", [(lands.isoformat(), "39.38", None)]),
            after: ("433.19", "0.06", []),
        }[day]
        assert (read["total"], read["per_day"], charges) == expected
    # What a quote would say, not issued, through the due date.
    login(client, people.auditor)
    url = f"/api/v1/account/{d}/properties/{prop.id}/payoff?through={on_due.isoformat()}"
    answer = client.get(url).get_json()
    assert (answer["total"], answer["per_day"]) == ("393.75", "0.06")
    assert answer["one_time_charges"] == [
        {
            "on": lands.isoformat(),
            "fiscal_year": "2025-26",
            "due_date": due.isoformat(),
            "surcharge": "39.38",
            "per_day_from_then": None,
        }
    ]


def test_a_quote_issued_before_the_charges_were_listed_apart_is_not_read_as_interest(
    client: FlaskClient, session: Session, people: People
) -> None:
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-01")
    due = today_in_puerto_rico() + timedelta(days=2)
    s.bill(prop, "393.75", due=due)
    session.commit()
    login(client, people.association)
    ref = _quote(client, s.district_id, prop.id or 0, due)
    # As such a quote was kept: its lines without the charges landing after its day, and
    # its daily figure the difference to the next day's total (the surcharge within it).
    quote = session.exec(select(IssuedDocument).where(IssuedDocument.reference == ref)).one()
    lines = [
        {k: v for k, v in line.items() if not k.startswith("lands")}
        for line in json.loads(quote.lines)
    ]
    quote.lines, quote.per_day = json.dumps(lines), Decimal("39.44")
    session.add(quote)
    session.commit()
    page = _flat(client.get(f"/account/{s.district_id}/issued/{ref}").get_data(as_text=True))
    public = _flat(client.get(f"/verificar/{shown_code(quote.code)}").get_data(as_text=True))
    read = client.get(f"/api/v1/account/{s.district_id}/issued/{ref}").get_json()
    for text in (page, public):
        assert "decía $39.44 más por cada día después" in text, text
        assert "$39.44 de intereses" not in text and "Ningún cargo único" not in text
    assert read["one_time_charges"] is None  # it did not say them: not "none"
