"""an ordinance's formula keeps its named parameters and their values

Revision ID: k25a01
Revises: k28a01
Create Date: 2026-12-03 06:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "k25a01"
down_revision: str | None = "k28a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ordinance", schema=None) as batch_op:
        batch_op.add_column(sa.Column("parameters", sa.Text(), server_default="{}", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("ordinance", schema=None) as batch_op:
        batch_op.drop_column("parameters")
