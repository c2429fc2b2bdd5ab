"""Saved reforms: public policy text (a title, a description, changes to the dated
parameters), each at a permanent address. Nothing here names who saved it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, String, Text
from sqlmodel import Field, SQLModel

from tid.clock import utcnow


class SavedReform(SQLModel, table=True):
    """A reform as saved: never changed afterwards, so its address always shows the same
    text (a new version is a new reform, which may start from this one)."""

    __tablename__ = "saved_reform"

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(sa_column=Column(String(24), unique=True, nullable=False))
    title: str = Field(max_length=200)
    description: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    # The saved reform it starts from (its public id), if any.
    base_public_id: str | None = Field(default=None, max_length=24)
    # The reform's own changes as JSON: [{parameter, from, value}].
    changes: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
