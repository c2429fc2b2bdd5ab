"""the running balance of each bill keeps the bill's due date, and an index of the bills with
something owed in the delinquency's order (its pages, count and total read from the index)

Revision ID: i9c01
Revises: i9b01
Create Date: 2026-12-01 17:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "i9c01"
down_revision: str | None = "i9b01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("bill_ledger", schema=None) as batch_op:
        batch_op.add_column(sa.Column("due_date", sa.Date(), nullable=True))
    op.execute(
        "UPDATE bill_ledger SET due_date = "
        "(SELECT bill.due_date FROM bill WHERE bill.id = bill_ledger.bill_id)"
    )
    with op.batch_alter_table("bill_ledger", schema=None) as batch_op:
        batch_op.alter_column("due_date", existing_type=sa.Date(), nullable=False)
        batch_op.create_index(
            "ix_bill_ledger_owed",
            ["district_id", "due_date", "bill_id", "receivable"],
            unique=False,
            postgresql_where=sa.text("receivable > 0"),
            sqlite_where=sa.text("receivable > 0"),
        )


def downgrade() -> None:
    with op.batch_alter_table("bill_ledger", schema=None) as batch_op:
        batch_op.drop_index("ix_bill_ledger_owed")
        batch_op.drop_column("due_date")
