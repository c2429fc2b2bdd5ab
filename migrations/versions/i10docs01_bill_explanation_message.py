"""each bill's explanation as a message, rendered in its reader's language

Revision ID: i10docs01
Revises: i10one01
Create Date: 2026-12-01 20:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i10docs01"
down_revision: str | None = "i10one01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("bill", schema=None) as batch_op:
        batch_op.add_column(sa.Column("explanation_message", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bill", schema=None) as batch_op:
        batch_op.drop_column("explanation_message")
