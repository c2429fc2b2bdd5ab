"""a petition's formula studies: proposed formulas tried on a roll, saved with the petition

Revision ID: k28b01
Revises: j1a01
Create Date: 2026-12-03 07:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "k28b01"
down_revision: str | None = "j1a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "formula_study",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("petition_id", sa.Integer(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=True),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("file_name", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("file_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("expected_amount", tid.models.Money(), nullable=False),
        sa.Column("variants", sa.Text(), nullable=False),
        sa.Column("baseline", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("summary", sa.Text(), server_default="{}", nullable=False),
        sa.Column("report_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("property_count", sa.Integer(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_formula_study_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["petition_id"], ["petition.id"], name=op.f("fk_formula_study_petition_id_petition")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_formula_study_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_formula_study")),
    )
    with op.batch_alter_table("formula_study", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_formula_study_petition_id"), ["petition_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("formula_study", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_formula_study_petition_id"))
    op.drop_table("formula_study")
