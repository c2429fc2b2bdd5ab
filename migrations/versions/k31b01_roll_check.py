"""the roll's yearly check: its changes, the district's setting, the verified statement

Revision ID: k31b01
Revises: k31a01
Create Date: 2026-12-05 01:34:44.714603
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "k31b01"
down_revision: str | None = "k31a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "roll_check_setting",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("threshold_percent", sa.Integer(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"],
            ["district.id"],
            name=op.f("fk_roll_check_setting_district_id_district"),
        ),
        sa.PrimaryKeyConstraint("district_id", name=op.f("pk_roll_check_setting")),
    )
    op.create_table(
        "roll_statement",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("reference", sa.String(length=30), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("signed_by", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("signed_on", sa.Date(), nullable=False),
        sa.Column("checked", sa.Boolean(), nullable=False),
        sa.Column("properties", sa.Integer(), nullable=False),
        sa.Column("assessed_value", tid.models.column_types.Money(), nullable=False),
        sa.Column("billed_count", sa.Integer(), nullable=False),
        sa.Column("billed_total", tid.models.column_types.Money(), nullable=False),
        sa.Column("expected_amount", tid.models.column_types.Money(), nullable=False),
        sa.Column("figures", sa.Text(), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_roll_statement_district_id_district")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roll_statement")),
        sa.UniqueConstraint("code", name=op.f("uq_roll_statement_code")),
        sa.UniqueConstraint("reference", name=op.f("uq_roll_statement_reference")),
    )
    with op.batch_alter_table("roll_statement", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_roll_statement_district_id"), ["district_id"], unique=False
        )

    op.create_table(
        "roll_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("roll_import_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("number", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("numbers_before", sa.Text(), nullable=False),
        sa.Column("numbers_after", sa.Text(), nullable=False),
        sa.Column("before", sa.Text(), nullable=False),
        sa.Column("after", sa.Text(), nullable=False),
        sa.Column("impost_before", tid.models.column_types.Money(), nullable=True),
        sa.Column("impost_after", tid.models.column_types.Money(), nullable=True),
        sa.Column("owed", tid.models.column_types.Money(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("treatment", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column("answered_by", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("answered_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("corrected_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_roll_change_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["roll_import_id"],
            ["roll_import.id"],
            name=op.f("fk_roll_change_roll_import_id_roll_import"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roll_change")),
    )
    with op.batch_alter_table("roll_change", schema=None) as batch_op:
        batch_op.create_index(
            "ix_roll_change_district_id_fiscal_year",
            ["district_id", "fiscal_year", "status"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("roll_change", schema=None) as batch_op:
        batch_op.drop_index("ix_roll_change_district_id_fiscal_year")

    op.drop_table("roll_change")
    with op.batch_alter_table("roll_statement", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_roll_statement_district_id"))

    op.drop_table("roll_statement")
    op.drop_table("roll_check_setting")
