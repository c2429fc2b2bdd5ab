"""the journal's entries keep one index on district and booking date: the ones on the district
alone and on the date alone are its prefix or led PostgreSQL's planner to sort a whole day's
entries (a billing run's 20,000) for a page of 25

Revision ID: i9e01
Revises: i9d01
Create Date: 2026-12-02 03:10:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "i9e01"
down_revision: str | None = "i9d01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.drop_index("ix_journal_entry_entry_date")
        batch_op.drop_index("ix_journal_entry_district_id")


def downgrade() -> None:
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.create_index("ix_journal_entry_district_id", ["district_id"], unique=False)
        batch_op.create_index("ix_journal_entry_entry_date", ["entry_date"], unique=False)
