"""the notices' "how to pay" in English, for the English page

Revision ID: i10one01
Revises: i11p01
Create Date: 2026-12-01 17:05:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i10one01"
down_revision: str | None = "i11p01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("notice_batch", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("how_to_pay_en", sa.Text(), server_default="", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("notice_batch", schema=None) as batch_op:
        batch_op.drop_column("how_to_pay_en")
