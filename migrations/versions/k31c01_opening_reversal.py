"""an opening position may be reversed as one (when, by whom, why) and a corrected one booked
after it; a lien brought by an opening position names it

Revision ID: k31c01
Revises: k31e01
Create Date: 2026-12-05 01:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k31c01"
down_revision: str | None = "k31e01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("opening_position", schema=None) as batch_op:
        batch_op.drop_constraint("uq_opening_position_district_id", type_="unique")
        batch_op.create_index(
            batch_op.f("ix_opening_position_district_id"), ["district_id"], unique=False
        )
        batch_op.add_column(
            sa.Column("reversed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        batch_op.add_column(
            sa.Column(
                "reversed_by",
                sqlmodel.sql.sqltypes.AutoString(length=254),
                nullable=False,
                server_default="",
            )
        )
        batch_op.add_column(
            sa.Column("reversal_reason", sa.Text(), nullable=False, server_default="")
        )
    with op.batch_alter_table("property_lien", schema=None) as batch_op:
        batch_op.add_column(sa.Column("opening_position_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_property_lien_opening_position_id_opening_position"),
            "opening_position",
            ["opening_position_id"],
            ["id"],
        )


def downgrade() -> None:
    with op.batch_alter_table("property_lien", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_property_lien_opening_position_id_opening_position"),
            type_="foreignkey",
        )
        batch_op.drop_column("opening_position_id")
    with op.batch_alter_table("opening_position", schema=None) as batch_op:
        batch_op.drop_column("reversal_reason")
        batch_op.drop_column("reversed_by")
        batch_op.drop_column("reversed_at")
        batch_op.drop_index(batch_op.f("ix_opening_position_district_id"))
        batch_op.create_unique_constraint("uq_opening_position_district_id", ["district_id"])
