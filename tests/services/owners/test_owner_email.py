"""An owner's email address for a property's notices: left in the portal, confirmed by a
link whose token is unguessable, kept hashed and expires; refused when invalid, from an
earlier owner's notice or past the day's confirmations; removed by the owner or by the link
in its messages, and by a change of owner — with a trail that never keeps the address."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.notice_support import ACTOR, issue_notices, mail_all, make_ordinance, make_run
from tests.smtp_support import Inbox, body_of
from tid import mail
from tid.models import AuditEvent, Notice, OwnerEmail
from tid.rules.errors import InputError
from tid.services.closing import transfers
from tid.services.owners import owner_email, owner_mail

SECRET = "test-secret-key"
LINKS = owner_email.Links("https://tid.example.pr")
T0 = datetime(2026, 1, 21, 12, 0, tzinfo=UTC)


def mailed_notices(
    session: Session, people: People, owners: list[str] | None = None
) -> list[Notice]:
    """One mailed notice per owner (a property each), the smallest run that has them."""
    ordinance = make_ordinance(session, people.district)
    billed = make_run(session, people.district, ordinance, owners=owners or ["Ana Owner"])
    session.commit()
    batch, found = issue_notices(session, billed)
    mail_all(session, batch, found)
    return found


def settings_for(port: int) -> mail.MailSettings:
    return mail.MailSettings("127.0.0.1", port, "avisos@tid.example.pr")


def ask(
    session: Session, notice: Notice, port: int, address: str, now: datetime = T0
) -> OwnerEmail:
    row = owner_email.ask_confirmation(
        session=session,
        notice=notice,
        address=address,
        language="es",
        links=LINKS,
        settings=settings_for(port),
        secret=SECRET,
        now=now,
    )
    session.commit()
    return row


def link_token(inbox: Inbox, which: str) -> str:
    body = body_of(inbox.messages[-1][1])
    found = re.search(rf"https://tid\.example\.pr/portal/email/{which}/(\S+)", body)
    assert found, body
    return found.group(1)


def test_an_address_is_used_only_once_confirmed_and_its_link_expires(
    session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    notice = mailed_notices(session, people)[0]
    for bad in ("", "ana", "ana@", "ana@ejemplo", "ana @ejemplo.com", "a..b@ejemplo.com"):
        with pytest.raises(InputError) as caught:
            ask(session, notice, port, bad)
        assert caught.value.field == "email"
        session.rollback()
    assert inbox.messages == []
    row = ask(session, notice, port, "Ana.Owner@Ejemplo.COM")
    assert row.address == "Ana.Owner@ejemplo.com" and row.status == owner_email.PENDING
    rcpt, message = inbox.messages[0]
    assert rcpt == ["Ana.Owner@ejemplo.com"]
    body = body_of(message)
    assert "correo certificado" in body and "certified mail" in body  # the legal notice
    token = link_token(inbox, "confirm")
    # 128 bits from secrets, kept only as its SHA-256.
    assert owner_email.TOKEN_BITS >= 60 and len(token) >= 22
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(session.exec(select(OwnerEmail)).all())
    assert (
        message["List-Unsubscribe"].strip().startswith("<https://tid.example.pr/portal/email/stop/")
    )
    # Unconfirmed, nothing is sent to it.
    assert owner_mail.due(session=session, today=date(2026, 4, 25)) == []
    # Past its 7 days the link confirms nothing, and the address is deleted.
    late = owner_email.confirm(session=session, token=token, now=T0 + timedelta(days=8))
    session.commit()
    assert late.outcome == "expired"
    assert session.exec(select(OwnerEmail)).all() == []
    again = ask(session, notice, port, "ana.owner@ejemplo.com", now=T0 + timedelta(days=8))
    token = link_token(inbox, "confirm")
    done = owner_email.confirm(session=session, token=token, now=T0 + timedelta(days=8, hours=1))
    session.commit()
    assert done.outcome == "confirmed" and done.cadastral
    session.refresh(again)
    assert again.status == owner_email.CONFIRMED and again.token_hash is None
    assert owner_email.confirm(session=session, token=token).outcome == "unknown"  # used once
    state = owner_email.state(session=session, notice=notice)
    assert state.confirmed == "ana.owner@ejemplo.com" and state.may_leave
    with pytest.raises(InputError, match="already confirmed"):
        ask(session, notice, port, "ana.owner@ejemplo.com", now=T0 + timedelta(days=8, hours=2))
    session.rollback()


def test_confirmations_are_limited_per_property_a_day(
    session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    notice = mailed_notices(session, people)[0]
    for n in range(owner_email.CONFIRMATIONS_PER_DAY):
        ask(session, notice, port, f"ana{n}@ejemplo.com", now=T0 + timedelta(minutes=n))
    with pytest.raises(InputError) as caught:
        ask(session, notice, port, "ana9@ejemplo.com", now=T0 + timedelta(hours=1))
    assert caught.value.field == "email"
    session.rollback()
    assert len(inbox.messages) == owner_email.CONFIRMATIONS_PER_DAY
    # A pending address replaces the one before: only the latest waits.
    assert [r.address for r in session.exec(select(OwnerEmail))] == ["ana2@ejemplo.com"]
    ask(session, notice, port, "ana9@ejemplo.com", now=T0 + timedelta(days=1, minutes=1))
    assert len(inbox.messages) == owner_email.CONFIRMATIONS_PER_DAY + 1


def test_removal_and_a_new_owner_delete_the_address_and_the_trail_keeps_no_address(
    session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    first, second = mailed_notices(session, people, ["Ana Owner", "Luis Owner"])
    ask(session, first, port, "ana@ejemplo.com")
    owner_email.confirm(session=session, token=link_token(inbox, "confirm"), now=T0)
    stop = link_token(inbox, "stop")
    assert owner_email.remove_by_link(session=session, token=stop + "x", secret=SECRET) is False
    assert owner_email.remove_by_link(session=session, token=stop, secret=SECRET) is True
    session.commit()
    assert session.exec(select(OwnerEmail)).all() == []
    assert owner_email.remove_by_link(session=session, token=stop, secret=SECRET) is False
    # The portal's button; then a sale: the new owner did not leave the address.
    ask(session, second, port, "luis@ejemplo.com")
    owner_email.confirm(session=session, token=link_token(inbox, "confirm"), now=T0)
    session.commit()
    assert owner_email.remove(session=session, notice=second) is True
    ask(session, second, port, "luis@ejemplo.com", now=T0 + timedelta(minutes=5))
    owner_email.confirm(session=session, token=link_token(inbox, "confirm"), now=T0)
    session.commit()
    # The association sees that there is one, never which.
    held = owner_email.on_file(session=session, property_id=second.property_id)
    assert (held.status, held.since) == (owner_email.CONFIRMED, T0)
    transfers.record_transfer(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        property_id=second.property_id,
        transferred_on=date(2026, 3, 1),
        owner=transfers.NewOwner("Compradora Nueva", "Calle Sol 1", "San Juan", "00901"),
        note="Escritura 12",
        today=date(2026, 3, 2),
    )
    session.commit()
    assert session.exec(select(OwnerEmail)).all() == []
    assert owner_email.on_file(session=session, property_id=second.property_id).status == ""
    # The earlier owner's notice can no longer leave one.
    assert not owner_email.state(session=session, notice=second).may_leave
    with pytest.raises(InputError, match="another owner"):
        ask(session, second, port, "luis@ejemplo.com", now=T0 + timedelta(days=2))
    session.rollback()
    trail = session.exec(select(AuditEvent).where(AuditEvent.entity_type == "property")).all()
    actions = [e.action for e in trail]
    assert actions.count("owner_email.add") == 3 and actions.count("owner_email.remove") == 3
    assert "owner_email.confirm" in actions
    assert all(
        "ejemplo.com" not in f"{e.before}{e.after}" for e in session.exec(select(AuditEvent))
    )
