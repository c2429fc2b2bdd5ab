"""notice runs numbered per district; the return-receipt fee of a run

Revision ID: i11p01
Revises: i9c01
Create Date: 2026-12-01 16:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i11p01"
down_revision: str | None = "i9c01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("notice_batch", schema=None) as batch_op:
        batch_op.add_column(sa.Column("number", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("return_receipt_fee", sa.BigInteger(), nullable=True))
    # Existing runs are numbered 1, 2, … per district in the order they were made; their ids
    # (in URLs, file names, the audit trail and archived manifests) do not change.
    op.execute(
        "UPDATE notice_batch SET number = (SELECT COUNT(*) FROM notice_batch AS earlier "
        "WHERE earlier.district_id = notice_batch.district_id AND earlier.id <= notice_batch.id)"
    )
    with op.batch_alter_table("notice_batch", schema=None) as batch_op:
        batch_op.alter_column("number", existing_type=sa.Integer(), nullable=False)
        batch_op.create_unique_constraint(
            batch_op.f("uq_notice_batch_district_id_number"), ["district_id", "number"]
        )


def downgrade() -> None:
    with op.batch_alter_table("notice_batch", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_notice_batch_district_id_number"), type_="unique")
        batch_op.drop_column("return_receipt_fee")
        batch_op.drop_column("number")
