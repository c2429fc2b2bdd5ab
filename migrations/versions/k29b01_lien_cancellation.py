"""a recorded lien may be cancelled (day and reason), and is then no longer ranked

Revision ID: k29b01
Revises: k29a01
Create Date: 2026-12-03 06:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k29b01"
down_revision: str | None = "k29a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("property_lien", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "status",
                sqlmodel.sql.sqltypes.AutoString(length=20),
                nullable=False,
                server_default="recorded",
            )
        )
        batch_op.add_column(sa.Column("cancelled_on", sa.Date(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "cancel_reason",
                sqlmodel.sql.sqltypes.AutoString(length=500),
                nullable=False,
                server_default="",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("property_lien", schema=None) as batch_op:
        batch_op.drop_column("cancel_reason")
        batch_op.drop_column("cancelled_on")
        batch_op.drop_column("status")
