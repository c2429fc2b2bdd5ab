"""a property's changes of owner, recorded or found by a roll import

Revision ID: k29c01
Revises: k29b01
Create Date: 2026-12-03 06:35:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k29c01"
down_revision: str | None = "k29b01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ownership_transfer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("transferred_on", sa.Date(), nullable=False),
        sa.Column(
            "previous_owner_names", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False
        ),
        sa.Column(
            "previous_mailing_address",
            sqlmodel.sql.sqltypes.AutoString(length=800),
            nullable=False,
        ),
        sa.Column("new_owner_names", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column(
            "new_mailing_address", sqlmodel.sql.sqltypes.AutoString(length=800), nullable=False
        ),
        sa.Column("note", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("roll_import_id", sa.Integer(), nullable=True),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"],
            ["district.id"],
            name=op.f("fk_ownership_transfer_district_id_district"),
        ),
        sa.ForeignKeyConstraint(
            ["property_id"],
            ["property.id"],
            name=op.f("fk_ownership_transfer_property_id_property"),
        ),
        sa.ForeignKeyConstraint(
            ["roll_import_id"],
            ["roll_import.id"],
            name=op.f("fk_ownership_transfer_roll_import_id_roll_import"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ownership_transfer")),
        sa.UniqueConstraint(
            "property_id",
            "roll_import_id",
            name=op.f("uq_ownership_transfer_property_id_roll_import_id"),
        ),
    )
    with op.batch_alter_table("ownership_transfer", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ownership_transfer_district_id"), ["district_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_ownership_transfer_property_id"), ["property_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("ownership_transfer", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ownership_transfer_property_id"))
        batch_op.drop_index(batch_op.f("ix_ownership_transfer_district_id"))
    op.drop_table("ownership_transfer")
