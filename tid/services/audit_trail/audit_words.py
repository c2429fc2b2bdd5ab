"""The audit trail in words: each action, record and recorded field by its label (the
vocabulary's, tid/rules/vocab/audit_terms.py), and each value as a reader reads it (labels,
Sí/No, local dates), never a field name, ``None`` or a UTC timestamp."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from tid.rules.certified_mail import grouped_article_number
from tid.rules.messages import Message
from tid.rules.vocab import (
    ACCOUNTS,
    AUDIT_ACTIONS,
    AUDIT_ACTORS,
    AUDIT_CODES,
    AUDIT_FIELDS,
    AUDIT_HIDDEN_FIELDS,
    AUDIT_RECORDS,
    ENTRY_KINDS,
    LIEN_KINDS,
)
from tid.rules.vocab.document_kinds import DOCUMENT_KINDS, SENT_BY, document_title

_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2}|Z)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_AMOUNT = re.compile(r"^-?\d+\.\d{2}$")


def action_label(action: str) -> str:
    """An action by its label (a message); an entry booked by its kind; an action without
    one is shown as recorded."""
    kind = action.removeprefix("journal.")
    if action not in AUDIT_ACTIONS and kind in ENTRY_KINDS:
        return Message("Entry booked: %(kind)s", kind=ENTRY_KINDS.label(kind))
    return AUDIT_ACTIONS.label(action)


def entity_label(entity_type: str) -> str:
    return AUDIT_RECORDS.label(entity_type)


def field_label(name: str) -> str:
    return AUDIT_FIELDS.label(name)


def actor_label(actor: str) -> str:
    """Who acted: a person's email as recorded; the system's loaders by their label."""
    return AUDIT_ACTORS.label(actor) if actor in AUDIT_ACTORS else actor


def shown_fields(
    values: dict[str, Any] | None, names: dict[str, dict[int, str]] | None = None
) -> list[tuple[str, str, Any]]:
    """The recorded fields a reader reads, each as (field, label, value shown); the ids and
    keys a reader has no use for left out."""
    if not values:
        return []
    shown = [
        (name, shown_value(name, value, names))
        for name, value in values.items()
        if name not in AUDIT_HIDDEN_FIELDS
    ]
    if isinstance(values.get("memo"), str) and isinstance(values.get("kind"), str):
        from tid.services import ledger

        memo = ledger.memo_message(values["kind"], values["memo"], (names or {}).get("bill_id"))
        shown = [(n, memo if n == "memo" else v) for n, v in shown]
    return [(name, field_label(name), value) for name, value in shown]


def _code(name: str, value: str) -> str | None:
    if name == "account" and value in ACCOUNTS:
        return ACCOUNTS.label(value)
    if name == "kind":
        # a journal entry's kind, a lien's, or a document's in a petition's file
        for vocabulary in (ENTRY_KINDS, LIEN_KINDS, DOCUMENT_KINDS):
            if value in vocabulary:
                return vocabulary.label(value)
    if name == "sent_by" and value in SENT_BY:
        return SENT_BY.label(value)
    key = f"{name}:{value}"
    return AUDIT_CODES.label(key) if key in AUDIT_CODES else None


def shown_value(name: str, value: Any, names: dict[str, dict[int, str]] | None = None) -> Any:
    """A recorded value as a reader reads it: a message (Sí/No, a state's label, a code's),
    a date or a moment (``date``/``datetime``, for the i18n filters), an amount
    (``Decimal``, for the money filter), the name of the record an id points at (from
    ``names``, by field), rows of (label, value) for recorded lines, or the data itself."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return Message("Yes") if value else Message("No")
    if isinstance(value, int) and names and value in names.get(name, {}):
        return names[name][value]
    if name == "actor" and isinstance(value, str):
        return actor_label(value)
    if name == "document" and isinstance(value, str):
        return document_title(value)
    if name == "article_number" and isinstance(value, str):
        return grouped_article_number(value)
    if isinstance(value, str) and _AMOUNT.match(value):
        return Decimal(value)
    if isinstance(value, str) and _code(name, value) is not None:
        return _code(name, value)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [shown_fields(v, names) for v in value]
    if isinstance(value, dict):
        return [shown_fields(value, names)]
    if isinstance(value, str):
        if _DATETIME.match(value):
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        if _DATE.match(value):
            return date.fromisoformat(value)
        if name == "state":
            from tid.services.petitions import STATE_LABELS

            if value in STATE_LABELS:
                return Message(STATE_LABELS[value])
    if isinstance(value, list):
        if name == "kinds":
            return [_code("kind", str(v)) or str(v) for v in value]
        return ", ".join(str(v) for v in value)
    return value
