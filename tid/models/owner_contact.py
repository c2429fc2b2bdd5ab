"""An owner's email address for the notices of one property, by double opt-in, and the
messages sent to it. The certified-mail notice stays the legal notice (21 LPRA § 6653(5));
the address only brings a digital copy of the next notice and a reminder before its due date.

An address is kept only while it is wanted: removing it (from the portal or by the link in
every message) deletes its row, and a change of the property's owner deletes it too. The
messages' rows never hold the address: they keep what was sent about which notice, so that
nothing is sent twice."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, String
from sqlmodel import Field, SQLModel

from tid.clock import utcnow


class OwnerEmail(SQLModel, table=True):
    """An email address the owner of a property left in the portal: ``pending`` until the
    link of its confirmation message is followed (``token_hash``: the SHA-256 of the link's
    token, good until ``token_expires_at``), then ``confirmed``. ``owner_key`` is the owner
    it was left for (their name as the roll writes it, folded): the address serves that
    owner alone."""

    __tablename__ = "owner_email"

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    owner_key: str = Field(max_length=500)
    address: str = Field(max_length=254)
    language: str = Field(default="es", max_length=2)
    status: str = Field(default="pending", max_length=10)  # pending | confirmed
    token_hash: str | None = Field(
        default=None, sa_column=Column(String(64), unique=True, nullable=True)
    )
    token_expires_at: datetime | None = None
    confirmed_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class OwnerMessage(SQLModel, table=True):
    """A message to an owner's address: the confirmation asked for, the digital copy of a
    notice, or the reminder of a bill's due date. ``key`` is unique — ``copy:<notice>``,
    ``reminder:<bill>`` — so a second run finds it claimed and sends nothing; the row is
    written before the message is sent (``sending``), then ``sent`` or ``failed``."""

    __tablename__ = "owner_message"

    id: int | None = Field(default=None, primary_key=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    kind: str = Field(max_length=10)  # confirm | copy | reminder
    key: str = Field(sa_column=Column(String(80), unique=True, nullable=False))
    notice_id: int | None = Field(default=None, foreign_key="notice.id")
    status: str = Field(default="sending", max_length=10)  # sending | sent | failed
    error: str = Field(default="", max_length=200)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    sent_at: datetime | None = None
