"""Outgoing mail over SMTP (thin): the digest of deadlines to the municipal clerks, the
password links, and the owners' messages (a confirmation, a notice's copy, a reminder)."""

from __future__ import annotations

import smtplib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

from tid.clock import utcnow
from tid.files import private_folder, write_private


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


@dataclass(frozen=True)
class Attachment:
    filename: str
    data: bytes
    maintype: str = "application"
    subtype: str = "pdf"


def build(
    settings: MailSettings,
    to: Sequence[str],
    subject: str,
    body: str,
    *,
    headers: Mapping[str, str] | None = None,
    attachments: Sequence[Attachment] = (),
) -> EmailMessage:
    """A plain-text UTF-8 message, with its extra headers and attachments."""
    message = EmailMessage()
    message["From"] = settings.sender
    message["To"] = ", ".join(to)
    message["Subject"] = subject
    message["Date"] = format_datetime(utcnow())
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(body, charset="utf-8")
    for item in attachments:
        message.add_attachment(
            item.data, maintype=item.maintype, subtype=item.subtype, filename=item.filename
        )
    return message


def send(
    settings: MailSettings,
    to: Sequence[str],
    subject: str,
    body: str,
    *,
    headers: Mapping[str, str] | None = None,
    attachments: Sequence[Attachment] = (),
) -> EmailMessage:
    """Send one message; SMTP errors propagate to the caller (the job records them)."""
    message = build(settings, to, subject, body, headers=headers, attachments=attachments)
    with smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout) as smtp:
        if settings.starttls:
            smtp.starttls()
        if settings.user:
            smtp.login(settings.user, settings.password)
        smtp.send_message(message)
    return message


def keep_message(folder: Path, content: bytes | str) -> Path:
    """Keep a received message as an .eml file (the demo's mail sink), for the app's user
    alone to read: messages hold reset links."""
    data = content if isinstance(content, bytes) else str(content).encode()
    private_folder(folder)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{stamp}-{abs(hash(data)) % 10**8:08d}.eml"
    write_private(path, data)
    return path
