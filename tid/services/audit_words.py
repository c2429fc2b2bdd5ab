"""The audit trail in words: each action, record and recorded field by its label (the
vocabulary's, tid/rules/vocab/audit_terms.py), and each value as a reader reads it (labels,
Sí/No, local dates), never a field name, ``None`` or a UTC timestamp."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from tid.rules.messages import Message
from tid.rules.vocab import AUDIT_ACTIONS, AUDIT_FIELDS, AUDIT_RECORDS

_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2}|Z)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def action_label(action: str) -> str:
    """An action by its label (a message); an action without one is shown as recorded."""
    return AUDIT_ACTIONS.label(action)


def entity_label(entity_type: str) -> str:
    return AUDIT_RECORDS.label(entity_type)


def field_label(name: str) -> str:
    return AUDIT_FIELDS.label(name)


def shown_value(name: str, value: Any) -> Any:
    """A recorded value as a reader reads it: a message (Sí/No, a state's label), a date or a
    moment (``date``/``datetime``, for the i18n filters), or the data itself."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return Message("Yes") if value else Message("No")
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
        return ", ".join(str(v) for v in value)
    return value
