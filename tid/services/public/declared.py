"""The one declaration of what is public (21 LPRA § 6653(3), (6), (7)): for each kind of record,
the fields a page, feed, API answer or file without a login may show. Anything not named here
stays behind the login — an owner's name, a natural person's mailing address, notice numbers,
access codes, one property's payments, users, sessions and the audit trail.

A public reader builds its rows with :func:`public_view`, which keeps only the declared fields
and fails loudly on a field that is declared but missing (a renamed column must not silently
vanish from the public page) — never by picking attributes of a model by hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# kind -> the fields of that kind of record that are public.
PUBLIC_FIELDS: dict[str, frozenset[str]] = {
    "municipality": frozenset({"id", "name"}),
    "district": frozenset({"id", "municipality_id", "name", "association_name"}),
    "ordinance": frozenset(
        {
            "id",
            "municipality_id",
            "district_id",
            "petition_id",
            "number",
            "district_name",
            "expected_amount",
            "term_years",
            "formula",
            "association_name",
            "issued_on",
            "approved_on",
            "crim_copy_sent_on",
        }
    ),
    "petition": frozenset(
        {
            "id",
            "municipality_id",
            "district_name",
            "petitioner",
            "received_on",
            "state",
            "study_started_on",
            "denied_on",
            "sent_to_mayor_on",
            "approved_on",
            "vetoed_on",
            "published_on",
            "newspaper",
            "published_outside_window",
            # computed from the petition's clocks (services/public/register.py ``pending``)
            "pending_due",
            "overdue_since",
        }
    ),
    "finding": frozenset({"petition_id", "factor", "favourable", "grounds", "recorded_on"}),
    # A document issued about a property (a payoff quote, a lien certificate, a release), as
    # the verification page (/verificar/<code>) says it again to whoever holds its code: who
    # issued it and when, the cadastral number and the amounts — never the owner.
    "issued_document": frozenset(
        {
            "kind",
            "reference",
            "cadastral_number",
            "issued_on",
            "good_through",
            "issued_by",
            "association",
            "secured",
            "charges",
            "total",
            "per_day",
            "paid",
            "settled_on",
        }
    ),
    "issued_document_line": frozenset(
        {
            "fiscal_year",
            "due_date",
            "days_late",
            "impost",
            "surcharge",
            "interest",
            # the one-time charge the document said lands in the 30 days after its day
            "lands_on",
            "lands_surcharge",
            "lands_per_day",
        }
    ),
    # A saved reform is public policy text at its address; nothing of who saved it is kept.
    "saved_reform": frozenset(
        {"public_id", "title", "description", "base_public_id", "changes", "created_at"}
    ),
    # A petition's file: only the documents made public (services/public/public_documents.py).
    "petition_document": frozenset({"id", "petition_id", "step", "kind", "title", "dated_on"}),
    "document_version": frozenset(
        {
            "id",
            "document_id",
            "number",
            "filename",
            "media_type",
            "size",
            "pages",
            "uploaded_at",
            "reason",  # why it replaced the version before it: part of the public record
        }
    ),
    # A step of a petition as recorded, with the deadline it had to meet and whether it did.
    "petition_step": frozenset(
        {"petition_id", "step", "label", "on", "due", "on_time", "citation"}
    ),
    # A statutory clock of a petition (§ 6653(2), (5)): when it is due, whether it was met.
    "deadline": frozenset(
        {
            "kind",
            "label",
            "due",
            "starts",
            "running",
            "met",
            "explanation",
            "explanation_es",
            "citation",
        }
    ),
    # The roll of a year, in all: how many properties and their assessed value together.
    # ``verified_on``: the day the year's verified billing statement was signed (None: not
    # yet), and whether its roll was checked against last year's (tid/services/roll_check).
    "roll_year": frozenset(
        {"district_id", "fiscal_year", "properties", "assessed_value", "verified_on", "checked"}
    ),
    # A published fiscal year of a district's special account, as its yearly statement says.
    "fiscal_year": frozenset(
        {
            "district_id",
            "fiscal_year",
            "billed",
            "properties_billed",
            "collected",
            "collection_rate",
            "owed_at_year_end",
            "delinquent_at_year_end",
            "opening_balance",
            "owner_credits",
            "spent_by_purpose",
            "program_total",
            "admin_total",
            "admin_ratio_percent",
            "cap_rate",
            "cap",
            "closing_balance",
            "other_movements",
        }
    ),
    # A published year's spending on one authorized purpose (or administrative): its kind
    # says which, whatever the purpose is named.
    "expenditure_line": frozenset({"district_id", "fiscal_year", "kind", "purpose", "amount"}),
    # An approved budget (never a draft) and its lines: as first approved, as amended, and
    # what was spent on each once the year's figures are public.
    "budget": frozenset(
        {
            "district_id",
            "fiscal_year",
            "approved_on",
            "minutes",
            "amendments",
            "billed",
            "collection_rate",
            "expected_collections",
            "other_income",
            "carry_over",
            "lines",
        }
    ),
    "budget_line": frozenset(
        {"district_id", "fiscal_year", "kind", "purpose", "proposed", "approved", "executed"}
    ),
    # A document of record a district published, as archived.
    "document": frozenset(
        {
            "id",
            "district_id",
            "fiscal_year",
            "kind",
            "title",
            "language",
            "media_type",
            "size",
            "sha256",
            "published_on",
            "path",
        }
    ),
    # A month of a published fiscal year (the charts).
    "month": frozenset(
        {
            "fiscal_year",
            "month",
            "collected",
            "program",
            "admin",
            "collected_to_date",
            "admin_to_date",
        }
    ),
    # A fiscal year before the district moved in, as its earlier books closed it (21 LPRA
    # § 6653(6)): a closed year's totals, as a published year's are.
    "earlier_year": frozenset({"fiscal_year", "billed", "collected", "admin_spending"}),
}

# Never public, whatever a declaration above says: the test of this module holds every kind to it.
NEVER_PUBLIC: frozenset[str] = frozenset(
    {
        "owner_name",
        "owner",
        "mailing_address",
        "address",
        "email",
        "notice_number",
        "access_code",
        "access_code_hash",
        "password_hash",
        "totp_secret",
    }
)


class UndeclaredKindError(KeyError):
    """A public reader asked for a kind of record nobody declared public."""


def public_view(kind: str, record: object | Mapping[str, Any]) -> dict[str, Any]:
    """The public fields of ``record`` (a model or a mapping), as a dict."""
    try:
        fields = PUBLIC_FIELDS[kind]
    except KeyError:
        raise UndeclaredKindError(kind) from None
    if isinstance(record, Mapping):
        return {name: record[name] for name in sorted(fields)}
    return {name: getattr(record, name) for name in sorted(fields)}
