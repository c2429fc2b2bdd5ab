"""running balances of the special account (ledger_day, bill_ledger, ledger_state) and the
indexes the account pages read by; the balances are computed from the journal already there

Revision ID: i9a01
Revises: i13b01
Create Date: 2026-12-01 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "i9a01"
down_revision: str | None = "i13b01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ledger_day",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("account", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("amount", tid.models.Money(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_ledger_day_district_id_district")
        ),
        sa.PrimaryKeyConstraint("district_id", "account", "day", name=op.f("pk_ledger_day")),
    )
    op.create_table(
        "bill_ledger",
        sa.Column("bill_id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("receivable", tid.models.Money(), nullable=False),
        sa.Column("owner_credit", tid.models.Money(), nullable=False),
        sa.ForeignKeyConstraint(["bill_id"], ["bill.id"], name=op.f("fk_bill_ledger_bill_id_bill")),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_bill_ledger_district_id_district")
        ),
        sa.PrimaryKeyConstraint("bill_id", name=op.f("pk_bill_ledger")),
    )
    with op.batch_alter_table("bill_ledger", schema=None) as batch_op:
        batch_op.create_index(
            "ix_bill_ledger_district_id_receivable", ["district_id", "receivable"], unique=False
        )
    op.create_table(
        "ledger_state",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("bills_through", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_ledger_state_district_id_district")
        ),
        sa.PrimaryKeyConstraint("district_id", name=op.f("pk_ledger_state")),
    )
    with op.batch_alter_table("bill", schema=None) as batch_op:
        batch_op.create_index("ix_bill_district_id_id", ["district_id", "id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_bill_superseded_by_id"), ["superseded_by_id"], unique=False
        )
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.create_index(
            "ix_journal_entry_district_id_entry_date_id",
            ["district_id", "entry_date", "id"],
            unique=False,
        )
    # The running balances of the journal already booked (ledger_state starts at 0: the next
    # posting of each district looks once at all its bills).
    op.execute(
        "INSERT INTO ledger_day (district_id, account, day, amount) "
        "SELECT e.district_id, l.account, e.entry_date, SUM(l.amount) "
        "FROM journal_line l JOIN journal_entry e ON e.id = l.entry_id "
        "GROUP BY e.district_id, l.account, e.entry_date"
    )
    op.execute(
        "INSERT INTO bill_ledger (bill_id, district_id, receivable, owner_credit) "
        "SELECT l.bill_id, MIN(e.district_id), "
        "SUM(CASE WHEN l.account = 'receivable' THEN l.amount ELSE 0 END), "
        "SUM(CASE WHEN l.account = 'owner_credit' THEN l.amount ELSE 0 END) "
        "FROM journal_line l JOIN journal_entry e ON e.id = l.entry_id "
        "WHERE l.bill_id IS NOT NULL AND l.account IN ('receivable', 'owner_credit') "
        "GROUP BY l.bill_id"
    )


def downgrade() -> None:
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.drop_index("ix_journal_entry_district_id_entry_date_id")
    with op.batch_alter_table("bill", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bill_superseded_by_id"))
        batch_op.drop_index("ix_bill_district_id_id")
    op.drop_table("ledger_state")
    with op.batch_alter_table("bill_ledger", schema=None) as batch_op:
        batch_op.drop_index("ix_bill_ledger_district_id_receivable")
    op.drop_table("bill_ledger")
    op.drop_table("ledger_day")
