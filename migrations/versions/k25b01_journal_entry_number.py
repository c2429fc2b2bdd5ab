"""each journal entry's number in its district's journal, in the order booked

Revision ID: k25b01
Revises: k26a01
Create Date: 2026-12-03 09:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import tid.models

revision: str = "k25b01"
down_revision: str | None = "k29d01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The entries already booked are numbered 1, 2, 3… in each district in the order they were
# booked (their ids). The journal refuses UPDATE: its guard is lifted for this one statement
# and put back at once, in the same transaction.
_NUMBER = (
    "UPDATE journal_entry SET number = numbered.n FROM ("
    "SELECT id, row_number() OVER (PARTITION BY district_id ORDER BY id) AS n "
    "FROM journal_entry) AS numbered WHERE numbered.id = journal_entry.id"
)


def upgrade() -> None:
    bind = op.get_bind()
    op.add_column("journal_entry", sa.Column("number", sa.Integer(), nullable=True))
    for statement in tid.models.JOURNAL_TRIGGERS_DROP_SQL.get(bind.dialect.name, ()):
        op.execute(statement)
    op.execute(_NUMBER)
    for statement in tid.models.JOURNAL_TRIGGERS_SQL.get(bind.dialect.name, ()):
        op.execute(statement)
    op.create_index(
        "ix_journal_entry_district_id_number",
        "journal_entry",
        ["district_id", "number"],
        unique=True,
    )


def downgrade() -> None:
    bind = op.get_bind()
    op.drop_index("ix_journal_entry_district_id_number", table_name="journal_entry")
    for statement in tid.models.JOURNAL_TRIGGERS_DROP_SQL.get(bind.dialect.name, ()):
        op.execute(statement)
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.drop_column("number")
    for statement in tid.models.JOURNAL_TRIGGERS_SQL.get(bind.dialect.name, ()):
        op.execute(statement)
