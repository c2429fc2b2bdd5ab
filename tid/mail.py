"""Outgoing mail over SMTP (thin): the digest of deadlines to the municipal clerks."""

from __future__ import annotations

import smtplib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

from tid.clock import utcnow


@dataclass(frozen=True)
class MailSettings:
    host: str
    port: int
    sender: str
    user: str = ""
    password: str = ""
    starttls: bool = False
    timeout: float = 30.0

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> MailSettings:
        return cls(
            host=str(config.get("SMTP_HOST") or "127.0.0.1"),
            port=int(config.get("SMTP_PORT") or 25),
            sender=str(config.get("MAIL_FROM") or "tid@localhost"),
            user=str(config.get("SMTP_USER") or ""),
            password=str(config.get("SMTP_PASSWORD") or ""),
            starttls=bool(config.get("SMTP_STARTTLS")),
        )


def build(settings: MailSettings, to: Sequence[str], subject: str, body: str) -> EmailMessage:
    """A plain-text UTF-8 message."""
    message = EmailMessage()
    message["From"] = settings.sender
    message["To"] = ", ".join(to)
    message["Subject"] = subject
    message["Date"] = format_datetime(utcnow())
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message.set_content(body, charset="utf-8")
    return message


def send(settings: MailSettings, to: Sequence[str], subject: str, body: str) -> EmailMessage:
    """Send one message; SMTP errors propagate to the caller (the job records them)."""
    message = build(settings, to, subject, body)
    with smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout) as smtp:
        if settings.starttls:
            smtp.starttls()
        if settings.user:
            smtp.login(settings.user, settings.password)
        smtp.send_message(message)
    return message
