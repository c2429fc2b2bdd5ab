"""What goes to an owner's confirmed address: the digital copy of each notice mailed since
(its archived PDF attached), and one reminder before the due date while something is owed —
each sent once however many runs, a refused one tried again, never to a removed address."""

from __future__ import annotations

import email.header
import re
from datetime import UTC, date, datetime
from decimal import Decimal

from flask import Flask
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.notice_support import ACTOR, article, issue_notices, make_ordinance, make_run
from tests.services.owners.test_owner_email import ask, link_token, mailed_notices
from tests.smtp_support import Inbox, body_of
from tid.jobs import background_jobs, scheduled_jobs, tasks
from tid.models import OwnerEmail, OwnerMessage
from tid.services import notices
from tid.services.account import payments
from tid.services.owners import owner_email

CONFIRMED = datetime(2026, 1, 21, 12, 0, tzinfo=UTC)  # the day before the run is mailed
MAILED = date(2026, 1, 22)  # mail_all's day; the bills are due on 2026-04-30


def test_copies_then_one_reminder_while_owed_each_sent_once(
    app: Flask, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    app.config.update(
        SMTP_HOST="127.0.0.1",
        SMTP_PORT=port,
        BASE_URL="https://tid.example.pr",
        SECRET_KEY="test-secret-key",
        OWNER_REMINDER_DAYS=10,
    )
    owed, paid = mailed_notices(session, people, ["Ana Owner", "Luis Owner"])
    for notice, address in ((owed, "ana@ejemplo.com"), (paid, "luis@ejemplo.com")):
        ask(session, notice, port, address, now=CONFIRMED)
        owner_email.confirm(session=session, token=link_token(inbox, "confirm"), now=CONFIRMED)
        session.commit()
    payments.record_payment(
        session=session,
        actor=owner_email.PORTAL,
        district_id=people.district.id or 0,
        paid_on=date(2026, 2, 1),
        amount=paid.amount,
        today=date(2026, 2, 1),
        key="paid-in-full",
        notice_number=paid.number,
    )
    session.commit()
    inbox.messages.clear()
    # The day after the mailing: each owner's copy, the PDF as mailed attached.
    first = scheduled_jobs.run_owner_mail(app, MAILED)
    assert (first.copies, first.reminders, first.failed) == (2, 0, 0)
    by_to = {rcpt[0]: message for rcpt, message in inbox.messages}
    copy = by_to["ana@ejemplo.com"]
    assert owed.number in copy["Subject"]
    pdf = next(part for part in copy.walk() if part.get_content_type() == "application/pdf")
    assert pdf.get_filename() == f"aviso-{owed.number}.pdf"
    assert pdf.get_payload(decode=True) == notices.notice_pdf_bytes(session=session, notice=owed)
    text = body_of(next(p for p in copy.walk() if p.get_content_type() == "text/plain"))
    assert "correo certificado" in text and "/portal/email/stop/" in text
    assert (
        "el 22 ene 2026" in text and "on Jan 22, 2026" in text
    )  # days as each language writes them
    assert copy["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert scheduled_jobs.run_owner_mail(app, MAILED).copies == 0  # never twice
    # Ten days before the due date: one reminder, to the owner who still owes.
    inbox.messages.clear()
    assert scheduled_jobs.run_owner_mail(app, date(2026, 4, 19)).reminders == 0
    due = scheduled_jobs.run_owner_mail(app, date(2026, 4, 20))
    assert (due.copies, due.reminders) == (0, 1)
    assert [rcpt for rcpt, _m in inbox.messages] == [["ana@ejemplo.com"]]
    reminder = body_of(inbox.messages[0][1])
    assert "30 abr 2026" in reminder and "Apr 30, 2026" in reminder and "$1,234.56" in reminder
    assert not re.search(r"\b\d{4}-\d{2}-\d{2}\b", reminder)
    subject = str(
        email.header.make_header(email.header.decode_header(inbox.messages[0][1]["Subject"]))
    )
    assert "vence el 30 abr 2026 / due on Apr 30, 2026" in subject
    for day in (date(2026, 4, 20), date(2026, 4, 25), date(2026, 4, 30)):
        assert scheduled_jobs.run_owner_mail(app, day).reminders == 0
    assert len(inbox.messages) == 1
    kinds = sorted(m.kind for m in session.exec(select(OwnerMessage)).all())
    assert kinds == ["copy", "copy", "reminder"]  # the day's confirmations are forgotten


def test_a_refused_message_is_tried_again_and_a_removed_address_gets_nothing(
    app: Flask, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=port, SECRET_KEY="test-secret-key")
    notice = mailed_notices(session, people)[0]
    ask(session, notice, port, "ana@ejemplo.com", now=CONFIRMED)
    owner_email.confirm(session=session, token=link_token(inbox, "confirm"), now=CONFIRMED)
    session.commit()
    inbox.messages.clear()
    app.config["SMTP_PORT"] = 9  # nothing listens: the server refuses
    refused = scheduled_jobs.run_owner_mail(app, MAILED)
    assert (refused.copies, refused.failed) == (0, 1)
    row = session.exec(select(OwnerMessage).where(OwnerMessage.kind == "copy")).one()
    assert row.status == "failed" and row.error
    app.config["SMTP_PORT"] = port
    assert scheduled_jobs.run_owner_mail(app, MAILED).copies == 1
    assert len(inbox.messages) == 1
    assert owner_email.remove(session=session, notice=notice)
    session.commit()
    assert scheduled_jobs.run_owner_mail(app, date(2026, 4, 25)).reminders == 0
    assert len(inbox.messages) == 1
    assert notice.amount == Decimal("1234.56")


def test_recording_the_mailing_sends_the_copies_at_once(
    app: Flask, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    """The mailing's job, once committed, queues the owners' mail: the copy goes out with
    the run, not with the next day's sweep."""
    inbox, port = smtp
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=port, SECRET_KEY="test-secret-key")
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, owners=["Ana Owner"])
    session.commit()
    batch, (notice,) = issue_notices(session, billed)
    notices.set_article_number(
        session=session, actor=ACTOR, notice_id=notice.id or 0, article_number=article(7)
    )
    # The owner confirmed an address (an earlier notice opened the portal) before the run.
    row = OwnerEmail(
        district_id=notice.district_id,
        property_id=notice.property_id,
        owner_key=owner_email.owner_key(notice.owner_name),
        address="ana@ejemplo.com",
        status=owner_email.CONFIRMED,
        confirmed_at=CONFIRMED,
    )
    session.add(row)
    session.commit()
    job, _created = background_jobs.start(
        session=session,
        token="mail-the-run",
        kind=tasks.NOTICES_MAIL,
        actor=ACTOR,
        params={"batch_id": batch.id, "mailed_on": MAILED, "today": MAILED},
        district_id=people.district.id,
    )
    tasks.enqueue(app, job.id or 0)
    assert tasks.run_pending(app) == 2  # the mailing, then the owners' mail it queued
    assert [rcpt for rcpt, _m in inbox.messages] == [["ana@ejemplo.com"]]
    assert notice.number in inbox.messages[0][1]["Subject"]
