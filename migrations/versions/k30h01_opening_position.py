"""a district's opening position brought from its earlier books: the load, the opened
bills' notices and late charges, the earlier fiscal years' totals

Revision ID: k30h01
Revises: k26c01
Create Date: 2026-12-04 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "k30h01"
down_revision: str | None = "k26c01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "opening_position",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("cut_over", sa.Date(), nullable=False),
        sa.Column("fingerprint", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("files", sa.Text(), nullable=False),
        sa.Column("totals", sa.Text(), nullable=False),
        sa.Column("bills", sa.Integer(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_opening_position_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_opening_position_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_opening_position")),
        sa.UniqueConstraint("district_id", name=op.f("uq_opening_position_district_id")),
    )
    op.create_table(
        "opening_bill",
        sa.Column("bill_id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("cut_over", sa.Date(), nullable=False),
        sa.Column("billed", tid.models.Money(), nullable=False),
        sa.Column("paid", tid.models.Money(), nullable=False),
        sa.Column("late_charges", tid.models.Money(), nullable=False),
        sa.Column("notice_number", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("article_number", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("mailed_on", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(
            ["bill_id"], ["bill.id"], name=op.f("fk_opening_bill_bill_id_bill")
        ),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_opening_bill_district_id_district")
        ),
        sa.PrimaryKeyConstraint("bill_id", name=op.f("pk_opening_bill")),
    )
    op.create_index(
        "ix_opening_bill_district_id_notice_number",
        "opening_bill",
        ["district_id", "notice_number"],
        unique=False,
    )
    op.create_table(
        "opening_year",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("billed", tid.models.Money(), nullable=False),
        sa.Column("collected", tid.models.Money(), nullable=False),
        sa.Column("admin_spending", tid.models.Money(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_opening_year_district_id_district")
        ),
        sa.PrimaryKeyConstraint("district_id", "fiscal_year", name=op.f("pk_opening_year")),
    )


def downgrade() -> None:
    op.drop_table("opening_year")
    op.drop_index("ix_opening_bill_district_id_notice_number", table_name="opening_bill")
    op.drop_table("opening_bill")
    op.drop_table("opening_position")
