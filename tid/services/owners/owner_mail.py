"""What goes to an owner's confirmed address (tid/services/owners/owner_email.py): the digital copy
of each notice mailed to them after they confirmed it — the notice's PDF as archived, the
very bytes mailed, attached — and one reminder a few days before a bill's due date while
something is still owed on it.

Each message is claimed before it is sent: its row (``owner_message``) has a unique key,
``copy:<notice>`` or ``reminder:<bill>``, written in a transaction of its own, so two runs,
a retry or a second scheduler never send one twice. A message the mail server refused is
marked ``failed`` and tried again by the next run (a reminder only until the due date).
Every message carries the link that deletes the address, and the certified-mail notice
stays the legal notice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tid import mail
from tid.clock import utcnow
from tid.models import Bill, BillStatus, Notice, NoticeBatch, OwnerEmail, OwnerMessage, Property
from tid.render.formats import usd
from tid.rules.messages import Message, day_text
from tid.services.archive.store import notice_pdf_bytes
from tid.services.owners import owner_email, portal

COPY = "copy"
REMINDER = "reminder"
DEFAULT_REMINDER_DAYS = 10


@dataclass(frozen=True)
class Due:
    """A message due to a confirmed address: the digital copy of a notice, or the reminder
    of the bill a notice asks for."""

    kind: str
    key: str
    property_id: int
    notice_id: int
    email_id: int


def _confirmed(session: Session) -> list[OwnerEmail]:
    return list(
        session.exec(
            select(OwnerEmail)
            .where(OwnerEmail.status == owner_email.CONFIRMED)
            .order_by(col(OwnerEmail.property_id))
        )
    )


def _claimed(session: Session, keys: list[str]) -> set[str]:
    """The keys already sent or being sent (a failed one may be tried again)."""
    found: set[str] = set()
    for start in range(0, len(keys), 1000):
        found |= set(
            session.exec(
                select(OwnerMessage.key).where(
                    col(OwnerMessage.key).in_(keys[start : start + 1000]),
                    OwnerMessage.status != "failed",
                )
            )
        )
    return found


def due(*, session: Session, today: date, reminder_days: int = DEFAULT_REMINDER_DAYS) -> list[Due]:
    """Every message due on ``today``: each notice mailed to a confirmed address's owner
    since they confirmed it, and each bill whose due date is ``reminder_days`` days away or
    less with a balance still owed (its latest notice)."""
    found: list[Due] = []
    for address in _confirmed(session):
        confirmed_on = (address.confirmed_at or utcnow()).date()
        notices = session.exec(
            select(Notice)
            .where(Notice.property_id == address.property_id, col(Notice.mailed_on).is_not(None))
            .order_by(col(Notice.mailed_on).desc(), col(Notice.id).desc())
        ).all()
        reminded: set[int] = set()
        for notice in notices:
            if owner_email.owner_key(notice.owner_name) != address.owner_key:
                continue
            if notice.mailed_on is not None and notice.mailed_on >= confirmed_on:
                found.append(
                    Due(
                        COPY,
                        f"copy:{notice.id}",
                        address.property_id,
                        notice.id or 0,
                        address.id or 0,
                    )
                )
            window = notice.due_date - timedelta(days=reminder_days) <= today <= notice.due_date
            if window and notice.bill_id not in reminded:
                reminded.add(notice.bill_id)
                if _still_owed(session, notice.bill_id):
                    found.append(
                        Due(
                            REMINDER,
                            f"reminder:{notice.bill_id}",
                            address.property_id,
                            notice.id or 0,
                            address.id or 0,
                        )
                    )
    taken = _claimed(session, [d.key for d in found])
    return [d for d in found if d.key not in taken]


def _still_owed(session: Session, bill_id: int) -> bool:
    bill = session.get(Bill, bill_id)
    if bill is None or bill.status != BillStatus.ACTIVE.value:
        return False
    return portal.balance_for_bill(session=session, bill=bill).balance > 0


def claim(*, session: Session, item: Due) -> int | None:
    """Claim a message before sending it: its row written (or a failed one taken again);
    None if another run has it. The caller commits at once."""
    retried = session.execute(
        update(OwnerMessage)
        .where(col(OwnerMessage.key) == item.key, col(OwnerMessage.status) == "failed")
        .values(status="sending", error="", created_at=utcnow())
    )
    if getattr(retried, "rowcount", 0):
        return session.exec(select(OwnerMessage.id).where(OwnerMessage.key == item.key)).first()
    row = OwnerMessage(
        property_id=item.property_id, kind=item.kind, key=item.key, notice_id=item.notice_id
    )
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:
        return None
    return row.id


def finish(*, session: Session, message_id: int, error: str = "") -> None:
    """A claimed message sent, or refused by the mail server (``error``: tried again)."""
    row = session.get(OwnerMessage, message_id)
    if row is None:
        return
    row.status = "failed" if error else "sent"
    row.error = error[:200]
    row.sent_at = None if error else utcnow()
    session.add(row)


@dataclass(frozen=True)
class Outgoing:
    to: str
    subject: str
    body: str
    headers: dict[str, str]
    attachments: tuple[mail.Attachment, ...]


def compose(
    *, session: Session, item: Due, links: owner_email.Links, secret: str
) -> Outgoing | None:
    """The message of ``item`` to its address; None if the address is gone meanwhile."""
    address = session.get(OwnerEmail, item.email_id)
    notice = session.get(Notice, item.notice_id)
    if address is None or address.status != owner_email.CONFIRMED or notice is None:
        return None
    prop = session.get(Property, notice.property_id)
    cadastral = prop.cadastral_number if prop else ""
    stop = Message(
        "To stop these messages and delete your address: %(link)s",
        link=links.stop(owner_email.stop_token(address, secret)),
    )
    headers = owner_email.unsubscribe_headers(links, address, secret)
    legal = Message(owner_email.LEGAL_NOTE)
    if item.kind == COPY:
        lines = [
            Message(
                "Attached is the digital copy of notice %(number)s of property %(cadastral)s "
                "(fiscal year %(year)s), mailed by certified mail on %(mailed)s: %(amount)s, "
                "due on %(due)s.",
                number=notice.number,
                cadastral=cadastral,
                year=notice.fiscal_year,
                mailed=notice.mailed_on or notice.issued_on,
                amount=usd(notice.amount),
                due=notice.due_date,
            ),
            Message(
                "With the number and the code printed on it you can see it, and the "
                "property's account, in the owner's portal: %(link)s",
                link=links.portal(notice.number),
            ),
            legal,
            stop,
        ]
        subject = f"Aviso {notice.number} — copia digital / digital copy"
        pdf = mail.Attachment(
            f"aviso-{notice.number}.pdf", notice_pdf_bytes(session=session, notice=notice)
        )
        body = owner_email.bilingual(lines, address.language)
        return Outgoing(address.address, subject, body, headers, (pdf,))
    bill = session.get(Bill, notice.bill_id)
    owed = portal.balance_for_bill(session=session, bill=bill).balance if bill else notice.amount
    batch = session.get(NoticeBatch, notice.batch_id)
    lines = [
        Message(
            "Reminder: notice %(number)s of property %(cadastral)s is due on %(due)s; "
            "%(amount)s is still owed.",
            number=notice.number,
            cadastral=cadastral,
            due=notice.due_date,
            amount=usd(owed),
        ),
        Message(
            "Write the notice number on your payment. If you already paid, thank you: the "
            "payment may not be booked yet."
        ),
        Message("The notice and the account: %(link)s", link=links.portal(notice.number)),
        legal,
        stop,
    ]
    es_day, en_day = day_text(notice.due_date, "es"), day_text(notice.due_date, "en")
    subject = f"Aviso {notice.number} — vence el {es_day} / due on {en_day}"
    body = owner_email.bilingual(lines, address.language)
    how = [batch.how_to_pay.strip(), batch.how_to_pay_en.strip()] if batch is not None else []
    if any(how):
        body += "\n" + "\n\n".join(["Cómo pagar / How to pay:", *(h for h in how if h)]) + "\n"
    return Outgoing(address.address, subject, body, headers, ())
