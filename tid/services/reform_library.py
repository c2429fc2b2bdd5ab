"""Saved reforms: save one (checked, all or nothing), open one by its permanent address,
and the look-up the rules use to stack a reform on a saved one. A saved reform is public
policy text: nothing of who saved it is kept or shown."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Any

from sqlmodel import Session, col, select

from tid.models import SavedReform
from tid.rules.errors import InputError
from tid.rules.messages import Message
from tid.rules.reform import Reform, Resolver, parse_reform, reference_id
from tid.services.public.declared import public_view

# The public id: 12 random characters of 31 (59 bits: not guessable), no look-alikes.
_ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
_ID_LENGTH = 12
_RECENT = 20
# The most changes a saved reform holds together with the reforms it stands on: what its
# page and its note show, the note laid out within the calculators' time budget (one
# reform alone holds at most tid.rules.reform.MAX_CHANGES).
MAX_STACK_CHANGES = 200


def canonical(raw: object) -> object:
    """A reform as a request gives it, each saved reform it names (itself or its base) by
    its id, though given by its address."""
    if isinstance(raw, str):
        return reference_id(raw)
    if isinstance(raw, Mapping) and isinstance(raw.get("base"), str | Mapping):
        return {**raw, "base": canonical(raw["base"])}
    return raw


def document_of(saved: SavedReform) -> dict[str, Any]:
    """A saved reform as the document the rules read (its base by its id)."""
    shown = public_view("saved_reform", saved)
    doc: dict[str, Any] = {
        "id": shown["public_id"],
        "title": shown["title"],
        "description": shown["description"],
        "changes": json.loads(shown["changes"]),
    }
    if shown["base_public_id"]:
        doc["base"] = shown["base_public_id"]
    return doc


def saved_reform(*, session: Session, public_id: str) -> SavedReform | None:
    """The saved reform at ``public_id`` (None: there is none)."""
    if not public_id or len(public_id) > 24:
        return None
    return session.exec(select(SavedReform).where(col(SavedReform.public_id) == public_id)).first()


def resolver(*, session: Session) -> Resolver:
    """The look-up of saved reforms by id, for :func:`tid.rules.reform.parse_reform`."""

    def resolve(public_id: str) -> Mapping[str, Any] | None:
        found = saved_reform(session=session, public_id=reference_id(public_id))
        return None if found is None else document_of(found)

    return resolve


def open_reform(*, session: Session, public_id: str) -> Reform | None:
    """The saved reform at ``public_id``, read with the reforms it stands on."""
    found = saved_reform(session=session, public_id=public_id)
    if found is None:
        return None
    return parse_reform(public_id, resolve=resolver(session=session))


def check_reform(*, session: Session, document: Mapping[str, Any]) -> Reform:
    """The reform a document stands for, checked (its base may be a saved reform's id or
    address)."""
    return parse_reform(canonical(dict(document)), resolve=resolver(session=session))


def save_reform(*, session: Session, document: Mapping[str, Any]) -> SavedReform:
    """Check and save a reform: its own changes and the saved reform it starts from. A
    reform whose base is given whole (not by id) is refused: save the base first."""
    reform = check_reform(session=session, document=document)
    base = reform.base
    if base is not None and base.ident is None:
        raise InputError("reform.base", Message("Start from a saved reform, by its id."))
    held = sum(len(r.changes) for r in reform.stack)
    if held > MAX_STACK_CHANGES:
        raise InputError(
            "reform.changes",
            Message(
                "With the reforms it stands on, a reform holds at most %(n)s changes; this "
                "one would hold %(held)s.",
                n=MAX_STACK_CHANGES,
                held=held,
            ),
        )
    saved = SavedReform(
        public_id="".join(secrets.choice(_ID_ALPHABET) for _ in range(_ID_LENGTH)),
        title=reform.title,
        description=reform.description,
        base_public_id=base.ident if base is not None else None,
        changes=json.dumps([c.as_json() for c in reform.changes], ensure_ascii=False),
    )
    session.add(saved)
    session.commit()
    session.refresh(saved)
    return saved


def recent_reforms(*, session: Session) -> list[SavedReform]:
    """The reforms saved last, newest first (to start a new one from)."""
    stmt = select(SavedReform).order_by(col(SavedReform.id).desc()).limit(_RECENT)
    return list(session.exec(stmt))
