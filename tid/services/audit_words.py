"""The audit trail in words: what each action and each recorded field is called, and each
value as a reader reads it (labels, Sí/No, local dates), never a field name, ``None`` or a
UTC timestamp."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from tid.rules.messages import N_, Message

ACTIONS = {
    "account.year_locked": N_("Fiscal year locked"),
    "account.year_unlocked": N_("Fiscal year reopened"),
    "archive.verify": N_("Archive verified"),
    "bank_balance.create": N_("Bank balance recorded"),
    "bill.mailed": N_("Bill mailed"),
    "billing_run.run": N_("Fiscal year billed"),
    "billing_run.supersede": N_("Billing superseded"),
    "calendar_token.issue": N_("Calendar link issued"),
    "calendar_token.revoke": N_("Calendar link revoked"),
    "digest.send": N_("Digest sent"),
    "district.create": N_("District created"),
    "district.generate": N_("District generated"),
    "district.update": N_("District updated"),
    "expenditure.create": N_("Expenditure recorded"),
    "finding.record": N_("Finding recorded"),
    "finding.update": N_("Finding updated"),
    "job.start": N_("Job started"),
    "journal.bulk": N_("Entries booked"),
    "late_terms.set": N_("Late-payment terms set"),
    "lien.create": N_("Lien recorded"),
    "municipality.create": N_("Municipality created"),
    "notice.article_number": N_("Article number recorded"),
    "notice.delivery": N_("Delivery recorded"),
    "notice_batch.article_numbers": N_("Article numbers recorded"),
    "notice_batch.create": N_("Notices prepared"),
    "notice_batch.mail": N_("Notices mailed"),
    "ordinance.approve": N_("Ordinance approved"),
    "ordinance.create": N_("Ordinance recorded"),
    "ordinance.issue": N_("Ordinance issued"),
    "ordinance.crim_copy": N_("Copy sent to CRIM"),
    "ordinance.association_receipt": N_("Received by the association"),
    "payments.import": N_("Payments imported"),
    "petition.record": N_("Petition recorded"),
    "petition.correct": N_("Recorded data corrected"),
    "notice_batch.fees": N_("Postage and fees set"),
    "property_year.correct": N_("Roll line corrected"),
    "property_year.leave_roll": N_("Property left the roll"),
    "purpose.create": N_("Purpose recorded"),
    "purpose.update": N_("Purpose updated"),
    "roll.import": N_("Roll imported"),
    "throttle.lift": N_("Lockout lifted"),
    "user.activate": N_("User activated"),
    "user.create": N_("User created"),
    "user.deactivate": N_("User deactivated"),
    "user.login": N_("Signed in"),
    "user.logout": N_("Signed out"),
    "user.password_change": N_("Password changed"),
    "user.password_force_reset": N_("Password reset required"),
    "user.password_reset": N_("Password reset"),
    "user.password_reset_request": N_("Password reset requested"),
    "user.recovery_code_used": N_("Recovery code used"),
    "user.two_factor_off": N_("Two-factor sign-in turned off"),
    "user.two_factor_on": N_("Two-factor sign-in turned on"),
    "petition.study": N_("Study started"),
    "petition.issue": N_("Ordinance issued"),
    "petition.deny": N_("Petition denied"),
    "petition.to_mayor": N_("Sent to the mayor"),
    "petition.approve": N_("Approved by the mayor"),
    "petition.veto": N_("Vetoed by the mayor"),
    "petition.publish": N_("Publication recorded"),
}
FIELDS = {
    "active": N_("Active"),
    "actor": N_("Recorded by"),
    "administrative": N_("Administrative"),
    "amount": N_("Amount"),
    "annual_interest_rate": N_("Annual interest rate"),
    "approved_on": N_("Approved on"),
    "article_number": N_("Certified-mail article number"),
    "as_of": N_("As of"),
    "association_name": N_("Association"),
    "attributes": N_("Attributes"),
    "balance": N_("Balance"),
    "batch_id": N_("Notice batch"),
    "bill_id": N_("Bill"),
    "billing_run_id": N_("Billing run"),
    "certified_fee": N_("Certified-mail fee"),
    "constituted_on": N_("Constituted on"),
    "created_at": N_("Created"),
    "crim_copy_sent_on": N_("Copy sent to CRIM on"),
    "decision_notes": N_("Notes on the decision"),
    "denied_on": N_("Denied on"),
    "description": N_("Description"),
    "district_id": N_("District"),
    "district_name": N_("District"),
    "documents": N_("Documents"),
    "due_date": N_("Due date"),
    "email": N_("Email"),
    "entry_date": N_("Date"),
    "entry_id": N_("Journal entry"),
    "expected_amount": N_("Expected amount"),
    "factor": N_("Factor"),
    "favourable": N_("Favourable"),
    "fiscal_year": N_("Fiscal year"),
    "formula": N_("Formula"),
    "grounds": N_("Grounds"),
    "holder": N_("Holder"),
    "how_to_pay": N_("How to pay"),
    "id": N_("Number"),
    "issued_on": N_("Issued on"),
    "kind": N_("Kind"),
    "locale": N_("Language"),
    "mailed_at": N_("Mailed"),
    "mailed_on": N_("Mailed on"),
    "mailing_address": N_("Mailing address"),
    "municipality_id": N_("Municipality"),
    "name": N_("Name"),
    "newspaper": N_("Newspaper"),
    "note": N_("Note"),
    "notice_count": N_("Notices"),
    "notice_id": N_("Notice"),
    "number": N_("Number"),
    "occurred_on": N_("Occurred on"),
    "ordinance_id": N_("Ordinance"),
    "ordinance_reference": N_("Ordinance reference"),
    "owner_name": N_("Owner"),
    "owner_names": N_("Owners"),
    "page_count": N_("Pages"),
    "payee": N_("Payee"),
    "petition_id": N_("Petition"),
    "petitioner": N_("Petitioner"),
    "physical_address": N_("Physical address"),
    "postage": N_("Postage"),
    "property_count": N_("Properties"),
    "property_id": N_("Property"),
    "published_on": N_("Published on"),
    "published_outside_window": N_("Published outside the window"),
    "purpose_id": N_("Authorized purpose"),
    "reason": N_("Reason"),
    "received_by_association_on": N_("Received by the association on"),
    "received_on": N_("Received on"),
    "recorded_on": N_("Recorded on"),
    "reference": N_("Reference"),
    "role": N_("Role"),
    "run_on": N_("Run on"),
    "sender_address": N_("Sender's address"),
    "sender_name": N_("Sender"),
    "sent_to_mayor_on": N_("Sent to the mayor on"),
    "source": N_("Source"),
    "spent_on": N_("Spent on"),
    "state": N_("State"),
    "status": N_("Status"),
    "study_started_on": N_("Study started on"),
    "surcharge_rate": N_("Surcharge rate"),
    "term_years": N_("Term in years"),
    "total": N_("Total"),
    "updated_at": N_("Updated"),
    "use_class": N_("Use class"),
    "user_id": N_("User"),
    "version": N_("Version"),
    "vetoed_on": N_("Vetoed on"),
}
ENTITIES = {
    "petition": N_("Petition"),
    "journal_entry": N_("Journal entry"),
    "notice": N_("Notice"),
    "notice_batch": N_("Notice batch"),
    "user_account": N_("User"),
    "district": N_("District"),
    "expenditure": N_("Expenditure"),
    "property_lien": N_("Lien"),
    "authorized_purpose": N_("Authorized purpose"),
    "bank_balance": N_("Bank balance"),
    "billing_run": N_("Billing run"),
    "ordinance": N_("Ordinance"),
    "finding": N_("Finding"),
    "property_year": N_("Roll line"),
    "bill": N_("Bill"),
}
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:\d{2}|Z)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def action_label(action: str) -> str:
    """An action by its label (a message); an action without one is shown as recorded."""
    return Message(ACTIONS[action]) if action in ACTIONS else action


def entity_label(entity_type: str) -> str:
    return Message(ENTITIES[entity_type]) if entity_type in ENTITIES else entity_type


def field_label(name: str) -> str:
    return Message(FIELDS[name]) if name in FIELDS else name


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
