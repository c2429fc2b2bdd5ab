"""saved reforms: public policy text at a permanent address

Revision ID: k28a01
Revises: k29c01
Create Date: 2026-12-03 07:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k28a01"
down_revision: str | None = "k29c01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "saved_reform",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", sa.String(length=24), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("base_public_id", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=True),
        sa.Column("changes", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saved_reform")),
        sa.UniqueConstraint("public_id", name=op.f("uq_saved_reform_public_id")),
    )


def downgrade() -> None:
    op.drop_table("saved_reform")
