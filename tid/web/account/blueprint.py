"""The special account's one blueprint (``account``, under ``/account``): who reads its pages,
who writes, and its place in the navigation."""

from __future__ import annotations

from flask import Blueprint

from tid.rules.errors import N_
from tid.services.auth import access as policy
from tid.web import nav

bp = Blueprint("account", __name__, url_prefix="/account")

READERS = policy.DISTRICT_READERS
WRITERS = policy.DISTRICT_WRITERS

nav.add(
    "account.districts",
    N_("Special account"),
    N_(
        "Payments, expenditures under the administrative cap, delinquency and liens, "
        "the yearly statement."
    ),
    READERS,
)

# Labels that only templates and data use, kept in the catalog (the journal's kinds of entry
# are named by the vocabulary, tid/rules/vocab/journal_terms.py).
_LABELS = (
    N_("not yet due"),
    N_("over 365"),
)
