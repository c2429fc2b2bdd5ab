"""request_count: the public calculators' rate limit, counted per client and minute

Revision ID: i08_request_count
Revises: 64fa764bb8d9
Create Date: 2026-12-01 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "i08_request_count"
down_revision: str | None = "64fa764bb8d9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "request_count",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("window", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "window", name=op.f("pk_request_count")),
    )


def downgrade() -> None:
    op.drop_table("request_count")
