"""fiscal year locks of the special account

Revision ID: i13b01
Revises: i13a01
Create Date: 2026-12-01 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "i13b01"
down_revision: str | None = "i13a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "fiscal_year_lock",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("note", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"],
            ["district.id"],
            name=op.f("fk_fiscal_year_lock_district_id_district"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fiscal_year_lock")),
        sa.UniqueConstraint(
            "district_id", "fiscal_year", name=op.f("uq_fiscal_year_lock_district_id_fiscal_year")
        ),
    )
    with op.batch_alter_table("fiscal_year_lock", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_fiscal_year_lock_district_id"), ["district_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("fiscal_year_lock", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_fiscal_year_lock_district_id"))
    op.drop_table("fiscal_year_lock")
