"""initial schema

Revision ID: 64fa764bb8d9
Revises:
Create Date: 2026-11-29 17:27:52.914173
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "64fa764bb8d9"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "archived_document",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("media_type", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_archived_document")),
    )
    op.create_table(
        "jobrun",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("job", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("scheduled_day", sa.Date(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("detail", sa.Text(), server_default="", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobrun")),
        sa.UniqueConstraint("job", "scheduled_day", name=op.f("uq_jobrun_job_scheduled_day")),
    )
    op.create_table(
        "municipality",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_municipality")),
        sa.UniqueConstraint("name", name=op.f("uq_municipality_name")),
    )
    op.create_table(
        "portal_attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("client", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("notice_number", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_portal_attempt")),
    )
    with op.batch_alter_table("portal_attempt", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_portal_attempt_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_portal_attempt_client"), ["client"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_portal_attempt_notice_number"), ["notice_number"], unique=False
        )

    op.create_table(
        "district",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("municipality_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("association_name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["municipality_id"],
            ["municipality.id"],
            name=op.f("fk_district_municipality_id_municipality"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_district")),
        sa.UniqueConstraint(
            "municipality_id", "name", name=op.f("uq_district_municipality_id_name")
        ),
    )
    with op.batch_alter_table("district", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_district_municipality_id"), ["municipality_id"], unique=False
        )

    op.create_table(
        "petition",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("municipality_id", sa.Integer(), nullable=False),
        sa.Column("district_name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("petitioner", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("received_on", sa.Date(), nullable=False),
        sa.Column("documents", sa.Text(), server_default="", nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("study_started_on", sa.Date(), nullable=True),
        sa.Column("denied_on", sa.Date(), nullable=True),
        sa.Column("sent_to_mayor_on", sa.Date(), nullable=True),
        sa.Column("approved_on", sa.Date(), nullable=True),
        sa.Column("vetoed_on", sa.Date(), nullable=True),
        sa.Column("published_on", sa.Date(), nullable=True),
        sa.Column("newspaper", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("published_outside_window", sa.Boolean(), nullable=False),
        sa.Column("decision_notes", sa.Text(), server_default="", nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["municipality_id"],
            ["municipality.id"],
            name=op.f("fk_petition_municipality_id_municipality"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_petition")),
    )
    with op.batch_alter_table("petition", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_petition_municipality_id"), ["municipality_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_petition_state"), ["state"], unique=False)

    op.create_table(
        "authorized_purpose",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column(
            "ordinance_reference", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False
        ),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"],
            ["district.id"],
            name=op.f("fk_authorized_purpose_district_id_district"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_authorized_purpose")),
        sa.UniqueConstraint(
            "district_id", "name", name=op.f("uq_authorized_purpose_district_id_name")
        ),
    )
    with op.batch_alter_table("authorized_purpose", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_authorized_purpose_district_id"), ["district_id"], unique=False
        )

    op.create_table(
        "bank_balance",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("balance", tid.models.Money(), nullable=False),
        sa.Column("note", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_bank_balance_district_id_district")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bank_balance")),
        sa.UniqueConstraint("district_id", "as_of", name=op.f("uq_bank_balance_district_id_as_of")),
    )
    with op.batch_alter_table("bank_balance", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_bank_balance_district_id"), ["district_id"], unique=False
        )

    op.create_table(
        "finding",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("petition_id", sa.Integer(), nullable=False),
        sa.Column("factor", sqlmodel.sql.sqltypes.AutoString(length=1), nullable=False),
        sa.Column("favourable", sa.Boolean(), nullable=False),
        sa.Column("grounds", sa.Text(), nullable=False),
        sa.Column("recorded_on", sa.Date(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["petition_id"], ["petition.id"], name=op.f("fk_finding_petition_id_petition")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_finding")),
        sa.UniqueConstraint("petition_id", "factor", name=op.f("uq_finding_petition_id_factor")),
    )
    with op.batch_alter_table("finding", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_finding_petition_id"), ["petition_id"], unique=False)

    op.create_table(
        "late_charge_terms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("surcharge_rate", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column(
            "annual_interest_rate", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False
        ),
        sa.Column(
            "ordinance_reference", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False
        ),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_late_charge_terms_district_id_district")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_late_charge_terms")),
        sa.UniqueConstraint("district_id", name=op.f("uq_late_charge_terms_district_id")),
    )
    op.create_table(
        "ordinance",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("petition_id", sa.Integer(), nullable=False),
        sa.Column("municipality_id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("number", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("district_name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("expected_amount", tid.models.Money(), nullable=False),
        sa.Column("term_years", sa.Integer(), nullable=False),
        sa.Column("formula", sa.Text(), nullable=False),
        sa.Column("association_name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("issued_on", sa.Date(), nullable=False),
        sa.Column("approved_on", sa.Date(), nullable=True),
        sa.Column("crim_copy_sent_on", sa.Date(), nullable=True),
        sa.Column("received_by_association_on", sa.Date(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_ordinance_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["municipality_id"],
            ["municipality.id"],
            name=op.f("fk_ordinance_municipality_id_municipality"),
        ),
        sa.ForeignKeyConstraint(
            ["petition_id"], ["petition.id"], name=op.f("fk_ordinance_petition_id_petition")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ordinance")),
        sa.UniqueConstraint("petition_id", name=op.f("uq_ordinance_petition_id")),
    )
    with op.batch_alter_table("ordinance", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ordinance_district_id"), ["district_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_ordinance_municipality_id"), ["municipality_id"], unique=False
        )

    op.create_table(
        "property",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("cadastral_number", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("physical_address", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_property_district_id_district")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_property")),
        sa.UniqueConstraint(
            "district_id", "cadastral_number", name=op.f("uq_property_district_id_cadastral_number")
        ),
    )
    with op.batch_alter_table("property", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_property_district_id"), ["district_id"], unique=False)

    op.create_table(
        "user_account",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("role", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("municipality_id", sa.Integer(), nullable=True),
        sa.Column("district_id", sa.Integer(), nullable=True),
        sa.Column("locale", sqlmodel.sql.sqltypes.AutoString(length=5), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_user_account_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["municipality_id"],
            ["municipality.id"],
            name=op.f("fk_user_account_municipality_id_municipality"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_account")),
        sa.UniqueConstraint("email", name=op.f("uq_user_account_email")),
    )
    op.create_table(
        "auditevent",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("entity_type", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column("entity_id", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column("before", sa.Text(), nullable=True),
        sa.Column("after", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_auditevent_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auditevent")),
    )
    with op.batch_alter_table("auditevent", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_auditevent_at"), ["at"], unique=False)

    op.create_table(
        "billing_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("ordinance_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("formula", sa.Text(), nullable=False),
        sa.Column("parameters", sa.Text(), server_default="{}", nullable=False),
        sa.Column("property_count", sa.Integer(), nullable=False),
        sa.Column("total", tid.models.Money(), nullable=False),
        sa.Column("expected_amount", tid.models.Money(), nullable=False),
        sa.Column("run_on", sa.Date(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=False),
        sa.Column("fingerprint", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("warnings", sa.Text(), server_default="", nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.Column("supersedes_id", sa.Integer(), nullable=True),
        sa.Column("superseded_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_billing_run_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["ordinance_id"], ["ordinance.id"], name=op.f("fk_billing_run_ordinance_id_ordinance")
        ),
        sa.ForeignKeyConstraint(
            ["supersedes_id"],
            ["billing_run.id"],
            name=op.f("fk_billing_run_supersedes_id_billing_run"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_billing_run")),
        sa.UniqueConstraint(
            "district_id",
            "fiscal_year",
            "version",
            name=op.f("uq_billing_run_district_id_fiscal_year_version"),
        ),
    )
    with op.batch_alter_table("billing_run", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_billing_run_district_id"), ["district_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_billing_run_fiscal_year"), ["fiscal_year"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_billing_run_ordinance_id"), ["ordinance_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_billing_run_status"), ["status"], unique=False)

    op.create_table(
        "calendartoken",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_calendartoken_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendartoken")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_calendartoken_token_hash")),
    )
    with op.batch_alter_table("calendartoken", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_calendartoken_user_id"), ["user_id"], unique=False)

    op.create_table(
        "journal_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("entry_date", sa.Date(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
        sa.Column("memo", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=False),
        sa.Column("reverses_id", sa.Integer(), nullable=True),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_journal_entry_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["reverses_id"],
            ["journal_entry.id"],
            name=op.f("fk_journal_entry_reverses_id_journal_entry"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_journal_entry_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_journal_entry")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_journal_entry_idempotency_key")),
        sa.UniqueConstraint("reverses_id", name=op.f("uq_journal_entry_reverses_id")),
    )
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_journal_entry_district_id"), ["district_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_journal_entry_entry_date"), ["entry_date"], unique=False
        )

    op.create_table(
        "loginsession",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_loginsession_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_loginsession")),
        sa.UniqueConstraint("token", name=op.f("uq_loginsession_token")),
    )
    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_loginsession_user_id"), ["user_id"], unique=False)

    op.create_table(
        "property_lien",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("constituted_on", sa.Date(), nullable=False),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.Column("reference", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["property_id"], ["property.id"], name=op.f("fk_property_lien_property_id_property")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_property_lien")),
    )
    with op.batch_alter_table("property_lien", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_property_lien_property_id"), ["property_id"], unique=False
        )

    op.create_table(
        "roll_import",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("file_name", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("added", sa.Integer(), nullable=False),
        sa.Column("changed", sa.Integer(), nullable=False),
        sa.Column("removed", sa.Integer(), nullable=False),
        sa.Column("imported_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_roll_import_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_roll_import_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roll_import")),
        sa.UniqueConstraint(
            "district_id",
            "fiscal_year",
            "sha256",
            name=op.f("uq_roll_import_district_id_fiscal_year_sha256"),
        ),
    )
    with op.batch_alter_table("roll_import", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_roll_import_district_id"), ["district_id"], unique=False
        )

    op.create_table(
        "expenditure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("spent_on", sa.Date(), nullable=False),
        sa.Column("payee", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("reference", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.Column("administrative", sa.Boolean(), nullable=False),
        sa.Column("purpose_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_expenditure_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["entry_id"], ["journal_entry.id"], name=op.f("fk_expenditure_entry_id_journal_entry")
        ),
        sa.ForeignKeyConstraint(
            ["purpose_id"],
            ["authorized_purpose.id"],
            name=op.f("fk_expenditure_purpose_id_authorized_purpose"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_expenditure")),
        sa.UniqueConstraint("entry_id", name=op.f("uq_expenditure_entry_id")),
    )
    with op.batch_alter_table("expenditure", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_expenditure_district_id"), ["district_id"], unique=False
        )

    op.create_table(
        "notice_batch",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("billing_run_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("issued_on", sa.Date(), nullable=False),
        sa.Column("sender_name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("sender_address", sa.Text(), nullable=False),
        sa.Column("how_to_pay", sa.Text(), nullable=False),
        sa.Column("notice_count", sa.Integer(), nullable=False),
        sa.Column("page_count", sa.Integer(), nullable=False),
        sa.Column("print_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("mailed_on", sa.Date(), nullable=True),
        sa.Column("postage", tid.models.Money(), nullable=True),
        sa.Column("certified_fee", tid.models.Money(), nullable=True),
        sa.Column("manifest_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["billing_run_id"],
            ["billing_run.id"],
            name=op.f("fk_notice_batch_billing_run_id_billing_run"),
        ),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_notice_batch_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_notice_batch_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notice_batch")),
    )
    with op.batch_alter_table("notice_batch", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_notice_batch_district_id"), ["district_id"], unique=False
        )

    op.create_table(
        "property_year",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("roll_import_id", sa.Integer(), nullable=False),
        sa.Column("source_row", sa.Integer(), nullable=False),
        sa.Column("in_roll", sa.Boolean(), nullable=False),
        sa.Column("owner_names", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column(
            "mailing_urbanization", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False
        ),
        sa.Column("mailing_line1", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("mailing_line2", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("mailing_city", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("mailing_state", sqlmodel.sql.sqltypes.AutoString(length=2), nullable=False),
        sa.Column("mailing_zip", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("physical_address", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("assessed_value", tid.models.Money(), nullable=False),
        sa.Column("land_area", tid.models.Quantity(), nullable=True),
        sa.Column("built_area", tid.models.Quantity(), nullable=True),
        sa.Column("use_class", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("rooms", sa.Integer(), nullable=True),
        sa.Column("frontage", tid.models.Quantity(), nullable=True),
        sa.Column("attributes", sa.Text(), server_default="{}", nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_property_year_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["property_id"], ["property.id"], name=op.f("fk_property_year_property_id_property")
        ),
        sa.ForeignKeyConstraint(
            ["roll_import_id"],
            ["roll_import.id"],
            name=op.f("fk_property_year_roll_import_id_roll_import"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_property_year")),
        sa.UniqueConstraint(
            "property_id", "fiscal_year", name=op.f("uq_property_year_property_id_fiscal_year")
        ),
    )
    with op.batch_alter_table("property_year", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_property_year_district_id"), ["district_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_property_year_fiscal_year"), ["fiscal_year"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_property_year_property_id"), ["property_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_property_year_roll_import_id"), ["roll_import_id"], unique=False
        )

    op.create_table(
        "bill",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("billing_run_id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("property_year_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.Column("explanation_es", sa.Text(), nullable=True),
        sa.Column("due_date", sa.Date(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("mailed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("superseded_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["billing_run_id"], ["billing_run.id"], name=op.f("fk_bill_billing_run_id_billing_run")
        ),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_bill_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["property_id"], ["property.id"], name=op.f("fk_bill_property_id_property")
        ),
        sa.ForeignKeyConstraint(
            ["property_year_id"],
            ["property_year.id"],
            name=op.f("fk_bill_property_year_id_property_year"),
        ),
        sa.ForeignKeyConstraint(
            ["superseded_by_id"], ["bill.id"], name=op.f("fk_bill_superseded_by_id_bill")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bill")),
        sa.UniqueConstraint(
            "billing_run_id", "property_id", name=op.f("uq_bill_billing_run_id_property_id")
        ),
    )
    with op.batch_alter_table("bill", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bill_district_id"), ["district_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_bill_property_id"), ["property_id"], unique=False)

    op.create_table(
        "journal_line",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("account", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column("bill_id", sa.Integer(), nullable=True),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_journal_line_nonzero")),
        sa.ForeignKeyConstraint(
            ["bill_id"], ["bill.id"], name=op.f("fk_journal_line_bill_id_bill")
        ),
        sa.ForeignKeyConstraint(
            ["entry_id"], ["journal_entry.id"], name=op.f("fk_journal_line_entry_id_journal_entry")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_journal_line")),
    )
    with op.batch_alter_table("journal_line", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_journal_line_account"), ["account"], unique=False)
        batch_op.create_index(batch_op.f("ix_journal_line_bill_id"), ["bill_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_journal_line_entry_id"), ["entry_id"], unique=False)

    op.create_table(
        "notice",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.String(length=20), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=False),
        sa.Column("bill_id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("owner_name", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("mailing_address", sa.Text(), nullable=False),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=False),
        sa.Column("issued_on", sa.Date(), nullable=False),
        sa.Column("access_code_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("pdf_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("page_count", sa.Integer(), nullable=False),
        sa.Column("article_number", sa.String(length=22), nullable=True),
        sa.Column("mailed_on", sa.Date(), nullable=True),
        sa.Column("remailing_of_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["notice_batch.id"], name=op.f("fk_notice_batch_id_notice_batch")
        ),
        sa.ForeignKeyConstraint(["bill_id"], ["bill.id"], name=op.f("fk_notice_bill_id_bill")),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_notice_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["pdf_sha256"],
            ["archived_document.sha256"],
            name=op.f("fk_notice_pdf_sha256_archived_document"),
        ),
        sa.ForeignKeyConstraint(
            ["property_id"], ["property.id"], name=op.f("fk_notice_property_id_property")
        ),
        sa.ForeignKeyConstraint(
            ["remailing_of_id"], ["notice.id"], name=op.f("fk_notice_remailing_of_id_notice")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notice")),
        sa.UniqueConstraint("article_number", name=op.f("uq_notice_article_number")),
        sa.UniqueConstraint("number", name=op.f("uq_notice_number")),
        sa.UniqueConstraint("public_id", name=op.f("uq_notice_public_id")),
        sa.UniqueConstraint("remailing_of_id", name=op.f("uq_notice_remailing_of_id")),
    )
    with op.batch_alter_table("notice", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_notice_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_notice_bill_id"), ["bill_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_notice_district_id"), ["district_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_notice_mailed_on"), ["mailed_on"], unique=False)
        batch_op.create_index(batch_op.f("ix_notice_property_id"), ["property_id"], unique=False)

    op.create_table(
        "delivery_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("notice_id", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
        sa.Column("occurred_on", sa.Date(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["notice_id"], ["notice.id"], name=op.f("fk_delivery_event_notice_id_notice")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_delivery_event")),
        sa.UniqueConstraint(
            "notice_id",
            "status",
            "occurred_on",
            name=op.f("uq_delivery_event_notice_id_status_occurred_on"),
        ),
    )
    with op.batch_alter_table("delivery_event", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_delivery_event_notice_id"), ["notice_id"], unique=False
        )

    # The journal is append-only: the database itself refuses UPDATE and DELETE on its rows
    # (the same statements run when the tables are created from the models).
    bind = op.get_bind()
    for statement in tid.models.JOURNAL_TRIGGERS_SQL.get(bind.dialect.name, ()):
        # psycopg reads "%" as a placeholder; the plpgsql RAISE format needs it doubled.
        bind.exec_driver_sql(
            statement.replace("%", "%%") if bind.dialect.name != "sqlite" else statement
        )


def downgrade() -> None:
    bind = op.get_bind()
    for statement in tid.models.JOURNAL_TRIGGERS_DROP_SQL.get(bind.dialect.name, ()):
        bind.exec_driver_sql(statement)
    with op.batch_alter_table("delivery_event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_delivery_event_notice_id"))

    op.drop_table("delivery_event")
    with op.batch_alter_table("notice", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_notice_property_id"))
        batch_op.drop_index(batch_op.f("ix_notice_mailed_on"))
        batch_op.drop_index(batch_op.f("ix_notice_district_id"))
        batch_op.drop_index(batch_op.f("ix_notice_bill_id"))
        batch_op.drop_index(batch_op.f("ix_notice_batch_id"))

    op.drop_table("notice")
    with op.batch_alter_table("journal_line", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_journal_line_entry_id"))
        batch_op.drop_index(batch_op.f("ix_journal_line_bill_id"))
        batch_op.drop_index(batch_op.f("ix_journal_line_account"))

    op.drop_table("journal_line")
    with op.batch_alter_table("bill", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bill_property_id"))
        batch_op.drop_index(batch_op.f("ix_bill_district_id"))

    op.drop_table("bill")
    with op.batch_alter_table("property_year", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_property_year_roll_import_id"))
        batch_op.drop_index(batch_op.f("ix_property_year_property_id"))
        batch_op.drop_index(batch_op.f("ix_property_year_fiscal_year"))
        batch_op.drop_index(batch_op.f("ix_property_year_district_id"))

    op.drop_table("property_year")
    with op.batch_alter_table("notice_batch", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_notice_batch_district_id"))

    op.drop_table("notice_batch")
    with op.batch_alter_table("expenditure", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_expenditure_district_id"))

    op.drop_table("expenditure")
    with op.batch_alter_table("roll_import", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_roll_import_district_id"))

    op.drop_table("roll_import")
    with op.batch_alter_table("property_lien", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_property_lien_property_id"))

    op.drop_table("property_lien")
    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_loginsession_user_id"))

    op.drop_table("loginsession")
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_journal_entry_entry_date"))
        batch_op.drop_index(batch_op.f("ix_journal_entry_district_id"))

    op.drop_table("journal_entry")
    with op.batch_alter_table("calendartoken", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_calendartoken_user_id"))

    op.drop_table("calendartoken")
    with op.batch_alter_table("billing_run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_billing_run_status"))
        batch_op.drop_index(batch_op.f("ix_billing_run_ordinance_id"))
        batch_op.drop_index(batch_op.f("ix_billing_run_fiscal_year"))
        batch_op.drop_index(batch_op.f("ix_billing_run_district_id"))

    op.drop_table("billing_run")
    with op.batch_alter_table("auditevent", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auditevent_at"))

    op.drop_table("auditevent")
    op.drop_table("user_account")
    with op.batch_alter_table("property", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_property_district_id"))

    op.drop_table("property")
    with op.batch_alter_table("ordinance", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ordinance_municipality_id"))
        batch_op.drop_index(batch_op.f("ix_ordinance_district_id"))

    op.drop_table("ordinance")
    op.drop_table("late_charge_terms")
    with op.batch_alter_table("finding", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_finding_petition_id"))

    op.drop_table("finding")
    with op.batch_alter_table("bank_balance", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bank_balance_district_id"))

    op.drop_table("bank_balance")
    with op.batch_alter_table("authorized_purpose", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_authorized_purpose_district_id"))

    op.drop_table("authorized_purpose")
    with op.batch_alter_table("petition", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_petition_state"))
        batch_op.drop_index(batch_op.f("ix_petition_municipality_id"))

    op.drop_table("petition")
    with op.batch_alter_table("district", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_district_municipality_id"))

    op.drop_table("district")
    with op.batch_alter_table("portal_attempt", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_portal_attempt_notice_number"))
        batch_op.drop_index(batch_op.f("ix_portal_attempt_client"))
        batch_op.drop_index(batch_op.f("ix_portal_attempt_at"))

    op.drop_table("portal_attempt")
    op.drop_table("municipality")
    op.drop_table("jobrun")
    op.drop_table("archived_document")
