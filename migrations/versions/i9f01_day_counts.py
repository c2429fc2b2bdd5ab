"""the journal's entries counted per day and kind (journal_day) and the bills owed counted per
due date with what they owe (owed_day), written with each entry: a page of the journal counts
a year's entries, and the delinquency and the aging count and total what is owed, from a row
a day instead of one an entry or a bill

Revision ID: i9f01
Revises: i9e01
Create Date: 2026-12-02 05:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "i9f01"
down_revision: str | None = "i9e01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "journal_day",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
        sa.Column("entries", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_journal_day_district_id_district")
        ),
        sa.PrimaryKeyConstraint("district_id", "day", "kind", name=op.f("pk_journal_day")),
    )
    op.create_table(
        "owed_day",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=False),
        sa.Column("bills", sa.BigInteger(), nullable=False),
        sa.Column("receivable", tid.models.Money(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_owed_day_district_id_district")
        ),
        sa.PrimaryKeyConstraint("district_id", "due_date", name=op.f("pk_owed_day")),
    )
    # From the journal and the running balances already there.
    op.execute(
        "INSERT INTO journal_day (district_id, day, kind, entries) "
        "SELECT district_id, entry_date, kind, COUNT(*) FROM journal_entry "
        "GROUP BY district_id, entry_date, kind"
    )
    op.execute(
        "INSERT INTO owed_day (district_id, due_date, bills, receivable) "
        "SELECT district_id, due_date, COUNT(*), SUM(receivable) FROM bill_ledger "
        "WHERE receivable > 0 GROUP BY district_id, due_date"
    )


def downgrade() -> None:
    op.drop_table("owed_day")
    op.drop_table("journal_day")
