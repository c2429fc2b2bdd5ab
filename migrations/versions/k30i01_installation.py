"""the scheduler's heartbeat and the last verdicts of the installation's slow checks

Revision ID: k30i01
Revises: k30h01
Create Date: 2026-12-04 23:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k30i01"
down_revision: str | None = "k30h01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "scheduler_heartbeat",
        sa.Column("scheduler", sa.String(length=120), nullable=False),
        sa.Column("host", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("seen_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("scheduler", name=op.f("pk_scheduler_heartbeat")),
    )
    with op.batch_alter_table("scheduler_heartbeat", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_scheduler_heartbeat_seen_at"), ["seen_at"], unique=False
        )
    op.create_table(
        "installation_check",
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("checked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("said", sa.Text(), server_default="{}", nullable=False),
        sa.Column("fix", sa.Text(), server_default="{}", nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_installation_check")),
    )


def downgrade() -> None:
    op.drop_table("installation_check")
    with op.batch_alter_table("scheduler_heartbeat", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_scheduler_heartbeat_seen_at"))
    op.drop_table("scheduler_heartbeat")
