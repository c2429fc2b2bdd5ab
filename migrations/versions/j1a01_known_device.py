"""browsers that signed in to an account before (their failed sign-ins count apart)

Revision ID: j1a01
Revises: j0a01
Create Date: 2026-12-03 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "j1a01"
down_revision: str | None = "j0a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "known_device",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_known_device_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_known_device")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_known_device_token_hash")),
    )
    with op.batch_alter_table("known_device", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_known_device_user_id"), ["user_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_known_device_last_used_at"), ["last_used_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("known_device", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_known_device_last_used_at"))
        batch_op.drop_index(batch_op.f("ix_known_device_user_id"))
    op.drop_table("known_device")
