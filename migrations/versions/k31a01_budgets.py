"""the district's budgets: a fiscal year's budget by authorized purpose, its lines, the
commitments against them and its history

Revision ID: k31a01
Revises: k30i01
Create Date: 2026-12-05 01:33:48.127965
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "k31a01"
down_revision: str | None = "k30i01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "budget",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("billed", tid.models.Money(), nullable=False),
        sa.Column("collection_rate", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("rate_reason", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("expected_collections", tid.models.Money(), nullable=False),
        sa.Column("other_income", tid.models.Money(), nullable=False),
        sa.Column("carry_over", tid.models.Money(), nullable=False),
        sa.Column("approved_on", sa.Date(), nullable=True),
        sa.Column("minutes", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("amendments", sa.Integer(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_budget_district_id_district")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_budget")),
        sa.UniqueConstraint(
            "district_id", "fiscal_year", name=op.f("uq_budget_district_id_fiscal_year")
        ),
    )
    with op.batch_alter_table("budget", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_budget_district_id"), ["district_id"], unique=False)

    op.create_table(
        "budget_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("budget_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("changed_on", sa.Date(), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("figures", sa.Text(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["budget_id"], ["budget.id"], name=op.f("fk_budget_change_budget_id_budget")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_budget_change")),
    )
    with op.batch_alter_table("budget_change", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_budget_change_budget_id"), ["budget_id"], unique=False)

    op.create_table(
        "budget_line",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("budget_id", sa.Integer(), nullable=False),
        sa.Column("purpose_id", sa.Integer(), nullable=True),
        sa.Column("administrative", sa.Boolean(), nullable=False),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.ForeignKeyConstraint(
            ["budget_id"], ["budget.id"], name=op.f("fk_budget_line_budget_id_budget")
        ),
        sa.ForeignKeyConstraint(
            ["purpose_id"],
            ["authorized_purpose.id"],
            name=op.f("fk_budget_line_purpose_id_authorized_purpose"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_budget_line")),
        sa.UniqueConstraint(
            "budget_id",
            "purpose_id",
            "administrative",
            name=op.f("uq_budget_line_budget_id_purpose_id_administrative"),
        ),
    )
    with op.batch_alter_table("budget_line", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_budget_line_budget_id"), ["budget_id"], unique=False)

    op.create_table(
        "budget_commitment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("budget_line_id", sa.Integer(), nullable=False),
        sa.Column("committed_on", sa.Date(), nullable=False),
        sa.Column("payee", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("settled_on", sa.Date(), nullable=True),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["budget_line_id"],
            ["budget_line.id"],
            name=op.f("fk_budget_commitment_budget_line_id_budget_line"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_budget_commitment")),
    )
    with op.batch_alter_table("budget_commitment", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_budget_commitment_budget_line_id"), ["budget_line_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("budget_commitment", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_budget_commitment_budget_line_id"))

    op.drop_table("budget_commitment")
    with op.batch_alter_table("budget_line", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_budget_line_budget_id"))

    op.drop_table("budget_line")
    with op.batch_alter_table("budget_change", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_budget_change_budget_id"))

    op.drop_table("budget_change")
    with op.batch_alter_table("budget", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_budget_district_id"))

    op.drop_table("budget")
