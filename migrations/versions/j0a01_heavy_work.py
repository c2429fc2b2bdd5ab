"""anonymous heavy work under way, one row per client: how many run at once across the web
workers, and one at a time per client

Revision ID: j0a01
Revises: i9f01
Create Date: 2026-12-02 22:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "j0a01"
down_revision: str | None = "i9f01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "heavy_work",
        sa.Column("client", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("token", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("client"),
    )
    op.create_index("ix_heavy_work_until", "heavy_work", ["until"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_heavy_work_until", table_name="heavy_work")
    op.drop_table("heavy_work")
